#!/usr/bin/python3
"""Decoders and encoder-decoders for the zoo (bench/models/zoo_common.py has the layout):

    /usr/bin/python3 bench/models/make_zoo_decoders.py OUTDIR [--only NAME,...] [--kit DIR]

  gpt2_seq64    GPT-2-style decoder (6 layers, 768 wide, 12 heads, 50257 vocabulary):
                fused QKV projection, causal mask sliced from a 1024 x 1024 table (Where),
                GELU written out in its tanh form (Pow, Tanh), LayerNormalization, and the
                vocabulary projection as one Gemm over the 64 positions
  gpt2_past     the same weights, one new token with past keys and values as inputs and
                present ones as outputs (past length symbolic: sets at 63 and 15)
  gpt2_int8     gpt2_seq64 with its MatMuls dynamically quantized to int8
  gpt2_fp16     gpt2_seq64 in float16
  bart_small    BART-style encoder-decoder (3 + 3 post-LN layers, 512 wide, vocabulary
                16000): source 64 tokens, target 16, cross-attention, tied output MatMul
  bart_int8     bart_small with its MatMuls dynamically quantized to int8
  t5_small      T5-style encoder-decoder (4 + 4 pre-norm layers, 512 wide): RMS norm written
                out (Pow, ReduceMean, Sqrt, Div), bucketed relative position bias, Relu FFN
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import zoo_common as zc

VOCAB = 50257


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Gpt2Block(nn.Module):
    def __init__(self, d=768, nh=12, max_pos=1024):
        super().__init__()
        self.d, self.nh, self.hd = d, nh, d // nh
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_mlp = nn.Linear(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones(max_pos, max_pos, dtype=torch.bool))
                             .view(1, 1, max_pos, max_pos), persistent=False)

    def heads(self, t):
        return t.view(t.size(0), t.size(1), self.nh, self.hd).transpose(1, 2)

    def forward(self, x, past_k=None, past_v=None):
        q, k, v = self.c_attn(self.ln_1(x)).split(self.d, dim=2)
        q, k, v = self.heads(q), self.heads(k), self.heads(v)
        if past_k is not None:
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
        s, t = q.size(2), k.size(2)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd)
        mask = self.bias[:, :, t - s:t, :t]
        w = torch.where(mask, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        a = torch.matmul(torch.softmax(w, dim=-1), v)
        a = a.transpose(1, 2).reshape(x.size(0), x.size(1), self.d)
        x = x + self.c_proj(a)
        x = x + self.c_mlp(gelu_tanh(self.c_fc(self.ln_2(x))))
        return x, k, v


class Gpt2(nn.Module):
    def __init__(self, layers=6, d=768, past=False):
        super().__init__()
        self.past = past
        self.wte = nn.Embedding(VOCAB, d)
        self.wpe = nn.Embedding(1024, d)
        self.h = nn.ModuleList([Gpt2Block(d) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, VOCAB)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.bias, 0.0, 0.02)

    def forward(self, input_ids, *past):
        p = past[0].size(2) if past else 0
        pos = torch.arange(p, p + input_ids.size(1), dtype=torch.int64)
        x = self.wte(input_ids) + self.wpe(pos)
        presents = []
        for i, blk in enumerate(self.h):
            x, k, v = blk(x, *(past[2 * i:2 * i + 2] if past else ()))
            presents += [k, v]
        x = self.ln_f(x)
        logits = self.lm_head(x.reshape(-1, x.size(-1))).view(x.size(0), x.size(1), VOCAB)
        return (logits, *presents) if self.past else logits


class Attention(nn.Module):
    def __init__(self, d, nh, bias=True):
        super().__init__()
        self.nh, self.hd = nh, d // nh
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=bias) for _ in range(4))

    def forward(self, x, mem, pos_bias=None, causal=False, scale=True):
        b, s, d = x.shape
        t = mem.size(1)
        q = self.q(x).view(b, s, self.nh, self.hd).transpose(1, 2)
        k = self.k(mem).view(b, t, self.nh, self.hd).transpose(1, 2)
        v = self.v(mem).view(b, t, self.nh, self.hd).transpose(1, 2)
        w = torch.matmul(q, k.transpose(-1, -2))
        if scale:
            w = w / math.sqrt(self.hd)
        if pos_bias is not None:
            w = w + pos_bias
        if causal:
            w = w + torch.triu(torch.full((s, t), -1e9), diagonal=1)
        a = torch.matmul(torch.softmax(w, -1), v).transpose(1, 2).reshape(b, s, d)
        return self.o(a)


class BartLayer(nn.Module):
    def __init__(self, d, nh, ffn, cross):
        super().__init__()
        self.self_attn, self.ln1 = Attention(d, nh), nn.LayerNorm(d)
        self.cross = Attention(d, nh) if cross else None
        self.ln2 = nn.LayerNorm(d) if cross else None
        self.fc1, self.fc2, self.ln3 = nn.Linear(d, ffn), nn.Linear(ffn, d), nn.LayerNorm(d)

    def forward(self, x, enc=None):
        x = self.ln1(x + self.self_attn(x, x, causal=enc is not None))
        if self.cross is not None:
            x = self.ln2(x + self.cross(x, enc))
        return self.ln3(x + self.fc2(F.gelu(self.fc1(x))))


class Bart(nn.Module):
    def __init__(self, vocab=16000, d=512, nh=8, ffn=2048, layers=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos_enc = nn.Embedding(128, d)
        self.pos_dec = nn.Embedding(128, d)
        self.ln_enc, self.ln_dec = nn.LayerNorm(d), nn.LayerNorm(d)
        self.enc = nn.ModuleList([BartLayer(d, nh, ffn, False) for _ in range(layers)])
        self.dec = nn.ModuleList([BartLayer(d, nh, ffn, True) for _ in range(layers)])
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)

    def forward(self, input_ids, decoder_input_ids):
        s, t = input_ids.size(1), decoder_input_ids.size(1)
        x = self.ln_enc(self.embed(input_ids) + self.pos_enc(torch.arange(s)))
        for layer in self.enc:
            x = layer(x)
        y = self.ln_dec(self.embed(decoder_input_ids) + self.pos_dec(torch.arange(t)))
        for layer in self.dec:
            y = layer(y, x)
        return torch.matmul(y, self.embed.weight.t())


class RmsNorm(nn.Module):
    """T5's norm, written out as its exports have it: no mean subtraction."""

    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(d))

    def forward(self, x):
        return self.weight * (x / torch.sqrt(torch.pow(x, 2).mean(-1, keepdim=True) + 1e-6))


def t5_buckets(rel, bidirectional, n=32, max_distance=128):
    ret = torch.zeros_like(rel)
    if bidirectional:
        n //= 2
        ret += (rel > 0).long() * n
        rel = rel.abs()
    else:
        rel = -torch.min(rel, torch.zeros_like(rel))
    exact = n // 2
    large = exact + (torch.log(rel.float().clamp(min=1) / exact) / math.log(max_distance / exact)
                     * (n - exact)).long()
    large = torch.min(large, torch.full_like(large, n - 1))
    return ret + torch.where(rel < exact, rel, large)


class T5Layer(nn.Module):
    def __init__(self, d, nh, ffn, cross):
        super().__init__()
        self.n1, self.self_attn = RmsNorm(d), Attention(d, nh, bias=False)
        self.n2 = RmsNorm(d) if cross else None
        self.cross = Attention(d, nh, bias=False) if cross else None
        self.n3 = RmsNorm(d)
        self.wi, self.wo = nn.Linear(d, ffn, bias=False), nn.Linear(ffn, d, bias=False)

    def forward(self, x, bias, enc=None):
        h = self.n1(x)
        x = x + self.self_attn(h, h, bias, causal=enc is not None, scale=False)
        if self.cross is not None:
            x = x + self.cross(self.n2(x), enc, scale=False)
        return x + self.wo(F.relu(self.wi(self.n3(x))))


class T5(nn.Module):
    def __init__(self, vocab=8000, d=512, nh=8, ffn=1024, layers=4):
        super().__init__()
        self.nh = nh
        self.embed = nn.Embedding(vocab, d)
        self.rel_enc = nn.Embedding(32, nh)
        self.rel_dec = nn.Embedding(32, nh)
        self.enc = nn.ModuleList([T5Layer(d, nh, ffn, False) for _ in range(layers)])
        self.dec = nn.ModuleList([T5Layer(d, nh, ffn, True) for _ in range(layers)])
        self.n_enc, self.n_dec = RmsNorm(d), RmsNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.05)

    def bias(self, emb, n, bidirectional):
        pos = torch.arange(n)
        b = emb(t5_buckets(pos[None, :] - pos[:, None], bidirectional))  # [n, n, nh]
        return b.permute(2, 0, 1).unsqueeze(0)

    def forward(self, input_ids, decoder_input_ids):
        x = self.embed(input_ids)
        be = self.bias(self.rel_enc, input_ids.size(1), True)
        for layer in self.enc:
            x = layer(x, be)
        x = self.n_enc(x)
        y = self.embed(decoder_input_ids)
        bd = self.bias(self.rel_dec, decoder_input_ids.size(1), False)
        for layer in self.dec:
            y = layer(y, bd, x)
        return self.lm_head(self.n_dec(y))


def specs(mm):
    def build(ctor, ln=True):
        def b(seed):
            mm.seed_all(seed)
            m = ctor().eval()
            if ln:
                mm.randomize_layernorm(m, seed + 2)
            return m
        return b

    def ids(*shapes_vocab):
        return lambda rs: [(n, rs.randint(0, v, size=s).astype(np.int64)) for n, s, v in shapes_vocab]

    L, NH, HD = 6, 12, 64

    def past_set(p):
        def make(rs):
            feeds = [("input_ids", rs.randint(0, VOCAB, size=(1, 1)).astype(np.int64))]
            for i in range(L):
                for kv in ("key", "value"):
                    feeds.append((f"past_{i}_{kv}",
                                  rs.standard_normal((1, NH, p, HD)).astype(np.float32)))
            return feeds
        return make

    past_names = [f"past_{i}_{kv}" for i in range(L) for kv in ("key", "value")]
    present_names = [f"present_{i}_{kv}" for i in range(L) for kv in ("key", "value")]
    past_dyn = {n: {2: "past"} for n in past_names}
    past_dyn.update({n: {2: "total"} for n in present_names})
    gpt_ids = ids(("input_ids", (1, 64), VOCAB))
    bart_ids = ids(("input_ids", (1, 64), 16000), ("decoder_input_ids", (1, 16), 16000))
    t5_ids = ids(("input_ids", (1, 64), 8000), ("decoder_input_ids", (1, 16), 8000))
    return [
        dict(name="gpt2_seq64", build=build(lambda: Gpt2(L)), sets=[gpt_ids], outputs=["logits"]),
        dict(name="gpt2_past", build=build(lambda: Gpt2(L, past=True)),
             sets=[past_set(63), past_set(15)], outputs=["logits"] + present_names,
             dynamic=past_dyn),
        dict(name="gpt2_int8", build=build(lambda: Gpt2(L)), sets=[gpt_ids], outputs=["logits"],
             quantize="dynamic", rtol=1.0, atol=0.2),
        dict(name="gpt2_fp16", build=build(lambda: Gpt2(L)), sets=[gpt_ids], outputs=["logits"],
             half=True, rtol=2e-2, atol=2e-2),
        dict(name="bart_small", build=build(Bart), sets=[bart_ids], outputs=["logits"]),
        dict(name="bart_int8", build=build(Bart), sets=[bart_ids], outputs=["logits"],
             quantize="dynamic", rtol=1.0, atol=0.2),
        dict(name="t5_small", build=build(T5, ln=False), sets=[t5_ids], outputs=["logits"],
             atol=1e-3),
    ]


if __name__ == "__main__":
    zc.main(specs, __doc__)
