"""onnxruntime.capi's layout, for scripts that import from it."""

from . import _pybind_state, onnxruntime_inference_collection, onnxruntime_pybind11_state  # noqa: F401
