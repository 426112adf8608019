"""The ONNX backend API (onnx.backend.base) over InferenceSession, as
onnxruntime.backend: prepare(model) -> a rep whose run(inputs) returns the
outputs; run(model, inputs) does both; supports_device('CPU')."""

from .backend import (  # noqa: F401
    OnnxRuntimeBackend, is_compatible, prepare, run, run_model, supports_device)
from .backend_rep import OnnxRuntimeBackendRep  # noqa: F401
