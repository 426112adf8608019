#!/usr/bin/python3
"""Writes a bert-base shaped encoder as torch 1.13+/2.x exports it at opset 17, without torch.

For machines where the benchmark kit's make_models.py cannot run (no python3-torch). The graph
follows torch.onnx.export of the kit's BertEncoder node for node: Gather embeddings,
LayerNormalization, Linear -> MatMul + Add(bias first), view -> Reshape[-1,S,nh,hd],
transpose -> Transpose, matmul(q, k) / sqrt(hd) -> MatMul + Div, optional mask bias Add,
Softmax(axis=-1), GELU(erf) spelled out in Div/Erf/Add/Mul/Mul. Random weights (seed 1234); the
reference output is computed here in float64 numpy.

Usage: make_bert_onnx.py OUTDIR [--layers N] [--seq S] [--mask]
Writes OUTDIR/model.onnx and OUTDIR/test_data_set_0/{input,output}_K.pb.
"""
import argparse
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(layers, seq, mask, hidden=768, heads=12, ffn=3072, vocab=30522, seed=1234):
    rs = np.random.RandomState(seed)
    hd = hidden // heads
    inits, nodes, W = [], [], {}

    def init(name, arr):
        arr = np.asarray(arr)
        inits.append(numpy_helper.from_array(arr, name))
        W[name] = arr
        return name

    def normal(shape, std=0.02):
        return (rs.standard_normal(shape) * std).astype(np.float32)

    def const(name, arr):
        return init(name, np.asarray(arr))

    def node(op, ins, outs, name, **attrs):
        nodes.append(helper.make_node(op, ins, outs, name=name, **attrs))
        return outs[0]

    init("tok.weight", normal((vocab, hidden)))
    init("pos_emb", normal((seq, hidden)))  # pos(position_ids), folded by the exporter
    e = node("Gather", ["tok.weight", "input_ids"], ["/tok/Gather_output_0"], "/tok/Gather", axis=0)
    x = node("Add", [e, "pos_emb"], ["/Add_output_0"], "/Add")
    init("ln.weight", (1 + 0.1 * rs.standard_normal(hidden)).astype(np.float32))
    init("ln.bias", normal(hidden, 0.1))
    x = node("LayerNormalization", [x, "ln.weight", "ln.bias"], ["/ln/LayerNormalization_output_0"],
             "/ln/LayerNormalization", axis=-1, epsilon=1e-12)
    mask_bias = None
    if mask:
        u = node("Unsqueeze", ["attention_mask", const("onnx::Unsqueeze_axes", np.array([1, 2], np.int64))],
                 ["/Unsqueeze_output_0"], "/Unsqueeze")
        c = node("Cast", [u], ["/Cast_output_0"], "/Cast", to=TensorProto.FLOAT)
        s = node("Sub", [const("/Constant_output_0", np.array(1.0, np.float32)), c], ["/Sub_output_0"], "/Sub")
        mask_bias = node("Mul", [s, const("/Constant_1_output_0", np.array(-10000.0, np.float32))],
                         ["/Mul_output_0"], "/Mul")
    shp4 = const("/Constant_shape4", np.array([-1, seq, heads, hd], np.int64))
    shp3 = const("/Constant_shape3", np.array([-1, seq, hidden], np.int64))
    scale = const("/Constant_scale", np.array(math.sqrt(hd), np.float32))
    gelu_c = [const("/Constant_sqrt2", np.array(math.sqrt(2.0), np.float32)),
              const("/Constant_one", np.array(1.0, np.float32)),
              const("/Constant_half", np.array(0.5, np.float32))]
    mm_id = [1000]

    def linear(p, x, fin, fout):
        w = init(f"onnx::MatMul_{mm_id[0]}", normal((fin, fout)))
        mm_id[0] += 1
        b = init(f"{p}.bias", normal(fout))
        m = node("MatMul", [x, w], [f"/{p}/MatMul_output_0"], f"/{p}/MatMul")
        return node("Add", [b, m], [f"/{p}/Add_output_0"], f"/{p}/Add")

    for i in range(layers):
        p = f"layers.{i}"
        q = linear(f"{p}.q", x, hidden, hidden)
        q = node("Reshape", [q, shp4], [f"/{p}/Reshape_output_0"], f"/{p}/Reshape")
        q = node("Transpose", [q], [f"/{p}/Transpose_output_0"], f"/{p}/Transpose", perm=[0, 2, 1, 3])
        k = linear(f"{p}.k", x, hidden, hidden)
        k = node("Reshape", [k, shp4], [f"/{p}/Reshape_1_output_0"], f"/{p}/Reshape_1")
        k = node("Transpose", [k], [f"/{p}/Transpose_1_output_0"], f"/{p}/Transpose_1", perm=[0, 2, 3, 1])
        v = linear(f"{p}.v", x, hidden, hidden)
        v = node("Reshape", [v, shp4], [f"/{p}/Reshape_2_output_0"], f"/{p}/Reshape_2")
        v = node("Transpose", [v], [f"/{p}/Transpose_2_output_0"], f"/{p}/Transpose_2", perm=[0, 2, 1, 3])
        s = node("MatMul", [q, k], [f"/{p}/MatMul_output_0"], f"/{p}/MatMul")
        s = node("Div", [s, scale], [f"/{p}/Div_output_0"], f"/{p}/Div")
        if mask_bias:
            s = node("Add", [s, mask_bias], [f"/{p}/Add_output_0"], f"/{p}/Add")
        pr = node("Softmax", [s], [f"/{p}/Softmax_output_0"], f"/{p}/Softmax", axis=-1)
        c = node("MatMul", [pr, v], [f"/{p}/MatMul_1_output_0"], f"/{p}/MatMul_1")
        c = node("Transpose", [c], [f"/{p}/Transpose_3_output_0"], f"/{p}/Transpose_3", perm=[0, 2, 1, 3])
        c = node("Reshape", [c, shp3], [f"/{p}/Reshape_3_output_0"], f"/{p}/Reshape_3")
        o = linear(f"{p}.o", c, hidden, hidden)
        r = node("Add", [x, o], [f"/{p}/Add_1_output_0"], f"/{p}/Add_1")
        init(f"{p}.ln1.weight", (1 + 0.1 * rs.standard_normal(hidden)).astype(np.float32))
        init(f"{p}.ln1.bias", normal(hidden, 0.1))
        x = node("LayerNormalization", [r, f"{p}.ln1.weight", f"{p}.ln1.bias"],
                 [f"/{p}/ln1/LayerNormalization_output_0"], f"/{p}/ln1/LayerNormalization",
                 axis=-1, epsilon=1e-12)
        h = linear(f"{p}.fc1", x, hidden, ffn)
        d = node("Div", [h, gelu_c[0]], [f"/{p}/Div_1_output_0"], f"/{p}/Div_1")
        d = node("Erf", [d], [f"/{p}/Erf_output_0"], f"/{p}/Erf")
        d = node("Add", [d, gelu_c[1]], [f"/{p}/Add_2_output_0"], f"/{p}/Add_2")
        d = node("Mul", [h, d], [f"/{p}/Mul_output_0"], f"/{p}/Mul")
        g = node("Mul", [d, gelu_c[2]], [f"/{p}/Mul_1_output_0"], f"/{p}/Mul_1")
        f2 = linear(f"{p}.fc2", g, ffn, hidden)
        r = node("Add", [x, f2], [f"/{p}/Add_3_output_0"], f"/{p}/Add_3")
        init(f"{p}.ln2.weight", (1 + 0.1 * rs.standard_normal(hidden)).astype(np.float32))
        init(f"{p}.ln2.bias", normal(hidden, 0.1))
        out = "last_hidden_state" if i == layers - 1 else f"/{p}/ln2/LayerNormalization_output_0"
        x = node("LayerNormalization", [r, f"{p}.ln2.weight", f"{p}.ln2.bias"], [out],
                 f"/{p}/ln2/LayerNormalization", axis=-1, epsilon=1e-12)
    ins = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, seq])]
    if mask:
        ins.append(helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, seq]))
    outs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [1, seq, hidden])]
    graph = helper.make_graph(nodes, "main_graph", ins, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="pytorch", producer_version="1.13.1")
    return model, W


def reference(W, ids, am, layers, seq, hidden=768, heads=12):
    """The encoder in float64 numpy, written from the torch module, not from the graph."""
    hd = hidden // heads
    erf = np.vectorize(math.erf)

    def ln(x, w, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-12) * w + b

    f = {k: v.astype(np.float64) if v.dtype == np.float32 else v for k, v in W.items()}
    x = ln(f["tok.weight"][ids] + f["pos_emb"], f["ln.weight"], f["ln.bias"])
    mb = None if am is None else (1.0 - am[:, None, None, :].astype(np.float64)) * -10000.0
    ws = iter(sorted((k for k in f if k.startswith("onnx::MatMul_")), key=lambda s: int(s.split("_")[-1])))
    for i in range(layers):
        p = f"layers.{i}"
        lin = lambda x, n: x @ f[next(ws)] + f[f"{p}.{n}.bias"]
        B = x.shape[0]
        q = lin(x, "q").reshape(B, seq, heads, hd).transpose(0, 2, 1, 3)
        k = lin(x, "k").reshape(B, seq, heads, hd).transpose(0, 2, 3, 1)
        v = lin(x, "v").reshape(B, seq, heads, hd).transpose(0, 2, 1, 3)
        s = q @ k / math.sqrt(hd)
        if mb is not None:
            s = s + mb
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        c = (s @ v).transpose(0, 2, 1, 3).reshape(B, seq, hidden)
        x = ln(x + lin(c, "o"), f[f"{p}.ln1.weight"], f[f"{p}.ln1.bias"])
        h = lin(x, "fc1")
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
        x = ln(x + lin(h, "fc2"), f[f"{p}.ln2.weight"], f[f"{p}.ln2.bias"])
    return x.astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--mask", action="store_true")
    a = ap.parse_args()
    model, W = build(a.layers, a.seq, a.mask)
    os.makedirs(os.path.join(a.outdir, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(a.outdir, "model.onnx"))
    rs = np.random.RandomState(7)
    ids = rs.randint(0, 30522, size=(1, a.seq)).astype(np.int64)
    am = None
    feeds = [("input_ids", ids)]
    if a.mask:
        am = np.ones((1, a.seq), np.int64)
        am[0, a.seq - 24:] = 0
        feeds.append(("attention_mask", am))
    for i, (n, arr) in enumerate(feeds):
        with open(os.path.join(a.outdir, "test_data_set_0", f"input_{i}.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(arr, n).SerializeToString())
    out = reference(W, ids, am, a.layers, a.seq)
    with open(os.path.join(a.outdir, "test_data_set_0", "output_0.pb"), "wb") as fh:
        fh.write(numpy_helper.from_array(out, "last_hidden_state").SerializeToString())


if __name__ == "__main__":
    main()
