"""SessionOptions.register_custom_ops_library: a custom-op library written
against ONNX Runtime's C header (tests/capi/custom_op_library.c, built beside
the package) registers its ops and they run inside a model, as in
onnxruntime."""

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import tessera as ort

CPU = ["CPUExecutionProvider"]
DOMAIN = "test.customops"


def _library():
    build = os.path.dirname(os.path.dirname(os.path.dirname(ort.__file__)))
    path = os.path.join(build, "libtessera_test_custom_op_library.so")
    assert os.path.isfile(path), "the test library is built with the package: " + path
    return path


def _model(tmp_path):
    # S = ScaleAdd(X, B) with alpha 3 (X * 3 + B); Z = CheckedSqrt(S).
    nodes = [helper.make_node("ScaleAdd", ["X", "B"], ["S"], domain=DOMAIN, alpha=3.0),
             helper.make_node("CheckedSqrt", ["S"], ["Z"], name="sqrt", domain=DOMAIN)]
    graph = helper.make_graph(
        nodes, "custom",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("B", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("Z", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid(DOMAIN, 1)])
    path = tmp_path / "custom.onnx"
    onnx.save(model, str(path))
    return str(path)


def test_a_registered_library_runs_its_ops(tmp_path):
    so = ort.SessionOptions()
    so.register_custom_ops_library(_library())
    sess = ort.InferenceSession(_model(tmp_path), so, providers=CPU)
    x = np.array([1, 2, 3, 4], np.float32)
    b = np.array([1, 3, 7, 4], np.float32)
    z, = sess.run(None, {"X": x, "B": b})
    np.testing.assert_allclose(z, np.sqrt(x * 3 + b), rtol=1e-6)
    # The op's own error surfaces with its message.
    with pytest.raises(ort.InvalidArgument,
                       match=r"CheckedSqrt .sqrt.: element 0 is negative \(-6\)"):
        sess.run(None, {"X": np.array([-2, 0, 0, 0], np.float32), "B": b * 0})


def test_without_the_library_the_op_is_unknown(tmp_path):
    with pytest.raises(Exception, match="ScaleAdd"):
        ort.InferenceSession(_model(tmp_path), ort.SessionOptions(), providers=CPU)


def test_a_missing_library_is_named(tmp_path):
    so = ort.SessionOptions()
    missing = str(tmp_path / "absent.so")
    with pytest.raises(ort.NoSuchFile, match="absent.so' not found"):
        so.register_custom_ops_library(missing)


def test_a_library_without_the_entry_point_is_named(tmp_path):
    so = ort.SessionOptions()
    # Any shared library without RegisterCustomOps: the Python extension itself.
    ext = [f for f in os.listdir(os.path.dirname(ort.__file__)) if f.startswith("_C.")][0]
    path = os.path.join(os.path.dirname(ort.__file__), ext)
    with pytest.raises(ort.InvalidArgument, match="does not export RegisterCustomOps"):
        so.register_custom_ops_library(path)
