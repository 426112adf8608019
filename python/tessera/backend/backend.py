"""onnxruntime.backend.backend: the ONNX backend API over InferenceSession."""

import os
import unittest

import onnx
from onnx.backend.base import Backend
from onnx.checker import check_model

from .. import _C
from .._session import InferenceSession
from .backend_rep import OnnxRuntimeBackendRep


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
        Keyword arguments set SessionOptions attributes of those names."""
        if isinstance(model, OnnxRuntimeBackendRep):
            return model
        if isinstance(model, InferenceSession):
            return OnnxRuntimeBackendRep(model)
        if isinstance(model, (str, bytes)):
            options = _C.SessionOptions()
            for k, v in kwargs.items():
                if hasattr(options, k):
                    setattr(options, k, v)
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
