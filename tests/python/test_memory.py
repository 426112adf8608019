"""Devices, the provider selection policy and OrtValue placement."""

import numpy as np
import pytest

import tessera as ort

# On a machine where the CUDA provider runs, 'gpu'/'cuda' memory is its own:
# the checks below of a device no provider serves (or the sandbox's) do not apply.
CUDA_HERE = "CUDAExecutionProvider" in ort.get_available_providers()
CUDA_REASON = "the CUDA provider serves 'gpu'/'cuda' memory on this machine"

X = np.arange(6, dtype=np.float32).reshape(2, 3)
Y = np.ones((2, 3), dtype=np.float32)


def test_ep_devices_list_the_cpu():
    pairs = ort.get_ep_devices()
    assert all(isinstance(p, ort.OrtEpDevice) for p in pairs)
    cpu = [p for p in pairs if p.ep_name == "CPUExecutionProvider"]
    assert len(cpu) == 1
    assert isinstance(cpu[0].device, ort.OrtHardwareDevice)
    assert cpu[0].device.type == ort.OrtHardwareDeviceType.CPU
    assert cpu[0].device.device_id == 0
    assert "CPU" in cpu[0].memory_info
    # Every pair names a provider this build can create here.
    assert {p.ep_name for p in pairs} <= set(ort.get_available_providers())


def test_selection_policy_picks_the_providers(add_mul_model):
    so = ort.SessionOptions()
    assert so.get_provider_selection_policy() == ort.OrtExecutionProviderDevicePolicy.DEFAULT
    so.set_provider_selection_policy(ort.OrtExecutionProviderDevicePolicy.PREFER_CPU)
    assert so.get_provider_selection_policy() == ort.OrtExecutionProviderDevicePolicy.PREFER_CPU
    s = ort.InferenceSession(add_mul_model, so)
    cpu_eps = {p.ep_name for p in ort.get_ep_devices()
               if p.device.type == ort.OrtHardwareDeviceType.CPU}
    assert s.get_providers()[-1] == "CPUExecutionProvider"
    assert set(s.get_providers()) <= cpu_eps
    np.testing.assert_array_equal(s.run(["sum"], {"x": X, "y": Y})[0], X + Y)
    with pytest.raises(ort.InvalidArgument, match="selection policy 'prefer CPU'"):
        ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])


@pytest.mark.skipif(CUDA_HERE, reason=CUDA_REASON)
def test_ortvalue_device_placement():
    v = ort.OrtValue.ortvalue_from_numpy(X, "cpu", 0)
    assert v.device_name() == "cpu"
    np.testing.assert_array_equal(v.numpy(), X)
    with pytest.raises(ort.EPFail, match="'gpu' is not available in this build \\(id 0\\)"):
        ort.OrtValue.ortvalue_from_numpy(X, "gpu", 0)
    with pytest.raises(ort.EPFail, match="'npu' is not available in this build \\(id 2\\)"):
        ort.OrtValue.ortvalue_from_shape_and_type([2], np.float32, "npu", 2)
    with pytest.raises(ort.InvalidArgument, match="unknown device type 'tpu'"):
        ort.OrtValue.ortvalue_from_numpy(X, "tpu", 0)


def test_ortmemtype_values():
    assert ort.OrtMemType.CPU_INPUT == -2
    assert ort.OrtMemType.CPU_OUTPUT == -1
    assert ort.OrtMemType.DEFAULT == 0


def test_add_initializer_uses_the_callers_memory(add_mul_model):
    w = np.array([5, 6, 7], dtype=np.float32)
    so = ort.SessionOptions()
    so.add_initializer("w", ort.OrtValue.ortvalue_from_numpy(w))
    s = ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(s.run(["prod"], {"x": X, "y": Y})[0], X * w)
    # Not copied: the session reads the caller's buffer (which must stay unchanged
    # in real use; changing it here proves there is no copy).
    w[:] = [1, 1, 1]
    np.testing.assert_array_equal(s.run(["prod"], {"x": X, "y": Y})[0], X)
