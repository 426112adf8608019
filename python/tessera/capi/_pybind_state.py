"""onnxruntime.capi._pybind_state's names, for scripts that import from it."""

from .._C import *  # noqa: F401,F403
from .._C import (  # noqa: F401 - names `import *` would skip or that scripts use
    EngineError, EPFail, Fail, InvalidArgument, InvalidGraph, InvalidProtobuf, ModelLoaded,
    NoModel, NoSuchFile, NotImplemented, RuntimeException, TesseraError)
