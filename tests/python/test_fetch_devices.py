"""InferenceSession.run_with_ortvaluevector's fetch_devices: each output is
placed on the device asked for (the sandbox plugin's "gpu" memory stands in
for a device on machines without one)."""
import os

import numpy as np
import pytest

import tessera as ort
from tessera.capi import _pybind_state as C

CUDA_HERE = "CUDAExecutionProvider" in ort.get_available_providers()
SANDBOX = os.path.join(os.path.dirname(ort.__file__), "..", "..", "libtessera_sandbox_ep.so")


@pytest.fixture
def sandbox():
    name = ort.register_execution_provider_library("py-sandbox-fetch", SANDBOX)
    yield name
    ort.unregister_execution_provider_library("py-sandbox-fetch")


def run(sess, fetch_names, devices):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    feeds = ort.OrtValueVector()
    feeds.push_back(ort.OrtValue.ortvalue_from_numpy(x))
    feeds.push_back(ort.OrtValue.ortvalue_from_numpy(np.ones((2, 3), np.float32)))
    fetches = ort.OrtValueVector()
    sess.run_with_ortvaluevector(ort.RunOptions(), ["x", "y"], feeds, fetch_names, fetches,
                                 devices)
    return x, fetches


@pytest.mark.skipif(CUDA_HERE, reason="the CUDA provider serves 'gpu' memory on this machine")
def test_outputs_are_placed_on_the_devices_asked(add_mul_model, sandbox):
    sess = ort.InferenceSession(add_mul_model, providers=[sandbox, "CPUExecutionProvider"])
    gpu = C.OrtDevice(C.OrtDevice.gpu(), C.OrtDevice.default_memory(), 0)
    cpu = C.OrtDevice(C.OrtDevice.cpu(), C.OrtDevice.default_memory(), 0)
    x, fetches = run(sess, ["sum", "prod"], [gpu, cpu])
    assert [v.device_name() for v in fetches] == ["gpu", "cpu"]
    np.testing.assert_array_equal(fetches[0].numpy(), x + 1)  # copied back on request
    np.testing.assert_array_equal(fetches[1].numpy(), x * [1, 2, 3])
    # No fetch names: every output, in the model's order, one device each.
    _, fetches = run(sess, [], [cpu, gpu])
    assert [v.device_name() for v in fetches] == ["cpu", "gpu"]
    np.testing.assert_array_equal(fetches[1].numpy(), x * [1, 2, 3])


def test_one_device_per_fetch(add_mul_model):
    sess = ort.InferenceSession(add_mul_model, providers=["CPUExecutionProvider"])
    cpu = C.OrtDevice(C.OrtDevice.cpu(), C.OrtDevice.default_memory(), 0)
    with pytest.raises(ValueError, match="fetch_devices has 1 devices but 2 outputs are fetched"):
        run(sess, ["sum", "prod"], [cpu])
    x, fetches = run(sess, ["prod"], [cpu])
    assert fetches[0].device_name() == "cpu"
    np.testing.assert_array_equal(fetches[0].numpy(), x * [1, 2, 3])
