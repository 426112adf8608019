"""Tessera: an ONNX inference runtime with onnxruntime's Python API.

    import tessera as ort
    sess = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    outputs = sess.run(None, {"x": x})
"""

import enum as _enum

from . import _C
from ._C import (  # noqa: F401 - re-exported
    EngineError,
    EPFail,
    ExecutionMode,
    Fail,
    GraphOptimizationLevel,
    InvalidArgument,
    InvalidGraph,
    InvalidProtobuf,
    ModelLoaded,
    NoModel,
    NoSuchFile,
    NotImplemented,
    OrtEpDevice,
    OrtExecutionProviderDevicePolicy,
    OrtHardwareDevice,
    OrtHardwareDeviceType,
    OrtValue,
    RunOptions,
    RuntimeException,
    SessionOptions,
    TesseraError,
    get_available_providers,
    get_device,
    get_ep_devices,
    get_version_string,
    register_execution_provider_library,
    set_default_logger_severity,
    set_default_logger_verbosity,
    unregister_execution_provider_library,
)
from ._iobinding import IOBinding  # noqa: F401
from ._providers import get_all_providers  # noqa: F401
from ._session import InferenceSession, ModelMetadata, NodeArg  # noqa: F401

__version__ = _C.__version__


class OrtMemType(_enum.IntEnum):
    """Where an input or output lives relative to its provider (onnxruntime's values)."""

    CPU_INPUT = -2
    CPU_OUTPUT = -1
    CPU = -1
    DEFAULT = 0


def get_build_info():
    return "Tessera %s, providers: %s" % (__version__, ", ".join(_C.get_registered_providers()))


def enable_telemetry_events():
    """Tessera sends nothing anywhere; kept for scripts that call it."""


def disable_telemetry_events():
    """Tessera sends nothing anywhere; kept for scripts that call it."""


# `from tessera import *` leaves out the exception classes: one of them is
# named NotImplemented, which would shadow the builtin.
__all__ = [
    "ExecutionMode", "GraphOptimizationLevel", "IOBinding", "InferenceSession", "ModelMetadata",
    "NodeArg", "OrtEpDevice", "OrtExecutionProviderDevicePolicy", "OrtHardwareDevice",
    "OrtHardwareDeviceType", "OrtMemType", "OrtValue", "RunOptions", "SessionOptions",
    "get_all_providers", "get_available_providers", "get_build_info", "get_device",
    "get_ep_devices", "get_version_string", "register_execution_provider_library",
    "set_default_logger_severity", "set_default_logger_verbosity",
    "unregister_execution_provider_library",
]
