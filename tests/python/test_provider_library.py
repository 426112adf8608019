"""Provider plugins from Python: the sandbox plugin built beside the package
(build/libtessera_sandbox_ep.so) runs a model with the CPU provider."""
import os

import numpy as np
import pytest

import tessera

# On a machine where the CUDA provider runs, 'gpu'/'cuda' memory is its own:
# the checks below of a device no provider serves (or the sandbox's) do not apply.
CUDA_HERE = "CUDAExecutionProvider" in tessera.get_available_providers()
CUDA_REASON = "the CUDA provider serves 'gpu'/'cuda' memory on this machine"

SANDBOX = os.path.join(os.path.dirname(tessera.__file__), "..", "..", "libtessera_sandbox_ep.so")


def test_sandbox_plugin_runs_a_model_like_the_cpu(add_mul_model):
    assert os.path.exists(SANDBOX), "the build makes the sandbox plugin beside python/"
    name = tessera.register_execution_provider_library("py-sandbox", SANDBOX)
    try:
        assert name == "SandboxExecutionProvider"
        assert name in tessera.get_available_providers()
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        y = np.ones((2, 3), dtype=np.float32)
        s = tessera.InferenceSession(add_mul_model, providers=[name, "CPUExecutionProvider"])
        assert s.get_providers()[0] == name
        got = s.run(None, {"x": x, "y": y})
        np.testing.assert_allclose(got[0], x + y)
        np.testing.assert_allclose(got[1], x * np.array([1, 2, 3], dtype=np.float32))
    finally:
        tessera.unregister_execution_provider_library("py-sandbox")
    assert name not in tessera.get_available_providers()


def test_missing_plugin_path_is_a_clear_error():
    with pytest.raises(tessera.NoSuchFile, match="does-not-exist.so"):
        tessera.register_execution_provider_library("missing", "/tmp/does-not-exist.so")


@pytest.fixture
def sandbox():
    name = tessera.register_execution_provider_library("py-sandbox-dev", SANDBOX)
    yield name
    tessera.unregister_execution_provider_library("py-sandbox-dev")


@pytest.mark.skipif(CUDA_HERE, reason=CUDA_REASON)
def test_ortvalues_live_on_the_sandbox_gpu(sandbox):
    gpus = [d for d in tessera.get_ep_devices() if d.ep_name == sandbox]
    assert gpus and gpus[0].device.type == tessera.OrtHardwareDeviceType.GPU
    assert gpus[0].device.vendor_id == 0x5A0B  # the sandbox's own vendor
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = tessera.OrtValue.ortvalue_from_numpy(a, "gpu", 0)
    assert v.device_name() == "gpu"
    assert v.data_ptr() != a.ctypes.data  # copied into device memory
    np.testing.assert_array_equal(v.numpy(), a)  # and copied back on request
    z = tessera.OrtValue.ortvalue_from_shape_and_type([3], np.int64, "gpu", 0)
    assert z.device_name() == "gpu"
    np.testing.assert_array_equal(z.numpy(), [0, 0, 0])
    with pytest.raises(tessera.NotImplemented, match="only host memory"):
        v.__dlpack__()
    with pytest.raises(tessera.NotImplemented, match="only host memory"):
        v.__dlpack_device__()


@pytest.mark.skipif(CUDA_HERE, reason=CUDA_REASON)
def test_iobinding_keeps_outputs_on_the_sandbox_gpu(sandbox, add_mul_model):
    s = tessera.InferenceSession(add_mul_model, providers=[sandbox, "CPUExecutionProvider"])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.ones((2, 3), dtype=np.float32)
    b = s.io_binding()
    b.bind_ortvalue_input("x", tessera.OrtValue.ortvalue_from_numpy(x, "gpu", 0))
    b.bind_cpu_input("y", y)
    b.bind_output("sum", "gpu", 0)
    device_out = tessera.OrtValue.ortvalue_from_shape_and_type([2, 3], np.float32, "gpu", 0)
    b.bind_ortvalue_output("prod", device_out)
    b.synchronize_inputs()
    s.run_with_iobinding(b)
    b.synchronize_outputs()
    outs = b.get_outputs()
    assert [o.device_name() for o in outs] == ["gpu", "gpu"]
    assert outs[1] is device_out
    got = b.copy_outputs_to_cpu()
    np.testing.assert_array_equal(got[0], x + y)
    np.testing.assert_array_equal(got[1], x * np.array([1, 2, 3], dtype=np.float32))
    np.testing.assert_array_equal(device_out.numpy(), got[1])
