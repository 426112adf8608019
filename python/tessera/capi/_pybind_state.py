"""onnxruntime.capi._pybind_state's names (onnxruntime's native module), for
scripts that import from it."""

from .._C import *  # noqa: F401,F403
from .._C import (  # noqa: F401 - names `import *` would skip or that scripts use
    EngineError, EPFail, Fail, InvalidArgument, InvalidGraph, InvalidProtobuf, ModelLoaded,
    NoModel, NoSuchFile, NotImplemented, RuntimeException, TesseraError, is_dlpack_uint8_tensor)
from .._capi_types import (  # noqa: F401
    AdapterFormat, LoraAdapter, OrtAllocatorType, OrtArenaCfg, OrtCompiledModelCompatibility,
    OrtDevice, OrtDeviceMemoryType, OrtEpAssignedNode, OrtEpAssignedSubgraph, OrtMemoryInfo,
    OrtMemoryInfoDeviceType, OrtMemType, OrtSparseFormat, OrtValueVector, SparseTensor,
    create_and_register_allocator)
from .._compile import (  # noqa: F401
    ModelCompiler, ModelRequiresCompilation, OrtCompileApiFlags, OrtExternalInitializerInfo)
from .._compatibility import (  # noqa: F401
    OrtDeviceEpIncompatibilityReason, get_compatibility_info_from_model,
    get_compatibility_info_from_model_bytes, get_hardware_device_ep_incompatibility_details,
    get_model_compatibility_for_ep_devices)
from .._providers import get_all_providers  # noqa: F401
from .._session import ModelMetadata, NodeArg, set_global_thread_pool_sizes  # noqa: F401
from .._iobinding import SessionIOBinding  # noqa: F401
from .._build_info import get_build_info  # noqa: F401
from .._C import Session as InferenceSession  # noqa: F401 - the native session, as there


def enable_telemetry_events():
    """Tessera sends nothing anywhere; kept for scripts that call it."""


def disable_telemetry_events():
    """Tessera sends nothing anywhere; kept for scripts that call it."""
