"""Writes a decoder-only language model in the form ONNX Runtime's model
builder gives its CPU int4 models (LLaMA-style): a 4-bit block-quantized
embedding table (GatherBlockQuantized), RMS norms (SimplifiedLayerNormalization,
SkipSimplifiedLayerNormalization), 4-bit projections (MatMulNBits),
grouped-query attention with rotary embedding and a key/value cache
(GroupQueryAttention), a SiLU-gated MLP and a 4-bit head.

Inputs: input_ids [B, S] int64, attention_mask [B, T] int64 (T = past + S),
past_key_values.L.key / .value [B, kv_heads, past, head_size] float.
Outputs: logits [B, S, vocab], present.L.key / .value [B, kv_heads, T, head_size].

    python3 bench/models/make_tiny_llm.py OUT.onnx [--layers 2 --hidden 64 --heads 4
        --kv-heads 2 --vocab 96 --inter 128 --max-pos 64 --seed 7]

Weights are random (numpy's generator, the seed given); nothing is downloaded.
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"


def quantize_blocks(w, block, bits=4):
    """w [N, K] -> (packed uint8 [N, K/block, block*bits/8], scales [N, K/block],
    packed zero points uint8 [N, ceil(K/block * bits / 8)]): asymmetric
    min/max quantization per block along K."""
    N, K = w.shape
    nb = K // block
    wb = w.reshape(N, nb, block)
    lo, hi = np.minimum(wb.min(-1), 0), np.maximum(wb.max(-1), 0)
    levels = 2**bits - 1
    scale = np.maximum((hi - lo) / levels, 1e-8).astype(np.float32)
    zp = np.clip(np.rint(-lo / scale), 0, levels).astype(np.uint8)
    q = np.clip(np.rint(wb / scale[..., None]) + zp[..., None], 0, levels).astype(np.uint8)
    per = 8 // bits
    packed = np.zeros((N, nb, block // per), np.uint8)
    for j in range(per):
        packed |= (q[..., j::per] << (j * bits)).astype(np.uint8)
    zrow = -(-nb * bits // 8)
    zpacked = np.zeros((N, zrow), np.uint8)
    for b in range(nb):
        zpacked[:, (b * bits) // 8] |= (zp[:, b] << ((b * bits) % 8)).astype(np.uint8)
    return packed, scale, zpacked


class Builder:
    def __init__(self, rng, block):
        self.nodes, self.inits, self.rng, self.block = [], [], rng, block

    def init(self, name, a):
        self.inits.append(numpy_helper.from_array(a, name))
        return name

    def node(self, op, ins, outs, domain="", **attrs):
        self.nodes.append(helper.make_node(op, ins, outs, name=outs[0] + "_node", domain=domain,
                                           **attrs))
        return outs[0] if len(outs) == 1 else outs

    def linear(self, x, name, K, N):
        w = self.rng.normal(0, 1 / np.sqrt(K), (N, K)).astype(np.float32)
        packed, scale, zp = quantize_blocks(w, self.block)
        return self.node("MatMulNBits", [x, self.init(name + ".qweight", packed),
                                         self.init(name + ".scales", scale),
                                         self.init(name + ".qzeros", zp)], [name + ".out"],
                         domain=MS, K=K, N=N, bits=4, block_size=self.block)


def build(layers=2, hidden=64, heads=4, kv_heads=2, vocab=96, inter=128, max_pos=64, seed=7,
          block=32):
    rng = np.random.default_rng(seed)
    D = hidden // heads
    g = Builder(rng, block)
    # Embedding table, 4 bits a value, blocks along the hidden axis.
    emb = rng.normal(0, 1, (vocab, hidden)).astype(np.float32)
    packed, scale, zp = quantize_blocks(emb, block)
    g.init("embed.qweight", packed.reshape(vocab, hidden // 2))
    g.init("embed.scales", scale)
    g.init("embed.qzeros", zp)
    x = g.node("GatherBlockQuantized", ["embed.qweight", "input_ids", "embed.scales",
                                        "embed.qzeros"], ["embed.out"], domain=MS, bits=4,
               block_size=block, gather_axis=0, quantize_axis=1)
    # seqlens_k = sum(mask) - 1 and total_sequence_length = mask width, int32.
    g.init("one_i64", np.array([1], np.int64))
    g.init("axis1", np.array([1], np.int64))
    s = g.node("ReduceSum", ["attention_mask", "axis1"], ["mask_sum"], keepdims=0)
    s = g.node("Sub", [s, "one_i64"], ["mask_sum_m1"])
    seqlens = g.node("Cast", [s], ["seqlens_k"], to=TensorProto.INT32)
    shape = g.node("Shape", ["attention_mask"], ["mask_shape"])
    g.init("idx1", np.array(1, np.int64))
    tot = g.node("Gather", [shape, "idx1"], ["mask_width"], axis=0)
    total = g.node("Cast", [tot], ["total_seq_len"], to=TensorProto.INT32)
    inv = 1.0 / 10000.0**(np.arange(0, D, 2) / D)
    ang = np.arange(max_pos)[:, None] * inv[None, :]
    g.init("cos_cache", np.cos(ang).astype(np.float32))
    g.init("sin_cache", np.sin(ang).astype(np.float32))

    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                            ["batch", "total"])]
    outputs = []
    ones = lambda n: rng.uniform(0.8, 1.2, n).astype(np.float32)
    h = g.node("SimplifiedLayerNormalization", [x, g.init("l0.norm1", ones(hidden))],
               ["l0.norm1.out"], axis=-1, epsilon=1e-5)
    residual = x
    for layer in range(layers):
        p = f"l{layer}"
        q = g.linear(h, p + ".q_proj", hidden, heads * D)
        k = g.linear(h, p + ".k_proj", hidden, kv_heads * D)
        v = g.linear(h, p + ".v_proj", hidden, kv_heads * D)
        pk, pv = f"past_key_values.{layer}.key", f"past_key_values.{layer}.value"
        for n in (pk, pv):
            inputs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT,
                                                        ["batch", kv_heads, "past", D]))
        ok, ov = f"present.{layer}.key", f"present.{layer}.value"
        for n in (ok, ov):
            outputs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT,
                                                         ["batch", kv_heads, "total", D]))
        attn = g.node("GroupQueryAttention", [q, k, v, pk, pv, seqlens, total, "cos_cache",
                                              "sin_cache"], [p + ".attn", ok, ov], domain=MS,
                      num_heads=heads, kv_num_heads=kv_heads, do_rotary=1)[0]
        o = g.linear(attn, p + ".o_proj", heads * D, hidden)
        # norm2(o + residual), and the sum is the next residual.
        h2, _, _, residual = g.node("SkipSimplifiedLayerNormalization",
                                    [o, residual, g.init(p + ".norm2", ones(hidden))],
                                    [p + ".norm2.out", "", "", p + ".resid1"], domain=MS,
                                    epsilon=1e-5)
        gate = g.linear(h2, p + ".gate_proj", hidden, inter)
        up = g.linear(h2, p + ".up_proj", hidden, inter)
        sg = g.node("Sigmoid", [gate], [p + ".gate_sig"])
        silu = g.node("Mul", [gate, sg], [p + ".silu"])
        act = g.node("Mul", [silu, up], [p + ".act"])
        down = g.linear(act, p + ".down_proj", inter, hidden)
        nxt = f"l{layer + 1}.norm1" if layer + 1 < layers else "final_norm"
        h, _, _, residual = g.node("SkipSimplifiedLayerNormalization",
                                   [down, residual, g.init(nxt, ones(hidden))],
                                   [nxt + ".out", "", "", p + ".resid2"], domain=MS,
                                   epsilon=1e-5)
    g.linear(h, "lm_head", hidden, vocab)
    g.node("Identity", ["lm_head.out"], ["logits"])
    outputs.insert(0, helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                                    ["batch", "seq", vocab]))
    graph = helper.make_graph(g.nodes, "tiny_llm", inputs, outputs, initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    for name, default in (("layers", 2), ("hidden", 64), ("heads", 4), ("kv-heads", 2),
                          ("vocab", 96), ("inter", 128), ("max-pos", 64), ("seed", 7)):
        ap.add_argument("--" + name, type=int, default=default)
    a = ap.parse_args()
    onnx.save(build(a.layers, a.hidden, a.heads, a.kv_heads, a.vocab, a.inter, a.max_pos,
                    a.seed), a.out)
    print(a.out)


if __name__ == "__main__":
    main()
