"""onnxruntime behaviour of sessions, feeds, OrtValues, session options and
build info (issue #36, items 2-6; the runtime's side is in
test_ort_compat_runtime.py)."""

import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import tessera as ort

from conftest import make_model, save

CPU = ["CPUExecutionProvider"]


# -- InferenceSession ------------------------------------------------------------------


def test_run_async_calls_back_from_a_worker_thread(add_mul_model):
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    x = np.ones((2, 3), np.float32)
    done = threading.Event()
    seen = {}

    def callback(results, user_data, err):
        seen.update(results=results, user_data=user_data, err=err,
                    thread=threading.current_thread())
        done.set()

    token = object()
    sess.run_async(["sum"], {"x": x, "y": x}, callback, token)
    assert done.wait(30)
    assert seen["err"] == "" and seen["user_data"] is token
    assert seen["thread"] is not threading.main_thread()
    np.testing.assert_array_equal(seen["results"][0], 2 * x)


def test_run_async_reports_errors_to_the_callback(add_mul_model):
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    done = threading.Event()
    seen = {}

    def callback(results, user_data, err):
        seen.update(results=results, err=err)
        done.set()

    bad = np.ones((2, 4), np.float32)  # [N, 3] expected
    sess.run_async(None, {"x": bad, "y": bad}, callback, None)
    assert done.wait(30)
    assert seen["results"] == [] and "x" in seen["err"] and seen["err"]


def test_missing_feed_raises_value_error(add_mul_model):
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    with pytest.raises(ValueError) as e:
        sess.run(None, {"x": np.ones((1, 3), np.float32)})
    assert str(e.value) == "Required inputs (['y']) are missing from input feed (['x'])."
    with pytest.raises(ValueError, match=r"Required inputs \(\['x', 'y'\]\)"):
        sess.run_async(None, {}, lambda *a: None, None)


def test_set_providers_with_an_unknown_name(add_mul_model):
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    with pytest.warns(RuntimeWarning, match="Specified provider 'NoSuchExecutionProvider' is not "
                                            "in available provider names"):
        with pytest.raises(RuntimeError, match="Unknown Provider Type: NoSuchExecutionProvider"):
            sess.set_providers(["NoSuchExecutionProvider"])


# -- feeds ---------------------------------------------------------------------------


def test_fixed_width_and_void_string_feeds(identity):
    sess = ort.InferenceSession(identity(TensorProto.STRING, [2]), providers=CPU)
    out, = sess.run(None, {"x": np.array(["a", "bcd"], dtype="U3")})
    assert out.tolist() == ["a", "bcd"]
    out, = sess.run(None, {"x": np.array([b"ab", b"c"], dtype="S4")})
    assert out.tolist() == ["ab", "c"]
    # np.void items keep every byte, trailing NULs included, as in onnxruntime.
    voids = np.array([b"xy", b"z"], dtype="S2").view(np.void)
    assert voids.dtype.kind == "V"
    out, = sess.run(None, {"x": voids})
    assert out.tolist() == ["xy", "z\0"]


def test_map_feed_with_the_wrong_key_type(tmp_path):
    map_type = onnx.TypeProto()
    map_type.map_type.key_type = TensorProto.INT64
    map_type.map_type.value_type.tensor_type.elem_type = TensorProto.FLOAT
    model = make_model(
        [helper.make_node("Identity", ["x"], ["y"])],
        [helper.make_value_info("m", map_type),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    sess = ort.InferenceSession(save(model, tmp_path / "map.onnx"), providers=CPU)
    x = np.ones(1, np.float32)
    assert sess.run(None, {"m": {1: 2.0}, "x": x})[0] == [1]
    with pytest.raises(RuntimeError) as e:
        sess.run(None, {"m": {"a": 2.0}, "x": x})
    assert str(e.value) == ("Unexpected key type  <class 'str'>, it cannot be linked to C type "
                            "int64_t for input 'm'.")


# -- OrtValue -------------------------------------------------------------------------


def test_ortvalue_accessors():
    v = ort.OrtValue.ortvalue_from_numpy(np.zeros((2, 3), np.float16))
    assert v.tensor_size_in_bytes() == 12
    assert v.shape() == [2, 3]
    assert v.data_type() == "tensor(float16)"
    assert v.element_type() == TensorProto.FLOAT16
    assert v.device_name() == "cpu"
    native = v._get_c_value()
    assert type(native) is ort._C.OrtValue and native.data_ptr() == v.data_ptr()


def test_ortvalue_from_numpy_with_onnx_type():
    bits = np.array([0x3F80, 0x4000], np.uint16)  # bfloat16 1.0 and 2.0
    v = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, TensorProto.BFLOAT16)
    assert v.data_type() == "tensor(bfloat16)" and v.element_type() == TensorProto.BFLOAT16
    assert v.data_ptr() == bits.ctypes.data  # a view of the array
    f8 = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(np.zeros(4, np.uint8),
                                                         17)  # FLOAT8E4M3FN
    assert f8.tensor_size_in_bytes() == 4
    with pytest.raises(ort.InvalidArgument, match="element sizes must match"):
        ort.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, TensorProto.FLOAT)


def test_update_inplace_keeps_the_address(add_mul_model):
    v = ort.OrtValue.ortvalue_from_shape_and_type([1, 3], np.float32)
    address = v.data_ptr()
    v.update_inplace(np.array([[1, 2, 3]], np.float32))
    assert v.data_ptr() == address
    np.testing.assert_array_equal(v.numpy(), [[1, 2, 3]])
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    out, = sess.run(["sum"], {"x": v, "y": v})
    np.testing.assert_array_equal(out, [[2, 4, 6]])
    with pytest.raises(ort.InvalidArgument, match="4 elements but the OrtValue has 3"):
        v.update_inplace(np.zeros(4, np.float32))
    with pytest.raises(ort.InvalidArgument, match="tensor\\(double\\)"):
        v.update_inplace(np.zeros(3, np.float64))


def test_from_dlpack_is_bool_and_is_dlpack_uint8_tensor():
    from tessera.capi._pybind_state import is_dlpack_uint8_tensor

    raw = np.array([1, 0, 1], np.uint8)
    assert is_dlpack_uint8_tensor(raw.__dlpack__())
    assert not is_dlpack_uint8_tensor(np.zeros(2, np.float32).__dlpack__())
    as_bool = ort.OrtValue.from_dlpack(raw.__dlpack__(), True)
    assert as_bool.data_type() == "tensor(bool)"
    assert as_bool.numpy().tolist() == [True, False, True]
    as_uint8 = ort.OrtValue.from_dlpack(raw.__dlpack__(), False)
    assert as_uint8.data_type() == "tensor(uint8)"
    assert ort.OrtValue.from_dlpack(data=raw, is_bool_tensor=False).shape() == [3]


# -- session options ---------------------------------------------------------------------


def test_session_options_compat():
    so = ort.SessionOptions()
    with pytest.raises(RuntimeError) as e:
        so.get_session_config_entry("no.such.key")
    assert str(e.value) == "SessionOptions does not have configuration with key: no.such.key"
    assert so.use_per_session_threads is True
    so.use_per_session_threads = False
    assert so.use_per_session_threads is False


def test_add_external_initializers_replaces_weights(add_mul_model):
    so = ort.SessionOptions()
    w = np.array([10, 20, 30], np.float32)
    so.add_external_initializers(["w"], [ort.OrtValue.ortvalue_from_numpy(w)])
    sess = ort.InferenceSession(add_mul_model, so, providers=CPU)
    x = np.ones((1, 3), np.float32)
    np.testing.assert_array_equal(sess.run(["prod"], {"x": x, "y": x})[0], [[10, 20, 30]])


# -- build info -----------------------------------------------------------


def test_build_info():
    info = ort.get_build_info()
    assert info.startswith("ORT Build Info: git-branch=")
    assert "build type=" in info
    built = info.split("providers built: ")[1].split(", providers available: ")[0]
    available = info.split("providers available: ")[1]
    assert "CPUExecutionProvider" in built.split(", ")
    assert available.split(", ") == ort.get_available_providers()
