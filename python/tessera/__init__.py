"""Tessera: an ONNX inference runtime with onnxruntime's Python API.

    import tessera as ort
    sess = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    outputs = sess.run(None, {"x": x})
"""

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
    RunOptions,
    RuntimeException,
    SessionOptions,
    TesseraError,
    get_available_providers,
    get_device,
    get_ep_devices,
    get_hardware_devices,
    get_version_string,
    register_execution_provider_library,
    set_default_logger_callback,
    set_default_logger_severity,
    set_default_logger_verbosity,
    unregister_execution_provider_library,
)
from ._build_info import get_build_info  # noqa: F401
from ._capi_types import (  # noqa: F401
    AdapterFormat,
    LoraAdapter,
    OrtAllocatorType,
    OrtArenaCfg,
    OrtCompiledModelCompatibility,
    OrtDevice,
    OrtDeviceMemoryType,
    OrtDeviceVendorId,
    OrtEpAssignedNode,
    OrtEpAssignedSubgraph,
    OrtMemoryInfo,
    OrtMemoryInfoDeviceType,
    OrtMemType,
    OrtSparseFormat,
    OrtValueVector,
    SparseTensor,
    create_and_register_allocator,
)
from ._compile import (  # noqa: F401
    ModelCompiler, ModelRequiresCompilation, OrtCompileApiFlags, OrtExternalInitializerInfo)
from ._compatibility import (  # noqa: F401
    OrtDeviceEpIncompatibilityReason,
    get_compatibility_info_from_model,
    get_compatibility_info_from_model_bytes,
    get_hardware_device_ep_incompatibility_details,
    get_model_compatibility_for_ep_devices,
)
from ._iobinding import IOBinding, SessionIOBinding  # noqa: F401
from ._ortvalue import OrtValue, copy_tensors  # noqa: F401
from ._preload import _get_nvidia_dll_paths, preload_dlls  # noqa: F401
from ._providers import get_all_providers  # noqa: F401
from ._session import (  # noqa: F401
    InferenceSession, ModelMetadata, NodeArg, set_global_thread_pool_sizes)
from . import capi  # noqa: F401 - onnxruntime.capi is there after `import onnxruntime`

__version__ = _C.__version__


def enable_telemetry_events():
    """Tessera sends nothing anywhere; kept for scripts that call it."""


def disable_telemetry_events():
    """Tessera sends nothing anywhere; kept for scripts that call it."""


# `from tessera import *` leaves out the exception classes: one of them is
# named NotImplemented, which would shadow the builtin.
__all__ = [
    "AdapterFormat", "ExecutionMode", "GraphOptimizationLevel", "IOBinding", "InferenceSession",
    "LoraAdapter", "ModelCompiler", "ModelMetadata", "NodeArg", "OrtAllocatorType", "OrtArenaCfg",
    "OrtCompileApiFlags", "OrtCompiledModelCompatibility", "OrtDevice", "OrtDeviceMemoryType", "OrtDeviceVendorId",
    "OrtDeviceEpIncompatibilityReason", "OrtEpAssignedNode", "OrtEpAssignedSubgraph", "OrtEpDevice",
    "OrtExecutionProviderDevicePolicy", "OrtExternalInitializerInfo", "OrtHardwareDevice", "OrtHardwareDeviceType",
    "OrtMemoryInfo", "OrtMemoryInfoDeviceType", "OrtMemType", "OrtSparseFormat", "OrtValue", "OrtValueVector",
    "RunOptions", "SessionIOBinding", "SessionOptions", "SparseTensor",
    "copy_tensors", "create_and_register_allocator", "get_all_providers", "get_available_providers", "get_build_info", "get_device",
    "get_ep_devices", "get_version_string", "preload_dlls", "register_execution_provider_library",
    "set_default_logger_callback", "set_default_logger_severity", "set_default_logger_verbosity",
    "set_global_thread_pool_sizes", "unregister_execution_provider_library",
]
