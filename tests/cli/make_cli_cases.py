"""Writes small backend-test cases for tests/cli/test_cli.sh into a folder.

Every model is one If node whose branches return an outer-scope value, so
the cases need no operator kernels beyond If: they test the runner (loading,
feeding, comparing, reporting), not the operators.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

OUT = sys.argv[1]


def save_pb(path, proto):
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def select_model(value_type):
    """z = cond ? x : y, with x, y, z of `value_type` (a TypeProto)."""
    def vi(name):
        return h.make_value_info(name, value_type)

    def branch(name, src):
        return h.make_graph([], name, [], [vi(src)])

    node = h.make_node("If", ["cond"], ["z"], then_branch=branch("then", "x"),
                       else_branch=branch("else", "y"))
    graph = h.make_graph([node], "select",
                         [h.make_tensor_value_info("cond", T.BOOL, []), vi("x"), vi("y")], [vi("z")])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)], producer_name="cli-test")
    h.set_model_props(model, {"purpose": "cli test"})
    return model


def tensor_type(array):
    return h.make_tensor_type_proto(h.np_dtype_to_tensor_dtype(array.dtype)
                                    if hasattr(h, "np_dtype_to_tensor_dtype")
                                    else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype],
                                    list(array.shape))


def case(name, x, expected_sets, value_type=None, to_proto=nh.from_array):
    """One case; expected_sets is a list of expected z per test_data_set."""
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(select_model(value_type or tensor_type(x)), os.path.join(d, "model.onnx"))
    for i, expected in enumerate(expected_sets):
        s = os.path.join(d, f"test_data_set_{i}")
        os.makedirs(s, exist_ok=True)
        save_pb(os.path.join(s, "input_0.pb"), nh.from_array(np.array(True), "cond"))
        save_pb(os.path.join(s, "input_1.pb"), to_proto(x, "x"))
        save_pb(os.path.join(s, "input_2.pb"), to_proto(x, "y"))
        save_pb(os.path.join(s, "output_0.pb"), to_proto(expected, "z"))


f32 = np.float32
x = np.array([1.0, 2.0], f32)
case("pass_float", x, [np.array([1.0, 2.0005], f32)])  # within rtol 1e-3
special = np.array([np.nan, np.inf, -np.inf, 0.0], f32)
case("pass_nan_inf", special, [special.copy()])
case("pass_int64", np.array([[5, -7]], np.int64), [np.array([[5, -7]], np.int64)])
case("pass_bool", np.array([True, False]), [np.array([True, False])])
case("pass_two_sets", x, [x, x])
case("fail_value", x, [np.array([1.0, 2.1], f32)])
case("fail_inf_sign", np.array([np.inf], f32), [np.array([-np.inf], f32)])
case("fail_nan", np.array([np.nan], f32), [np.array([1.0], f32)])
case("fail_int64", np.array([5, 7], np.int64), [np.array([5, 8], np.int64)])
case("fail_shape", x, [x.reshape(1, 2)], value_type=h.make_tensor_type_proto(T.FLOAT, None))
case("fail_second_set", x, [x, np.array([1.0, 3.0], f32)])

# Sequences compare element-wise.
seq_type = h.make_sequence_type_proto(h.make_tensor_type_proto(T.FLOAT, None))
items = [np.array([1.0], f32), np.array([2.0, 3.0], f32)]
if hasattr(nh, "from_list"):
    case("pass_sequence", items, [items], value_type=seq_type, to_proto=nh.from_list)
    case("fail_sequence", items, [[items[0], np.array([2.0, 4.0], f32)]], value_type=seq_type,
         to_proto=nh.from_list)

# Broken cases: garbage model bytes, and a case without data sets.
os.makedirs(os.path.join(OUT, "error_bad_model", "test_data_set_0"), exist_ok=True)
with open(os.path.join(OUT, "error_bad_model", "model.onnx"), "wb") as f:
    f.write(b"\x0a\xff\xff\xff\xff\x0f this is not a model")
os.makedirs(os.path.join(OUT, "error_no_data"), exist_ok=True)
onnx.save(select_model(tensor_type(x)), os.path.join(OUT, "error_no_data", "model.onnx"))

# Inputs for `tessera run`: numpy-written .npy files (format 1.0 and 2.0).
np.save(os.path.join(OUT, "cond.npy"), np.array(True))
with open(os.path.join(OUT, "x.npy"), "wb") as f:
    np.lib.format.write_array(f, np.array([1.5, -2.5], f32), version=(2, 0))
np.save(os.path.join(OUT, "y.npy"), np.array([7.0, 8.0], f32))
np.save(os.path.join(OUT, "x_double.npy"), np.array([1.5, -2.5]))

# One select model per NumPy dtype, with numpy-written inputs, for the .npy
# round trip through `tessera run` (numpy writes, tessera reads and writes,
# numpy reads back).
dtypes = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool"]
npy_dir = os.path.join(OUT, "npy")
os.makedirs(npy_dir, exist_ok=True)
for name in dtypes:
    a = (np.arange(6).reshape(2, 3) % 2 == 1) if name == "bool" else \
        (np.arange(6).reshape(2, 3) * 3 - (0 if name.startswith("uint") else 7)).astype(name)
    onnx.save(select_model(tensor_type(a)), os.path.join(npy_dir, f"{name}.onnx"))
    np.save(os.path.join(npy_dir, f"{name}.npy"), a)
np.save(os.path.join(npy_dir, "scalar.npy"), np.float32(4.5))
onnx.save(select_model(tensor_type(np.zeros((), f32))), os.path.join(npy_dir, "scalar.onnx"))
