#!/usr/bin/python3
"""The second zoo: model kinds the first zoo (make_zoo_*.py) lacks, each
made the same way (bench/models/zoo_common.py has the layout):

    /usr/bin/python3 bench/models/make_zoo2.py OUTDIR [--only NAME,...] [--kit DIR]

  regnet_y_400mf   grouped 3x3 (group width 8), squeeze-excitation, 224x224
  effnet_v2_s      fused MBConv (full 3x3 expansion convs), SiLU, 192x192
  mc3_18           mixed 3D/2D video ResNet: one 3x7x7 stem, then 3x3x3 and 1x3x3
                   Conv3d, clip 1 x 3 x 8 x 96 x 96
  vit_s16          ViT-S-like: 6 layers, width 384, 6 heads, 128x128 image, patch 16
  mixer_s16        MLP-Mixer: token-mixing MLPs over Transpose, 8 layers, width 256
  llama_prefill    LLaMA-style decoder (RMSNorm written out, rotary embedding by
                   halves, SiLU-gated MLP, grouped-query attention 8 heads / 2 KV heads,
                   4 layers, width 512, vocabulary 8000), 32-token prompt with a causal
                   mask, present keys/values out
  llama_decode     the same decoder's one-token step over a 63-token KV cache
  tcn_dilated      temporal ConvNet: 8 residual blocks of causal dilated Conv1d
                   (dilation 1..128, kernel 3, 128 channels), 2000 steps
  gru_loop         autoregressive GRU-cell decoder (gates written out): each step's
                   output fed back, steps an input (40), scripted so the export is a
                   Loop whose outputs gather in a sequence
  moe_top2         mixture of experts: 64 tokens, 8 experts (256 -> 512 -> 256),
                   TopK(2) routing, experts' outputs picked by GatherElements
  pointnet         PointNet classifier: shared 1x1 Conv1d over 2048 points, ReduceMax
  espcn_x3         ESPCN super-resolution: Tanh convs then PixelShuffle
                   (DepthToSpace), 1 x 1 x 224 x 224 -> 672 x 672
"""
from typing import Tuple

import numpy as np
import torch
import torch.nn as nn
import torchvision

import zoo_common as zc


# --- LLaMA-style decoder ---------------------------------------------------

class RmsNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.w = nn.Parameter(1.0 + 0.1 * torch.randn(d))

    def forward(self, x):
        return self.w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class LlamaLayer(nn.Module):
    def __init__(self, d, heads, kv_heads, ff):
        super().__init__()
        self.h, self.kvh, self.hd = heads, kv_heads, d // heads
        self.n1, self.n2 = RmsNorm(d), RmsNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.gate = nn.Linear(d, ff, bias=False)
        self.up = nn.Linear(d, ff, bias=False)
        self.down = nn.Linear(ff, d, bias=False)

    def forward(self, x, cos, sin, mask, pk, pv):
        b, s, _ = x.shape
        y = self.n1(x)
        q = self.q(y).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k(y).view(b, s, self.kvh, self.hd).transpose(1, 2)
        v = self.v(y).view(b, s, self.kvh, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if pk is not None:
            k = torch.cat((pk, k), 2)
            v = torch.cat((pv, v), 2)
        rep = self.h // self.kvh
        t = k.shape[2]
        kr = k[:, :, None].expand(b, self.kvh, rep, t, self.hd).reshape(b, self.h, t, self.hd)
        vr = v[:, :, None].expand(b, self.kvh, rep, t, self.hd).reshape(b, self.h, t, self.hd)
        a = torch.matmul(q, kr.transpose(2, 3)) / (self.hd ** 0.5)
        if mask is not None:
            a = a + mask
        a = torch.matmul(torch.softmax(a, -1), vr).transpose(1, 2).reshape(b, s, -1)
        x = x + self.o(a)
        y = self.n2(x)
        return x + self.down(nn.functional.silu(self.gate(y)) * self.up(y)), k, v


class Llama(nn.Module):
    D, HEADS, KV, FF, LAYERS, VOCAB, MAXPOS = 512, 8, 2, 1408, 4, 8000, 256

    def __init__(self, decode):
        super().__init__()
        self.decode = decode
        self.emb = nn.Embedding(self.VOCAB, self.D)
        self.layers = nn.ModuleList(LlamaLayer(self.D, self.HEADS, self.KV, self.FF)
                                    for _ in range(self.LAYERS))
        self.norm = RmsNorm(self.D)
        self.head = nn.Linear(self.D, self.VOCAB, bias=False)
        hd = self.D // self.HEADS
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(self.MAXPOS).float(), inv)
        ang = torch.cat((ang, ang), -1)
        self.register_buffer("cos_t", ang.cos())
        self.register_buffer("sin_t", ang.sin())

    def forward(self, ids, *past):
        s = ids.shape[1]
        start = past[0].shape[2] if self.decode else 0
        cos = self.cos_t[start:start + s].to(self.emb.weight.dtype)
        sin = self.sin_t[start:start + s].to(self.emb.weight.dtype)
        mask = None
        if not self.decode:
            mask = torch.triu(torch.full((s, s), -1e9, dtype=self.emb.weight.dtype), 1)
        x = self.emb(ids)
        presents = []
        for i, layer in enumerate(self.layers):
            pk = past[2 * i] if self.decode else None
            pv = past[2 * i + 1] if self.decode else None
            x, k, v = layer(x, cos, sin, mask, pk, pv)
            presents += [k, v]
        return (self.head(self.norm(x)), *presents)


def llama_build(decode):
    def build(seed):
        torch.manual_seed(seed)
        m = Llama(decode).eval()
        with torch.no_grad():
            for p in m.parameters():
                if p.dim() == 2:
                    p.normal_(0.0, 0.02 if p.shape[0] == Llama.VOCAB else 0.04)
        return m
    return build


def llama_sets(decode):
    hd = Llama.D // Llama.HEADS

    def make(rs):
        s = 1 if decode else 32
        feeds = [("input_ids", rs.randint(0, Llama.VOCAB, (1, s)).astype(np.int64))]
        if decode:
            for i in range(Llama.LAYERS):
                for kv in ("key", "value"):
                    feeds.append((f"past_{i}_{kv}",
                                  rs.standard_normal((1, Llama.KV, 63, hd)).astype(np.float32)))
        return feeds
    return make


def llama_outputs():
    return ["logits"] + [f"present_{i}_{kv}" for i in range(Llama.LAYERS)
                         for kv in ("key", "value")]


# --- Other models -----------------------------------------------------------

class TcnBlock(nn.Module):
    def __init__(self, c, dilation):
        super().__init__()
        self.pad = 2 * dilation
        self.c1 = nn.Conv1d(c, c, 3, dilation=dilation)
        self.c2 = nn.Conv1d(c, c, 3, dilation=dilation)

    def forward(self, x):
        y = torch.relu(self.c1(nn.functional.pad(x, (self.pad, 0))))
        y = torch.relu(self.c2(nn.functional.pad(y, (self.pad, 0))))
        return torch.relu(x + y)


class Tcn(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Conv1d(40, 128, 1)
        self.blocks = nn.Sequential(*[TcnBlock(128, 2 ** i) for i in range(8)])
        self.out = nn.Conv1d(128, 10, 1)

    def forward(self, x):  # [B, 40, T]
        return self.out(self.blocks(self.inp(x)))


class GruCell(nn.Module):
    """torch's GRUCell equations written out (the exporter has no aten::gru_cell)."""

    def __init__(self, inp, hidden):
        super().__init__()
        self.hidden = hidden
        self.wi = nn.Linear(inp, 3 * hidden)
        self.wh = nn.Linear(hidden, 3 * hidden)

    def forward(self, x, h):
        gi = self.wi(x)
        gh = self.wh(h)
        n = self.hidden
        r = torch.sigmoid(gi[:, :n] + gh[:, :n])
        z = torch.sigmoid(gi[:, n:2 * n] + gh[:, n:2 * n])
        c = torch.tanh(gi[:, 2 * n:] + r * gh[:, 2 * n:])
        return (1.0 - z) * c + z * h


class GruLoop(nn.Module):
    """Feeds each step's output back as the next step's input."""

    def __init__(self):
        super().__init__()
        self.cell = GruCell(64, 256)
        self.proj = nn.Linear(256, 64)

    def forward(self, x0: torch.Tensor, h: torch.Tensor,
                steps: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x = x0
        outs = []
        for _ in range(int(steps)):
            h = self.cell(x, h)
            x = torch.tanh(self.proj(h))
            outs.append(x)
        return torch.stack(outs, 1), h


class Moe(nn.Module):
    E, D, FF, K = 8, 256, 512, 2

    def __init__(self):
        super().__init__()
        self.router = nn.Linear(self.D, self.E, bias=False)
        self.w1 = nn.Parameter(torch.randn(self.E, self.D, self.FF) / self.D ** 0.5)
        self.w2 = nn.Parameter(torch.randn(self.E, self.FF, self.D) / self.FF ** 0.5)
        self.norm = nn.LayerNorm(self.D)

    def forward(self, x):  # [T, D]
        w, idx = torch.topk(self.router(x), self.K, -1)  # [T, K]
        w = torch.softmax(w, -1)
        y = self.norm(x)
        h = nn.functional.gelu(torch.matmul(y.unsqueeze(0), self.w1))  # [E, T, FF]
        e = torch.matmul(h, self.w2).permute(1, 0, 2)  # [T, E, D]
        pick = torch.gather(e, 1, idx.unsqueeze(-1).expand(-1, -1, self.D))  # [T, K, D]
        return x + (pick * w.unsqueeze(-1)).sum(1)


class MixerBlock(nn.Module):
    def __init__(self, tokens, d):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.tok = nn.Sequential(nn.Linear(tokens, 128), nn.GELU(), nn.Linear(128, tokens))
        self.ch = nn.Sequential(nn.Linear(d, 1024), nn.GELU(), nn.Linear(1024, d))

    def forward(self, x):  # [B, T, D]
        x = x + self.tok(self.n1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.ch(self.n2(x))


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 256, 16, 16)
        self.blocks = nn.Sequential(*[MixerBlock(196, 256) for _ in range(8)])
        self.norm = nn.LayerNorm(256)
        self.head = nn.Linear(256, 1000)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        return self.head(self.norm(self.blocks(x)).mean(1))


class PointNet(nn.Module):
    def __init__(self):
        super().__init__()
        chans = [3, 64, 64, 128, 1024]
        layers = []
        for a, b in zip(chans, chans[1:]):
            layers += [nn.Conv1d(a, b, 1), nn.BatchNorm1d(b), nn.ReLU()]
        self.feat = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                                  nn.Linear(256, 40))

    def forward(self, x):  # [B, 3, N]
        return self.head(self.feat(x).max(2)[0])


class Espcn(nn.Module):
    def __init__(self, r=3):
        super().__init__()
        self.c1 = nn.Conv2d(1, 64, 5, padding=2)
        self.c2 = nn.Conv2d(64, 32, 3, padding=1)
        self.c3 = nn.Conv2d(32, r * r, 3, padding=1)
        self.ps = nn.PixelShuffle(r)

    def forward(self, x):
        return self.ps(self.c3(torch.tanh(self.c2(torch.tanh(self.c1(x))))))


def specs(mm):
    def seeded(ctor, bn_shape=None):
        return zc.seeded(mm, ctor, bn_shape)

    def tv(name, shape, **kw):
        zoo = torchvision.models.video if name == "mc3_18" else torchvision.models
        return seeded(lambda: getattr(zoo, name)(weights=None, **kw), shape)

    def vit_s():
        m = torchvision.models.VisionTransformer(
            image_size=128, patch_size=16, num_layers=6, num_heads=6, hidden_dim=384,
            mlp_dim=1536, num_classes=1000)
        with torch.no_grad():  # torchvision starts the head at zero: logits would be all 0
            m.heads.head.weight.normal_(0.0, 0.02)
        return m

    def gru_loop():
        return torch.jit.script(GruLoop().eval())

    def normal(name, shape, scale=1.0):
        return lambda rs: [(name, (scale * rs.standard_normal(shape)).astype(np.float32))]

    return [
        dict(name="regnet_y_400mf", build=tv("regnet_y_400mf", (3, 224, 224)),
             sets=[zc.image_set((1, 3, 224, 224))], outputs=["logits"]),
        dict(name="effnet_v2_s", build=tv("efficientnet_v2_s", (3, 192, 192)),
             sets=[zc.image_set((1, 3, 192, 192))], outputs=["logits"]),
        dict(name="mc3_18", build=tv("mc3_18", (3, 8, 96, 96)),
             sets=[zc.image_set((1, 3, 8, 96, 96))], outputs=["logits"]),
        dict(name="vit_s16", build=seeded(vit_s), sets=[zc.image_set((1, 3, 128, 128))],
             outputs=["logits"]),
        dict(name="mixer_s16", build=seeded(Mixer), sets=[zc.image_set((1, 3, 224, 224))],
             outputs=["logits"]),
        dict(name="llama_prefill", build=llama_build(False), sets=[llama_sets(False)],
             outputs=llama_outputs()),
        dict(name="llama_decode", build=llama_build(True), sets=[llama_sets(True)],
             outputs=llama_outputs()),
        dict(name="tcn_dilated", build=seeded(Tcn), sets=[normal("input", (1, 40, 2000))],
             outputs=["output"]),
        dict(name="gru_loop", build=seeded(gru_loop),
             sets=[lambda rs: [("x0", rs.standard_normal((1, 64)).astype(np.float32)),
                               ("h0", (0.5 * rs.standard_normal((1, 256))).astype(np.float32)),
                               ("steps", np.array(40, dtype=np.int64))]],
             outputs=["outputs", "h_last"]),
        dict(name="moe_top2", build=seeded(Moe), sets=[normal("tokens", (64, 256))],
             outputs=["output"]),
        dict(name="pointnet", build=seeded(PointNet, (3, 2048)),
             sets=[normal("points", (1, 3, 2048))], outputs=["logits"]),
        dict(name="espcn_x3", build=seeded(Espcn), sets=[normal("input", (1, 1, 224, 224))],
             outputs=["output"]),
    ]


if __name__ == "__main__":
    zc.main(specs, __doc__)
