"""Cases for the com.microsoft operators of language-model files (ONNX
Runtime's model builder and its 4-bit quantizer write them): GroupQueryAttention
with its key/value cache, RotaryEmbedding, GatherBlockQuantized. Each case is
one small model with outputs computed here in numpy (float64) from the
operators' documented definitions; contrib_cases.all_cases() includes them,
so test_contrib_ops.py runs them and `contrib_cases.py OUT_DIR` writes them
out for ONNX Runtime itself.
"""
import numpy as np
from onnx import TensorProto, helper

from contrib_cases import MS, RNG, Case, pack_bits, rand


# --- rotary embedding ---------------------------------------------------------

def rope_cache(max_pos, rot_dim, base=10000.0):
    inv = 1.0 / base ** (np.arange(0, rot_dim, 2, dtype=np.float64) / rot_dim)
    ang = np.arange(max_pos, dtype=np.float64)[:, None] * inv[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def rotate(x, pos, cos, sin, interleaved):
    """x [..., S, D] (heads anywhere before S), pos [S] or broadcastable rows:
    rotates the first 2 * cos.shape[1] features of each row."""
    x = x.astype(np.float64).copy()
    half = cos.shape[1]
    c, s = cos[pos].astype(np.float64), sin[pos].astype(np.float64)
    if interleaved:
        x1, x2 = x[..., 0:2 * half:2].copy(), x[..., 1:2 * half:2].copy()
        x[..., 0:2 * half:2] = c * x1 - s * x2
        x[..., 1:2 * half:2] = s * x1 + c * x2
    else:
        x1, x2 = x[..., :half].copy(), x[..., half:2 * half].copy()
        x[..., :half] = c * x1 - s * x2
        x[..., half:2 * half] = s * x1 + c * x2
    return x


def rotary_case(name, B, S, N, D, rot_dim=0, interleaved=False, pos_kind="2d", bnsh=False):
    R = rot_dim or D
    cos, sin = rope_cache(64, R)
    if pos_kind == "2d":
        pos = RNG.integers(0, 64, (B, S)).astype(np.int64)
        rows = pos
    else:  # shape (1): the first position, the rest follow it
        pos = np.array([5], np.int64)
        rows = np.broadcast_to(5 + np.arange(S), (B, S))
    if bnsh:
        x = rand(B, N, S, D)
        want = np.stack([np.stack([rotate(x[b, h], rows[b], cos, sin, interleaved)
                                   for h in range(N)]) for b in range(B)])
    else:
        x = rand(B, S, N * D)
        xh = x.reshape(B, S, N, D).transpose(0, 2, 1, 3)
        y = np.stack([np.stack([rotate(xh[b, h], rows[b], cos, sin, interleaved)
                                for h in range(N)]) for b in range(B)])
        want = y.transpose(0, 2, 1, 3).reshape(B, S, N * D)
    attrs = {"interleaved": int(interleaved)}
    if rot_dim:
        attrs.update(rotary_embedding_dim=rot_dim, num_heads=N)
    node = helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], domain=MS,
                            **attrs)
    return Case(name, node, [("x", x), ("pos", pos)], [("y", want.astype(np.float32))],
                initializers=[("cos", cos), ("sin", sin)], atol=1e-5, rtol=1e-5)


def rotary_cases():
    yield rotary_case("rotary_ms_halves", 2, 3, 2, 8)
    yield rotary_case("rotary_ms_interleaved", 1, 4, 3, 4, interleaved=True)
    yield rotary_case("rotary_ms_start_position", 2, 3, 2, 8, pos_kind="start")
    yield rotary_case("rotary_ms_partial", 1, 3, 2, 8, rot_dim=4)
    yield rotary_case("rotary_ms_bnsh", 2, 3, 2, 8, bnsh=True)


# --- grouped-query attention ----------------------------------------------------

def gqa_reference(q, k, v, past_k, past_v, seqlens_k, total, nq, nkv, cos=None, sin=None,
                  interleaved=False, scale=None, window=-1, softcap=0.0, smooth=False,
                  head_sink=None, attn_bias=None):
    """GroupQueryAttention in float64. The step is the first prompt when the
    query is as long as total_sequence_length: the past is then ignored and
    each batch entry's tokens are its first seqlens_k[b] + 1 (right padding).
    Otherwise entry b's new tokens follow past_b = seqlens_k[b] + 1 - S cached
    ones. Present = the past buffer with the new (rotated) keys and values
    written at rows past_b .. past_b + S and zeros after them, max(past
    length, total) rows long."""
    B, S = q.shape[:2]
    if k is None:  # packed QKV
        D = q.shape[2] // (nq + 2 * nkv)
        q, k, v = np.split(q, [nq * D, (nq + nkv) * D], axis=2)
    D = q.shape[2] // nq
    P = 0 if past_k is None else past_k.shape[2]
    first = S == total
    rows = max(P, total)
    pk = np.zeros((B, nkv, rows, D))
    pv = np.zeros((B, nkv, rows, D))
    if past_k is not None:
        pk[:, :, :P] = past_k
        pv[:, :, :P] = past_v
    qh = q.reshape(B, S, nq, D).transpose(0, 2, 1, 3).astype(np.float64)
    kh = k.reshape(B, S, nkv, D).transpose(0, 2, 1, 3).astype(np.float64)
    vh = v.reshape(B, S, nkv, D).transpose(0, 2, 1, 3).astype(np.float64)
    scale = scale or 1.0 / np.sqrt(D)
    out = np.zeros((B, nq, S, D))
    for b in range(B):
        tot_b = int(seqlens_k[b]) + 1
        past_b = 0 if first else tot_b - S
        pos = past_b + np.arange(S)
        qb, kb = qh[b], kh[b]
        if cos is not None:
            qb = np.stack([rotate(qb[h], pos, cos, sin, interleaved) for h in range(nq)])
            kb = np.stack([rotate(kb[h], pos, cos, sin, interleaved) for h in range(nkv)])
        pk[b, :, past_b:past_b + S] = kb
        pv[b, :, past_b:past_b + S] = vh[b]
        pk[b, :, past_b + S:] = 0  # (rows past the entry's tokens: zeros, as ONNX Runtime)
        pv[b, :, past_b + S:] = 0
        for h in range(nq):
            g = h // (nq // nkv)
            sc = qb[h] @ pk[b, g, :tot_b].T * scale  # [S, tot_b]
            if softcap > 0:
                sc = softcap * np.tanh(sc / softcap)
            if attn_bias is not None:
                ab = attn_bias[b % attn_bias.shape[0], h % attn_bias.shape[1]]
                sc = sc + ab[:, :tot_b]
            for i in range(S):
                p = past_b + i
                masked = np.arange(tot_b) > p
                if window > 0:  # the query's own key and window - 1 before it
                    masked |= np.arange(tot_b) <= p - window
                sc[i, masked] = -np.inf
            m = sc.max(axis=1, keepdims=True)
            if head_sink is not None:
                m = np.maximum(m, head_sink[h])
            elif smooth:
                m = np.maximum(m, 0.0)
            e = np.exp(sc - m)
            den = e.sum(axis=1, keepdims=True)
            if head_sink is not None:
                den += np.exp(head_sink[h] - m)
            elif smooth:
                den += np.exp(-m)
            out[b, h] = (e / den) @ pv[b, g, :tot_b]
    y = out.transpose(0, 2, 1, 3).reshape(B, S, nq * D).astype(np.float32)
    return y, pk.astype(np.float32), pv.astype(np.float32)


def gqa_case(name, B, S, nq, nkv, D, past=0, buffer=None, seqlens=None, packed=False,
             rotary=False, interleaved=False, rot_dim=0, window=-1, softcap=0.0, smooth=False,
             head_sink=False, attn_bias=False, scale=None):
    """past: cached tokens per entry; buffer: the past tensors' length (past when
    None; longer for a shared, preallocated buffer); seqlens: seqlens_k."""
    total = past + S if seqlens is None else max(seqlens) + 1
    seqlens = np.full(B, total - 1, np.int32) if seqlens is None else np.array(seqlens, np.int32)
    q = rand(B, S, nq * D, lo=-1, hi=1)
    k = rand(B, S, nkv * D, lo=-1, hi=1)
    v = rand(B, S, nkv * D, lo=-1, hi=1)
    inputs, names = [], []
    if packed:
        inputs.append(("query", np.concatenate([q, k, v], axis=2)))
        names += ["query", "", ""]
    else:
        inputs += [("query", q), ("key", k), ("value", v)]
        names += ["query", "key", "value"]
    L = past if buffer is None else buffer
    past_k = past_v = None
    if past or buffer:
        past_k = rand(B, nkv, L, D, lo=-1, hi=1)
        past_v = rand(B, nkv, L, D, lo=-1, hi=1)
        inputs += [("past_key", past_k), ("past_value", past_v)]
        names += ["past_key", "past_value"]
    else:
        names += ["", ""]
    inputs += [("seqlens_k", seqlens), ("total_sequence_length", np.array(total, np.int32))]
    names += ["seqlens_k", "total_sequence_length"]
    init = []
    cos = sin = None
    if rotary:
        cos, sin = rope_cache(32, rot_dim or D)
        init += [("cos_cache", cos), ("sin_cache", sin)]
        names += ["cos_cache", "sin_cache"]
    ab = sink = None
    if attn_bias:
        ab = rand(1, nq, S, total, lo=-1, hi=1)
        names += [""] * (10 - len(names)) + ["attention_bias"]
        inputs.append(("attention_bias", ab))
    if head_sink:
        sink = rand(nq, lo=-1, hi=1)
        names += [""] * (11 - len(names)) + ["head_sink"]
        init.append(("head_sink", sink))
    qin = np.concatenate([q, k, v], axis=2) if packed else q
    y, pk, pv = gqa_reference(qin, None if packed else k, None if packed else v, past_k, past_v,
                              seqlens, total, nq, nkv, cos, sin, interleaved, scale, window,
                              softcap, smooth, sink, ab)
    attrs = dict(num_heads=nq, kv_num_heads=nkv)
    if rotary:
        attrs.update(do_rotary=1, rotary_interleaved=int(interleaved))
    if window > 0:
        attrs["local_window_size"] = window
    if softcap:
        attrs["softcap"] = softcap
    if smooth:
        attrs["smooth_softmax"] = 1
    if scale:
        attrs["scale"] = scale
    node = helper.make_node("GroupQueryAttention", names, ["y", "present_key", "present_value"],
                            domain=MS, **attrs)
    return Case(name, node, inputs,
                [("y", y), ("present_key", pk), ("present_value", pv)], initializers=init,
                atol=2e-5, rtol=1e-4)


def gqa_cases():
    # (ONNX Runtime's CPU kernel takes head sizes that are multiples of 8, and
    # of 16 with rotary embedding.)
    yield gqa_case("gqa_prompt", 2, 5, 4, 2, 8)
    yield gqa_case("gqa_prompt_mqa_packed", 1, 4, 4, 1, 8, packed=True)
    yield gqa_case("gqa_decode", 2, 1, 4, 2, 8, past=6)
    yield gqa_case("gqa_decode_shared_buffer", 1, 1, 4, 2, 8, past=5, buffer=12)
    yield gqa_case("gqa_decode_ragged", 2, 1, 2, 2, 8, buffer=8, seqlens=[3, 6])
    yield gqa_case("gqa_prompt_padded", 2, 4, 2, 1, 8, seqlens=[3, 1])
    yield gqa_case("gqa_continued_prompt", 1, 3, 4, 2, 8, past=4)
    yield gqa_case("gqa_rotary", 1, 4, 4, 2, 16, rotary=True)
    yield gqa_case("gqa_rotary_decode_interleaved", 2, 1, 2, 1, 16, past=3, rotary=True,
                   interleaved=True)
    yield gqa_case("gqa_rotary_partial", 1, 3, 2, 2, 32, past=2, rotary=True, rot_dim=16)
    yield gqa_case("gqa_local_window", 1, 6, 2, 1, 8, window=2)
    yield gqa_case("gqa_softcap_scale", 1, 3, 2, 1, 8, past=2, softcap=2.0, scale=0.5)
    yield gqa_case("gqa_smooth_softmax", 1, 3, 2, 2, 8, smooth=True)
    yield gqa_case("gqa_head_sink", 1, 3, 2, 1, 8, past=1, head_sink=True)
    yield gqa_case("gqa_attention_bias", 1, 2, 2, 1, 8, past=2, attn_bias=True)
    yield gqa_case("gqa_attention_bias_decode", 2, 1, 4, 2, 8, past=3, attn_bias=True)
    # Longer than the kernel's chunk of 64 query rows: chunks end and start
    # their keys at what their rows may see.
    yield gqa_case("gqa_long_prompt_window", 1, 70, 2, 1, 8, window=20)
    yield gqa_case("gqa_long_continued_prompt_bias", 1, 67, 2, 2, 8, past=5, attn_bias=True)


# --- block-quantized embedding gather -------------------------------------------

def gather_block_quantized_case(name, V, E, bits, block, zp=True, gather_axis=0,
                                idx_dtype=np.int64):
    q = RNG.integers(0, 2**bits, (V, E))
    nb = -(-E // block)
    scales = RNG.uniform(0.01, 0.1, (V, nb)).astype(np.float32)
    z = RNG.integers(0, 2**bits, (V, nb)) if zp else np.full((V, nb), 2**(bits - 1))
    blk = np.arange(E) // block
    table = (q - z[:, blk]) * scales[:, blk]
    ids = RNG.integers(0, V, (2, 3)).astype(idx_dtype)
    want = table[ids].astype(np.float32)
    per_byte = 8 // bits
    data = pack_bits(q, bits, -(-E // per_byte))
    init = [("data", data), ("scales", scales)]
    names = ["data", "ids", "scales"]
    if zp:
        init.append(("zp", pack_bits(z, bits, -(-nb * bits // 8))))
        names.append("zp")
    node = helper.make_node("GatherBlockQuantized", names, ["y"], domain=MS, bits=bits,
                            block_size=block, gather_axis=0, quantize_axis=1)
    return Case(name, node, [("ids", ids)], [("y", want)], initializers=init, atol=1e-6,
                rtol=1e-6)


def gather_block_quantized_cases():
    yield gather_block_quantized_case("gather_block_quantized_4bit", 10, 40, 4, 16)
    yield gather_block_quantized_case("gather_block_quantized_8bit_default_zp", 7, 32, 8, 16,
                                      zp=False, idx_dtype=np.int32)
    yield gather_block_quantized_case("gather_block_quantized_2bit", 5, 64, 2, 32)


def llm_cases():
    for gen in (rotary_cases, gqa_cases, gather_block_quantized_cases):
        yield from gen()
