"""Provider plugins from Python: the sandbox plugin built beside the package
(build/libtessera_sandbox_ep.so) runs a model with the CPU provider."""
import os

import numpy as np
import pytest

import tessera

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
