"""Sparse tensors in sessions: a sparse feed to an op that takes one
(com.microsoft SparseToDenseMatMul), outputs declared sparse_tensor(...)
handed back as SparseTensor, sparse initializers as outputs, and the errors
when a sparse and a dense value are mixed up."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import tessera as ort

CPU = ["CPUExecutionProvider"]
OPSETS = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]


def _save(graph, tmp_path, name):
    path = str(tmp_path / name)
    with open(path, "wb") as f:
        f.write(helper.make_model(graph, opset_imports=OPSETS).SerializeToString())
    return path


@pytest.fixture
def matmul_model(tmp_path):
    """y = alpha * op(a) @ op(b) with a sparse [M, K] (or [K, M] with transA)."""

    def make(m, k, n, trans_a=0, trans_b=0, alpha=1.0, dtype=TensorProto.FLOAT):
        a_shape = [k, m] if trans_a else [m, k]
        b_shape = [n, k] if trans_b else [k, n]
        graph = helper.make_graph(
            [helper.make_node("SparseToDenseMatMul", ["a", "b"], ["y"], domain="com.microsoft",
                              transA=trans_a, transB=trans_b, alpha=alpha)],
            "sparse_matmul",
            [helper.make_sparse_tensor_value_info("a", dtype, a_shape),
             helper.make_tensor_value_info("b", dtype, b_shape)],
            [helper.make_tensor_value_info("y", dtype, [m, n])])
        return ort.InferenceSession(_save(graph, tmp_path, "sparse_matmul.onnx"), providers=CPU)

    return make


def _random_sparse(rng, shape, density=0.3, dtype=np.float32):
    dense = rng.standard_normal(shape).astype(dtype)
    dense[rng.random(shape) > density] = 0
    return dense


@pytest.mark.parametrize("trans_a,trans_b,alpha", [(0, 0, 1.0), (1, 0, 2.0), (0, 1, -0.5),
                                                   (1, 1, 1.0)])
def test_sparse_to_dense_matmul_coo_and_csr(matmul_model, trans_a, trans_b, alpha):
    rng = np.random.default_rng(7)
    m, k, n = 5, 7, 3
    a = _random_sparse(rng, (k, m) if trans_a else (m, k))
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype(np.float32)
    want = alpha * (a.T if trans_a else a) @ (b.T if trans_b else b)
    sess = matmul_model(m, k, n, trans_a, trans_b, alpha)
    assert sess.get_inputs()[0].type == "sparse_tensor(float)"
    rows, cols = np.nonzero(a)
    coo_linear = ort.SparseTensor.sparse_coo_from_numpy(
        list(a.shape), a[rows, cols], rows * a.shape[1] + cols)
    coo_2d = ort.SparseTensor.sparse_coo_from_numpy(
        list(a.shape), a[rows, cols], np.stack([rows, cols], axis=1))
    outer = np.concatenate([[0], np.cumsum(np.count_nonzero(a, axis=1))])
    csr = ort.SparseTensor.sparse_csr_from_numpy(list(a.shape), a[rows, cols], cols, outer)
    for sparse in (coo_linear, coo_2d, csr):
        (y,) = sess.run(None, {"a": sparse, "b": b})
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
        (y,) = sess.run(None, {"a": ort.OrtValue.ort_value_from_sparse_tensor(sparse), "b": b})
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_sparse_to_dense_matmul_int64_and_shape_errors(matmul_model):
    sess = matmul_model(2, 3, 2, dtype=TensorProto.INT64)
    a = ort.SparseTensor.sparse_coo_from_numpy([2, 3], np.array([4, -2], np.int64),
                                               np.array([1, 5], np.int64))
    b = np.arange(6, dtype=np.int64).reshape(3, 2)
    (y,) = sess.run(None, {"a": a, "b": b})
    np.testing.assert_array_equal(y, np.array([[8, 12], [-8, -10]]))
    with pytest.raises(ort.InvalidArgument, match="expects sparse_tensor\\(int64\\) but got a "
                                                  "tensor"):
        sess.run(None, {"a": np.zeros((2, 3), np.int64), "b": b})
    wrong_type = ort.SparseTensor.sparse_coo_from_numpy([2, 3], np.array([1], np.float32),
                                                        np.array([0], np.int64))
    with pytest.raises(ort.InvalidArgument, match="got sparse_tensor\\(float\\)"):
        sess.run(None, {"a": wrong_type, "b": b})


def test_indices_outside_the_dense_shape_are_refused():
    with pytest.raises(ort.InvalidArgument, match="COO index 9"):
        ort.SparseTensor.sparse_coo_from_numpy([3, 3], np.array([1.0], np.float32),
                                               np.array([9], np.int64))
    with pytest.raises(ort.InvalidArgument, match="CSR column 5"):
        ort.SparseTensor.sparse_csr_from_numpy([2, 3], np.array([1.0], np.float32),
                                               np.array([5], np.int64),
                                               np.array([0, 1, 1], np.int64))


def test_sparse_initializer_returned_as_a_sparse_output(tmp_path):
    values = helper.make_tensor("w", TensorProto.FLOAT, [3], [1.5, -2.0, 0.25])
    indices = helper.make_tensor("w_indices", TensorProto.INT64, [3], [2, 3, 5])
    graph = helper.make_graph(
        [], "sparse_output", [], [helper.make_sparse_tensor_value_info("w", TensorProto.FLOAT,
                                                                       [3, 3])],
        sparse_initializer=[helper.make_sparse_tensor(values, indices, [3, 3])])
    sess = ort.InferenceSession(_save(graph, tmp_path, "sparse_out.onnx"), providers=CPU)
    assert sess.get_outputs()[0].type == "sparse_tensor(float)"
    (out,) = sess.run_with_ort_values(["w"], {})
    assert out.is_sparse_tensor() and out.data_type() == "sparse_tensor(float)"
    st = out.as_sparse_tensor()
    assert st.dense_shape() == [3, 3]
    np.testing.assert_array_equal(st.values(), np.array([1.5, -2.0, 0.25], np.float32))
    np.testing.assert_array_equal(st.as_coo_view().indices(), [2, 3, 5])
    (again,) = sess.run(None, {})
    assert isinstance(again, ort.SparseTensor)
    np.testing.assert_array_equal(again.get_coo_data().indices(), [2, 3, 5])


def test_sparse_input_passed_through_to_a_sparse_output(tmp_path):
    graph = helper.make_graph(
        [], "pass", [helper.make_sparse_tensor_value_info("s", TensorProto.FLOAT, [2, 4])],
        [helper.make_sparse_tensor_value_info("s", TensorProto.FLOAT, [2, 4])])
    sess = ort.InferenceSession(_save(graph, tmp_path, "pass.onnx"), providers=CPU)
    csr = ort.SparseTensor.sparse_csr_from_numpy([2, 4], np.array([3.0, 4.0], np.float32),
                                                 np.array([1, 3], np.int64),
                                                 np.array([0, 1, 2], np.int64))
    (out,) = sess.run(None, {"s": csr})
    assert out.format() == ort.OrtSparseFormat.ORT_SPARSE_CSRC
    np.testing.assert_array_equal(out.as_csrc_view().inner(), [1, 3])
    np.testing.assert_array_equal(out.values(), [3.0, 4.0])
