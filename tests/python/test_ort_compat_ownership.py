"""OrtValue as onnxruntime 1.30's Python class (issue #36): a native handle
behind it, the session that allocated it, values a session refuses, copies
between values, and the graph-capture helpers onnxruntime's programs import."""

import weakref

import numpy as np
import pytest

import tessera as ort
from tessera.capi import _pybind_state as C
from tessera.capi.onnxruntime_inference_collection import (
    _GRAPH_ANNOTATION_SKIP, _graph_annotation_id, _has_foreign_webgpu_context)

from conftest import make_model, save
from onnx import TensorProto, helper

CPU = ["CPUExecutionProvider"]
X = np.arange(6, dtype=np.float32).reshape(3, 2)


@pytest.fixture
def double_model(tmp_path):
    """y = x + x, x and y float [3, 2]."""
    model = make_model([helper.make_node("Add", ["x", "x"], ["y"])],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])])
    return save(model, tmp_path / "double.onnx")


def test_python_ortvalue_over_a_native_handle():
    v = ort.OrtValue.ortvalue_from_numpy(X)
    assert isinstance(v, C.OrtValue) and type(v) is ort.OrtValue
    native = v._get_c_value()
    assert type(native) is C.OrtValue
    assert native.data_ptr() == v.data_ptr() == v._ortvalue.data_ptr()
    assert native._is_webgpu_buffer() is False
    assert v._is_webgpu_buffer is False
    assert v._session is None
    with pytest.raises(AttributeError):
        v._is_webgpu_buffer = True
    wrapped = ort.OrtValue(native)
    assert wrapped.data_ptr() == v.data_ptr()
    np.testing.assert_array_equal(wrapped.numpy(), X)
    assert ort.OrtValue().has_value() is False


def test_factories_return_the_python_class():
    made = [
        ort.OrtValue.ortvalue_from_numpy(X),
        ort.OrtValue.ortvalue_from_numpy_with_onnx_type(X, 1),
        ort.OrtValue.ortvalue_from_shape_and_type([2], np.int64),
        ort.OrtValue.ortvalue_from_buffer_ptr(X.ctypes.data, [3, 2], np.float32),
        ort.OrtValue.from_dlpack(X),
        ort.OrtValue.ortvalue_none(),
    ]
    assert all(type(v) is ort.OrtValue for v in made)


def test_session_allocated_values_belong_to_their_session(double_model):
    a = ort.InferenceSession(double_model, providers=CPU)
    b = ort.InferenceSession(double_model, providers=CPU)
    owned = a.create_ortvalue_from_shape_and_type([3, 2], np.float32, "cpu")
    assert owned._session is a._sess
    assert owned.shape() == [3, 2] and not owned.numpy().any()
    owned.update_inplace(X)
    np.testing.assert_array_equal(a.run(None, {"x": owned})[0], 2 * X)
    a._validate_ortvalue_ownership([owned, ort.OrtValue.ortvalue_from_numpy(X)])
    message = "must be used with the session that created it"
    with pytest.raises(ValueError, match=message):
        b.run(None, {"x": owned})
    with pytest.raises(ValueError, match=message):
        b.run_with_ort_values(None, {"x": owned})
    with pytest.raises(ValueError, match=message):
        b._validate_ortvalue_ownership([owned])
    with pytest.raises(ValueError, match="must be bound to the session that created it"):
        b.io_binding().bind_ortvalue_input("x", owned)
    with pytest.raises(ValueError, match="must be bound to the session that created it"):
        b.io_binding().bind_ortvalue_output("y", owned)
    with pytest.raises(ValueError, match="IOBinding must be run with the session that created it"):
        b.run_with_iobinding(a.io_binding())
    # set_providers makes a new session: values and bindings of the old one are refused.
    binding = a.io_binding()
    a.set_providers(CPU)
    with pytest.raises(ValueError, match=message):
        a.run(None, {"x": owned})
    with pytest.raises(ValueError, match="IOBinding must be run with the session that created it"):
        a.run_with_iobinding(binding)


def test_update_inplace_from_an_ortvalue(double_model):
    a = ort.InferenceSession(double_model, providers=CPU)
    b = ort.InferenceSession(double_model, providers=CPU)
    plain = ort.OrtValue.ortvalue_from_numpy(np.zeros((3, 2), np.float32))
    address = plain.data_ptr()
    plain.update_inplace(ort.OrtValue.ortvalue_from_numpy(X))
    assert plain.data_ptr() == address
    np.testing.assert_array_equal(plain.numpy(), X)
    owned = a.create_ortvalue_from_shape_and_type([3, 2], np.float32, "cpu")
    owned.update_inplace(plain)
    np.testing.assert_array_equal(owned.numpy(), X)
    foreign = b.create_ortvalue_from_shape_and_type([3, 2], np.float32, "cpu")
    with pytest.raises(ValueError, match="must originate from the same session"):
        owned.update_inplace(foreign)
    with pytest.raises(ort.InvalidArgument):
        owned.update_inplace(ort.OrtValue.ortvalue_from_numpy(np.zeros(5, np.float32)))


def test_copy_tensors():
    src = [ort.OrtValue.ortvalue_from_numpy(X), ort.OrtValue.ortvalue_from_numpy(np.arange(3))]
    dst = [ort.OrtValue.ortvalue_from_shape_and_type([3, 2], np.float32),
           ort.OrtValue.ortvalue_from_shape_and_type([3], np.int64)]
    ort.copy_tensors(src, dst)
    np.testing.assert_array_equal(dst[0].numpy(), X)
    np.testing.assert_array_equal(dst[1].numpy(), [0, 1, 2])
    with pytest.raises(ValueError, match="2 sources but 1 destinations"):
        ort.copy_tensors(src, dst[:1])
    with pytest.raises(ort.InvalidArgument, match="source 0 \\(float\\[3,2\\]\\) cannot be copied"):
        ort.copy_tensors(src[:1], dst[1:])


def test_graph_annotation_id():
    assert _GRAPH_ANNOTATION_SKIP == -1
    assert _graph_annotation_id(None) == 0
    assert _graph_annotation_id(ort.RunOptions()) == 0
    options = ort.RunOptions()
    options.add_run_config_entry("gpu_graph_id", "3")
    assert _graph_annotation_id(options) == 3
    options.add_run_config_entry("gpu_graph_id", "three")
    with pytest.raises(ValueError, match="must be an integer"):
        _graph_annotation_id(options)


def test_foreign_webgpu_context():
    class Value:
        def __init__(self, webgpu, session):
            self._is_webgpu_buffer = webgpu
            self._session = session

    contexts = {"default": 0, "custom": 1, "none": -1}
    assert not _has_foreign_webgpu_context([Value(True, "default"), Value(True, "none"),
                                            Value(False, "custom"), Value(True, None)],
                                           contexts.get)
    assert _has_foreign_webgpu_context([Value(False, None), Value(True, "custom")], contexts.get)


def test_sessions_have_no_webgpu_context(double_model):
    session = ort.InferenceSession(double_model, providers=CPU)
    assert session._sess.webgpu_context_id() == -1
    assert session._sess.is_webgpu_graph_capture_enabled() is False


def test_captured_graph_pins_its_binding(double_model):
    session = ort.InferenceSession(double_model, providers=CPU)
    binding = session.io_binding()
    binding.bind_cpu_input("x", X)
    binding.bind_output("y")
    signature = binding._capture_signature()
    assert signature == binding._capture_signature()
    session._captured_graph_bindings[2] = (weakref.ref(binding), signature)
    binding._pinned_graph_ids.add(2)
    with pytest.raises(ValueError, match="still reference this IOBinding"):
        binding.clear_binding_inputs()
    with pytest.raises(ValueError, match="still reference this IOBinding"):
        binding.bind_output("y")
    session.release_captured_graph(2)
    assert session._captured_graph_bindings == {} and binding._pinned_graph_ids == set()
    binding.clear_binding_outputs()
    session._captured_graph_bindings[0] = (weakref.ref(binding), signature)
    binding._pinned_graph_ids.add(0)
    session.set_providers(CPU)
    assert session._captured_graph_bindings == {} and binding._pinned_graph_ids == set()
    # No binding of Tessera's holds WebGPU buffers, which capture needs.
    with pytest.raises(ValueError, match="requires fixed WebGPU device OrtValues"):
        binding._validate_capture_bindings()


def test_bound_input_shape_is_checked_by_the_run(double_model):
    session = ort.InferenceSession(double_model, providers=CPU)
    binding = session.io_binding()
    binding.bind_cpu_input("x", np.zeros((2, 2), np.float32))
    binding.bind_output("y")
    with pytest.raises(ort.InvalidArgument, match="'x'"):
        session.run_with_iobinding(binding)
    binding.bind_cpu_input("x", X)
    session.run_with_iobinding(binding)
    np.testing.assert_array_equal(binding.copy_outputs_to_cpu()[0], 2 * X)


def test_adapter_export_names_a_string_parameter(tmp_path):
    model = make_model(
        [helper.make_node("Constant", [], ["s"], value=helper.make_tensor(
            "v", TensorProto.STRING, [2], [b"a", b"b"]))],
        [], [helper.make_tensor_value_info("s", TensorProto.STRING, [2])])
    strings = ort.InferenceSession(model.SerializeToString(), providers=CPU).run_with_ort_values(
        ["s"], {})[0]
    adapter = ort.AdapterFormat()
    adapter.set_parameters({"p": strings})
    path = tmp_path / "a.onnx_adapter"
    with pytest.raises(ort.InvalidArgument, match="'p' has element type STRING"):
        adapter.export_adapter(str(path))
    assert not path.exists()
