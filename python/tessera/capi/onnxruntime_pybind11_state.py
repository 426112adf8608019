"""onnxruntime.capi.onnxruntime_pybind11_state (onnxruntime's native module):
the exception classes, e.g. `from onnxruntime.capi.onnxruntime_pybind11_state
import InvalidArgument`, and the native names _pybind_state re-exports."""

from ._pybind_state import *  # noqa: F401,F403
from ._pybind_state import (  # noqa: F401 - names `import *` would skip or that scripts use
    EngineError, EPFail, Fail, InvalidArgument, InvalidGraph, InvalidProtobuf, ModelLoaded,
    ModelRequiresCompilation, NoModel, NoSuchFile, NotImplemented, RuntimeException, TesseraError)
