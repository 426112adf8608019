"""Models for the Python tests, built with onnx.helper into each test's
tmp_path (nothing generated is committed)."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import tessera

OPSET = 17


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return str(path)


def make_model(nodes, inputs, outputs, initializers=(), name="graph", opset=OPSET, **kwargs):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **kwargs)


@pytest.fixture
def add_mul_model(tmp_path):
    """sum = x + y; prod = x * w, with w an overridable initializer ([3] floats 1, 2, 3).
    x and y are float [N, 3] (N symbolic); the model carries metadata."""
    w = numpy_helper.from_array(np.array([1, 2, 3], dtype=np.float32), "w")
    model = make_model(
        [helper.make_node("Add", ["x", "y"], ["sum"], name="add"),
         helper.make_node("Mul", ["x", "w"], ["prod"], name="mul")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("sum", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("prod", TensorProto.FLOAT, ["N", 3])],
        initializers=[w], name="add_mul",
        producer_name="tessera-tests", producer_version="1.2", domain="ai.tessera.test",
        model_version=7, doc_string="adds and multiplies")
    model.graph.doc_string = "the graph"
    helper.set_model_props(model, {"author": "tests", "purpose": "metadata"})
    return save(model, tmp_path / "add_mul.onnx")


def identity_model(path, elem_type, shape=None, opset=OPSET):
    """y = Identity(x) for one element type; shape None means unknown rank."""
    model = make_model(
        [helper.make_node("Identity", ["x"], ["y"], name="id")],
        [helper.make_tensor_value_info("x", elem_type, shape)],
        [helper.make_tensor_value_info("y", elem_type, shape)], opset=opset)
    return save(model, path)


@pytest.fixture
def identity(tmp_path):
    """identity(elem_type) -> path of a y = Identity(x) model for that type."""
    def build(elem_type, shape=None):
        return identity_model(tmp_path / ("identity_%d.onnx" % elem_type), elem_type, shape)
    return build


@pytest.fixture
def relu_model(tmp_path):
    """output = Relu(input), input float [N, 3, 224, 224] (the seed examples' shape)."""
    model = make_model(
        [helper.make_node("Relu", ["input"], ["output"], name="relu")],
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N", 3, 224, 224])])
    return save(model, tmp_path / "model.onnx")


@pytest.fixture
def cpu():
    return ["CPUExecutionProvider"]


@pytest.fixture
def session(add_mul_model, cpu):
    return tessera.InferenceSession(add_mul_model, providers=cpu)
