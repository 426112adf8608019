#!/usr/bin/python3
"""Rewrites a float32 model's MatMuls by constant 2-D weights into dynamic int8 quantization.

The graph is the one ONNX Runtime's quantize_dynamic writes (QInt8 weights, QUInt8
activations), so both runtimes see the same nodes:

    A -> DynamicQuantizeLinear -> (A_q uint8, A_scale, A_zp)
    MatMulInteger(A_q, W_q int8, A_zp, W_zp = 0) -> int32 -> Cast(float)
    -> Mul(A_scale * W_scale) -> the MatMul's output

Weights are quantized symmetrically, per tensor (W_scale = max|W| / 127), or per output
column with --per-column. The test data set is copied with the reference outputs recomputed
by neither runtime: they stay the float model's, and a run's distance to them says what the
quantization costs in accuracy.

Usage: quantize_dynamic.py IN_DIR OUT_DIR [--per-column]
IN_DIR holds model.onnx and test_data_set_0/; OUT_DIR gets the same layout.
"""
import argparse
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def quantize(model, per_column):
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    nodes, added = [], []
    for n in g.node:
        w = inits.get(n.input[1]) if n.op_type == "MatMul" and len(n.input) == 2 else None
        if w is None or len(w.dims) != 2 or w.data_type != TensorProto.FLOAT:
            nodes.append(n)
            continue
        wf = numpy_helper.to_array(w).astype(np.float32)
        amax = np.abs(wf).max(axis=0) if per_column else np.abs(wf).max()
        scale = np.maximum(amax, 1e-12) / 127.0
        wq = np.clip(np.round(wf / scale), -127, 127).astype(np.int8)
        p = n.name or n.output[0]
        added += [
            numpy_helper.from_array(wq, p + "_W_q"),
            numpy_helper.from_array(np.asarray(scale, np.float32), p + "_W_scale"),
            numpy_helper.from_array(np.zeros_like(np.asarray(scale), np.int8), p + "_W_zp"),
        ]
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [n.input[0]],
                             [p + "_A_q", p + "_A_scale", p + "_A_zp"], p + "_quant"),
            helper.make_node("MatMulInteger", [p + "_A_q", p + "_W_q", p + "_A_zp", p + "_W_zp"],
                             [p + "_int32"], p + "_MatMulInteger"),
            helper.make_node("Cast", [p + "_int32"], [p + "_float"], p + "_cast",
                             to=TensorProto.FLOAT),
            helper.make_node("Mul", [p + "_A_scale", p + "_W_scale"], [p + "_scale"],
                             p + "_scale_mul"),
            helper.make_node("Mul", [p + "_float", p + "_scale"], [n.output[0]], p + "_out_mul"),
        ]
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in nodes for i in n.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep + added)
    if not any(o.domain in ("", "ai.onnx") and o.version >= 11 for o in model.opset_import):
        raise SystemExit("the model's default opset must be 11 or later (DynamicQuantizeLinear)")
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("in_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--per-column", action="store_true")
    a = ap.parse_args()
    model = onnx.load(os.path.join(a.in_dir, "model.onnx"))
    q = quantize(model, a.per_column)
    onnx.checker.check_model(q)
    os.makedirs(a.out_dir, exist_ok=True)
    onnx.save(q, os.path.join(a.out_dir, "model.onnx"))
    src = os.path.join(a.in_dir, "test_data_set_0")
    dst = os.path.join(a.out_dir, "test_data_set_0")
    if os.path.isdir(src):
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst)
    n = sum(1 for x in q.graph.node if x.op_type == "MatMulInteger")
    print(f"{a.out_dir}/model.onnx: {n} MatMuls quantized")


if __name__ == "__main__":
    main()
