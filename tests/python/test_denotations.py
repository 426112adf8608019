"""Type and dimension denotations the model declares are kept on its value
infos and written back when the optimized model is saved
(optimized_model_filepath)."""
import numpy as np
import onnx
from onnx import TensorProto, helper

import tessera as ort

CPU = ["CPUExecutionProvider"]


def _denoted(info, type_denotation, dim_denotations):
    info.type.denotation = type_denotation
    for dim, d in zip(info.type.tensor_type.shape.dim, dim_denotations):
        dim.denotation = d
    return info


def _model(path):
    x = _denoted(helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4, 4]), "IMAGE",
                 ["DATA_BATCH", "DATA_CHANNEL", "DATA_FEATURE", "DATA_FEATURE"])
    y = _denoted(helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3, 4, 4]), "TENSOR",
                 ["DATA_BATCH", "DATA_CHANNEL", "", ""])
    mid = _denoted(helper.make_tensor_value_info("r", TensorProto.FLOAT, ["N", 3, 4, 4]), "",
                   ["DATA_BATCH", "", "", ""])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["r"], ["y"])],
        "denoted", [x], [y], value_info=[mid])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def _dims(info):
    return [d.denotation for d in info.type.tensor_type.shape.dim]


def test_denotations_survive_the_optimized_model(tmp_path):
    src, saved = str(tmp_path / "denoted.onnx"), str(tmp_path / "optimized.onnx")
    _model(src)
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    opts.optimized_model_filepath = saved
    sess = ort.InferenceSession(src, opts, providers=CPU)
    x = np.linspace(-1, 1, 2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4)
    np.testing.assert_array_equal(sess.run(None, {"x": x})[0], -np.maximum(x, 0))

    graph = onnx.load(saved).graph
    (x_info,) = graph.input
    assert x_info.type.denotation == "IMAGE"
    assert _dims(x_info) == ["DATA_BATCH", "DATA_CHANNEL", "DATA_FEATURE", "DATA_FEATURE"]
    assert x_info.type.tensor_type.shape.dim[0].dim_param == "N"
    (y_info,) = graph.output
    assert y_info.type.denotation == "TENSOR"
    assert _dims(y_info) == ["DATA_BATCH", "DATA_CHANNEL", "", ""]
    mid = [v for v in graph.value_info if v.name == "r"]
    assert len(mid) == 1 and _dims(mid[0]) == ["DATA_BATCH", "", "", ""]


def test_overridden_denoted_dimension_keeps_its_denotation(tmp_path):
    src, saved = str(tmp_path / "denoted.onnx"), str(tmp_path / "optimized.onnx")
    _model(src)
    opts = ort.SessionOptions()
    opts.add_free_dimension_override_by_denotation("DATA_BATCH", 2)
    opts.optimized_model_filepath = saved
    sess = ort.InferenceSession(src, opts, providers=CPU)
    assert sess.get_inputs()[0].shape == [2, 3, 4, 4]
    (x_info,) = onnx.load(saved).graph.input
    assert x_info.type.tensor_type.shape.dim[0].dim_value == 2
    assert _dims(x_info)[0] == "DATA_BATCH"
