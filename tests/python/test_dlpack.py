"""DLPack export and import through Tessera's own DLPack structs: numpy and
torch share memory with OrtValues in both directions, capsules follow the
spec's ownership rules, and what cannot be viewed is a clear error."""

import gc

import numpy as np
import pytest

import tessera as ort

DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64,
          np.uint8, np.uint16, np.uint32, np.uint64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_views_an_ortvalue_through_dlpack(dtype):
    v = ort.OrtValue.ortvalue_from_shape_and_type([2, 3], dtype)
    b = np.from_dlpack(v)
    assert b.dtype == np.dtype(dtype) and b.shape == (2, 3)
    assert b.ctypes.data == v.data_ptr()
    v.numpy()[1, 2] = 7  # the same memory (numpy marks DLPack imports read-only)
    assert b[1, 2] == 7


def test_export_keeps_the_tensor_alive_after_the_ortvalue_is_gone():
    v = ort.OrtValue.ortvalue_from_numpy(np.arange(5, dtype=np.int64) * 3)
    b = np.from_dlpack(v)
    del v
    gc.collect()
    np.testing.assert_array_equal(b, [0, 3, 6, 9, 12])


def test_capsule_is_named_dltensor_and_renamed_once_consumed():
    v = ort.OrtValue.ortvalue_from_numpy(np.ones(3, np.float32))
    capsule = v.__dlpack__()
    assert "dltensor" in repr(capsule)
    w = ort.OrtValue.from_dlpack(capsule)
    assert w.data_ptr() == v.data_ptr()
    assert "used_dltensor" in repr(capsule)
    with pytest.raises(ort.InvalidArgument, match="unconsumed 'dltensor' capsule"):
        ort.OrtValue.from_dlpack(capsule)
    # An unconsumed capsule frees its tensor when it is dropped (no leak, no crash).
    unconsumed = ort.OrtValue.ortvalue_from_numpy(np.ones(3, np.float32)).__dlpack__()
    del unconsumed
    gc.collect()


@pytest.mark.parametrize("dtype", DTYPES + [np.bool_])
def test_ortvalue_views_numpy_through_dlpack(dtype):
    a = (np.arange(6) % 2).astype(dtype).reshape(3, 2)
    try:
        w = ort.OrtValue.from_dlpack(a)
    except BufferError:
        pytest.skip("this numpy does not export %s through DLPack" % np.dtype(dtype))
    assert w.data_ptr() == a.ctypes.data
    assert w.shape() == [3, 2]
    np.testing.assert_array_equal(w.numpy(), a)


def test_import_keeps_the_producer_alive():
    w = ort.OrtValue.from_dlpack(np.arange(4, dtype=np.float32) + 1)
    gc.collect()
    np.testing.assert_array_equal(w.numpy(), [1, 2, 3, 4])


def test_non_contiguous_import_is_a_clear_error():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    with pytest.raises(ort.InvalidArgument, match="C-contiguous"):
        ort.OrtValue.from_dlpack(a)


def test_strings_and_device_values_are_not_exported():
    s = ort.OrtValue.ortvalue_from_numpy(np.array(["a", "b"], dtype=object))
    with pytest.raises(ort.NotImplemented, match="string"):
        s.__dlpack__()
    with pytest.raises(ort.InvalidArgument, match="__dlpack__"):
        ort.OrtValue.from_dlpack(42)


def test_dlpack_imported_value_feeds_a_session(session):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.ones((2, 3), np.float32)
    feeds = {"x": ort.OrtValue.from_dlpack(x), "y": ort.OrtValue.from_dlpack(y)}
    out = session.run_with_ort_values(["sum"], feeds)[0]
    np.testing.assert_array_equal(np.from_dlpack(out), x + y)
