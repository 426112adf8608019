"""Every element type through a model, plus sequences, maps and optionals."""

import numpy as np
import pytest
from onnx import TensorProto, helper

import tessera as ort
from conftest import make_model, save

CPU = ["CPUExecutionProvider"]
TYPES = [(TensorProto.FLOAT, np.float32), (TensorProto.DOUBLE, np.float64),
         (TensorProto.FLOAT16, np.float16), (TensorProto.INT8, np.int8),
         (TensorProto.INT16, np.int16), (TensorProto.INT32, np.int32),
         (TensorProto.INT64, np.int64), (TensorProto.UINT8, np.uint8),
         (TensorProto.UINT16, np.uint16), (TensorProto.UINT32, np.uint32),
         (TensorProto.UINT64, np.uint64), (TensorProto.BOOL, np.bool_),
         (TensorProto.STRING, np.object_)]


def sample(dtype):
    if dtype is np.object_:
        return np.array([["a", "bb", ""], ["ccc", "dé", "e"]], dtype=object)
    if dtype is np.bool_:
        return np.array([[True, False, True], [False, False, True]])
    return (np.arange(6) * 3 - 5).astype(dtype).reshape(2, 3) if np.dtype(dtype).kind != "u" \
        else np.arange(6).astype(dtype).reshape(2, 3)


@pytest.mark.parametrize("level", [ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
                                   ort.GraphOptimizationLevel.ORT_ENABLE_ALL])
@pytest.mark.parametrize("elem,dtype", TYPES)
def test_identity_for_every_type(identity, elem, dtype, level):
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    s = ort.InferenceSession(identity(elem, [2, 3]), so, providers=CPU)
    x = sample(dtype)
    y = s.run(None, {"x": x})[0]
    assert y.dtype == np.dtype(dtype)
    assert y.tolist() == x.tolist()
    x_str = "tensor(%s)" % ("string" if dtype is np.object_ else
                            {np.float32: "float", np.float64: "double"}.get(dtype, np.dtype(dtype).name))
    assert s.get_inputs()[0].type == x_str


def test_unicode_numpy_strings_feed_a_string_input(identity):
    s = ort.InferenceSession(identity(TensorProto.STRING, [2]), providers=CPU)
    assert s.run(None, {"x": np.array(["hi", "there"])})[0].tolist() == ["hi", "there"]
    assert s.run(None, {"x": ["plain", "list"]})[0].tolist() == ["plain", "list"]


def test_sequence_output_is_a_list(tmp_path):
    model = make_model(
        [helper.make_node("SequenceConstruct", ["a", "b"], ["seq"])],
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])],
        [helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, None)])
    s = ort.InferenceSession(save(model, tmp_path / "seq.onnx"), providers=CPU)
    assert s.get_outputs()[0].type == "seq(tensor(float))"
    out = s.run(None, {"a": np.ones(2, np.float32), "b": np.zeros(3, np.float32)})[0]
    assert isinstance(out, list) and len(out) == 2
    np.testing.assert_array_equal(out[0], np.ones(2, np.float32))
    np.testing.assert_array_equal(out[1], np.zeros(3, np.float32))
    values = s.run_with_ort_values(None, {"a": np.ones(2, np.float32),
                                          "b": np.zeros(3, np.float32)})
    assert values[0].data_type() == "seq(tensor(float))"


def test_sequence_input_from_a_list(tmp_path):
    model = make_model(
        [helper.make_node("SequenceLength", ["seq"], ["n"]),
         helper.make_node("ConcatFromSequence", ["seq"], ["cat"], axis=0)],
        [helper.make_tensor_sequence_value_info("seq", TensorProto.INT64, [None])],
        [helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("cat", TensorProto.INT64, [None])])
    s = ort.InferenceSession(save(model, tmp_path / "seqlen.onnx"), providers=CPU)
    assert s.get_inputs()[0].type == "seq(tensor(int64))"
    n, cat = s.run(None, {"seq": [np.array([1, 2], np.int64), [3, 4, 5]]})
    assert n == 2 and n.shape == ()
    assert cat.tolist() == [1, 2, 3, 4, 5]


def test_optional_input_and_output(tmp_path):
    opt_type = helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    model = make_model(
        [helper.make_node("OptionalHasElement", ["opt"], ["has"]),
         helper.make_node("Optional", [], ["empty"],
                          type=helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))],
        [helper.make_value_info("opt", opt_type)],
        [helper.make_tensor_value_info("has", TensorProto.BOOL, []),
         helper.make_value_info("empty", opt_type)])
    s = ort.InferenceSession(save(model, tmp_path / "opt.onnx"), providers=CPU)
    assert s.get_inputs()[0].type == "optional(tensor(float))"
    has, empty = s.run(None, {"opt": np.ones(2, np.float32)})
    assert bool(has) is True and empty is None
    has, _ = s.run(None, {"opt": None})
    assert bool(has) is False


def test_map_feed_conversion_follows_the_declared_type():
    from tessera import _types
    v = _types.to_ortvalue({1: 0.5, 7: 2.0}, "map(int64,tensor(float))")
    assert v.data_type() == "map(int64,tensor(float))"
    assert v.to_python() == {1: 0.5, 7: 2.0}
    v = _types.to_ortvalue({"a": 1}, "map(string,tensor(int64))")
    assert v.to_python() == {"a": 1}
