"""Test cases for ONNX Runtime's com.microsoft operators: one small model per
case (onnx.helper), its inputs, and the outputs computed here in numpy from
the operators' documented definitions.

test_contrib_ops.py runs them in Tessera. Run as a script, this module writes
them in the ONNX backend-test layout, so the same references can be checked
against ONNX Runtime itself (bench/contrib_vs_ort.sh) and with `tessera test`:

    python3 tests/python/contrib_cases.py OUT_DIR
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"
RNG = np.random.default_rng(20261126)


def model_of(node, inputs, outputs, initializers=(), opset=17):
    """inputs/outputs: lists of (name, numpy array) giving the graph's values."""
    vi = lambda n, a: helper.make_tensor_value_info(
        n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], list(a.shape))
    nodes = node if isinstance(node, list) else [node]
    graph = helper.make_graph(nodes, "case", [vi(n, a) for n, a in inputs],
                              [vi(n, a) for n, a in outputs],
                              initializer=[numpy_helper.from_array(a, n) for n, a in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                   helper.make_opsetid(MS, 1)])


class Case:
    def __init__(self, name, node, inputs, outputs, initializers=(), opset=17, atol=1e-5,
                 rtol=1e-5, exact=False):
        self.name = name
        self.model = model_of(node, inputs, outputs, initializers, opset)
        self.inputs = dict(inputs)
        self.outputs = outputs  # [(name, expected)]
        self.atol, self.rtol, self.exact = atol, rtol, exact


# --- numpy references -------------------------------------------------------

_erf = np.vectorize(math.erf)


def gelu(x):
    return (0.5 * x * (1.0 + _erf(x.astype(np.float64) / math.sqrt(2.0)))).astype(x.dtype)


def gelu_tanh(x):
    x64 = x.astype(np.float64)
    return (0.5 * x64 * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x64 + 0.044715 * x64**3)))
            ).astype(x.dtype)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def layer_norm(x, gamma, beta, eps):
    x64 = x.astype(np.float64)
    mean = x64.mean(-1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(-1, keepdims=True)
    y = (x64 - mean) / np.sqrt(var + eps) * gamma + (0 if beta is None else beta)
    return y.astype(np.float32)


def quantize(x, scale, zp, dtype=np.uint8):
    """QuantizeLinear in float32, as the spec computes it (rint rounds halves to even)."""
    info = np.iinfo(dtype)
    q = np.rint(x.astype(np.float32) / np.asarray(scale, np.float32)) + np.asarray(zp, np.float32)
    return np.clip(q, info.min, info.max).astype(dtype)


def dequantize(q, scale, zp):
    """DequantizeLinear in float32."""
    return (q.astype(np.int32) - np.asarray(zp, np.int32)).astype(np.float32) * np.float32(scale)


def conv2d(x, w, b, pads, strides):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - kh) // strides[0] + 1
    ow = (xp.shape[3] - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + strides[0] * oh:strides[0], j:j + strides[1] * ow:strides[1]]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j].astype(np.float64))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def rand(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def rand_u8(*shape):
    return RNG.integers(0, 256, shape, dtype=np.uint8)


def rand_s8(*shape):
    return RNG.integers(-128, 128, shape, dtype=np.int8)


def f32(v):
    return np.array(v, dtype=np.float32)


# --- cases ------------------------------------------------------------------

def activation_cases():
    x = rand(2, 3, 8)
    bias = rand(8)
    yield Case("gelu", helper.make_node("Gelu", ["x"], ["y"], domain=MS), [("x", x)],
               [("y", gelu(x))])
    yield Case("fast_gelu_bias", helper.make_node("FastGelu", ["x", "bias"], ["y"], domain=MS),
               [("x", x), ("bias", bias)], [("y", gelu_tanh(x + bias))])
    yield Case("fast_gelu", helper.make_node("FastGelu", ["x"], ["y"], domain=MS), [("x", x)],
               [("y", gelu_tanh(x))])
    yield Case("bias_gelu", helper.make_node("BiasGelu", ["x", "bias"], ["y"], domain=MS),
               [("x", x), ("bias", bias)], [("y", gelu(x + bias))])
    yield Case("quick_gelu", helper.make_node("QuickGelu", ["x"], ["y"], domain=MS, alpha=1.5),
               [("x", x)], [("y", x * sigmoid(1.5 * x))])
    # The default alpha (1.702) is ONNX Runtime's.
    yield Case("quick_gelu_default", helper.make_node("QuickGelu", ["x"], ["y"], domain=MS),
               [("x", x)], [("y", x * sigmoid(np.float32(1.702) * x))])
    skip = rand(2, 3, 8)
    yield Case("bias_add", helper.make_node("BiasAdd", ["x", "bias", "skip"], ["y"], domain=MS),
               [("x", x), ("bias", bias), ("skip", skip)], [("y", x + bias + skip)])


def skip_layer_norm_cases():
    x, skip = rand(2, 3, 16), rand(2, 3, 16)
    gamma, beta, bias = rand(16), rand(16), rand(16)
    node = helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"],
                            ["y", "", "", "sum"], domain=MS, epsilon=1e-5)
    yield Case("skip_layer_norm", node,
               [("x", x), ("skip", skip), ("gamma", gamma), ("beta", beta), ("bias", bias)],
               [("y", layer_norm(x + skip + bias, gamma, beta, 1e-5)), ("sum", x + bias + skip)],
               atol=1e-4)
    # No beta or bias, skip broadcast over the batch, epsilon by default (1e-12).
    skip2 = rand(3, 16)
    node = helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma"], ["y"], domain=MS)
    yield Case("skip_layer_norm_minimal", node, [("x", x), ("skip", skip2), ("gamma", gamma)],
               [("y", layer_norm(x + skip2, gamma, None, 1e-12))], atol=1e-4)
    # The bias after a MatMul, with constant weights: the pattern the optimizer
    # folds into its own SkipLayerNormalization.
    w = rand(16, 16, lo=-0.3, hi=0.3)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"]),
             helper.make_node("SkipLayerNormalization", ["xw", "skip", "gamma", "beta", "bias"],
                              ["y"], domain=MS, epsilon=1e-6)]
    xw = (x.astype(np.float64) @ w).astype(np.float32)
    yield Case("skip_layer_norm_after_matmul", nodes, [("x", x), ("skip", skip)],
               [("y", layer_norm(xw + skip + bias, gamma, beta, 1e-6))],
               initializers=[("w", w), ("gamma", gamma), ("beta", beta), ("bias", bias)],
               atol=1e-4)


def rms_norm(x, gamma, eps):
    x64 = x.astype(np.float64)
    return (x64 / np.sqrt((x64**2).mean(-1, keepdims=True) + eps) * gamma).astype(np.float32)


def default_domain_norm_cases():
    # ONNX Runtime's LayerNormalization before opset 17 and its
    # SimplifiedLayerNormalization, both in the default domain.
    x, skip = rand(2, 3, 16), rand(2, 3, 16)
    gamma, beta, bias = rand(16), rand(16), rand(16)
    yield Case("layer_norm_opset_14",
               helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["y"], epsilon=1e-5),
               [("x", x)], [("y", layer_norm(x, gamma, beta, 1e-5))],
               initializers=[("gamma", gamma), ("beta", beta)], opset=14, atol=1e-4)
    yield Case("simplified_layer_norm",
               helper.make_node("SimplifiedLayerNormalization", ["x", "gamma"], ["y"],
                                epsilon=1e-6),
               [("x", x)], [("y", rms_norm(x, gamma, 1e-6))], initializers=[("gamma", gamma)],
               atol=1e-4)
    node = helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma", "bias"],
                            ["y", "", "", "sum"], domain=MS, epsilon=1e-6)
    yield Case("skip_simplified_layer_norm", node, [("x", x), ("skip", skip)],
               [("y", rms_norm(x + skip + bias, gamma, 1e-6)), ("sum", x + bias + skip)],
               initializers=[("gamma", gamma), ("bias", bias)], atol=1e-4)


def fused_cases():
    x = rand(1, 4, 6, 6)
    w = rand(5, 4, 3, 3, lo=-0.5, hi=0.5)
    b = rand(5)
    z = rand(1, 5, 6, 6)
    conv = conv2d(x, w, b, [1, 1, 1, 1], [1, 1])
    acts = {
        "Relu": ([], lambda v: np.maximum(v, 0)),
        "LeakyRelu": ([0.2], lambda v: np.where(v < 0, 0.2 * v, v)),
        "Clip": ([-0.5, 1.5], lambda v: np.clip(v, -0.5, 1.5)),
        "Sigmoid": ([], sigmoid),
        "Tanh": ([], np.tanh),
        "HardSigmoid": ([0.25, 0.5], lambda v: np.clip(0.25 * v + 0.5, 0, 1)),
    }
    for act, (params, fn) in acts.items():
        kw = dict(activation=act, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
        if params:
            kw["activation_params"] = params
        node = helper.make_node("FusedConv", ["x", "w", "b"], ["y"], domain=MS, **kw)
        yield Case(f"fused_conv_{act.lower()}", node, [("x", x)], [("y", fn(conv))],
                   initializers=[("w", w), ("b", b)], atol=1e-4)
    node = helper.make_node("FusedConv", ["x", "w", "b", "z"], ["y"], domain=MS, activation="Relu",
                            kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    yield Case("fused_conv_sum_relu", node, [("x", x), ("z", z)], [("y", np.maximum(conv + z, 0))],
               initializers=[("w", w), ("b", b)], atol=1e-4)
    node = helper.make_node("FusedConv", ["x", "w"], ["y"], domain=MS, strides=[2, 2])
    yield Case("fused_conv_plain", node, [("x", x)],
               [("y", conv2d(x, w, None, [0, 0, 0, 0], [2, 2]))], initializers=[("w", w)],
               atol=1e-4)
    a, bm, c = rand(3, 5), rand(4, 5), rand(4)
    gemm = (a.astype(np.float64) @ bm.T.astype(np.float64) * 0.5 + c).astype(np.float32)
    for act, fn, extra in [("Relu", lambda v: np.maximum(v, 0), {}),
                           ("LeakyRelu", lambda v: np.where(v < 0, 0.3 * v, v),
                            {"activation_alpha": 0.3}),
                           ("Tanh", np.tanh, {})]:
        node = helper.make_node("FusedGemm", ["a", "b", "c"], ["y"], domain=MS, activation=act,
                                alpha=0.5, transB=1, **extra)
        yield Case(f"fused_gemm_{act.lower()}", node, [("a", a), ("b", bm), ("c", c)],
                   [("y", fn(gemm))], atol=1e-5)


def quantized_cases():
    a, b = rand_u8(2, 3, 4), rand_u8(2, 3, 4)
    sa, za, sb, zb, sc, zc = f32(0.02), np.uint8(120), f32(0.03), np.uint8(130), f32(0.04), np.uint8(128)
    params = [("a_scale", sa), ("a_zp", np.array(za)), ("b_scale", sb), ("b_zp", np.array(zb)),
              ("c_scale", sc), ("c_zp", np.array(zc))]
    names = ["a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "c_scale", "c_zp"]
    da, db = dequantize(a, sa, za), dequantize(b, sb, zb)
    for op, fn in [("QLinearAdd", np.add), ("QLinearMul", np.multiply)]:
        yield Case(op.lower(), helper.make_node(op, names, ["c"], domain=MS),
                   [("a", a), ("b", b)], [("c", quantize(fn(da, db), sc, zc))],
                   initializers=params, exact=True)
    # int8, with B broadcast along the rows.
    a8, b8 = rand_s8(3, 4), rand_s8(4)
    p8 = [("a_scale", sa), ("a_zp", np.array(np.int8(-3))), ("b_scale", sb),
          ("b_zp", np.array(np.int8(5))), ("c_scale", sc), ("c_zp", np.array(np.int8(2)))]
    expect = quantize(dequantize(a8, sa, -3) + dequantize(b8, sb, 5), sc, 2, np.int8)
    yield Case("qlinearadd_int8_broadcast", helper.make_node("QLinearAdd", names, ["c"], domain=MS),
               [("a", a8), ("b", b8)], [("c", expect)], initializers=p8, exact=True)
    x = rand_u8(1, 3, 5, 5)
    sx, zx, sy, zy = f32(0.05), np.uint8(100), f32(0.01), np.uint8(3)
    pq = [("x_scale", sx), ("x_zp", np.array(zx)), ("y_scale", sy), ("y_zp", np.array(zy))]
    qn = ["x", "x_scale", "x_zp", "y_scale", "y_zp"]
    dx = dequantize(x, sx, zx)
    yield Case("qlinear_sigmoid", helper.make_node("QLinearSigmoid", qn, ["y"], domain=MS),
               [("x", x)], [("y", quantize(sigmoid(dx), sy, zy))], initializers=pq, exact=True)
    yield Case("qlinear_leaky_relu",
               helper.make_node("QLinearLeakyRelu", qn, ["y"], domain=MS, alpha=0.1),
               [("x", x)], [("y", quantize(np.where(dx < 0, 0.1 * dx, dx), 0.05, 100))],
               initializers=[("x_scale", sx), ("x_zp", np.array(zx)), ("y_scale", f32(0.05)),
                             ("y_zp", np.array(np.uint8(100)))], exact=True)
    yield Case("qlinear_global_average_pool",
               helper.make_node("QLinearGlobalAveragePool", qn, ["y"], domain=MS),
               [("x", x)], [("y", quantize(dx.mean((2, 3), keepdims=True), sy, zy))],
               initializers=pq, exact=True)
    pool = np.zeros((1, 3, 2, 2), np.float32)
    for i in range(2):
        for j in range(2):
            pool[:, :, i, j] = dx[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].mean((2, 3))
    yield Case("qlinear_average_pool",
               helper.make_node("QLinearAveragePool", qn, ["y"], domain=MS, kernel_shape=[3, 3],
                                strides=[2, 2]),
               [("x", x)], [("y", quantize(pool, sy, zy))], initializers=pq, exact=True)
    # A float A quantized at run time against a constant int8 B with
    # per-column scales and a bias (ONNX Runtime's dynamic quantization).
    af = rand(2, 5, 16)
    bq = rand_s8(16, 8)
    bs = RNG.uniform(0.01, 0.02, 8).astype(np.float32)
    bias = rand(8)
    lo, hi = min(0.0, float(af.min())), max(0.0, float(af.max()))
    a_scale = np.float32((hi - lo) / 255.0)
    a_zp = np.uint8(np.clip(np.rint(-lo / a_scale), 0, 255))
    aq = quantize(af, a_scale, a_zp)
    prod = (aq.astype(np.int64) - a_zp) @ bq.astype(np.int64)
    y = (prod.astype(np.float32) * (a_scale * bs) + bias).astype(np.float32)
    yield Case("dynamic_quantize_matmul",
               helper.make_node("DynamicQuantizeMatMul", ["a", "b", "b_scale", "", "bias"], ["y"],
                                domain=MS),
               [("a", af)], [("y", y)], initializers=[("b", bq), ("b_scale", bs), ("bias", bias)],
               atol=1e-4)
    a_u8, b_u8 = rand_u8(4, 16), rand_u8(16, 8)
    prod = (a_u8.astype(np.int64) - 7) @ (b_u8.astype(np.int64) - 9)
    y = (prod.astype(np.float32) * np.float32(0.02 * 0.01)).astype(np.float32)
    yield Case("matmul_integer_to_float",
               helper.make_node("MatMulIntegerToFloat",
                                ["a", "b", "a_scale", "b_scale", "a_zp", "b_zp"], ["y"], domain=MS),
               [("a", a_u8)], [("y", y)],
               initializers=[("b", b_u8), ("a_scale", f32(0.02)), ("b_scale", f32(0.01)),
                             ("a_zp", np.array(np.uint8(7))), ("b_zp", np.array(np.uint8(9)))],
               atol=1e-4)
    xf = rand(2, 3, 4)
    ys, yz = RNG.uniform(0.01, 0.03, 3).astype(np.float32), np.array([1, 2, 3], np.int8)
    q = quantize(xf, ys.reshape(1, 3, 1), yz.reshape(1, 3, 1), np.int8)
    yield Case("quantize_linear_per_channel",
               helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], domain=MS, axis=1),
               [("x", xf)], [("y", q)], initializers=[("s", ys), ("z", yz)], exact=True)
    yield Case("dequantize_linear",
               helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], domain=MS),
               [("q", a)], [("y", dequantize(a, sa, za))],
               initializers=[("s", sa), ("z", np.array(za))])


def more_quantized_cases():
    # QLinearConcat: each input requantized to the output's scale.
    x0, x1 = rand_u8(1, 2, 3), rand_u8(1, 4, 3)
    p = [("ys", f32(0.05)), ("yz", np.array(np.uint8(128))), ("s0", f32(0.02)),
         ("z0", np.array(np.uint8(100))), ("s1", f32(0.07)), ("z1", np.array(np.uint8(140)))]
    y = quantize(np.concatenate([dequantize(x0, 0.02, 100), dequantize(x1, 0.07, 140)], 1),
                 0.05, 128)
    yield Case("qlinear_concat",
               helper.make_node("QLinearConcat", ["ys", "yz", "x0", "s0", "z0", "x1", "s1", "z1"],
                                ["y"], domain=MS, axis=1),
               [("x0", x0), ("x1", x1)], [("y", y)], initializers=p, exact=True)
    # QGemm: alpha * a_scale * b_scale * ((A - za)(B - zb) + C), float or 8-bit out.
    a, b = rand_u8(3, 8), rand_s8(5, 8)  # B stored [N, K]: transB
    bs = RNG.uniform(0.01, 0.02, 5).astype(np.float32)
    c = RNG.integers(-500, 500, 5).astype(np.int32)
    acc = (a.astype(np.int64) - 120) @ b.astype(np.int64).T + c
    yf = (acc.astype(np.float32) * (np.float32(0.5) * np.float32(0.03) * bs)).astype(np.float32)
    common = [("as", f32(0.03)), ("az", np.array(np.uint8(120))), ("b", b), ("bs", bs),
              ("bz", np.zeros(5, np.int8)), ("c", c)]
    names = ["a", "as", "az", "b", "bs", "bz", "c"]
    yield Case("qgemm_float_out",
               helper.make_node("QGemm", names, ["y"], domain=MS, alpha=0.5, transB=1),
               [("a", a)], [("y", yf)], initializers=common, atol=1e-4)
    yield Case("qgemm_quantized_out",
               helper.make_node("QGemm", names + ["ys", "yz"], ["y"], domain=MS, alpha=0.5,
                                transB=1),
               [("a", a)], [("y", quantize(yf, 0.05, 10))],
               initializers=common + [("ys", f32(0.05)), ("yz", np.array(np.uint8(10)))],
               atol=1)  # one step: the float sums round on either side of a midpoint
    b2 = rand_u8(8, 4)
    acc2 = (a.astype(np.int64) - 120) @ (b2.astype(np.int64) - 3)
    y2 = (acc2.astype(np.float32) * np.float32(0.03 * 0.01)).astype(np.float32)
    yield Case("qgemm_no_bias",
               helper.make_node("QGemm", ["a", "as", "az", "b", "bs", "bz"], ["y"], domain=MS),
               [("a", a)], [("y", y2)],
               initializers=[("as", f32(0.03)), ("az", np.array(np.uint8(120))), ("b", b2),
                             ("bs", f32(0.01)), ("bz", np.array(np.uint8(3)))], atol=1e-4)
    cond = RNG.integers(0, 2, (2, 3)).astype(bool)
    xa, ya = rand_u8(2, 3), rand_u8(3)
    z = np.where(cond, dequantize(xa, 0.02, 100), dequantize(ya, 0.05, 30))
    yield Case("qlinear_where",
               helper.make_node("QLinearWhere",
                                ["c", "x", "xs", "xz", "y", "ys", "yz", "zs", "zz"], ["z"],
                                domain=MS),
               [("c", cond), ("x", xa), ("y", ya)], [("z", quantize(z, 0.04, 50))],
               initializers=[("xs", f32(0.02)), ("xz", np.array(np.uint8(100))),
                             ("ys", f32(0.05)), ("yz", np.array(np.uint8(30))),
                             ("zs", f32(0.04)), ("zz", np.array(np.uint8(50)))], exact=True)
    x = rand_u8(2, 3, 6)
    dx = dequantize(x, 0.1, 128)
    e = np.exp(dx - dx.max(-1, keepdims=True))
    yield Case("qlinear_softmax",
               helper.make_node("QLinearSoftmax", ["x", "xs", "xz", "ys", "yz"], ["y"], domain=MS,
                                axis=-1, opset=13),
               [("x", x)], [("y", quantize(e / e.sum(-1, keepdims=True), 1 / 256, 0))],
               initializers=[("xs", f32(0.1)), ("xz", np.array(np.uint8(128))),
                             ("ys", f32(1 / 256)), ("yz", np.array(np.uint8(0)))], atol=1)


def ms_attention(x, w, bias, heads, sizes=None, mask=None, causal=False, attn_bias=None,
                 scale=None, filter_value=-10000.0):
    """com.microsoft Attention in float64; masks add filter_value to masked scores."""
    B, S, _ = x.shape
    qkv = x.astype(np.float64) @ w.astype(np.float64) + (0 if bias is None else bias)
    hq, hv = (sizes[0], sizes[2]) if sizes else (w.shape[1] // 3, w.shape[1] // 3)
    split = lambda a, d: a.reshape(B, S, heads, d).transpose(0, 2, 1, 3)
    q, k = split(qkv[..., :hq], hq // heads), split(qkv[..., hq:2 * hq], hq // heads)
    v = split(qkv[..., 2 * hq:], hv // heads)
    scores = q @ k.transpose(0, 1, 3, 2) * (scale or 1.0 / math.sqrt(hq // heads))
    keep = np.ones((B, 1, S, S), bool)
    if mask is not None:
        if mask.shape == (B,):
            keep &= (np.arange(S) < mask[:, None])[:, None, None, :]
        elif mask.shape == (2 * B,):
            j = np.arange(S)[None, :]
            keep &= ((j < mask[:B, None]) & (j >= mask[B:, None]))[:, None, None, :]
        elif mask.ndim == 2:
            keep &= (mask != 0)[:, None, None, :]
        else:
            keep &= (mask != 0)[:, None, :, :]
    scores = scores + np.where(keep, 0.0, filter_value)
    if causal:
        scores = scores + np.where(np.tri(S, S, dtype=bool), 0.0, filter_value)
    if attn_bias is not None:
        scores = scores + attn_bias
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return (p @ v).transpose(0, 2, 1, 3).reshape(B, S, hv).astype(np.float32)


def attention_cases():
    B, S, H, N = 2, 5, 16, 2
    x = rand(B, S, H, lo=-1, hi=1)
    w = rand(H, 3 * H, lo=-0.5, hi=0.5)
    bias = rand(3 * H, lo=-0.5, hi=0.5)
    init = [("w", w), ("bias", bias)]
    node = lambda inputs, **kw: helper.make_node("Attention", inputs, ["y"], domain=MS,
                                                 num_heads=N, **kw)
    raw = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], np.int32)
    yield Case("attention_raw_mask", node(["x", "w", "bias", "mask"]), [("x", x), ("mask", raw)],
               [("y", ms_attention(x, w, bias, N, mask=raw))], initializers=init, atol=1e-5)
    lengths = np.array([5, 3], np.int32)
    yield Case("attention_lengths", node(["x", "w", "bias", "mask"]),
               [("x", x), ("mask", lengths)], [("y", ms_attention(x, w, bias, N, mask=lengths))],
               initializers=init, atol=1e-5)
    raw3 = RNG.integers(0, 2, (B, S, S)).astype(np.int32)
    raw3[:, :, 0] = 1
    yield Case("attention_3d_mask", node(["x", "w", "bias", "mask"]), [("x", x), ("mask", raw3)],
               [("y", ms_attention(x, w, bias, N, mask=raw3))], initializers=init, atol=1e-5)
    ab = rand(1, N, S, S)
    yield Case("attention_causal_bias_scale",
               node(["x", "w", "bias", "", "", "ab"], unidirectional=1, scale=0.3),
               [("x", x), ("ab", ab)],
               [("y", ms_attention(x, w, bias, N, causal=True, attn_bias=ab, scale=0.3))],
               initializers=init, atol=1e-5)
    # V narrower than Q and K, left and right padding as end / start.
    w2, b2 = rand(H, 2 * H + 8, lo=-0.5, hi=0.5), rand(2 * H + 8, lo=-0.5, hi=0.5)
    end_start = np.array([5, 4, 0, 1], np.int32)
    yield Case("attention_qkv_sizes_end_start",
               node(["x", "w", "bias", "mask"], qkv_hidden_sizes=[H, H, 8]),
               [("x", x), ("mask", end_start)],
               [("y", ms_attention(x, w2, b2, N, sizes=[H, H, 8], mask=end_start))],
               initializers=[("w", w2), ("bias", b2)], atol=1e-5)
    # Without the optional bias (ONNX Runtime 1.30's CPU kernel crashes on this one).
    yield Case("attention_no_bias", node(["x", "w"]), [("x", x)],
               [("y", ms_attention(x, w, None, N))], initializers=[("w", w)], atol=1e-5)


def qattention_cases():
    # ONNX Runtime's quantize_dynamic of an optimized BERT: uint8 input, int8
    # weights per column, a lengths mask.
    B, S, H, N = 2, 5, 16, 2
    xq = rand_u8(B, S, H)
    wq = rand_s8(H, 3 * H)
    ws = RNG.uniform(0.002, 0.006, 3 * H).astype(np.float32)
    bias = rand(3 * H, lo=-0.5, hi=0.5)
    lengths = np.array([5, 3], np.int32)
    x = dequantize(xq, 0.01, 120)
    w = (wq.astype(np.float32) * ws).astype(np.float32)
    node = helper.make_node("QAttention", ["x", "w", "bias", "xs", "ws", "mask", "xz"], ["y"],
                            domain=MS, num_heads=N)
    yield Case("qattention", node, [("x", xq), ("mask", lengths)],
               [("y", ms_attention(x, w, bias, N, mask=lengths))],
               initializers=[("w", wq), ("bias", bias), ("xs", f32(0.01)), ("ws", ws),
                             ("xz", np.array(np.uint8(120)))], atol=1e-4)
    # com.microsoft's QLinearConv is the standard one.
    xc = rand_u8(1, 2, 5, 5)
    wc = rand_s8(3, 2, 3, 3)
    acc = conv2d(xc.astype(np.float32) - 100, wc.astype(np.float32), None, [1, 1, 1, 1], [1, 1])
    yc = quantize(acc * np.float32(0.02 * 0.01), 0.3, 128)
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "wsc", "wz", "ys", "yz"], ["y"],
                            domain=MS, pads=[1, 1, 1, 1])
    yield Case("ms_qlinear_conv", node, [("x", xc)], [("y", yc)],
               initializers=[("xs", f32(0.02)), ("xz", np.array(np.uint8(100))), ("w", wc),
                             ("wsc", f32(0.01)), ("wz", np.array(np.int8(0))), ("ys", f32(0.3)),
                             ("yz", np.array(np.uint8(128)))], atol=1)


def embed_layer_norm_cases():
    B, S, H, V = 2, 6, 8, 30
    ids = RNG.integers(0, V, (B, S)).astype(np.int32)
    seg = RNG.integers(0, 2, (B, S)).astype(np.int32)
    word, pos, segt = rand(V, H), rand(S + 2, H), rand(2, H)
    gamma, beta = rand(H), rand(H)
    mask = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 0, 1, 0, 0]], np.int32)
    total = word[ids] + pos[np.arange(S)][None] + segt[seg]
    node = helper.make_node("EmbedLayerNormalization",
                            ["ids", "seg", "word", "pos", "segt", "gamma", "beta", "mask"],
                            ["y", "mask_index", "sum"], domain=MS, epsilon=1e-5)
    yield Case("embed_layer_norm", node, [("ids", ids), ("seg", seg), ("mask", mask)],
               [("y", layer_norm(total, gamma, beta, 1e-5)),
                ("mask_index", np.array([6, 3], np.int32)), ("sum", total.astype(np.float32))],
               initializers=[("word", word), ("pos", pos), ("segt", segt), ("gamma", gamma),
                             ("beta", beta)], atol=1e-5)
    pids = np.array([[2, 3, 4, 5, 6, 7]], np.int32)
    total = word[ids] + pos[pids[0]][None]
    node = helper.make_node("EmbedLayerNormalization",
                            ["ids", "", "word", "pos", "", "gamma", "beta", "", "pids"],
                            ["y", "mask_index"], domain=MS)
    yield Case("embed_layer_norm_position_ids", node, [("ids", ids), ("pids", pids)],
               [("y", layer_norm(total, gamma, beta, 1e-12)),
                ("mask_index", np.zeros(B, np.int32))],
               initializers=[("word", word), ("pos", pos), ("gamma", gamma), ("beta", beta)],
               atol=1e-5)


def fused_matmul_cases():
    # ONNX Runtime writes FusedMatMul for attention's scaled Q K^T.
    q, k = rand(2, 3, 5, 4), rand(2, 3, 5, 4)
    want = (q.astype(np.float64) @ k.transpose(0, 1, 3, 2) * 0.125).astype(np.float32)
    yield Case("fused_matmul_trans_b",
               helper.make_node("FusedMatMul", ["q", "k"], ["y"], domain=MS, alpha=0.125,
                                transB=1), [("q", q), ("k", k)], [("y", want)])
    a, b = rand(4, 3), rand(2, 4, 5)  # A transposed, broadcast over B's batch
    want = (a.T.astype(np.float64) @ b * 2.0).astype(np.float32)
    yield Case("fused_matmul_trans_a_broadcast",
               helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain=MS, alpha=2.0,
                                transA=1), [("a", a), ("b", b)], [("y", want)])
    wt = rand(6, 4)  # constant weights stored [N, K] (packed once), scaled
    a3 = rand(2, 5, 4)
    want = (a3.astype(np.float64) @ wt.T * 0.5).astype(np.float32)
    yield Case("fused_matmul_constant_weights",
               helper.make_node("FusedMatMul", ["a", "w"], ["y"], domain=MS, alpha=0.5, transB=1),
               [("a", a3)], [("y", want)], initializers=[("w", wt)])
    w = rand(6, 3)  # a constant B, both transposed
    a2 = rand(2, 3, 4)
    want = (a2.transpose(0, 2, 1).astype(np.float64) @ w.T).astype(np.float32)
    yield Case("transpose_matmul_both",
               helper.make_node("TransposeMatMul", ["a", "w"], ["y"], domain=MS, transA=1,
                                transB=1), [("a", a2)], [("y", want)], initializers=[("w", w)])


def pack_bits(q, bits, width):
    """Rows of small unsigned ints packed `bits` each from the low bits up, in
    `width` bytes a row (MatMulNBits' B blobs and packed zero points)."""
    out = np.zeros((q.shape[0], width), np.uint8)
    for j in range(q.shape[1]):
        out[:, (j * bits) // 8] |= (q[:, j].astype(np.uint8) << ((j * bits) % 8)).astype(np.uint8)
    return out


def nbits_case(name, K, N, bits, block, lead=(3,), zp_kind="packed", bias=False):
    kb = -(-K // block)
    q = RNG.integers(0, 2**bits, (N, kb * block))
    scales = RNG.uniform(0.01, 0.05, (N, kb)).astype(np.float32)
    blob = block * bits // 8
    b = np.stack([pack_bits(q[:, i * block:(i + 1) * block], bits, blob) for i in range(kb)], 1)
    idx = np.arange(K) // block
    inputs, names = [], ["a", "b", "scales"]
    init = [("b", b), ("scales", scales)]
    if zp_kind == "packed":
        zq = RNG.integers(0, 2**bits, (N, kb))
        zp = zq.astype(np.float32)
        init.append(("zp", pack_bits(zq, bits, -(-kb * bits // 8))))
        names.append("zp")
    elif zp_kind == "float":
        zp = RNG.uniform(0, 2**bits - 1, (N, kb)).astype(np.float32)
        init.append(("zp", zp))
        names.append("zp")
    else:
        zp = np.full((N, kb), 2.0**(bits - 1), np.float32)
    if bias:
        bv = rand(N)
        names += [""] * (5 - len(names)) + ["bias"]
        init.append(("bias", bv))
    w = ((q[:, :K] - zp[:, idx]) * scales[:, idx]).astype(np.float32)  # [N, K]
    a = rand(*lead, K)
    y = (a.astype(np.float64) @ w.T.astype(np.float64) + (bv if bias else 0)).astype(np.float32)
    node = helper.make_node("MatMulNBits", names, ["y"], domain=MS, K=K, N=N, bits=bits,
                            block_size=block)
    return Case(name, node, [("a", a)], [("y", y)], initializers=init, atol=1e-4, rtol=1e-4)


def matmul_nbits_cases():
    # ONNX Runtime's block-quantized weights: K past a whole block, 3-D A.
    yield nbits_case("matmul_nbits_4bit", 40, 6, 4, 16, lead=(2, 3), bias=True)
    yield nbits_case("matmul_nbits_4bit_default_zero_point", 64, 5, 4, 32, zp_kind="none")
    yield nbits_case("matmul_nbits_8bit", 48, 4, 8, 16)
    # (ONNX Runtime 1.30's CPU kernel rejects float zero points with 8 bits.)
    yield nbits_case("matmul_nbits_8bit_float_zero_point", 48, 4, 8, 16, zp_kind="float")
    yield nbits_case("matmul_nbits_4bit_float_zero_point", 32, 4, 4, 16, zp_kind="float")
    yield nbits_case("matmul_nbits_2bit", 50, 7, 2, 16)
    yield nbits_case("matmul_nbits_4bit_row_block16", 40, 18, 4, 16, lead=(1,))
    # 4 bits, up to four rows of A: the kernel that
    # reads the stored nibbles (a part block at the end of K; one row; four
    # rows without zero points). Float zero points take the SGEMM.
    yield nbits_case("matmul_nbits_4bit_rows_block32", 72, 10, 4, 32, lead=(3,), bias=True)
    yield nbits_case("matmul_nbits_4bit_row_block64", 128, 9, 4, 64, lead=(1,))
    # 19 blocks: the zero points' term runs 16 (or 8) blocks at a time, then the rest.
    yield nbits_case("matmul_nbits_4bit_rows_19_blocks", 600, 5, 4, 32, lead=(2,))
    yield nbits_case("matmul_nbits_4bit_row_block64_float_zero_point", 128, 9, 4, 64, lead=(1,),
                     zp_kind="float")
    yield nbits_case("matmul_nbits_4bit_rows_block128_default_zero_point", 256, 17, 4, 128,
                     lead=(1, 4), zp_kind="none")


def all_cases():
    for gen in (activation_cases, skip_layer_norm_cases, default_domain_norm_cases, fused_cases,
                quantized_cases,
                more_quantized_cases, attention_cases, qattention_cases, embed_layer_norm_cases,
                fused_matmul_cases, matmul_nbits_cases):
        yield from gen()
    import contrib_llm_cases  # (it imports this module's helpers)
    yield from contrib_llm_cases.llm_cases()


def write(out_dir):
    for c in all_cases():
        d = os.path.join(out_dir, c.name)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        onnx.save(c.model, os.path.join(d, "model.onnx"))
        for i, (name, a) in enumerate(c.inputs.items()):
            onnx.save_tensor(numpy_helper.from_array(a, name),
                             os.path.join(d, "test_data_set_0", f"input_{i}.pb"))
        for i, (name, a) in enumerate(c.outputs):
            onnx.save_tensor(numpy_helper.from_array(a, name),
                             os.path.join(d, "test_data_set_0", f"output_{i}.pb"))
        print(d)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write(sys.argv[1])
