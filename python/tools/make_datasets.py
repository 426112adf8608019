"""Writes the example models of tessera.datasets into the folder given
(run by the build with python3-onnx; nothing generated is committed)."""

import os
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save


def model(nodes, inputs, outputs, name, initializers=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="tessera-datasets")
    m.ir_version = 7
    checker.check_model(m)
    return m


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    sigmoid = model([helper.make_node("Sigmoid", ["x"], ["y"])],
                    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4, 5])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4, 5])], "sigmoid")
    save(sigmoid, os.path.join(out_dir, "sigmoid.onnx"))
    w = numpy_helper.from_array(np.array([[1, 2], [3, 4], [5, 6]], np.float32), "W")
    mul = model([helper.make_node("Mul", ["X", "W"], ["Y"])],
                [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, 2])],
                [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, 2])], "mul_1", [w])
    save(mul, os.path.join(out_dir, "mul_1.onnx"))


if __name__ == "__main__":
    main(sys.argv[1])
