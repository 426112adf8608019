"""OrtValue: construction, accessors, zero-copy in both directions, DLPack."""

import gc
import sys

import numpy as np
import pytest

import tessera as ort

CUDA_HERE = "CUDAExecutionProvider" in ort.get_available_providers()

NUMERIC = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64,
           np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64, np.complex128]
ONNX_NAMES = {np.float32: "float", np.float64: "double", np.float16: "float16",
              np.int8: "int8", np.int16: "int16", np.int32: "int32", np.int64: "int64",
              np.uint8: "uint8", np.uint16: "uint16", np.uint32: "uint32", np.uint64: "uint64",
              np.bool_: "bool", np.complex64: "complex64", np.complex128: "complex128"}
ONNX_ENUMS = {np.float32: 1, np.uint8: 2, np.int8: 3, np.uint16: 4, np.int16: 5, np.int32: 6,
              np.int64: 7, np.bool_: 9, np.float16: 10, np.float64: 11, np.uint32: 12,
              np.uint64: 13, np.complex64: 14, np.complex128: 15}


@pytest.mark.parametrize("dtype", NUMERIC)
def test_numeric_round_trip_and_accessors(dtype):
    a = (np.arange(12) % 2 if dtype is np.bool_ else np.arange(12)).astype(dtype).reshape(3, 4)
    v = ort.OrtValue.ortvalue_from_numpy(a)
    assert v.is_tensor() and v.has_value()
    assert v.shape() == [3, 4]
    assert v.data_type() == "tensor(%s)" % ONNX_NAMES[dtype]
    assert v.element_type() == ONNX_ENUMS[dtype]
    assert v.device_name() == "cpu"
    back = v.numpy()
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)


def test_from_numpy_is_zero_copy_for_contiguous_arrays():
    a = np.zeros((2, 3), np.float32)
    v = ort.OrtValue.ortvalue_from_numpy(a)
    assert v.data_ptr() == a.ctypes.data
    a[0, 0] = 42  # the OrtValue views the array's memory
    assert v.numpy()[0, 0] == 42


def test_to_numpy_is_zero_copy_and_keeps_the_buffer_alive():
    v = ort.OrtValue.ortvalue_from_shape_and_type([4], np.int32)
    view = v.numpy()
    assert view.ctypes.data == v.data_ptr()
    view[:] = [1, 2, 3, 4]
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3, 4])
    del v
    gc.collect()
    np.testing.assert_array_equal(view, [1, 2, 3, 4])  # the capsule holds the buffer


def test_source_array_outlives_its_python_name():
    a = np.arange(1000, dtype=np.float64)
    refs = sys.getrefcount(a)
    v = ort.OrtValue.ortvalue_from_numpy(a)
    assert sys.getrefcount(a) == refs + 1  # the OrtValue's buffer holds the array
    del a
    gc.collect()
    np.testing.assert_array_equal(v.numpy(), np.arange(1000, dtype=np.float64))


def test_non_contiguous_and_byte_swapped_arrays_are_copied():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = ort.OrtValue.ortvalue_from_numpy(a[:, ::2])
    np.testing.assert_array_equal(v.numpy(), a[:, ::2])
    v = ort.OrtValue.ortvalue_from_numpy(a.T)
    np.testing.assert_array_equal(v.numpy(), a.T)
    big = np.arange(5, dtype=">i4")
    v = ort.OrtValue.ortvalue_from_numpy(big)
    np.testing.assert_array_equal(v.numpy(), np.arange(5))
    assert v.numpy().dtype.isnative


def test_scalars_and_empty_arrays():
    v = ort.OrtValue.ortvalue_from_numpy(np.array(3.5, np.float32))
    assert v.shape() == []
    assert v.numpy().shape == () and v.numpy() == 3.5
    e = ort.OrtValue.ortvalue_from_numpy(np.zeros((0, 4), np.int64))
    assert e.shape() == [0, 4]
    assert e.numpy().shape == (0, 4)


@pytest.mark.parametrize("array", [
    np.array([["a", "bc"], ["", "déjà"]]),
    np.array([b"x", b"yz"]),
    np.array(["one", "two", "three"], dtype=object),
])
def test_string_tensors(array):
    v = ort.OrtValue.ortvalue_from_numpy(array)
    assert v.data_type() == "tensor(string)"
    assert v.element_type() == 8
    assert v.shape() == list(array.shape)
    back = v.numpy()
    assert back.dtype == object
    expected = [s.decode() if isinstance(s, bytes) else s for s in array.ravel().tolist()]
    assert back.ravel().tolist() == expected


def test_string_tensor_rejects_non_strings():
    with pytest.raises(ort.InvalidArgument, match="str or bytes"):
        ort.OrtValue.ortvalue_from_numpy(np.array(["a", 3], dtype=object))


def test_from_shape_and_type():
    for element_type in (np.float32, "float32", 1):
        v = ort.OrtValue.ortvalue_from_shape_and_type([2, 5], element_type)
        assert v.shape() == [2, 5]
        assert v.data_type() == "tensor(float)"
        np.testing.assert_array_equal(v.numpy(), np.zeros((2, 5), np.float32))
    s = ort.OrtValue.ortvalue_from_shape_and_type([2], np.object_)
    assert s.numpy().tolist() == ["", ""]
    if not CUDA_HERE:  # where the CUDA provider runs, 'cuda' memory is its own
        with pytest.raises(ort.EPFail, match="'cuda' is not available"):
            ort.OrtValue.ortvalue_from_shape_and_type([1], np.float32, "cuda", 0)


def test_device_checks_and_unsupported_dtypes():
    if not CUDA_HERE:
        with pytest.raises(ort.EPFail):
            ort.OrtValue.ortvalue_from_numpy(np.zeros(1, np.float32), "cuda", 0)
    with pytest.raises(ort.InvalidArgument):
        ort.OrtValue.ortvalue_from_numpy(np.zeros(1, np.float32), "cpu", 1)
    with pytest.raises(ort.InvalidArgument, match="no ONNX element type"):
        ort.OrtValue.ortvalue_from_numpy(np.zeros(1, "datetime64[s]"))
    with pytest.raises(ort.NotImplemented, match="bfloat16"):
        ort.OrtValue.ortvalue_from_shape_and_type([1], 16).numpy()


def test_sequences_maps_and_none():
    items = [ort.OrtValue.ortvalue_from_numpy(np.arange(n, dtype=np.int64)) for n in (1, 2)]
    seq = ort.OrtValue.ortvalue_from_sequence(items, np.int64)
    assert not seq.is_tensor() and seq.is_tensor_sequence() and seq.has_value()
    assert seq.data_type() == "seq(tensor(int64))"
    assert [x.tolist() for x in seq.numpy()] == [[0], [0, 1]]
    assert [x.shape() for x in seq.as_sequence()] == [[1], [2]]
    with pytest.raises(ort.InvalidArgument, match="holds a sequence"):
        seq.shape()
    m = ort.OrtValue.ortvalue_from_map(np.array([3, 1], np.int64), np.array([.5, .25], np.float32))
    assert m.is_map() and m.data_type() == "map(int64,tensor(float))"
    assert m.to_python() == {3: 0.5, 1: 0.25}
    none = ort.OrtValue.ortvalue_none()
    assert not none.has_value() and none.to_python() is None
    assert "float[2,5]" in repr(ort.OrtValue.ortvalue_from_shape_and_type([2, 5], np.float32))


def test_buffer_ptr_views_caller_memory():
    a = np.arange(4, dtype=np.float32)
    v = ort.OrtValue.ortvalue_from_buffer_ptr(a.ctypes.data, [2, 2], np.float32)
    np.testing.assert_array_equal(v.numpy(), a.reshape(2, 2))


def test_dlpack_round_trip_without_copies():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = ort.OrtValue.ortvalue_from_numpy(a)
    assert v.__dlpack_device__() == (1, 0)
    b = np.from_dlpack(v)
    assert b.ctypes.data == a.ctypes.data
    w = ort.OrtValue.from_dlpack(a)
    assert w.data_ptr() == a.ctypes.data
    np.testing.assert_array_equal(w.numpy(), a)
