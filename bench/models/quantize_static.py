#!/usr/bin/python3
"""Rewrites a float32 CNN's Conv nodes into static int8 quantization.

QOperator form (the default): each Conv with constant weights becomes

    QuantizeLinear(x, x_scale, x_zp uint8) -> QLinearConv(int8 weights per output channel,
    int32 bias) -> DequantizeLinear(y_scale, y_zp uint8)

so both runtimes run the same QLinearConv nodes (everything else stays float).
QDQ form (--qdq), what ONNX Runtime's quantize_static writes by default: the Conv stays,
between QuantizeLinear -> DequantizeLinear pairs on its input and output, with its
weights and bias given as DequantizeLinear of int8 / int32 constants; a runtime fuses
each group into an integer convolution or runs it in float. The
activation ranges come from one calibration run of the float model on its test input,
in Tessera's Python package (PYTHONPATH=build/python), with every Conv's input and
output made a graph output. The test data set is copied; its reference outputs stay
the float model's.

Usage: PYTHONPATH=build/python quantize_static.py IN_DIR OUT_DIR [--qdq]
"""
import argparse
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def calibrate(model, in_dir):
    import tessera
    names = []
    for n in model.graph.node:
        if n.op_type == "Conv":
            names += [n.input[0], n.output[0]]
        if n.op_type == "Relu":
            names += [n.output[0]]
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    have = {o.name for o in probe.graph.output}
    for name in dict.fromkeys(names):
        if name not in have:
            probe.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    sess = tessera.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {}
    for i, inp in enumerate(probe.graph.input):
        path = os.path.join(in_dir, "test_data_set_0", f"input_{i}.pb")
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        feeds[inp.name] = numpy_helper.to_array(t)
    outs = sess.run(None, feeds)
    return {o.name: v for o, v in zip(probe.graph.output, outs)}


def uint8_params(v):
    lo, hi = min(0.0, float(v.min())), max(0.0, float(v.max()))
    scale = (hi - lo) / 255.0 or 1.0
    zp = int(np.clip(round(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zp)


def quantize(model, ranges, qdq=False):
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    # A Conv read only by a Relu quantizes its output over the Relu's range, as
    # ONNX Runtime's quantizer does once it has fused the two: the Relu's
    # DequantizeLinear -> Relu -> QuantizeLinear then has one scale.
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    def output_range(conv):
        r = readers.get(conv.output[0], [])
        if len(r) == 1 and r[0].op_type == "Relu" and r[0].output[0] in ranges:
            return ranges[r[0].output[0]]
        return ranges[conv.output[0]]
    nodes, added = [], []
    for n in g.node:
        w = inits.get(n.input[1]) if n.op_type == "Conv" else None
        if w is None or n.input[0] not in ranges or n.output[0] not in ranges:
            nodes.append(n)
            continue
        p = n.name or n.output[0]
        wf = numpy_helper.to_array(w).astype(np.float32)
        ws = np.maximum(np.abs(wf).reshape(wf.shape[0], -1).max(axis=1), 1e-12) / 127.0
        wq = np.clip(np.round(wf / ws[:, None, None, None]), -127, 127).astype(np.int8)
        xs, xzp = uint8_params(ranges[n.input[0]])
        ys, yzp = uint8_params(output_range(n))
        b = numpy_helper.to_array(inits[n.input[2]]) if len(n.input) > 2 else np.zeros(wf.shape[0])
        bq = np.round(b / (xs * ws)).astype(np.int32)
        for name, arr in [("xs", xs), ("xzp", xzp), ("wq", wq), ("ws", ws.astype(np.float32)),
                          ("wzp", np.zeros(wf.shape[0], np.int8)), ("ys", ys), ("yzp", yzp),
                          ("bq", bq)]:
            added.append(numpy_helper.from_array(np.asarray(arr), f"{p}_{name}"))
        if qdq:
            conv = onnx.NodeProto()
            conv.CopyFrom(n)
            del conv.input[:]
            conv.input.extend([p + "_x", p + "_w", p + "_b"])
            conv.output[0] = p + "_y"
            nodes += [
                helper.make_node("QuantizeLinear", [n.input[0], p + "_xs", p + "_xzp"],
                                 [p + "_xq"]),
                helper.make_node("DequantizeLinear", [p + "_xq", p + "_xs", p + "_xzp"],
                                 [p + "_x"]),
                helper.make_node("DequantizeLinear", [p + "_wq", p + "_ws", p + "_wzp"],
                                 [p + "_w"], axis=0),
                helper.make_node("DequantizeLinear", [p + "_bq", p + "_bs"], [p + "_b"], axis=0),
                conv,
                helper.make_node("QuantizeLinear", [p + "_y", p + "_ys", p + "_yzp"],
                                 [p + "_yq"]),
                helper.make_node("DequantizeLinear", [p + "_yq", p + "_ys", p + "_yzp"],
                                 [n.output[0]]),
            ]
            added.append(numpy_helper.from_array((xs * ws).astype(np.float32), f"{p}_bs"))
            continue
        nodes += [
            helper.make_node("QuantizeLinear", [n.input[0], p + "_xs", p + "_xzp"], [p + "_xq"]),
            helper.make_node("QLinearConv",
                             [p + "_xq", p + "_xs", p + "_xzp", p + "_wq", p + "_ws", p + "_wzp",
                              p + "_ys", p + "_yzp", p + "_bq"],
                             [p + "_yq"], p + "_qconv", **{a.name: helper.get_attribute_value(a)
                                                            for a in n.attribute}),
            helper.make_node("DequantizeLinear", [p + "_yq", p + "_ys", p + "_yzp"], [n.output[0]]),
        ]
    del g.node[:]
    g.node.extend(nodes)
    used = {i for x in nodes for i in x.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep + added)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("in_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--qdq", action="store_true", help="QDQ form instead of QLinearConv")
    a = ap.parse_args()
    model = onnx.load(os.path.join(a.in_dir, "model.onnx"))
    q = quantize(model, calibrate(model, a.in_dir), a.qdq)
    onnx.checker.check_model(q)
    os.makedirs(a.out_dir, exist_ok=True)
    onnx.save(q, os.path.join(a.out_dir, "model.onnx"))
    shutil.rmtree(os.path.join(a.out_dir, "test_data_set_0"), ignore_errors=True)
    shutil.copytree(os.path.join(a.in_dir, "test_data_set_0"),
                    os.path.join(a.out_dir, "test_data_set_0"))
    n = sum(1 for x in q.graph.node if x.op_type in ("QLinearConv", "Conv"))
    print(f"{a.out_dir}/model.onnx: {n} convolutions quantized ({'QDQ' if a.qdq else 'QOperator'})")


if __name__ == "__main__":
    main()
