"""Where onnxruntime scripts import the exception classes from, e.g.
`from onnxruntime.capi.onnxruntime_pybind11_state import InvalidArgument`."""

from .._C import *  # noqa: F401,F403
from .._C import (  # noqa: F401 - names `import *` would skip or that scripts use
    EngineError, EPFail, Fail, InvalidArgument, InvalidGraph, InvalidProtobuf, ModelLoaded,
    NoModel, NoSuchFile, NotImplemented, RuntimeException, TesseraError)
