#!/usr/bin/env python3
"""Writes the model repository the serving test serves, into the folder given:
the shipped demo models, small models (onnx.helper) for each datatype family,
and three models that cannot load (a broken file, an unknown provider,
dynamic batching over a fixed first dimension)."""
import json
import pathlib
import shutil
import sys

import onnx
import onnx.numpy_helper
from onnx import TensorProto, helper

OPSET = [helper.make_opsetid("", 17)]
ROOT = pathlib.Path(__file__).resolve().parents[2]


def version_dir(repo, name, version="1"):
    d = repo / name / version
    d.mkdir(parents=True, exist_ok=True)
    return d


def save(repo, name, graph, version="1"):
    model = helper.make_model(graph, opset_imports=OPSET)
    onnx.checker.check_model(model)
    onnx.save(model, str(version_dir(repo, name, version) / "model.onnx"))


def two_input(op, elem, name):
    x = helper.make_tensor_value_info("x", elem, ["n"])
    y = helper.make_tensor_value_info("y", elem, ["n"])
    z = helper.make_tensor_value_info("z", elem, ["n"])
    return helper.make_graph([helper.make_node(op, ["x", "y"], ["z"])], name, [x, y], [z])


def main(repo):
    repo = pathlib.Path(repo)
    for demo in ("demo_cnn", "demo_transformer"):
        shutil.copy(ROOT / "models" / demo / "model.onnx", version_dir(repo, demo) / "model.onnx")
    (repo / "demo_transformer" / "config.json").write_text(json.dumps(
        {"providers": [{"name": "CPUExecutionProvider", "options": {}}],
         "intra_op_threads": 1, "inter_op_threads": 1, "max_batch_size": 4}))

    # FP32, two outputs, two versions: 1 adds and multiplies, 2 also (requests
    # without a version go to 2, whose outputs are named the same).
    for version in ("1", "2"):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])
        s = helper.make_tensor_value_info("sum", TensorProto.FLOAT, ["batch", 3])
        p = helper.make_tensor_value_info("product", TensorProto.FLOAT, ["batch", 3])
        nodes = [helper.make_node("Add", ["x", "y"], ["sum"]),
                 helper.make_node("Mul", ["x", "y"], ["product"])]
        save(repo, "add_mul", helper.make_graph(nodes, "add_mul", [x, y], [s, p]), version)

    save(repo, "int64_add", two_input("Add", TensorProto.INT64, "int64_add"))
    save(repo, "int8_add", two_input("Add", TensorProto.INT8, "int8_add"))
    save(repo, "fp64_mul", two_input("Mul", TensorProto.DOUBLE, "fp64_mul"))

    text = helper.make_tensor_value_info("text", TensorProto.STRING, [None])
    same = helper.make_tensor_value_info("same", TensorProto.STRING, [None])
    save(repo, "strings", helper.make_graph([helper.make_node("Identity", ["text"], ["same"])],
                                            "strings", [text], [same]))

    b = helper.make_tensor_value_info("b", TensorProto.BOOL, [2, 2])
    nb = helper.make_tensor_value_info("not_b", TensorProto.BOOL, [2, 2])
    save(repo, "bool_not", helper.make_graph([helper.make_node("Not", ["b"], ["not_b"])],
                                             "bool_not", [b], [nb]))

    h = helper.make_tensor_value_info("h", TensorProto.FLOAT16, [3])
    h2 = helper.make_tensor_value_info("h2", TensorProto.FLOAT16, [3])
    save(repo, "fp16_add", helper.make_graph([helper.make_node("Add", ["h", "h"], ["h2"])],
                                             "fp16_add", [h], [h2]))

    # Dynamic batching: requests of 1 or 2 rows joined up to 8; an index out
    # of range makes the run fail (and the batch run again request by request).
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    idx = helper.make_tensor_value_info("idx", TensorProto.INT64, ["batch", 1])
    picked = helper.make_tensor_value_info("picked", TensorProto.FLOAT, ["batch", 1])
    doubled = helper.make_tensor_value_info("doubled", TensorProto.FLOAT, ["batch", 4])
    save(repo, "batched", helper.make_graph(
        [helper.make_node("GatherElements", ["x", "idx"], ["picked"], axis=1),
         helper.make_node("Add", ["x", "x"], ["doubled"])], "batched", [x, idx], [picked, doubled]))
    (repo / "batched" / "config.json").write_text(json.dumps(
        {"max_batch_size": 8, "dynamic_batching": {"max_queue_delay_microseconds": 300000},
         "session_config": {"session.intra_op.allow_spinning": "0"}}))

    # Dynamic batching with a second dynamic dimension (a sequence length):
    # requests of different lengths must run in different batches.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq"])
    total = helper.make_tensor_value_info("total", TensorProto.FLOAT, ["batch", 1])
    doubled = helper.make_tensor_value_info("doubled", TensorProto.FLOAT, ["batch", "seq"])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    save(repo, "seq_batched", helper.make_graph(
        [helper.make_node("ReduceSum", ["x", "axes"], ["total"], keepdims=1),
         helper.make_node("Add", ["x", "x"], ["doubled"])], "seq_batched", [x], [total, doubled],
        [axes]))
    (repo / "seq_batched" / "config.json").write_text(json.dumps(
        {"max_batch_size": 8, "dynamic_batching": {"max_queue_delay_microseconds": 300000}}))

    # The same graph with its sequence length fixed at 4 by the config.
    save(repo, "fixed_seq", helper.make_graph(
        [helper.make_node("ReduceSum", ["x", "axes"], ["total"], keepdims=1),
         helper.make_node("Add", ["x", "x"], ["doubled"])], "fixed_seq", [x], [total, doubled],
        [axes]))
    (repo / "fixed_seq" / "config.json").write_text(json.dumps(
        {"max_batch_size": 4,
         "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [4]}],
         "output": [{"name": "doubled", "dims": [4]}, {"name": "total", "dims": [-1]}]}))

    # The same graph batched at a preferred size of 2 by two instances.
    save(repo, "pair_batched", helper.make_graph(
        [helper.make_node("ReduceSum", ["x", "axes"], ["total"], keepdims=1),
         helper.make_node("Add", ["x", "x"], ["doubled"])], "pair_batched", [x], [total, doubled],
        [axes]))
    (repo / "pair_batched" / "config.json").write_text(json.dumps(
        {"max_batch_size": 8, "instance_group": [{"count": 2, "kind": "KIND_CPU"}],
         "dynamic_batching": {"max_queue_delay_microseconds": 5000000,
                              "preferred_batch_size": [2]}}))

    shutil.copy(ROOT / "models" / "demo_cnn" / "model.onnx", version_dir(repo, "cnn_batched") / "model.onnx")
    (repo / "cnn_batched" / "config.json").write_text(json.dumps(
        {"max_batch_size": 4, "dynamic_batching": {}}))

    bf = helper.make_tensor_value_info("b", TensorProto.BFLOAT16, [3])
    bf2 = helper.make_tensor_value_info("b2", TensorProto.BFLOAT16, [3])
    save(repo, "bf16_add", helper.make_graph([helper.make_node("Add", ["b", "b"], ["b2"])],
                                             "bf16_add", [bf], [bf2]))

    # Identity models for the integer datatypes the models above leave out
    # (the gRPC test sends every datatype through them).
    for elem, name in ((TensorProto.UINT8, "uint8"), (TensorProto.UINT16, "uint16"),
                       (TensorProto.UINT32, "uint32"), (TensorProto.UINT64, "uint64"),
                       (TensorProto.INT16, "int16"), (TensorProto.INT32, "int32")):
        a = helper.make_tensor_value_info("a", elem, [None])
        b = helper.make_tensor_value_info("b", elem, [None])
        save(repo, f"echo_{name}", helper.make_graph([helper.make_node("Identity", ["a"], ["b"])],
                                                     f"echo_{name}", [a], [b]))

    # Queue limits and timeouts: a batch that waits 1.5 s for rows that do not
    # come, so requests stay queued; at most 2 at once in slow_batched, and a
    # 200 ms limit on every request of timed_batched.
    for name, extra in (("slow_batched", {"max_queue_size": 2}),
                        ("timed_batched", {"request_timeout_microseconds": 200000})):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2])
        save(repo, name, helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"])],
                                           name, [x], [y]))
        (repo / name / "config.json").write_text(json.dumps(
            {"max_batch_size": 8, "dynamic_batching": {"max_queue_delay_microseconds": 1500000},
             **extra}))

    # A long run (80 MatMuls of [2048, 256] by [256, 256], seconds on a small
    # machine) for a deadline that passes while the session runs.
    import numpy as np
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2048, 256])
    inits = [helper.make_tensor("rows", TensorProto.INT64, [2], [2048, 256]),
             onnx.numpy_helper.from_array(np.eye(256, dtype=np.float32), "w")]
    nodes = [helper.make_node("Expand", ["x", "rows"], ["h0"])]
    for i in range(80):
        nodes.append(helper.make_node("MatMul", [f"h{i}", "w"], [f"h{i + 1}" if i < 79 else "y"]))
    save(repo, "slow_run", helper.make_graph(nodes, "slow_run", [x], [y], inits))

    (version_dir(repo, "broken") / "model.onnx").write_bytes(b"this is not an ONNX model")
    save(repo, "bad_provider", two_input("Add", TensorProto.FLOAT, "bad_provider"))
    (repo / "bad_provider" / "config.json").write_text(json.dumps(
        {"providers": ["NoSuchExecutionProvider"]}))
    save(repo, "bad_session_config", two_input("Add", TensorProto.FLOAT, "bad_session_config"))
    (repo / "bad_session_config" / "config.json").write_text(json.dumps(
        {"session_config": {"session.intra_op.allow_spinning": "sometimes"}}))


if __name__ == "__main__":
    main(sys.argv[1])
