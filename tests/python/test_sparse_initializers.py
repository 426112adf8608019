"""Sparse initializers (SparseTensorProto) kept sparse for com.microsoft
SparseToDenseMatMul, which reads them as they are, densified for dense readers,
typed right in the session's descriptions and written back sparse when the
optimized model is saved."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import tessera as ort

CPU = ["CPUExecutionProvider"]
OPSETS = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
M, K, N = 4, 6, 3


def _dense_a():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((M, K)).astype(np.float32)
    a[rng.random((M, K)) > 0.3] = 0
    a[0, 1] = 2.5  # at least one stored value
    return a


def _sparse_initializer(a):
    positions = np.flatnonzero(a)
    values = helper.make_tensor("a", TensorProto.FLOAT, [positions.size], a.flat[positions])
    indices = helper.make_tensor("a_indices", TensorProto.INT64, [positions.size], positions)
    return helper.make_sparse_tensor(values, indices, list(a.shape))


def _model(tmp_path, a, a_is_input=False, dense_reader=False):
    nodes = [helper.make_node("SparseToDenseMatMul", ["a", "b"], ["y"], domain="com.microsoft")]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [M, N])]
    if dense_reader:
        nodes.append(helper.make_node("Relu", ["a"], ["a_relu"]))
        outputs.append(helper.make_tensor_value_info("a_relu", TensorProto.FLOAT, [M, K]))
    inputs = [helper.make_tensor_value_info("b", TensorProto.FLOAT, [K, N])]
    if a_is_input:
        inputs.append(helper.make_sparse_tensor_value_info("a", TensorProto.FLOAT, [M, K]))
    graph = helper.make_graph(nodes, "sparse_weight", inputs, outputs,
                              sparse_initializer=[_sparse_initializer(a)])
    path = str(tmp_path / "sparse_weight.onnx")
    onnx.save(helper.make_model(graph, opset_imports=OPSETS), path)
    return path


def test_sparse_initializer_feeds_sparse_to_dense_matmul(tmp_path):
    a = _dense_a()
    b = np.arange(K * N, dtype=np.float32).reshape(K, N) / 7
    sess = ort.InferenceSession(_model(tmp_path, a), providers=CPU)
    assert [(i.name, i.type, i.shape) for i in sess.get_inputs()] == [("b", "tensor(float)",
                                                                        [K, N])]
    assert sess.get_overridable_initializers() == []
    (y,) = sess.run(None, {"b": b})
    np.testing.assert_allclose(y, a @ b, rtol=1e-6, atol=1e-6)


def test_dense_reader_gets_the_densified_initializer(tmp_path):
    a = _dense_a()
    b = np.ones((K, N), np.float32)
    sess = ort.InferenceSession(_model(tmp_path, a, dense_reader=True), providers=CPU)
    y, a_relu = sess.run(None, {"b": b})
    np.testing.assert_allclose(y, a @ b, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(a_relu, np.maximum(a, 0))


def test_sparse_initializer_that_is_an_input_is_overridable(tmp_path):
    a = _dense_a()
    b = np.eye(K, N, dtype=np.float32)
    sess = ort.InferenceSession(_model(tmp_path, a, a_is_input=True), providers=CPU)
    assert [i.name for i in sess.get_inputs()] == ["b"]
    (over,) = sess.get_overridable_initializers()
    assert (over.name, over.type, over.shape) == ("a", "sparse_tensor(float)", [M, K])
    (y,) = sess.run(None, {"b": b})
    np.testing.assert_allclose(y, a @ b, rtol=1e-6, atol=1e-6)
    # Fed, the caller's sparse value replaces the model's.
    other = ort.SparseTensor.sparse_coo_from_numpy([M, K], np.array([3.0], np.float32),
                                                   np.array([K + 2], np.int64),
                                                   ort.OrtDevice.make("cpu", 0))
    (y,) = sess.run(None, {"a": other, "b": b})
    expected = np.zeros((M, K), np.float32)
    expected[1, 2] = 3.0
    np.testing.assert_allclose(y, expected @ b)
    with pytest.raises(ort.InvalidArgument, match="'a'"):
        sess.run(None, {"a": np.zeros((M, K), np.float32), "b": b})


def test_optimized_model_keeps_the_sparse_initializer_sparse(tmp_path):
    a = _dense_a()
    opts = ort.SessionOptions()
    saved = str(tmp_path / "optimized.onnx")
    opts.optimized_model_filepath = saved
    ort.InferenceSession(_model(tmp_path, a), opts, providers=CPU)
    model = onnx.load(saved)
    assert [t.name for t in model.graph.initializer] == []
    (sparse,) = model.graph.sparse_initializer
    assert sparse.values.name == "a" and list(sparse.dims) == [M, K]
    np.testing.assert_array_equal(onnx.numpy_helper.to_array(sparse.indices), np.flatnonzero(a))
    # And it runs again from there.
    b = np.ones((K, N), np.float32)
    (y,) = ort.InferenceSession(saved, providers=CPU).run(None, {"b": b})
    np.testing.assert_allclose(y, a @ b, rtol=1e-6, atol=1e-6)


def test_constant_sparse_value_produces_the_dense_tensor():
    """ONNX's Constant: a sparse_value attribute gives a dense output tensor."""
    values = helper.make_tensor("v", TensorProto.FLOAT, [2], [3.0, 4.0])
    indices = helper.make_tensor("i", TensorProto.INT64, [2], [1, 5])
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["y"],
                          sparse_value=helper.make_sparse_tensor(values, indices, [2, 3]))],
        "sparse_constant", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    sess = ort.InferenceSession(model.SerializeToString(), providers=CPU)
    assert sess.get_outputs()[0].type == "tensor(float)"
    (y,) = sess.run(None, {})
    np.testing.assert_array_equal(y, np.array([[0, 3, 0], [0, 0, 4]], np.float32))


def test_add_initializer_replaces_a_sparse_initializer(tmp_path):
    # The replacement is dense, as onnxruntime's add_initializer takes it; the
    # initializer stays sparse for SparseToDenseMatMul, which reads it as COO.
    a = _dense_a()
    b = np.arange(K * N, dtype=np.float32).reshape(K, N) / 7
    replacement = np.where(a != 0, a * 3 + 1, 0).astype(np.float32)
    replacement[M - 1, K - 1] = -4.0  # a position the model's initializer leaves empty
    so = ort.SessionOptions()
    so.add_initializer("a", ort.OrtValue.ortvalue_from_numpy(replacement))
    sess = ort.InferenceSession(_model(tmp_path, a), so, providers=CPU)
    (y,) = sess.run(None, {"b": b})
    np.testing.assert_allclose(y, replacement @ b, rtol=1e-6, atol=1e-6)
    wrong = ort.SessionOptions()
    wrong.add_initializer("a", ort.OrtValue.ortvalue_from_numpy(np.zeros((K, M), np.float32)))
    with pytest.raises(ort.InvalidArgument,
                       match="'a' is a sparse initializer of float\\[4,6\\] in the model but the "
                             "given tensor is float\\[6,4\\]"):
        ort.InferenceSession(_model(tmp_path, a), wrong, providers=CPU)
