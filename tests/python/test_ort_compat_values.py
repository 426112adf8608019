"""OrtValue as onnxruntime's programs reach it (issue #36): the native value
behind the Python one (_ortvalue), numpy's array protocol, the native
session's run_with_ort_values, and OrtValues holding a SparseTensor."""

import numpy as np
import pytest

import tessera as ort
from tessera.capi import _pybind_state as C

CPU = ["CPUExecutionProvider"]


def test_ortvalue_has_a_native_value_behind_it():
    v = ort.OrtValue.ortvalue_from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert type(v._ortvalue) is C.OrtValue
    assert v._ortvalue.data_ptr() == v.data_ptr()
    back = C.OrtValue.from_dlpack(v._ortvalue.to_dlpack(), False)
    assert back.data_ptr() == v.data_ptr()


def test_array_protocol_views_and_converts():
    a = np.array([[1.5, 2.0], [3.0, 4.0]], dtype=np.float32)
    v = ort.OrtValue.ortvalue_from_numpy(a)
    viewed = np.asarray(v)
    assert viewed.dtype == np.float32 and viewed.ctypes.data == v.data_ptr()
    np.testing.assert_array_equal(viewed, a)
    assert np.asarray(v, dtype=np.float32).ctypes.data == v.data_ptr()
    as_int = np.asarray(v, dtype=np.int32)
    assert as_int.dtype == np.int32
    np.testing.assert_array_equal(as_int, [[1, 2], [3, 4]])
    copied = np.array(v, copy=True)
    assert copied.ctypes.data != v.data_ptr()
    np.testing.assert_array_equal(copied, a)
    flags = ort.OrtValue.ortvalue_from_numpy(np.array([True, False]))
    assert np.asarray(flags).dtype == np.bool_


def test_array_protocol_refuses_non_tensors():
    seq = ort.OrtValue.ortvalue_from_sequence(
        [ort.OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32))])
    with pytest.raises(ort.InvalidArgument, match="__array__ needs an OrtValue holding a tensor"):
        np.asarray(seq)


def test_native_run_with_ort_values_returns_a_vector(session):
    x = ort.OrtValue.ortvalue_from_numpy(np.array([[1, 2, 3]], dtype=np.float32))
    y = ort.OrtValue.ortvalue_from_numpy(np.array([[10, 20, 30]], dtype=np.float32))
    out = session._sess.run_with_ort_values({"x": x._get_c_value(), "y": y}, ["prod", "sum"],
                                            ort.RunOptions())
    assert isinstance(out, ort.OrtValueVector) and len(out) == 2
    np.testing.assert_array_equal(out[0].numpy(), [[1, 4, 9]])
    np.testing.assert_array_equal(out[1].numpy(), [[11, 22, 33]])
    with pytest.raises(RuntimeError, match="nope"):
        session._sess.run_with_ort_values({"x": x, "y": y}, ["nope"], None)


def test_sparse_tensor_buffers_are_read_only_and_format_is_a_method():
    coo = ort.SparseTensor.sparse_coo_from_numpy(
        [3, 3], np.array([1.0, 2.0], np.float32), np.array([1, 7], np.int64))
    assert coo.format() == ort.OrtSparseFormat.ORT_SPARSE_COO
    assert not coo.values().flags.writeable
    assert not coo.as_coo_view().indices().flags.writeable
    strings = ort.SparseTensor.sparse_csr_from_numpy(
        [2, 2], np.array(["a", "b"]), np.array([0, 1], np.int64), np.array([0, 1, 2], np.int64))
    assert strings.data_type() == "sparse_tensor(string)"
    assert not strings.as_csrc_view().inner().flags.writeable
    assert not strings.as_csrc_view().outer().flags.writeable
    np.testing.assert_array_equal(strings.values(), ["a", "b"])


def test_ortvalue_holding_a_sparse_tensor(session):
    coo = ort.SparseTensor.sparse_coo_from_numpy(
        [2, 3], np.array([5.0], np.float32), np.array([4], np.int64))
    v = ort.OrtValue.ort_value_from_sparse_tensor(coo)
    assert isinstance(v, ort.OrtValue)
    assert v.is_sparse_tensor() and not v.is_tensor()
    assert v.data_type() == "sparse_tensor(float)"
    back = v.as_sparse_tensor()
    np.testing.assert_array_equal(back.as_coo_view().indices(), [4])
    assert not back.values().flags.writeable
    dense = ort.OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32))
    assert not dense.is_sparse_tensor()
    with pytest.raises(ort.InvalidArgument, match="not a sparse tensor"):
        dense.as_sparse_tensor()
    with pytest.raises(TypeError, match="needs a SparseTensor"):
        ort.OrtValue.ort_value_from_sparse_tensor(np.zeros(2))
    with pytest.raises(ort.InvalidArgument, match="input 'x' expects tensor\\(float\\) but got a "
                                                  "sparse tensor"):
        session.run(None, {"x": v, "y": np.ones((2, 3), np.float32)})


def test_ortvalue_from_numpy_takes_an_ort_device():
    a = np.arange(4, dtype=np.int16)
    v = C.OrtValue.ortvalue_from_numpy(a, C.OrtDevice(C.OrtDevice.cpu(),
                                                      C.OrtDevice.default_memory(), 0))
    assert v.device_name() == "cpu" and v.data_ptr() == a.ctypes.data
    with pytest.raises(ort.InvalidArgument, match="must be a device name or an OrtDevice, not int"):
        C.OrtValue.ortvalue_from_numpy(a, 3)


def test_native_session_runs_a_session_io_binding(session):
    x = np.array([[1, 2, 3]], dtype=np.float32)
    cpu = C.OrtDevice(C.OrtDevice.cpu(), C.OrtDevice.default_memory(), 0)
    xv, yv = C.OrtValue.ortvalue_from_numpy(x, cpu), C.OrtValue.ortvalue_from_numpy(x * 2, cpu)
    out = ort.OrtValue.ortvalue_from_shape_and_type([1, 3], np.float32)
    bind = C.SessionIOBinding(session._sess)
    bind.bind_input("x", cpu, np.float32, [1, 3], xv.data_ptr())
    bind.bind_input("y", cpu, np.float32, [1, 3], yv.data_ptr())
    bind.bind_output("sum", cpu, np.float32, [1, 3], out.data_ptr())
    session._sess.run_with_iobinding(bind, None)
    np.testing.assert_array_equal(out.numpy(), [[3, 6, 9]])
    with pytest.raises(ort.InvalidArgument, match="needs a SessionIOBinding or IoBinding, not str"):
        session._sess.run_with_iobinding("binding", None)


def test_native_run_with_iobinding_refuses_another_sessions_binding(add_mul_model):
    one = ort.InferenceSession(add_mul_model, providers=CPU)
    two = ort.InferenceSession(add_mul_model, providers=CPU)
    with pytest.raises(ort.InvalidArgument, match="made for another session"):
        two._sess.run_with_iobinding(C.SessionIOBinding(one._sess), None)
