"""onnxruntime.backend.backend: the ONNX backend API over InferenceSession."""

import os
import unittest

import onnx
from onnx.backend.base import Backend
from onnx.checker import check_model

from .. import _C
from .._session import InferenceSession
from .backend_rep import OnnxRuntimeBackendRep

# SessionOptions attributes prepare() sets from keyword arguments. The others
# are refused: optimized_model_filepath, profile_file_prefix and
# enable_profiling would let a caller's keywords write files.
ALLOWED_SESSION_OPTIONS = frozenset({
    "enable_cpu_mem_arena", "enable_mem_pattern", "enable_mem_reuse", "execution_mode",
    "execution_order", "graph_optimization_level", "inter_op_num_threads",
    "intra_op_num_threads", "log_severity_level", "log_verbosity_level", "logid",
    "use_deterministic_compute", "use_per_session_threads"})


def apply_options(options, kwargs, allowed, what):
    """Sets the keyword arguments that name attributes of `options`: an
    allowed one is set, any other attribute raises RuntimeError, and a
    keyword that is no attribute at all is ignored."""
    for key, value in kwargs.items():
        if not hasattr(options, key):
            continue
        if key not in allowed:
            raise RuntimeError(
                "%s attribute '%s' is not permitted via the backend API. Allowed attributes: %s"
                % (what, key, ", ".join(sorted(allowed))))
        setattr(options, key, value)


class OnnxRuntimeBackend(Backend):
    """prepare / run_model / supports_device for ONNX's backend test runner."""

    allowReleasedOpsetsOnly = bool(os.getenv("ALLOW_RELEASED_ONNX_OPSET_ONLY", "1") == "1")  # noqa: N815

    @classmethod
    def is_compatible(cls, model, device=None, **kwargs):
        return cls.supports_device(device)

    @classmethod
    def is_opset_supported(cls, model):
        """(True, '') when every opset the model imports is one the installed
        onnx package has released; otherwise (False, why)."""
        if not cls.allowReleasedOpsetsOnly:
            return True, ""
        released = {"": onnx.defs.onnx_opset_version(), "ai.onnx": onnx.defs.onnx_opset_version()}
        for opset in model.opset_import:
            limit = released.get(opset.domain)
            if limit is not None and opset.version > limit:
                return False, ("Skipping this test as only released onnx opsets are supported. "
                               "To run this test set env variable ALLOW_RELEASED_ONNX_OPSET_ONLY"
                               " to 0. Got Domain '%s' version '%d'." % (opset.domain,
                                                                        opset.version))
        return True, ""

    @classmethod
    def supports_device(cls, device):
        """Whether this build runs on `device` ('CPU'; 'CUDA' means 'GPU')."""
        if device == "CUDA":
            device = "GPU"
        return "-" + device in _C.get_device() or device + "-" in _C.get_device() \
            or device == _C.get_device()

    @classmethod
    def prepare(cls, model, device=None, **kwargs):
        """model: a ModelProto, a path, bytes, an InferenceSession or a rep.
        Keyword arguments set the SessionOptions attributes of those names
        that ALLOWED_SESSION_OPTIONS lists (others raise RuntimeError)."""
        if isinstance(model, OnnxRuntimeBackendRep):
            return model
        if isinstance(model, InferenceSession):
            return OnnxRuntimeBackendRep(model)
        if isinstance(model, (str, bytes)):
            options = _C.SessionOptions()
            apply_options(options, kwargs, ALLOWED_SESSION_OPTIONS, "SessionOptions")
            excluded = os.getenv("ORT_ONNX_BACKEND_EXCLUDE_PROVIDERS", default="").split(",")
            providers = [p for p in _C.get_available_providers() if p not in excluded]
            session = InferenceSession(model, sess_options=options, providers=providers)
            session.disable_fallback()
            if device is not None and not cls.supports_device(device):
                raise RuntimeError(
                    f"Incompatible device expected '{device}', got '{_C.get_device()}'")
            return cls.prepare(session, device, **kwargs)
        serialized = model.SerializeToString()
        check_model(serialized)
        supported, message = cls.is_opset_supported(model)
        if not supported:
            raise unittest.SkipTest(message)
        return cls.prepare(serialized, device, **kwargs)

    @classmethod
    def run_model(cls, model, inputs, device=None, **kwargs):
        """prepare(model, device, **kwargs).run(inputs, **kwargs)."""
        rep = cls.prepare(model, device, **kwargs)
        return rep.run(inputs, **kwargs)

    @classmethod
    def run_node(cls, node, inputs, device=None, outputs_info=None, **kwargs):
        raise NotImplementedError(
            "It is much more efficient to run a whole model than every node independently.")


is_compatible = OnnxRuntimeBackend.is_compatible
prepare = OnnxRuntimeBackend.prepare
run = OnnxRuntimeBackend.run_model
run_model = OnnxRuntimeBackend.run_model
supports_device = OnnxRuntimeBackend.supports_device
