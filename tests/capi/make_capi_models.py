#!/usr/bin/env python3
"""Models the C API tests load, written with onnx.helper into the folder given."""
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 17)]


def save(model, folder, name):
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / name))


def add_mul(folder):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])
    s = helper.make_tensor_value_info("sum", TensorProto.FLOAT, ["batch", 3])
    p = helper.make_tensor_value_info("product", TensorProto.FLOAT, ["batch", 3])
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["sum"]), helper.make_node("Mul", ["x", "y"], ["product"])],
        "add_mul_graph", [x, y], [s, p], doc_string="adds and multiplies")
    model = helper.make_model(graph, opset_imports=OPSET, producer_name="capi-test",
                              domain="test.tessera", model_version=7, doc_string="a model for the C API tests")
    helper.set_model_props(model, {"author": "tessera", "purpose": "tests"})
    save(model, folder, "add_mul.onnx")


def strings(folder):
    x = helper.make_tensor_value_info("text", TensorProto.STRING, [None])
    y = helper.make_tensor_value_info("same", TensorProto.STRING, [None])
    graph = helper.make_graph([helper.make_node("Identity", ["text"], ["same"])], "strings", [x], [y])
    save(helper.make_model(graph, opset_imports=OPSET), folder, "strings.onnx")


def sequence(folder):
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [2])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])
    seq = helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("SequenceConstruct", ["a", "b"], ["seq"])], "sequence",
                              [a, b], [seq])
    save(helper.make_model(graph, opset_imports=OPSET), folder, "sequence.onnx")


def overridable(folder):
    # `bias` is an initializer that is also a graph input: a run may replace it.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    bias_in = helper.make_tensor_value_info("bias", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    bias = numpy_helper.from_array(np.array([10, 20], dtype=np.float32), "bias")
    graph = helper.make_graph([helper.make_node("Add", ["x", "bias"], ["y"])], "overridable",
                              [x, bias_in], [y], [bias])
    save(helper.make_model(graph, opset_imports=OPSET), folder, "overridable.onnx")


def int_types(folder):
    x = helper.make_tensor_value_info("x", TensorProto.INT64, [3])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [3])
    f = helper.make_tensor_value_info("f", TensorProto.FLOAT16, [3])
    graph = helper.make_graph([helper.make_node("Neg", ["x"], ["y"]),
                               helper.make_node("Cast", ["x"], ["f"], to=TensorProto.FLOAT16)],
                              "ints", [x], [y, f])
    save(helper.make_model(graph, opset_imports=OPSET), folder, "int_types.onnx")


IDENTITY_TYPES = {
    "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE, "int8": TensorProto.INT8,
    "uint8": TensorProto.UINT8, "int16": TensorProto.INT16, "uint16": TensorProto.UINT16,
    "int32": TensorProto.INT32, "uint32": TensorProto.UINT32, "int64": TensorProto.INT64,
    "uint64": TensorProto.UINT64, "bool": TensorProto.BOOL, "float16": TensorProto.FLOAT16,
    "string": TensorProto.STRING,
}


def identities(folder):
    """identity_<type>.onnx: x -> y of each element type (the names npm's onnxruntime-node uses)."""
    for name, elem in IDENTITY_TYPES.items():
        x = helper.make_tensor_value_info("x", elem, [3])
        y = helper.make_tensor_value_info("y", elem, [3])
        graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], f"identity_{name}", [x], [y])
        save(helper.make_model(graph, opset_imports=OPSET), folder, f"identity_{name}.onnx")


def sparse(folder):
    """sparse_matmul.onnx: dense y = SparseToDenseMatMul(sparse a [3,4], dense b [4,2]), and
    a's sparse form passed through as the sparse output a_out."""
    a = helper.make_sparse_tensor_value_info("a", TensorProto.FLOAT, [3, 4])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [4, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])
    a_out = helper.make_sparse_tensor_value_info("a", TensorProto.FLOAT, [3, 4])
    node = helper.make_node("SparseToDenseMatMul", ["a", "b"], ["y"], domain="com.microsoft")
    graph = helper.make_graph([node], "sparse_matmul", [a, b], [y, a_out])
    model = helper.make_model(graph, opset_imports=OPSET + [helper.make_opsetid("com.microsoft", 1)])
    onnx.save(model, str(folder / "sparse_matmul.onnx"))  # the checker knows no contrib ops


def doubler(folder):
    """doubler.onnx: y = Doubler(x) over float [4], an op of the application's domain
    test.kernel_context that the kernel-context tests register; its metadata holds a
    compiled-model compatibility string for the provider TestEP."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    node = helper.make_node("Doubler", ["x"], ["y"], domain="test.kernel_context")
    graph = helper.make_graph([node], "doubler", [x], [y])
    model = helper.make_model(graph, opset_imports=OPSET + [helper.make_opsetid("test.kernel_context", 1)])
    helper.set_model_props(model, {"ep_compatibility_info.TestEP": "test;version=1.2"})
    onnx.save(model, str(folder / "doubler.onnx"))  # the checker knows no application ops


def identity_add(folder):
    """identity_add.onnx: y = Identity(x) + w, w a 256-float initializer (1024 bytes, the
    compile tests' external-initializer threshold); optimization removes the Identity."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [256])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [256])
    w = numpy_helper.from_array(np.arange(256, dtype=np.float32), "w")
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["x_same"], name="pass_through"),
                               helper.make_node("Add", ["x_same", "w"], ["y"], name="add_w")],
                              "identity_add", [x], [y], [w])
    save(helper.make_model(graph, opset_imports=OPSET), folder, "identity_add.onnx")


def main():
    folder = pathlib.Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for make in (add_mul, strings, sequence, overridable, int_types, identities, sparse, doubler,
                 identity_add):
        make(folder)


if __name__ == "__main__":
    main()
