#!/usr/bin/python3
"""Large graphs for measuring session creation and first run at scale.

    /usr/bin/python3 bench/models/make_big_graphs.py OUTDIR [--sizes 2000,8000,32000]
        [--kinds chain,decoder,cnn,branches,loop,if]

writes OUTDIR/KIND_N/model.onnx for each kind and approximate node count N,
with test_data_set_0/input_*.pb beside it so `tessera bench` and ONNX
Runtime's ort_bench.js feed the same inputs. The graphs are written with
onnx.helper rather than traced, so a 32,000-node graph takes seconds to make;
their patterns are the ones exporters emit:

  chain     Add/Mul alternating on a [1, 64] tensor, one initializer per node
  decoder   transformer decoder layers of hidden 64: LayerNorm written out
            (ReduceMean, Sub, Pow, Sqrt, Div), attention written out (Q/K/V
            MatMul+Add, Reshape, Transpose, Concat with past key/value inputs,
            Softmax), a Gelu MLP; one past key and value input per layer
  cnn       residual blocks Conv-BatchNormalization-Relu-Conv-BatchNormalization
            -Add-Relu on 8 channels of 8x8
  branches  blocks that Split a tensor into 8 branches, run three element-wise
            ops on each, and Concat them back
  loop      a Loop whose body holds a chain of N Add/Mul nodes
  if        an If whose two branches each hold a chain of N/2 nodes
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
RNG = np.random.default_rng(7)


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def rand(*shape, scale=0.1):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def write(outdir, name, graph, feeds):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    d = os.path.join(outdir, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for i, (n, a) in enumerate(feeds):
        t = numpy_helper.from_array(a, n)
        with open(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
            f.write(t.SerializeToString())
    return sum(count_nodes(g) for g in [graph])


def count_nodes(g):
    """Nodes of g and of every subgraph in it, at any depth."""
    n = 0
    for node in g.node:
        n += 1
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                n += count_nodes(a.g)
            for sub in a.graphs:
                n += count_nodes(sub)
    return n


def chain_nodes(x, n, prefix, inits, width):
    """n alternating Add/Mul nodes from x, each with its own [width] initializer."""
    nodes = []
    cur = x
    for i in range(n):
        c = f"{prefix}c{i}"
        inits.append(const(c, (RNG.standard_normal(width) * 0.01 + (1.0 if i % 2 else 0.0)).astype(np.float32)))
        out = f"{prefix}v{i}"
        nodes.append(helper.make_node("Mul" if i % 2 else "Add", [cur, c], [out], name=f"{prefix}n{i}"))
        cur = out
    return nodes, cur


def make_chain(n):
    inits = []
    nodes, last = chain_nodes("x", n, "", inits, 64)
    nodes.append(helper.make_node("Identity", [last], ["y"]))
    g = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])],
        inits,
    )
    return g, [("x", rand(1, 64, scale=1.0))]


def layer_norm(x, p, nodes, inits, h):
    inits += [const(p + "g", np.ones(h, np.float32)), const(p + "b", np.zeros(h, np.float32))]
    nodes += [
        helper.make_node("ReduceMean", [x], [p + "mu"], axes=[-1], keepdims=1),
        helper.make_node("Sub", [x, p + "mu"], [p + "d"]),
        helper.make_node("Pow", [p + "d", "two"], [p + "d2"]),
        helper.make_node("ReduceMean", [p + "d2"], [p + "var"], axes=[-1], keepdims=1),
        helper.make_node("Add", [p + "var", "eps"], [p + "ve"]),
        helper.make_node("Sqrt", [p + "ve"], [p + "sd"]),
        helper.make_node("Div", [p + "d", p + "sd"], [p + "nx"]),
        helper.make_node("Mul", [p + "nx", p + "g"], [p + "sx"]),
        helper.make_node("Add", [p + "sx", p + "b"], [p + "o"]),
    ]
    return p + "o"


def linear(x, p, nodes, inits, k, n):
    inits += [const(p + "w", rand(k, n)), const(p + "bias", rand(n))]
    nodes += [
        helper.make_node("MatMul", [x, p + "w"], [p + "mm"]),
        helper.make_node("Add", [p + "mm", p + "bias"], [p + "o"]),
    ]
    return p + "o"


def make_decoder(n):
    h, heads, seq, past = 64, 4, 4, 8
    hd = h // heads
    per_layer = 52
    layers = max(1, n // per_layer)
    nodes, inits = [], []
    inits += [
        const("two", np.array(2.0, np.float32)),
        const("eps", np.array(1e-5, np.float32)),
        const("scale", np.array(1.0 / np.sqrt(hd), np.float32)),
        const("half", np.array(0.5, np.float32)),
        const("one", np.array(1.0, np.float32)),
        const("rsqrt2", np.array(1.0 / np.sqrt(2.0), np.float32)),
        const("heads_shape", np.array([1, seq, heads, hd], np.int64)),
        const("flat_shape", np.array([1, seq, h], np.int64)),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, seq, h])]
    outputs = []
    feeds = [("x", rand(1, seq, h, scale=1.0))]
    cur = "x"
    for layer in range(layers):
        p = f"l{layer}_"
        ln = layer_norm(cur, p + "ln1_", nodes, inits, h)
        q = linear(ln, p + "q_", nodes, inits, h, h)
        k = linear(ln, p + "k_", nodes, inits, h, h)
        v = linear(ln, p + "v_", nodes, inits, h, h)
        for t in ("q", "k", "v"):
            src = {"q": q, "k": k, "v": v}[t]
            nodes.append(helper.make_node("Reshape", [src, "heads_shape"], [p + t + "r"]))
            nodes.append(helper.make_node("Transpose", [p + t + "r"], [p + t + "t"], perm=[0, 2, 1, 3]))
        for t in ("k", "v"):
            name = f"past_{t}_{layer}"
            inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, heads, past, hd]))
            feeds.append((name, rand(1, heads, past, hd, scale=1.0)))
            nodes.append(helper.make_node("Concat", [name, p + t + "t"], [f"present_{t}_{layer}"], axis=2))
            outputs.append(
                helper.make_tensor_value_info(f"present_{t}_{layer}", TensorProto.FLOAT, [1, heads, past + seq, hd])
            )
        nodes += [
            helper.make_node("Transpose", [f"present_k_{layer}"], [p + "kT"], perm=[0, 1, 3, 2]),
            helper.make_node("MatMul", [p + "qt", p + "kT"], [p + "s"]),
            helper.make_node("Mul", [p + "s", "scale"], [p + "ss"]),
            helper.make_node("Softmax", [p + "ss"], [p + "a"], axis=-1),
            helper.make_node("MatMul", [p + "a", f"present_v_{layer}"], [p + "ctx"]),
            helper.make_node("Transpose", [p + "ctx"], [p + "ctxt"], perm=[0, 2, 1, 3]),
            helper.make_node("Reshape", [p + "ctxt", "flat_shape"], [p + "ctxf"]),
        ]
        o = linear(p + "ctxf", p + "o_", nodes, inits, h, h)
        nodes.append(helper.make_node("Add", [cur, o], [p + "res1"]))
        ln2 = layer_norm(p + "res1", p + "ln2_", nodes, inits, h)
        f1 = linear(ln2, p + "fc1_", nodes, inits, h, 4 * h)
        nodes += [
            helper.make_node("Mul", [f1, "rsqrt2"], [p + "g0"]),
            helper.make_node("Erf", [p + "g0"], [p + "g1"]),
            helper.make_node("Add", [p + "g1", "one"], [p + "g2"]),
            helper.make_node("Mul", [f1, p + "g2"], [p + "g3"]),
            helper.make_node("Mul", [p + "g3", "half"], [p + "g4"]),
        ]
        f2 = linear(p + "g4", p + "fc2_", nodes, inits, 4 * h, h)
        nodes.append(helper.make_node("Add", [p + "res1", f2], [p + "out"]))
        cur = p + "out"
    nodes.append(helper.make_node("Identity", [cur], ["y"]))
    outputs.insert(0, helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, seq, h]))
    for i, node in enumerate(nodes):
        node.name = f"n{i}"
    return helper.make_graph(nodes, "decoder", inputs, outputs, inits), feeds


def make_cnn(n):
    c, hw = 8, 8
    blocks = max(1, n // 7)
    nodes, inits = [], []

    def conv_bn(x, p):
        inits.extend(
            [
                const(p + "w", rand(c, c, 3, 3)),
                const(p + "s", (1.0 + rand(c)).astype(np.float32)),
                const(p + "b", rand(c)),
                const(p + "m", rand(c)),
                const(p + "v", (1.0 + np.abs(rand(c))).astype(np.float32)),
            ]
        )
        nodes.append(helper.make_node("Conv", [x, p + "w"], [p + "c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]))
        nodes.append(
            helper.make_node("BatchNormalization", [p + "c", p + "s", p + "b", p + "m", p + "v"], [p + "o"])
        )
        return p + "o"

    cur = "x"
    for b in range(blocks):
        p = f"b{b}_"
        a = conv_bn(cur, p + "1")
        nodes.append(helper.make_node("Relu", [a], [p + "r1"]))
        a = conv_bn(p + "r1", p + "2")
        nodes.append(helper.make_node("Add", [a, cur], [p + "sum"]))
        nodes.append(helper.make_node("Relu", [p + "sum"], [p + "out"]))
        cur = p + "out"
    nodes.append(helper.make_node("Identity", [cur], ["y"]))
    for i, node in enumerate(nodes):
        node.name = f"n{i}"
    shape = [1, c, hw, hw]
    g = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        inits,
    )
    return g, [("x", rand(*shape, scale=1.0))]


def make_branches(n):
    k, w = 8, 16
    per_block = 2 + 3 * k
    blocks = max(1, n // per_block)
    nodes, inits = [], []
    cur = "x"
    for b in range(blocks):
        p = f"b{b}_"
        parts = [f"{p}s{i}" for i in range(k)]
        nodes.append(helper.make_node("Split", [cur], parts, axis=1))
        outs = []
        for i, s in enumerate(parts):
            q = f"{p}{i}_"
            inits.append(const(q + "a", rand(w)))
            inits.append(const(q + "m", (1.0 + rand(w)).astype(np.float32)))
            nodes += [
                helper.make_node("Add", [s, q + "a"], [q + "x1"]),
                helper.make_node("Mul", [q + "x1", q + "m"], [q + "x2"]),
                helper.make_node("Tanh", [q + "x2"], [q + "x3"]),
            ]
            outs.append(q + "x3")
        nodes.append(helper.make_node("Concat", outs, [p + "cat"], axis=1))
        cur = p + "cat"
    nodes.append(helper.make_node("Identity", [cur], ["y"]))
    for i, node in enumerate(nodes):
        node.name = f"n{i}"
    g = helper.make_graph(
        nodes,
        "branches",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, k * w])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, k * w])],
        inits,
    )
    return g, [("x", rand(1, k * w, scale=1.0))]


def make_loop(n):
    inits = []
    body_nodes, last = chain_nodes("state_in", n, "body_", inits, 64)
    body_nodes.append(helper.make_node("Identity", ["cond_in"], ["cond_out"]))
    body_nodes.append(helper.make_node("Identity", [last], ["state_out"]))
    body = helper.make_graph(
        body_nodes,
        "body",
        [
            helper.make_tensor_value_info("iter", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("state_in", TensorProto.FLOAT, [1, 64]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("state_out", TensorProto.FLOAT, [1, 64]),
        ],
        inits,
    )
    outer = [const("trips", np.array(2, np.int64)), const("cond", np.array(True))]
    nodes = [helper.make_node("Loop", ["trips", "cond", "x"], ["y"], body=body, name="loop")]
    g = helper.make_graph(
        nodes,
        "loop",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])],
        outer,
    )
    return g, [("x", rand(1, 64, scale=1.0))]


def make_if(n):
    def branch(prefix):
        inits = []
        nodes, last = chain_nodes("x", n // 2, prefix, inits, 64)
        nodes.append(helper.make_node("Identity", [last], [prefix + "out"]))
        return helper.make_graph(
            nodes, prefix + "graph", [], [helper.make_tensor_value_info(prefix + "out", TensorProto.FLOAT, [1, 64])],
            inits,
        )

    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["y"], then_branch=branch("then_"), else_branch=branch("else_"), name="if"),
    ]
    g = helper.make_graph(
        nodes,
        "if",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])],
        [const("zero", np.array(0.0, np.float32))],
    )
    return g, [("x", rand(1, 64, scale=1.0))]


KINDS = {
    "chain": make_chain,
    "decoder": make_decoder,
    "cnn": make_cnn,
    "branches": make_branches,
    "loop": make_loop,
    "if": make_if,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--sizes", default="2000,8000,32000", help="approximate node counts, comma-separated")
    ap.add_argument("--kinds", default=",".join(KINDS), help="graph kinds, comma-separated")
    args = ap.parse_args()
    for kind in args.kinds.split(","):
        if kind not in KINDS:
            raise SystemExit(f"make_big_graphs: unknown kind '{kind}' (known: {', '.join(KINDS)})")
        for size in (int(s) for s in args.sizes.split(",")):
            graph, feeds = KINDS[kind](size)
            nodes = write(args.outdir, f"{kind}_{size}", graph, feeds)
            print(f"{kind}_{size}: {nodes} nodes")


if __name__ == "__main__":
    main()
