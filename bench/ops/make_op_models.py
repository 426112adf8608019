#!/usr/bin/python3
"""Writes the operator-level benchmark models: one small ONNX model per case, with its input data.

    /usr/bin/python3 bench/ops/make_op_models.py /tmp/opbench [--only FAMILY,...] [--list]

Each case goes to OUT/<case>/model.onnx with OUT/<case>/test_data_set_0/input_K.pb, which both
`tessera bench` and ort_bench.js read, so the two runtimes see the same values (indices in range,
positive inputs for Log/Sqrt/Pow). OUT/manifest.json lists every case: name, family, op, label
(a short shape), file. Weights are initializers (random, seeded per case by its name, so adding a
case changes no other); inputs are graph inputs with static shapes. Shapes come from real models
(ResNet/MobileNet activations, BERT [1,128,768], LSTM [seq,batch,input], LM heads), sized so that
one run takes well under 50 ms at one thread on a small machine.

Needs Debian's python3-onnx and python3-numpy (run with /usr/bin/python3).
"""
import argparse
import json
import math
import os
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F16 = np.float32, np.float16


def tensor_type(dtype):
    return onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]


class Graph:
    """A one-output graph under construction: inputs carry their data, constants are initializers."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.inputs, self.feeds = [], [], [], []
        self.count = 0
        self.opset = 17
        self.extra_domains = {}

    def _name(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def randn(self, shape, dtype=F32, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(dtype)

    def input(self, shape=None, dtype=F32, data=None, low=None, high=None):
        """A graph input; data is random normal, or uniform in [low, high) when given."""
        if data is None:
            if low is not None:
                data = self.rng.uniform(low, high, shape).astype(dtype)
            else:
                data = self.randn(shape, dtype)
        name = self._name("in")
        self.inputs.append(helper.make_tensor_value_info(
            name, tensor_type(data.dtype), list(data.shape)))
        self.feeds.append(data)
        return name

    def const(self, array):
        name = self._name("w")
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, shape, dtype=F32, scale=None):
        # 1/sqrt(fan-in) keeps activations of chained layers in a sane range.
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        return self.const(self.randn(shape, dtype, scale if scale else 1.0 / math.sqrt(fan_in)))

    def ints(self, values):
        return self.const(np.array(values, dtype=np.int64))

    def op(self, op_type, inputs, outputs=1, domain="", **attrs):
        names = [self._name("t") for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, names, domain=domain or None, **attrs))
        return names[0] if outputs == 1 else names

    def model(self, output, out_dtype=None):
        elem = tensor_type(out_dtype) if out_dtype else \
            self.inputs[0].type.tensor_type.elem_type
        graph = helper.make_graph(self.nodes, "opbench", self.inputs,
                                  [helper.make_tensor_value_info(output, elem, None)], self.inits)
        opsets = [helper.make_opsetid("", self.opset)]
        opsets += [helper.make_opsetid(d, v) for d, v in self.extra_domains.items()]
        m = helper.make_model(graph, opset_imports=opsets, producer_name="tessera-opbench")
        m.ir_version = 8  # what ONNX 1.12 writes; both runtimes take newer opsets with it
        return m


CASES = []  # (family, op, label, build(graph) -> (output, out_dtype or None))


def case(family, op, label):
    def register(build):
        CASES.append((family, op, label, build))
        return build
    return register


def add_case(family, op, label, build):
    CASES.append((family, op, label, build))


def shape_label(shape):
    return "x".join(str(d) for d in shape)


# ---------------------------------------------------------------- recurrent
# (op, seq, batch, input, hidden, bidirectional): decoder steps, speech frames, tagging batches.
RNN_SHAPES = [
    ("LSTM", 1, 1, 1024, 1024, False), ("LSTM", 10, 1, 512, 512, False),
    ("LSTM", 50, 1, 64, 128, False), ("LSTM", 200, 1, 40, 64, True),
    ("LSTM", 200, 1, 80, 256, True), ("LSTM", 100, 16, 128, 128, True),
    ("LSTM", 20, 16, 256, 256, False), ("LSTM", 4, 16, 1024, 1024, False),
    ("GRU", 1, 1, 512, 512, False), ("GRU", 50, 1, 256, 256, False),
    ("GRU", 200, 1, 64, 64, False), ("GRU", 100, 8, 128, 128, True),
    ("GRU", 16, 16, 512, 512, False), ("GRU", 10, 4, 1024, 1024, True),
    ("RNN", 1, 1, 256, 256, False), ("RNN", 100, 1, 64, 64, True),
    ("RNN", 50, 16, 128, 256, False), ("RNN", 200, 4, 128, 128, False),
]
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def rnn_builder(op, seq, batch, inp, hidden, bidi):
    def build(g):
        dirs, gates = (2 if bidi else 1), GATES[op]
        s = 1.0 / math.sqrt(hidden)
        x = g.input([seq, batch, inp])
        w = g.const(g.randn([dirs, gates * hidden, inp], scale=s))
        r = g.const(g.randn([dirs, gates * hidden, hidden], scale=s))
        b = g.const(g.randn([dirs, 2 * gates * hidden], scale=s))
        attrs = {"hidden_size": hidden, "direction": "bidirectional" if bidi else "forward"}
        if op == "GRU":
            attrs["linear_before_reset"] = 1  # what PyTorch exports
        return g.op(op, [x, w, r, b], **attrs), None
    return build


for op, seq, batch, inp, hidden, bidi in RNN_SHAPES:
    add_case("rnn", op, f"s{seq} b{batch} in{inp} h{hidden}{' bi' if bidi else ''}",
             rnn_builder(op, seq, batch, inp, hidden, bidi))

# ---------------------------------------------------------------- element-wise
# 10^3 .. 10^7 elements: logits, a BERT layer's [1,128,768], CNN activations, a batch of them.
SIZES = [[1, 1000], [1, 128, 768], [1, 64, 112, 112], [8, 64, 112, 112]]
MID = [1, 64, 112, 112]  # 0.8 M elements: the one size for the less common ops


def unary_builder(op, shape, low=None, high=None, opset=17, **attrs):
    def build(g):
        g.opset = opset
        return g.op(op, [g.input(shape, low=low, high=high)], **attrs), None
    return build


for op in ["Relu", "Sigmoid", "Tanh", "Exp", "Erf"]:
    for shape in SIZES:
        lo, hi = (-10, 10) if op == "Exp" else (None, None)
        add_case("unary", op, shape_label(shape), unary_builder(op, shape, lo, hi))

UNARY_MID = [
    ("Abs", {}), ("Neg", {}), ("Sqrt", {"low": 0.01, "high": 10}), ("Log", {"low": 0.01, "high": 10}),
    ("Reciprocal", {"low": 0.5, "high": 10}), ("Floor", {}), ("Sin", {}), ("Cos", {}), ("Sign", {}),
    ("LeakyRelu", {"alpha": 0.1}), ("Elu", {}), ("Selu", {}), ("HardSigmoid", {}), ("HardSwish", {}),
    ("Softplus", {}), ("Mish", {"opset": 18}),
    ("Gelu", {"opset": 20}), ("Gelu", {"opset": 20, "approximate": "tanh"}),
]
for op, kw in UNARY_MID:
    label = shape_label(MID) + (" tanh" if kw.get("approximate") else "")
    add_case("unary", op, label, unary_builder(op, MID, **kw))


@case("unary", "Clip", shape_label(MID) + " relu6")
def _(g):
    return g.op("Clip", [g.input(MID), g.const(np.array(0, F32)), g.const(np.array(6, F32))]), None


@case("unary", "Not", shape_label(MID))
def _(g):
    return g.op("Not", [g.input(data=g.rng.random(MID) > 0.5)]), None


@case("unary", "IsNaN", shape_label(MID))
def _(g):
    return g.op("IsNaN", [g.input(MID)]), np.bool_


def binary_builder(op, a_shape, b_shape, low=None, high=None, b_const=False, b_data=None):
    def build(g):
        a = g.input(a_shape, low=low, high=high)
        if b_data is not None:
            b = g.const(b_data)
        elif b_const:
            b = g.const(g.randn(b_shape))
        else:
            b = g.input(b_shape, low=low, high=high)
        out_dtype = np.bool_ if op in ("Equal", "Greater", "Less", "GreaterOrEqual") else None
        return g.op(op, [a, b]), out_dtype
    return build


for op in ["Add", "Mul"]:
    for shape in SIZES:
        add_case("binary", op, shape_label(shape), binary_builder(op, shape, shape))
for op, lo, hi in [("Sub", None, None), ("Div", 0.5, 4), ("Pow", 0.5, 2), ("Max", None, None),
                   ("Min", None, None), ("Equal", None, None), ("Greater", None, None),
                   ("Less", None, None)]:
    add_case("binary", op, shape_label(MID), binary_builder(op, MID, MID, lo, hi))


@case("binary", "Mod", shape_label(MID) + " int64")
def _(g):  # integer Mod is the common one (index arithmetic); float Mod needs fmod=1
    a = g.input(data=g.rng.integers(0, 1 << 20, MID).astype(np.int64))
    return g.op("Mod", [a, g.input(data=g.rng.integers(1, 1000, MID).astype(np.int64))]), None


@case("binary", "And", shape_label(MID))
def _(g):
    a = g.input(data=g.rng.random(MID) > 0.5)
    return g.op("And", [a, g.input(data=g.rng.random(MID) > 0.5)]), None


# The broadcasts real graphs use.
add_case("binary", "Add", "1x128x768 + [768] bias", binary_builder("Add", [1, 128, 768], [768], b_const=True))
add_case("binary", "Mul", "1x64x56x56 * 1x64x1x1", binary_builder("Mul", [1, 64, 56, 56], [1, 64, 1, 1]))
add_case("binary", "Add", "1x12x128x128 + 1x1x1x128 mask",
         binary_builder("Add", [1, 12, 128, 128], [1, 1, 1, 128]))
add_case("binary", "Div", "1x12x128x128 / scalar",
         binary_builder("Div", [1, 12, 128, 128], None, b_data=np.array(8.0, F32)))
add_case("binary", "Pow", "1x128x768 ^ 2", binary_builder("Pow", [1, 128, 768], None, b_data=np.array(2.0, F32)))
for e in (0.5, -1.0, 1.7):
    add_case("binary", "Pow", f"1x64x112x112 ^ {e:g}",
             binary_builder("Pow", [1, 64, 112, 112], None, 0.5, 2, b_data=np.array(e, F32)))
add_case("binary", "Sub", "1x128x768 - 1x128x1", binary_builder("Sub", [1, 128, 768], [1, 128, 1]))
add_case("binary", "Add", "1x64x56x56 + 64x1x1 bias", binary_builder("Add", [1, 64, 56, 56], [64, 1, 1], b_const=True))
add_case("binary", "Mul", "16x1x768 * 1x128x768 outer", binary_builder("Mul", [16, 1, 768], [1, 128, 768]))


@case("binary", "PRelu", "1x64x112x112 slope 64x1x1")
def _(g):
    return g.op("PRelu", [g.input(MID), g.const(g.rng.uniform(0, 0.3, [64, 1, 1]).astype(F32))]), None


@case("binary", "Sum", "3 x 1x64x56x56")
def _(g):
    return g.op("Sum", [g.input([1, 64, 56, 56]) for _ in range(3)]), None


# ---------------------------------------------------------------- Gemm / MatMul
def matmul_builder(m_shape, k, n, dtype=F32, b_input=False):
    def build(g):
        a = g.input(m_shape + [k], dtype)
        b = g.input(list(b_input), dtype) if b_input else g.weight([k, n], dtype)
        return g.op("MatMul", [a, b]), None
    return build


for m_shape, k, n, what in [
        ([1, 128], 768, 768, "BERT proj"), ([1, 128], 768, 3072, "BERT FFN up"),
        ([1, 128], 3072, 768, "BERT FFN down"), ([1, 128], 768, 2304, "fused QKV"),
        ([1, 1], 768, 768, "decode step"), ([1, 1], 4096, 4096, "7B decode proj"),
        ([1, 1], 768, 50257, "GPT-2 LM head"), ([16], 512, 32000, "LM head batch 16"),
        ([128], 4096, 1024, "K 4096"), ([4, 64], 64, 64, "tiny"),
        ([1, 256], 256, 256, "small square")]:
    add_case("gemm", "MatMul", f"{shape_label(m_shape + [k])} x {k}x{n} {what}", matmul_builder(m_shape, k, n))
add_case("gemm", "MatMul", "attn QK^T 1x12x128x64 @ 1x12x64x128",
         matmul_builder([1, 12, 128], 64, 128, b_input=[1, 12, 64, 128]))
add_case("gemm", "MatMul", "attn PV 1x12x128x128 @ 1x12x128x64",
         matmul_builder([1, 12, 128], 128, 64, b_input=[1, 12, 128, 64]))
add_case("gemm", "MatMul", "batched 32x64x64 @ 32x64x64", matmul_builder([32, 64], 64, 64, b_input=[32, 64, 64]))


def gemm_builder(m, k, n, trans_b, bias=True):
    def build(g):
        a = g.input([m, k])
        b = g.weight([n, k] if trans_b else [k, n])
        ins = [a, b] + ([g.const(g.randn([n], scale=0.1))] if bias else [])
        return g.op("Gemm", ins, transB=int(trans_b)), None
    return build


for m, k, n, tb, what in [(1, 2048, 1000, True, "ResNet fc"), (1, 1280, 1000, True, "MobileNet fc"),
                          (1, 4096, 4096, True, "VGG fc7"), (64, 512, 512, True, "batch 64"),
                          (256, 1024, 4096, False, "256 rows"), (8, 768, 2, True, "classifier head")]:
    add_case("gemm", "Gemm", f"{m}x{k} x {k}x{n}{' tB' if tb else ''} {what}", gemm_builder(m, k, n, tb))


# ---------------------------------------------------------------- convolutions
def conv_builder(x_shape, cout, k, stride=1, pad=None, group=1, dil=1, bias=True, dtype=F32, transpose=False,
                 out_pad=None):
    def build(g):
        nd = len(x_shape) - 2
        ks = list(k) if isinstance(k, (list, tuple)) else [k] * nd
        cin = x_shape[1]
        x = g.input(x_shape, dtype)
        wshape = [cin, cout // group] + ks if transpose else [cout, cin // group] + ks
        w = g.weight(wshape, dtype, scale=1.0 / math.sqrt(cin // group * int(np.prod(ks))))
        ins = [x, w] + ([g.const(g.randn([cout], dtype, 0.1))] if bias else [])
        pads = pad if pad is not None else [(d * (kk - 1)) // 2 for d, kk in zip([dil] * nd, ks)] * 2
        attrs = {"kernel_shape": ks, "strides": [stride] * nd, "pads": pads, "group": group}
        if transpose:
            if out_pad:
                attrs["output_padding"] = out_pad
            return g.op("ConvTranspose", ins, **attrs), None
        attrs["dilations"] = [dil] * nd
        return g.op("Conv", ins, **attrs), None
    return build


for label, args, kw in [
        ("ResNet 3x3 64->64 @56", ([1, 64, 56, 56], 64, 3), {}),
        ("ResNet stem 7x7/2 3->64 @224", ([1, 3, 224, 224], 64, 7, 2), {}),
        ("1x1 256->64 @56", ([1, 256, 56, 56], 64, 1), {}),
        ("1x1 64->256 @56", ([1, 64, 56, 56], 256, 1), {}),
        ("3x3/2 128->128 @56", ([1, 128, 56, 56], 128, 3, 2), {}),
        ("3x3 512->512 @7", ([1, 512, 7, 7], 512, 3), {}),
        ("MobileNet stem 3x3/2 3->32 @224", ([1, 3, 224, 224], 32, 3, 2), {}),
        ("depthwise 3x3 144 @56", ([1, 144, 56, 56], 144, 3), {"group": 144}),
        ("depthwise 3x3/2 96 @112", ([1, 96, 112, 112], 96, 3, 2), {"group": 96}),
        ("depthwise 5x5 240 @28", ([1, 240, 28, 28], 240, 5), {"group": 240}),
        ("grouped 3x3 g32 256 @28", ([1, 256, 28, 28], 256, 3), {"group": 32}),
        ("dilated 3x3 d2 256 @32", ([1, 256, 32, 32], 256, 3), {"dil": 2}),
        ("Inception 1x7 128 @17", ([1, 128, 17, 17], 128, (1, 7)), {"pad": [0, 3, 0, 3]}),
        ("1d k3 256->256 len 1000", ([1, 256, 1000], 256, 3), {}),
        ("1d k1 512->512 len 200", ([1, 512, 200], 512, 1), {}),
        ("3d 3x3x3 32->32 8x28x28", ([1, 32, 8, 28, 28], 32, 3), {}),
        ("batch 8 3x3 64->64 @28", ([8, 64, 28, 28], 64, 3), {}),
        ("no bias 3x3 32->32 @112", ([1, 32, 112, 112], 32, 3), {"bias": False}),
]:
    add_case("conv", "Conv", label, conv_builder(*args, **kw))
add_case("conv", "ConvTranspose", "4x4/2 256->128 @16 (decoder)",
         conv_builder([1, 256, 16, 16], 128, 4, 2, pad=[1, 1, 1, 1], transpose=True))
add_case("conv", "ConvTranspose", "2x2/2 128->64 @64 (UNet)",
         conv_builder([1, 128, 64, 64], 64, 2, 2, pad=[0, 0, 0, 0], transpose=True))
add_case("conv", "ConvTranspose", "3x3/2 64->32 @56 out_pad",
         conv_builder([1, 64, 56, 56], 32, 3, 2, pad=[1, 1, 1, 1], transpose=True, out_pad=[1, 1]))
add_case("conv", "ConvTranspose", "1d k4/2 128->64 len 500",
         conv_builder([1, 128, 500], 64, 4, 2, pad=[1, 1], transpose=True))


# ---------------------------------------------------------------- pooling
def pool_builder(op, shape, **attrs):
    def build(g):
        return g.op(op, [g.input(shape)], **attrs), None
    return build


for op, shape, attrs, label in [
        ("MaxPool", [1, 64, 112, 112], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, "3x3/2 ResNet"),
        ("MaxPool", [1, 64, 224, 224], {"kernel_shape": [2, 2], "strides": [2, 2]}, "2x2/2 VGG"),
        ("MaxPool", [1, 256, 20, 20], {"kernel_shape": [5, 5], "strides": [1, 1], "pads": [2, 2, 2, 2]}, "5x5/1 YOLO SPPF"),
        ("MaxPool", [1, 64, 1000], {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}, "1d k3/2"),
        ("AveragePool", [1, 192, 28, 28], {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1],
                                           "count_include_pad": 0}, "3x3/1 Inception"),
        ("AveragePool", [1, 256, 56, 56], {"kernel_shape": [2, 2], "strides": [2, 2]}, "2x2/2 DenseNet"),
        ("GlobalAveragePool", [1, 2048, 7, 7], {}, "ResNet head"),
        ("GlobalAveragePool", [1, 64, 56, 56], {}, "early layer"),
        ("GlobalAveragePool", [1, 1280, 7, 7], {}, "MobileNet head"),
        ("GlobalMaxPool", [1, 512, 14, 14], {}, ""),
        ("MaxPool", [1, 64, 8, 56, 56], {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}, "3d 2x2x2/2 C3D"),
        ("AveragePool", [1, 32, 8, 28, 28], {"kernel_shape": [3, 3, 3], "strides": [1, 1, 1],
                                             "pads": [1, 1, 1, 1, 1, 1]}, "3d 3x3x3/1 I3D"),
        ("LpPool", [1, 64, 56, 56], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
                                     "p": 2}, "3x3/2 p2"),
]:
    add_case("pool", op, f"{shape_label(shape)} {label}".strip(), pool_builder(op, shape, **attrs))


# ---------------------------------------------------------------- normalization
def layernorm_builder(shape, dtype=F32):
    def build(g):
        c = shape[-1]
        x = g.input(shape, dtype)
        return g.op("LayerNormalization", [x, g.const(g.randn([c], dtype, 0.1) + 1), g.const(g.randn([c], dtype, 0.1))],
                    axis=-1, epsilon=1e-5), None
    return build


for shape in [[1, 128, 768], [1, 197, 768], [1, 512, 1024], [1, 64, 3072], [32, 1, 512]]:
    add_case("norm", "LayerNormalization", shape_label(shape), layernorm_builder(shape))


@case("norm", "BatchNormalization", "1x64x112x112")
def _(g):
    c = 64
    x = g.input([1, c, 112, 112])
    ps = [g.const(g.randn([c], scale=0.1) + 1), g.const(g.randn([c], scale=0.1)),
          g.const(g.randn([c], scale=0.1)), g.const(g.rng.uniform(0.5, 2, [c]).astype(F32))]
    return g.op("BatchNormalization", [x] + ps), None


@case("norm", "InstanceNormalization", "1x64x128x128 style transfer")
def _(g):
    x = g.input([1, 64, 128, 128])
    return g.op("InstanceNormalization", [x, g.const(g.randn([64]) * 0.1 + 1), g.const(g.randn([64]) * 0.1)]), None


@case("norm", "GroupNormalization", "1x256x32x32 g32")
def _(g):
    g.opset = 21  # scale and bias per channel from opset 21
    x = g.input([1, 256, 32, 32])
    return g.op("GroupNormalization", [x, g.const(g.randn([256]) * 0.1 + 1), g.const(g.randn([256]) * 0.1)],
                num_groups=32), None


@case("norm", "RMSNormalization", "1x128x4096")
def _(g):
    g.opset = 23
    x = g.input([1, 128, 4096])
    return g.op("RMSNormalization", [x, g.const(g.randn([4096]) * 0.1 + 1)], axis=-1), None


@case("norm", "LRN", "1x96x55x55 AlexNet")
def _(g):
    return g.op("LRN", [g.input([1, 96, 55, 55])], size=5, alpha=1e-4, beta=0.75, bias=2.0), None


@case("norm", "LpNormalization", "1x128x768 L2")
def _(g):
    return g.op("LpNormalization", [g.input([1, 128, 768])], axis=-1, p=2), None


@case("norm", "MeanVarianceNormalization", "1x64x56x56")
def _(g):
    return g.op("MeanVarianceNormalization", [g.input([1, 64, 56, 56])]), None


# ---------------------------------------------------------------- Softmax / LogSoftmax
for op, shape, axis, label in [
        ("Softmax", [1, 12, 128, 128], -1, "attention"), ("Softmax", [1, 1000], -1, "classifier"),
        ("Softmax", [1, 50257], -1, "LM vocab"), ("Softmax", [8, 32000], -1, "batch vocab"),
        ("Softmax", [1, 16384, 4], -1, "short rows"), ("Softmax", [1, 19, 256, 256], 1, "axis 1 segmentation"),
        ("Softmax", [1, 8400, 80], 1, "axis 1 detection"),
        ("LogSoftmax", [1, 50257], -1, "LM vocab"), ("LogSoftmax", [16, 1000], -1, ""),
        ("LogSoftmax", [200, 1, 29], -1, "CTC speech"), ("LogSoftmax", [1, 32, 64, 64], 1, "axis 1"),
]:
    add_case("softmax", op, f"{shape_label(shape)} ax{axis} {label}".strip(), pool_builder(op, shape, axis=axis))


# ---------------------------------------------------------------- reductions (opset 17: axes attribute)
def reduce_builder(op, shape, axes, keepdims=1):
    def build(g):
        x = g.input(shape)
        if op == "ReduceSum":  # axes became an input for ReduceSum at opset 13
            return g.op(op, [x, g.ints(axes)], keepdims=keepdims), None
        return g.op(op, [x], axes=axes, keepdims=keepdims), None
    return build


for op, shape, axes, label in [
        ("ReduceMean", [1, 128, 768], [-1], "last axis"), ("ReduceMean", [1, 64, 56, 56], [2, 3], "spatial"),
        ("ReduceMean", [1, 512, 768], [1], "middle axis"), ("ReduceSum", [1, 128, 768], [-1], "last axis"),
        ("ReduceSum", [64, 1000], [0], "first axis"), ("ReduceSum", [1, 64, 112, 112], [1], "channels"),
        ("ReduceMax", [1, 12, 128, 128], [-1], "last axis"), ("ReduceMin", [1, 64, 56, 56], [2, 3], "spatial"),
        ("ReduceL2", [1, 128, 768], [-1], ""), ("ReduceSumSquare", [1, 128, 768], [-1], ""),
        ("ReduceLogSumExp", [16, 32000], [-1], ""), ("ReduceProd", [1000, 16], [-1], ""),
]:
    add_case("reduce", op, f"{shape_label(shape)} ax{','.join(map(str, axes))} {label}".strip(),
             reduce_builder(op, shape, axes))
for op, shape, axis, label in [("ArgMax", [1, 50257], -1, "LM vocab"), ("ArgMax", [1, 21, 256, 256], 1, "segmentation"),
                               ("ArgMin", [64, 1000], -1, "")]:
    add_case("reduce", op, f"{shape_label(shape)} ax{axis} {label}".strip(),
             lambda g, op=op, shape=shape, axis=axis: (g.op(op, [g.input(shape)], axis=axis), np.int64))


# ---------------------------------------------------------------- data movement
for shape, perm, label in [
        ([1, 128, 12, 64], [0, 2, 1, 3], "heads"), ([1, 12, 128, 64], [0, 1, 3, 2], "K^T"),
        ([1, 64, 56, 56], [0, 2, 3, 1], "NCHW->NHWC"), ([1, 56, 56, 64], [0, 3, 1, 2], "NHWC->NCHW"),
        ([1024, 1024], [1, 0], "2D"), ([8, 64, 112, 112], [1, 0, 2, 3], "batch<->channel 6.4M"),
]:
    add_case("transpose", "Transpose", f"{shape_label(shape)} {label}", pool_builder("Transpose", shape, perm=perm))


def concat_builder(shapes, axis):
    def build(g):
        return g.op("Concat", [g.input(s) for s in shapes], axis=axis), None
    return build


add_case("concat_split", "Concat", "2 x 1x64x56x56 ax1", concat_builder([[1, 64, 56, 56]] * 2, 1))
add_case("concat_split", "Concat", "4 x 1x128x192 ax-1", concat_builder([[1, 128, 192]] * 4, -1))
add_case("concat_split", "Concat", "KV cache 1x12x127x64 + 1x12x1x64 ax2",
         concat_builder([[1, 12, 127, 64], [1, 12, 1, 64]], 2))
add_case("concat_split", "Concat", "DenseNet 1x256x28x28 + 1x32x28x28 ax1",
         concat_builder([[1, 256, 28, 28], [1, 32, 28, 28]], 1))


@case("concat_split", "Split", "1x128x2304 -> 3 (QKV) ax-1")
def _(g):
    return g.op("Split", [g.input([1, 128, 2304]), g.ints([768] * 3)], outputs=3, axis=-1)[0], None


@case("concat_split", "Split", "1x64x56x56 -> 2 ax1")
def _(g):
    return g.op("Split", [g.input([1, 64, 56, 56]), g.ints([32, 32])], outputs=2, axis=1)[1], None


@case("gather", "Gather", "embedding 30522x768 [1,128]")
def _(g):
    ids = g.input(data=g.rng.integers(0, 30522, [1, 128]).astype(np.int64))
    return g.op("Gather", [g.const(g.randn([30522, 768])), ids], axis=0), F32


@case("gather", "Gather", "embedding 50257x768 [4,512]")
def _(g):
    ids = g.input(data=g.rng.integers(0, 50257, [4, 512]).astype(np.int64))
    return g.op("Gather", [g.const(g.randn([50257, 768])), ids], axis=0), F32


@case("gather", "Gather", "1x128x768 ax1 scalar (CLS)")
def _(g):
    return g.op("Gather", [g.input([1, 128, 768]), g.const(np.array(0, np.int64))], axis=1), None


@case("gather", "Gather", "1x64x56x56 ax1 32 channels")
def _(g):
    idx = g.const(g.rng.permutation(64)[:32].astype(np.int64))
    return g.op("Gather", [g.input([1, 64, 56, 56]), idx], axis=1), None


@case("gather", "GatherElements", "64x1000 ax1 idx 64x100")
def _(g):
    idx = g.input(data=g.rng.integers(0, 1000, [64, 100]).astype(np.int64))
    return g.op("GatherElements", [g.input([64, 1000]), idx], axis=1), F32


@case("gather", "GatherND", "1x8400x85 idx 1x300x1")
def _(g):
    idx = g.input(data=g.rng.integers(0, 8400, [1, 300, 1]).astype(np.int64))
    return g.op("GatherND", [g.input([1, 8400, 85]), idx], batch_dims=1), F32


@case("gather", "ScatterND", "KV cache 1x12x512x64 write 1 row")
def _(g):
    idx = g.const(np.array([[[0, h, 100]] for h in range(12)], np.int64).reshape(1, 12, 1, 3))
    upd = g.input([1, 12, 1, 64])
    return g.op("ScatterND", [g.input([1, 12, 512, 64]), idx, upd]), F32


def slice_builder(shape, starts, ends, axes, steps=None):
    def build(g):
        ins = [g.input(shape), g.ints(starts), g.ints(ends), g.ints(axes)] + ([g.ints(steps)] if steps else [])
        return g.op("Slice", ins), None
    return build


add_case("slice_pad", "Slice", "1x128x2304 last third", slice_builder([1, 128, 2304], [1536], [2304], [2]))
add_case("slice_pad", "Slice", "1x3x224x224 ::2 both", slice_builder([1, 3, 224, 224], [0, 0], [224, 224], [2, 3], [2, 2]))
add_case("slice_pad", "Slice", "1x64x56x56 channels 16:48", slice_builder([1, 64, 56, 56], [16], [48], [1]))


def pad_builder(shape, pads, mode):
    def build(g):
        return g.op("Pad", [g.input(shape), g.ints(pads)], mode=mode), None
    return build


add_case("slice_pad", "Pad", "1x64x56x56 +1 constant", pad_builder([1, 64, 56, 56], [0, 0, 1, 1, 0, 0, 1, 1], "constant"))
add_case("slice_pad", "Pad", "1x32x128x128 +4 reflect", pad_builder([1, 32, 128, 128], [0, 0, 4, 4, 0, 0, 4, 4], "reflect"))
add_case("slice_pad", "Pad", "1x64x56x56 +1 edge", pad_builder([1, 64, 56, 56], [0, 0, 1, 1, 0, 0, 1, 1], "edge"))
add_case("slice_pad", "Pad", "1x3x224x224 +3 constant stem", pad_builder([1, 3, 224, 224], [0, 0, 3, 3, 0, 0, 3, 3], "constant"))


@case("where", "Where", "1x12x128x128 mask 1x1x128x128")
def _(g):
    cond = g.input(data=np.tril(np.ones([128, 128], bool)).reshape(1, 1, 128, 128))
    return g.op("Where", [cond, g.input([1, 12, 128, 128]), g.const(np.array(-1e4, F32))]), F32


@case("where", "Where", f"{shape_label(MID)} all same shape")
def _(g):
    cond = g.input(data=g.rng.random(MID) > 0.5)
    return g.op("Where", [cond, g.input(MID), g.input(MID)]), F32


@case("where", "Where", "1x128x768 scalar fill")
def _(g):
    cond = g.input(data=g.rng.random([1, 128, 768]) > 0.5)
    return g.op("Where", [cond, g.input([1, 128, 768]), g.const(np.array(0, F32))]), F32


for src, dst, shape in [(F32, F16, MID), (F16, F32, MID), (np.int64, F32, [1, 128, 768]),
                        (F32, np.int32, MID), (np.bool_, F32, [1, 1, 128, 128]), (np.int32, np.int64, [1, 128, 768])]:
    def build(g, src=src, dst=dst, shape=shape):
        data = (g.rng.standard_normal(shape) * 100).astype(src) if src != np.bool_ else g.rng.random(shape) > 0.5
        return g.op("Cast", [g.input(data=data)], to=tensor_type(dst)), dst
    add_case("cast", "Cast", f"{np.dtype(src).name}->{np.dtype(dst).name} {shape_label(shape)}", build)


for shape, k, label in [([1, 1000], 5, "classifier top-5"), ([1, 50257], 50, "LM top-50"),
                        ([1, 8400], 300, "detection top-300"), ([64, 1000], 10, "batch top-10"),
                        ([1, 32000], 1, "greedy")]:
    def build(g, shape=shape, k=k):
        return g.op("TopK", [g.input(shape), g.ints([k])], outputs=2, axis=-1)[0], None
    add_case("topk", "TopK", f"{shape_label(shape)} k{k} {label}", build)


def resize_builder(shape, out_hw, mode, ctm="half_pixel", nearest_mode="round_prefer_floor"):
    def build(g):
        sizes = g.ints(shape[:2] + out_hw)
        return g.op("Resize", [g.input(shape), "", "", sizes], mode=mode, coordinate_transformation_mode=ctm,
                    nearest_mode=nearest_mode), None
    return build


add_case("resize", "Resize", "nearest 2x 1x256x20x20 (YOLO)",
         resize_builder([1, 256, 20, 20], [40, 40], "nearest", "asymmetric", "floor"))
add_case("resize", "Resize", "nearest 2x 1x64x128x128", resize_builder([1, 64, 128, 128], [256, 256], "nearest"))
add_case("resize", "Resize", "bilinear 2x 1x64x128x128", resize_builder([1, 64, 128, 128], [256, 256], "linear"))
add_case("resize", "Resize", "bilinear align 1x21x64x64 -> 512",
         resize_builder([1, 21, 64, 64], [512, 512], "linear", "align_corners"))
add_case("resize", "Resize", "bilinear down 1x3x480x640 -> 224", resize_builder([1, 3, 480, 640], [224, 224], "linear"))
add_case("resize", "Resize", "cubic 2x 1x3x224x224", resize_builder([1, 3, 224, 224], [448, 448], "cubic"))


@case("misc", "Expand", "1x1x128x128 -> 1x12x128x128")
def _(g):
    return g.op("Expand", [g.input([1, 1, 128, 128]), g.ints([1, 12, 128, 128])]), None


@case("misc", "Tile", "1x64x56x56 x [1,1,2,2]")
def _(g):
    return g.op("Tile", [g.input([1, 64, 56, 56]), g.ints([1, 1, 2, 2])]), None


@case("misc", "DepthToSpace", "1x64x56x56 b2 DCR")
def _(g):
    return g.op("DepthToSpace", [g.input([1, 64, 56, 56])], blocksize=2), None


@case("misc", "SpaceToDepth", "1x16x224x224 b2")
def _(g):
    return g.op("SpaceToDepth", [g.input([1, 16, 224, 224])], blocksize=2), None


@case("misc", "CumSum", "1x128x768 ax1")
def _(g):
    return g.op("CumSum", [g.input([1, 128, 768]), g.const(np.array(1, np.int64))]), None


@case("misc", "Einsum", "bhqd,bhkd->bhqk 1x12x128x64")
def _(g):
    return g.op("Einsum", [g.input([1, 12, 128, 64]), g.input([1, 12, 128, 64])], equation="bhqd,bhkd->bhqk"), None


@case("misc", "Reshape", "1x128x768 -> 1x128x12x64")
def _(g):
    return g.op("Reshape", [g.input([1, 128, 768]), g.ints([1, 128, 12, 64])]), None


@case("misc", "NonZero", f"{shape_label([1, 64, 56, 56])} half set")
def _(g):
    return g.op("NonZero", [g.input(data=g.rng.random([1, 64, 56, 56]) > 0.5)]), np.int64


@case("misc", "OneHot", "1x128 depth 1000")
def _(g):
    ids = g.input(data=g.rng.integers(0, 1000, [1, 128]).astype(np.int64))
    return g.op("OneHot", [ids, g.const(np.array(1000, np.int64)), g.const(np.array([0, 1], F32))]), F32


@case("misc", "Trilu", "1x12x128x128 upper")
def _(g):
    return g.op("Trilu", [g.input([1, 12, 128, 128])], upper=1), None


# ---------------------------------------------------------------- small patterns
def gelu_tanh(g, x):
    x3 = g.op("Mul", [g.op("Mul", [x, x]), x])
    inner = g.op("Mul", [g.op("Add", [x, g.op("Mul", [x3, g.const(np.array(0.044715, F32))])]),
                         g.const(np.array(math.sqrt(2 / math.pi), F32))])
    t = g.op("Add", [g.op("Tanh", [inner]), g.const(np.array(1.0, F32))])
    return g.op("Mul", [g.op("Mul", [x, g.const(np.array(0.5, F32))]), t])


@case("pattern", "GELU tanh form", "1x128x3072")
def _(g):
    return gelu_tanh(g, g.input([1, 128, 3072])), None


@case("pattern", "GELU erf form", "1x128x3072")
def _(g):
    x = g.input([1, 128, 3072])
    e = g.op("Erf", [g.op("Div", [x, g.const(np.array(math.sqrt(2), F32))])])
    return g.op("Mul", [g.op("Mul", [x, g.op("Add", [e, g.const(np.array(1, F32))])]), g.const(np.array(0.5, F32))]), None


@case("pattern", "MatMul+bias+GELU", "1x128x768 x 768x3072")
def _(g):
    x = g.input([1, 128, 768])
    y = g.op("Add", [g.op("MatMul", [x, g.weight([768, 3072])]), g.const(g.randn([3072], scale=0.1))])
    return gelu_tanh(g, y), None


def layernorm_decomposed(g, x, c):
    mean = g.op("ReduceMean", [x], axes=[-1])
    d = g.op("Sub", [x, mean])
    var = g.op("ReduceMean", [g.op("Pow", [d, g.const(np.array(2, F32))])], axes=[-1])
    std = g.op("Sqrt", [g.op("Add", [var, g.const(np.array(1e-5, F32))])])
    y = g.op("Mul", [g.op("Div", [d, std]), g.const(g.randn([c], scale=0.1) + 1)])
    return g.op("Add", [y, g.const(g.randn([c], scale=0.1))])


@case("pattern", "LayerNorm written out", "1x128x768")
def _(g):
    return layernorm_decomposed(g, g.input([1, 128, 768]), 768), None


@case("pattern", "residual Add+LayerNorm", "1x128x768")
def _(g):
    s = g.op("Add", [g.input([1, 128, 768]), g.input([1, 128, 768])])
    return g.op("LayerNormalization", [s, g.const(g.randn([768], scale=0.1) + 1), g.const(g.randn([768], scale=0.1))],
                axis=-1), None


@case("pattern", "squeeze-excite", "1x256x28x28 r4")
def _(g):
    x = g.input([1, 256, 28, 28])
    s = g.op("GlobalAveragePool", [x])
    s = g.op("Relu", [g.op("Conv", [s, g.weight([64, 256, 1, 1]), g.const(g.randn([64], scale=0.1))])])
    s = g.op("Sigmoid", [g.op("Conv", [s, g.weight([256, 64, 1, 1]), g.const(g.randn([256], scale=0.1))])])
    return g.op("Mul", [x, s]), None


@case("pattern", "HardSwish x*relu6(x+3)/6", "1x96x56x56")
def _(g):
    x = g.input([1, 96, 56, 56])
    r6 = g.op("Clip", [g.op("Add", [x, g.const(np.array(3, F32))]), g.const(np.array(0, F32)), g.const(np.array(6, F32))])
    return g.op("Mul", [x, g.op("Div", [r6, g.const(np.array(6, F32))])]), None


@case("pattern", "Swish x*Sigmoid(x)", "1x96x56x56")
def _(g):
    x = g.input([1, 96, 56, 56])
    return g.op("Mul", [x, g.op("Sigmoid", [x])]), None


@case("pattern", "Conv+BN+Relu", "3x3 64->64 @56")
def _(g):
    x = g.input([1, 64, 56, 56])
    y = g.op("Conv", [x, g.weight([64, 64, 3, 3])], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    bn = [g.const(g.randn([64], scale=0.1) + 1), g.const(g.randn([64], scale=0.1)),
          g.const(g.randn([64], scale=0.1)), g.const(g.rng.uniform(0.5, 2, [64]).astype(F32))]
    return g.op("Relu", [g.op("BatchNormalization", [y] + bn)]), None


@case("pattern", "attention scores", "QK^T/8 + mask, Softmax 1x12x128")
def _(g):
    q, k = g.input([1, 12, 128, 64]), g.input([1, 12, 64, 128])
    s = g.op("Div", [g.op("MatMul", [q, k]), g.const(np.array(8, F32))])
    s = g.op("Add", [s, g.input([1, 1, 1, 128])])
    return g.op("Softmax", [s], axis=-1), None


# ---------------------------------------------------------------- float16 (a known cliff on CPUs)
add_case("float16", "MatMul", "f16 1x128x768 x 768x768", matmul_builder([1, 128], 768, 768, F16))
add_case("float16", "Conv", "f16 3x3 64->64 @56", conv_builder([1, 64, 56, 56], 64, 3, dtype=F16))
add_case("float16", "Add", f"f16 {shape_label(MID)}", lambda g: (g.op("Add", [g.input(MID, F16), g.input(MID, F16)]), None))
add_case("float16", "Softmax", "f16 1x12x128x128", lambda g: (g.op("Softmax", [g.input([1, 12, 128, 128], F16)], axis=-1), None))
add_case("float16", "LayerNormalization", "f16 1x128x768", layernorm_builder([1, 128, 768], F16))
add_case("float16", "Relu", f"f16 {shape_label(MID)}", lambda g: (g.op("Relu", [g.input(MID, F16)]), None))


# ---------------------------------------------------------------- more element-wise ops
for op, kw in [("Ceil", {}), ("Round", {}), ("Tan", {"low": -1.2, "high": 1.2}), ("Atan", {}),
               ("Asin", {"low": -0.99, "high": 0.99}), ("Softsign", {}), ("Celu", {"alpha": 1.0}),
               ("ThresholdedRelu", {"alpha": 0.5}), ("Shrink", {"lambd": 0.5})]:
    add_case("unary", op, shape_label(MID), unary_builder(op, MID, **kw))


@case("unary", "IsInf", shape_label(MID))
def _(g):
    return g.op("IsInf", [g.input(MID)]), np.bool_


@case("binary", "LessOrEqual", shape_label(MID))
def _(g):
    return g.op("LessOrEqual", [g.input(MID), g.input(MID)]), np.bool_


@case("binary", "Mod", shape_label(MID) + " float fmod")
def _(g):
    return g.op("Mod", [g.input(MID), g.input(MID, low=0.5, high=3)], fmod=1), None


@case("binary", "Xor", shape_label(MID))
def _(g):
    return g.op("Xor", [g.input(data=g.rng.random(MID) > 0.5), g.input(data=g.rng.random(MID) > 0.5)]), None


@case("binary", "BitShift", shape_label(MID) + " uint32 left")
def _(g):
    a = g.input(data=g.rng.integers(0, 1 << 24, MID).astype(np.uint32))
    return g.op("BitShift", [a, g.input(data=g.rng.integers(0, 8, MID).astype(np.uint32))], direction="LEFT"), None


@case("binary", "BitwiseAnd", shape_label(MID) + " int32")
def _(g):
    g.opset = 18
    a = g.input(data=g.rng.integers(-(1 << 30), 1 << 30, MID).astype(np.int32))
    return g.op("BitwiseAnd", [a, g.input(data=g.rng.integers(-(1 << 30), 1 << 30, MID).astype(np.int32))]), None


@case("binary", "Mean", "3 x 1x64x56x56")
def _(g):
    return g.op("Mean", [g.input([1, 64, 56, 56]) for _ in range(3)]), None


@case("softmax", "Hardmax", "1x50257 ax-1 LM vocab")
def _(g):
    return g.op("Hardmax", [g.input([1, 50257])], axis=-1), None


for op, shape, axes in [("ReduceL1", [1, 128, 768], [-1]), ("ReduceLogSum", [64, 1000], [-1])]:
    add_case("reduce", op, f"{shape_label(shape)} ax{','.join(map(str, axes))}",
             reduce_builder(op, shape, axes) if op != "ReduceLogSum" else
             lambda g, shape=shape, axes=axes: (g.op("ReduceLogSum", [g.input(shape, low=0.1, high=2)], axes=axes), None))


@case("gather", "ScatterElements", "64x1000 ax1 upd 64x100")
def _(g):
    idx = np.stack([g.rng.permutation(1000)[:100] for _ in range(64)]).astype(np.int64)
    return g.op("ScatterElements", [g.input([64, 1000]), g.const(idx), g.input([64, 100])], axis=1), None


@case("gather", "Compress", "1x8400x85 ax1 keep 10%")
def _(g):
    keep = g.input(data=g.rng.random(8400) < 0.1)
    return g.op("Compress", [g.input([1, 8400, 85]), keep], axis=1), F32


@case("misc", "Unique", "100000 int64 of 5000 sorted")
def _(g):
    return g.op("Unique", [g.input(data=g.rng.integers(0, 5000, [100000]).astype(np.int64))], outputs=4)[0], None


@case("misc", "STFT", "10 s 16 kHz n400 hop160 Hann")
def _(g):
    sig = g.input([1, 160000, 1])
    window = g.const((0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)).astype(F32))
    return g.op("STFT", [sig, g.const(np.array(160, np.int64)), window, g.const(np.array(400, np.int64))]), None


# ---------------------------------------------------------------- detection and sampling
@case("vision", "NonMaxSuppression", "YOLO 8400 boxes 80 classes")
def _(g):
    centers = g.rng.uniform(0, 640, [1, 8400, 2])
    sizes = g.rng.uniform(10, 200, [1, 8400, 2])
    boxes = np.concatenate([centers - sizes / 2, centers + sizes / 2], axis=-1).astype(F32)
    scores = (g.rng.random([1, 80, 8400]) ** 20).astype(F32)  # few boxes above the threshold, as in a real frame
    return g.op("NonMaxSuppression", [g.input(data=boxes), g.input(data=scores), g.const(np.array([100], np.int64)),
                                      g.const(np.array([0.45], F32)), g.const(np.array([0.25], F32))]), np.int64


@case("vision", "RoiAlign", "Mask R-CNN 1x256x50x68 300 rois 7x7")
def _(g):
    x1y1 = g.rng.uniform(0, 700, [300, 2])
    rois = np.concatenate([x1y1, x1y1 + g.rng.uniform(16, 300, [300, 2])], axis=1).astype(F32)
    return g.op("RoiAlign", [g.input([1, 256, 50, 68]), g.input(data=rois), g.const(np.zeros(300, np.int64))],
                output_height=7, output_width=7, sampling_ratio=2, spatial_scale=1.0 / 16), None


@case("vision", "GridSample", "bilinear 1x64x64x64 grid 64x64")
def _(g):
    grid = g.input(data=g.rng.uniform(-1, 1, [1, 64, 64, 2]).astype(F32))
    return g.op("GridSample", [g.input([1, 64, 64, 64]), grid]), None


# ---------------------------------------------------------------- attention (opset 23) and com.microsoft
@case("attention", "Attention", "opset 23 1x12x128x64 causal")
def _(g):
    g.opset = 23
    q, k, v = (g.input([1, 12, 128, 64]) for _ in range(3))
    return g.op("Attention", [q, k, v], is_causal=1), None


@case("attention", "RotaryEmbedding", "opset 23 1x32x128x128")
def _(g):
    g.opset = 23
    pos = np.arange(128, dtype=np.int64).reshape(1, 128)
    freqs = np.outer(np.arange(4096), 1.0 / 10000 ** (np.arange(64) / 64))
    return g.op("RotaryEmbedding", [g.input([1, 32, 128, 128]), g.const(np.cos(freqs).astype(F32)),
                                    g.const(np.sin(freqs).astype(F32)), g.const(pos)]), None


def ms_op(g, op, inputs, outputs=1, **attrs):
    g.extra_domains["com.microsoft"] = 1
    return g.op(op, inputs, outputs=outputs, domain="com.microsoft", **attrs)


@case("attention", "com.microsoft.Attention", "BERT-base 1x128x768 12 heads")
def _(g):
    x = g.input([1, 128, 768])
    return ms_op(g, "Attention", [x, g.weight([768, 2304]), g.const(g.randn([2304], scale=0.1))], num_heads=12), None


@case("attention", "com.microsoft.RotaryEmbedding", "1x128x4096 32 heads")
def _(g):
    freqs = np.outer(np.arange(4096), 1.0 / 10000 ** (np.arange(64) / 64))
    pos = g.const(np.arange(128, dtype=np.int64).reshape(1, 128))
    return ms_op(g, "RotaryEmbedding", [g.input([1, 128, 4096]), pos, g.const(np.cos(freqs).astype(F32)),
                                        g.const(np.sin(freqs).astype(F32))], num_heads=32), None


@case("contrib", "SkipLayerNormalization", "1x128x768")
def _(g):
    x, skip = g.input([1, 128, 768]), g.input([1, 128, 768])
    return ms_op(g, "SkipLayerNormalization", [x, skip, g.const(g.randn([768], scale=0.1) + 1),
                                               g.const(g.randn([768], scale=0.1))], epsilon=1e-5), None


@case("contrib", "SkipSimplifiedLayerNormalization", "1x128x4096")
def _(g):
    x, skip = g.input([1, 128, 4096]), g.input([1, 128, 4096])
    return ms_op(g, "SkipSimplifiedLayerNormalization", [x, skip, g.const(g.randn([4096], scale=0.1) + 1)],
                 epsilon=1e-6), None


@case("contrib", "EmbedLayerNormalization", "BERT-base 1x128")
def _(g):
    ids = g.input(data=g.rng.integers(0, 30522, [1, 128]).astype(np.int32))
    seg = g.input(data=np.zeros([1, 128], np.int32))
    ins = [ids, seg, g.const(g.randn([30522, 768], scale=0.05)), g.const(g.randn([512, 768], scale=0.05)),
           g.const(g.randn([2, 768], scale=0.05)), g.const(g.randn([768], scale=0.1) + 1), g.const(g.randn([768], scale=0.1))]
    return ms_op(g, "EmbedLayerNormalization", ins, outputs=2, epsilon=1e-12)[0], F32


@case("contrib", "FastGelu", "1x128x3072 + bias")
def _(g):
    return ms_op(g, "FastGelu", [g.input([1, 128, 3072]), g.const(g.randn([3072], scale=0.1))]), None


@case("contrib", "BiasGelu", "1x128x3072")
def _(g):
    return ms_op(g, "BiasGelu", [g.input([1, 128, 3072]), g.const(g.randn([3072], scale=0.1))]), None


@case("contrib", "QuickGelu", "1x577x3072 CLIP")
def _(g):
    return ms_op(g, "QuickGelu", [g.input([1, 577, 3072])], alpha=1.702), None


@case("contrib", "FusedMatMul", "attn 1x12x128x64 @ (1x12x128x64)^T alpha")
def _(g):
    return ms_op(g, "FusedMatMul", [g.input([1, 12, 128, 64]), g.input([1, 12, 128, 64])], alpha=0.125, transB=1), None


def nbits_builder(m, k, n, block=32):
    def build(g):
        k_blocks = k // block
        packed = g.rng.integers(0, 256, [n, k_blocks, block // 2]).astype(np.uint8)
        scales = g.rng.uniform(0.001, 0.02, [n * k_blocks]).astype(F32)
        zp = g.rng.integers(0, 256, [n * ((k_blocks + 1) // 2)]).astype(np.uint8)
        return ms_op(g, "MatMulNBits", [g.input([1, m, k]), g.const(packed), g.const(scales), g.const(zp)],
                     K=k, N=n, bits=4, block_size=block), None
    return build


add_case("contrib", "MatMulNBits", "4-bit 1x1x4096 x 4096x4096 decode", nbits_builder(1, 4096, 4096))
add_case("contrib", "MatMulNBits", "4-bit 1x32x4096 x 4096x11008 prefill", nbits_builder(32, 4096, 11008))


# ---------------------------------------------------------------- 8-bit quantization
def scale_zp(g, scale, zp, dtype=np.uint8):
    return g.const(np.array(scale, F32)), g.const(np.array(zp, dtype))


def u8_input(g, shape):
    return g.input(data=g.rng.integers(0, 256, shape).astype(np.uint8))


def i8_weight(g, shape):
    return g.const(g.rng.integers(-127, 128, shape).astype(np.int8))


@case("quant", "QuantizeLinear", "1x128x768 -> uint8")
def _(g):
    return g.op("QuantizeLinear", [g.input([1, 128, 768]), *scale_zp(g, 0.02, 128)]), np.uint8


@case("quant", "QuantizeLinear", f"{shape_label(MID)} -> int8")
def _(g):
    return g.op("QuantizeLinear", [g.input(MID), *scale_zp(g, 0.02, 0, np.int8)]), np.int8


@case("quant", "DequantizeLinear", f"{shape_label(MID)} uint8")
def _(g):
    return g.op("DequantizeLinear", [u8_input(g, MID), *scale_zp(g, 0.02, 128)]), F32


@case("quant", "DynamicQuantizeLinear", "1x128x768")
def _(g):
    return g.op("DynamicQuantizeLinear", [g.input([1, 128, 768])], outputs=3)[0], np.uint8


@case("quant", "MatMulInteger", "uint8 1x128x768 x int8 768x768")
def _(g):
    ins = [u8_input(g, [1, 128, 768]), i8_weight(g, [768, 768]), g.const(np.array(128, np.uint8)),
           g.const(np.array(0, np.int8))]
    return g.op("MatMulInteger", ins), np.int32


@case("quant", "QLinearMatMul", "uint8 1x128x768 x int8 768x3072")
def _(g):
    ins = [u8_input(g, [1, 128, 768]), *scale_zp(g, 0.02, 128), i8_weight(g, [768, 3072]),
           *scale_zp(g, 0.005, 0, np.int8), *scale_zp(g, 0.1, 128)]
    return g.op("QLinearMatMul", ins), np.uint8


def qlinear_conv_builder(x_shape, cout, k, stride=1, group=1):
    def build(g):
        cin = x_shape[1]
        ins = [u8_input(g, x_shape), *scale_zp(g, 0.02, 128), i8_weight(g, [cout, cin // group, k, k]),
               g.const(np.full([cout], 0.004, F32)), g.const(np.zeros([cout], np.int8)), *scale_zp(g, 0.05, 128),
               g.const(g.rng.integers(-1000, 1000, [cout]).astype(np.int32))]
        return g.op("QLinearConv", ins, kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4,
                    group=group), np.uint8
    return build


add_case("quant", "QLinearConv", "3x3 64->64 @56", qlinear_conv_builder([1, 64, 56, 56], 64, 3))
add_case("quant", "QLinearConv", "1x1 256->64 @56", qlinear_conv_builder([1, 256, 56, 56], 64, 1))
add_case("quant", "QLinearConv", "depthwise 3x3 144 @56", qlinear_conv_builder([1, 144, 56, 56], 144, 3, group=144))


@case("quant", "DynamicQuantizeMatMul", "1x128x768 x int8 768x768")
def _(g):
    return ms_op(g, "DynamicQuantizeMatMul", [g.input([1, 128, 768]), i8_weight(g, [768, 768]),
                                              g.const(np.array(0.004, F32))]), F32


@case("quant", "QLinearAdd", "1x64x56x56 uint8")
def _(g):
    ins = [u8_input(g, [1, 64, 56, 56]), *scale_zp(g, 0.02, 128), u8_input(g, [1, 64, 56, 56]),
           *scale_zp(g, 0.03, 120), *scale_zp(g, 0.05, 128)]
    return ms_op(g, "QLinearAdd", ins), np.uint8


@case("quant", "QLinearGlobalAveragePool", "1x1280x7x7 uint8")
def _(g):
    ins = [u8_input(g, [1, 1280, 7, 7]), *scale_zp(g, 0.02, 128), *scale_zp(g, 0.02, 128)]
    return ms_op(g, "QLinearGlobalAveragePool", ins, channels_last=0), np.uint8


# ---------------------------------------------------------------- classic ML (ai.onnx.ml)
@case("ml", "TreeEnsembleRegressor", "100 trees depth 6, 1000x20")
def _(g):
    g.extra_domains["ai.onnx.ml"] = 3
    trees, depth, features = 100, 6, 20
    branches, nodes = 2 ** depth - 1, 2 ** (depth + 1) - 1
    attrs = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_values", "nodes_modes",
                             "nodes_truenodeids", "nodes_falsenodeids", "target_treeids", "target_nodeids",
                             "target_ids", "target_weights")}
    for t in range(trees):
        for i in range(nodes):
            leaf = i >= branches
            attrs["nodes_treeids"].append(t)
            attrs["nodes_nodeids"].append(i)
            attrs["nodes_featureids"].append(0 if leaf else int(g.rng.integers(features)))
            attrs["nodes_values"].append(0.0 if leaf else float(g.rng.standard_normal()))
            attrs["nodes_modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            attrs["nodes_truenodeids"].append(0 if leaf else 2 * i + 1)
            attrs["nodes_falsenodeids"].append(0 if leaf else 2 * i + 2)
            if leaf:
                attrs["target_treeids"].append(t)
                attrs["target_nodeids"].append(i)
                attrs["target_ids"].append(0)
                attrs["target_weights"].append(float(g.rng.standard_normal() * 0.1))
    return g.op("TreeEnsembleRegressor", [g.input([1000, features])], domain="ai.onnx.ml", n_targets=1,
                aggregate_function="SUM", **attrs), F32


@case("ml", "LinearClassifier", "1000x100, 10 classes")
def _(g):
    g.extra_domains["ai.onnx.ml"] = 1
    out = g.op("LinearClassifier", [g.input([1000, 100])], outputs=2, domain="ai.onnx.ml",
               coefficients=g.randn([10 * 100]).tolist(), intercepts=g.randn([10]).tolist(),
               classlabels_ints=list(range(10)), post_transform="SOFTMAX")
    return out[1], F32


@case("ml", "Scaler", "1000x100")
def _(g):
    g.extra_domains["ai.onnx.ml"] = 1
    return g.op("Scaler", [g.input([1000, 100])], domain="ai.onnx.ml", offset=g.randn([100]).tolist(),
                scale=g.rng.uniform(0.5, 2, [100]).tolist()), F32


# ---------------------------------------------------------------- bfloat16
# onnxruntime-node takes no bfloat16 tensors and ONNX Runtime's CPU provider has no bfloat16
# MatMul or Add, so the one bfloat16 case both can run converts inside the model.
@case("cast", "Cast", "float32->bfloat16->float32 " + shape_label(MID))
def _(g):
    half = g.op("Cast", [g.input(MID)], to=TensorProto.BFLOAT16)
    return g.op("Cast", [half], to=TensorProto.FLOAT), None


def case_name(family, op, label):
    """A file-system-safe, unique-enough folder name."""
    raw = f"{family}_{op}_{label}".lower()
    keep = "".join(ch if ch.isalnum() else "_" for ch in raw)
    while "__" in keep:
        keep = keep.replace("__", "_")
    return keep.strip("_")[:90] + f"_{zlib.crc32(raw.encode()) & 0xffff:04x}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output folder (outside the repository), e.g. /tmp/opbench")
    ap.add_argument("--only", help="comma-separated families to write")
    ap.add_argument("--list", action="store_true", help="list the cases and write nothing")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    selected = [c for c in CASES if not only or c[0] in only]
    if args.list:
        for family, op, label, _ in selected:
            print(f"{family:13} {op:24} {label}")
        print(f"{len(selected)} cases")
        return
    os.makedirs(args.out, exist_ok=True)
    manifest = []
    for family, op, label, build in selected:
        name = case_name(family, op, label)
        g = Graph(zlib.crc32(name.encode()))
        output, out_dtype = build(g)
        model = g.model(output, out_dtype)
        if g.opset <= onnx.defs.onnx_opset_version() and "com.microsoft" not in g.extra_domains:
            # Catches a wrong attribute or element type here rather than as a runtime failure.
            onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
        folder = os.path.join(args.out, name)
        data_dir = os.path.join(folder, "test_data_set_0")
        os.makedirs(data_dir, exist_ok=True)
        onnx.save(model, os.path.join(folder, "model.onnx"))
        for i, (vi, data) in enumerate(zip(g.inputs, g.feeds)):
            tensor = numpy_helper.from_array(data, vi.name)
            with open(os.path.join(data_dir, f"input_{i}.pb"), "wb") as f:
                f.write(tensor.SerializeToString())
        manifest.append({"name": name, "family": family, "op": op, "label": label,
                         "file": os.path.join(name, "model.onnx")})
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    families = sorted({m["family"] for m in manifest})
    print(f"wrote {len(manifest)} cases in {len(families)} families to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
