#!/usr/bin/python3
"""The third zoo: model kinds neither make_zoo_*.py nor make_zoo2.py has, each
made the same way (bench/models/zoo_common.py has the layout):

    /usr/bin/python3 bench/models/make_zoo3.py OUTDIR [--only NAME,...] [--kit DIR]

  yolov8_n       YOLOv8-style detector: C2f blocks (Split, SiLU), SPPF's chained
                 MaxPools, nearest Upsample + Concat neck, DFL box head (Softmax over
                 16 bins, 1x1 conv), Sigmoid classes, 320x320
  sd_unet        Stable-Diffusion-style UNet: GroupNorm + SiLU residual blocks,
                 sinusoidal timestep embedding (Sin, Cos), self- and cross-attention
                 over 77 encoder states, strided-conv down / nearest up, 32x32 latent
  clip_text      CLIP-style text encoder: causal mask, QuickGELU (x * sigmoid(1.702x)),
                 pooling at the argmax token by Gather, 6 layers, width 256,
                 vocabulary 49408, 77 tokens
  dlrm           DLRM-style recommender: 8 embedding tables of 80k rows summed over
                 bags (Gather + ReduceSum), pairwise dot interaction by batched MatMul,
                 bottom and top MLPs, Sigmoid, batch 128
  hifigan        HiFi-GAN-style vocoder: ConvTranspose1d upsampling x8, x8, x2, LeakyRelu,
                 dilated residual Conv1d (1, 3, 5), Tanh, 80 mel x 32 frames
  style_transfer fast style transfer: ReflectionPad, InstanceNorm, residual blocks,
                 nearest upsample + conv, 256x256
  detr           DETR-style detector: small ResNet backbone, transformer encoder and
                 decoder (3 + 3 layers, width 256) with 50 learned queries, box MLP
  gcn            graph convolution: 2000 nodes, 16000 edges, messages gathered on
                 edges and summed into nodes by ScatterElements (reduction add), 3 layers
  mobilevit      MobileViT-style: inverted residuals, then transformer blocks over
                 2x2 patches unfolded by Reshape/Transpose and folded back, 192x192
  wide_deep      wide & deep tabular model: 26 embeddings + 13 dense features,
                 Concat, BatchNorm1d in the MLP, batch 256
  einsum_attn    transformer encoder whose attention and projections are written with
                 Einsum (4 layers, width 256, 8 heads, 128 tokens)
  seq2seq_gru    GRU encoder (60 steps) + GRU-cell decoder with additive attention
                 unrolled over 12 steps, greedy feedback through an embedding
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import zoo_common as zc


# --- YOLOv8-style detector --------------------------------------------------

class ConvBnSilu(nn.Module):
    def __init__(self, a, b, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(a, b, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(b)

    def forward(self, x):
        return F.silu(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c, shortcut=True):
        super().__init__()
        self.c1, self.c2 = ConvBnSilu(c, c, 3), ConvBnSilu(c, c, 3)
        self.add = shortcut

    def forward(self, x):
        y = self.c2(self.c1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    def __init__(self, a, b, n=1, shortcut=True):
        super().__init__()
        self.c = b // 2
        self.cv1 = ConvBnSilu(a, 2 * self.c)
        self.cv2 = ConvBnSilu((2 + n) * self.c, b)
        self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).split((self.c, self.c), 1))
        for m in self.m:
            y.append(m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class Sppf(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.cv1 = ConvBnSilu(a, a // 2)
        self.cv2 = ConvBnSilu(a * 2, b)
        self.pool = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.pool(x)
        y2 = self.pool(y1)
        return self.cv2(torch.cat((x, y1, y2, self.pool(y2)), 1))


class Yolo(nn.Module):
    NC, REG = 80, 16

    def __init__(self):
        super().__init__()
        w = [16, 32, 64, 128, 256]
        self.b0 = ConvBnSilu(3, w[0], 3, 2)
        self.b1 = nn.Sequential(ConvBnSilu(w[0], w[1], 3, 2), C2f(w[1], w[1]))
        self.b2 = nn.Sequential(ConvBnSilu(w[1], w[2], 3, 2), C2f(w[2], w[2], 2))
        self.b3 = nn.Sequential(ConvBnSilu(w[2], w[3], 3, 2), C2f(w[3], w[3], 2))
        self.b4 = nn.Sequential(ConvBnSilu(w[3], w[4], 3, 2), C2f(w[4], w[4]), Sppf(w[4], w[4]))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.n1 = C2f(w[4] + w[3], w[3], shortcut=False)
        self.n2 = C2f(w[3] + w[2], w[2], shortcut=False)
        self.d1 = ConvBnSilu(w[2], w[2], 3, 2)
        self.n3 = C2f(w[2] + w[3], w[3], shortcut=False)
        self.d2 = ConvBnSilu(w[3], w[3], 3, 2)
        self.n4 = C2f(w[3] + w[4], w[4], shortcut=False)
        chans = (w[2], w[3], w[4])
        self.box = nn.ModuleList(nn.Sequential(ConvBnSilu(c, 64, 3), ConvBnSilu(64, 64, 3),
                                               nn.Conv2d(64, 4 * self.REG, 1)) for c in chans)
        self.cls = nn.ModuleList(nn.Sequential(ConvBnSilu(c, 80, 3), ConvBnSilu(80, 80, 3),
                                               nn.Conv2d(80, self.NC, 1)) for c in chans)
        self.dfl = nn.Conv2d(self.REG, 1, 1, bias=False)
        with torch.no_grad():
            self.dfl.weight.copy_(torch.arange(self.REG, dtype=torch.float).view(1, self.REG, 1, 1))

    def forward(self, x):
        p3 = self.b2(self.b1(self.b0(x)))
        p4 = self.b3(p3)
        p5 = self.b4(p4)
        h4 = self.n1(torch.cat((self.up(p5), p4), 1))
        h3 = self.n2(torch.cat((self.up(h4), p3), 1))
        h4 = self.n3(torch.cat((self.d1(h3), h4), 1))
        h5 = self.n4(torch.cat((self.d2(h4), p5), 1))
        outs = []
        for i, f in enumerate((h3, h4, h5)):
            outs.append(torch.cat((self.box[i](f), self.cls[i](f)), 1).flatten(2))
        y = torch.cat(outs, 2)  # [B, 64 + 80, anchors]
        b, _, a = y.shape
        box, cls = y.split((4 * self.REG, self.NC), 1)
        box = box.view(b, 4, self.REG, a).transpose(2, 1).softmax(1)  # [B, 16, 4, A]
        box = self.dfl(box).view(b, 4, a)
        return torch.cat((box, cls.sigmoid()), 1)


# --- Stable-Diffusion-style UNet ------------------------------------------

def timestep_embedding(t, dim, dtype):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=dtype) / half)
    a = t.to(dtype)[:, None] * freqs[None]
    return torch.cat((torch.cos(a), torch.sin(a)), -1)


class ResBlock(nn.Module):
    def __init__(self, a, b, temb):
        super().__init__()
        self.n1, self.n2 = nn.GroupNorm(8, a), nn.GroupNorm(8, b)
        self.c1, self.c2 = nn.Conv2d(a, b, 3, padding=1), nn.Conv2d(b, b, 3, padding=1)
        self.t = nn.Linear(temb, b)
        self.skip = nn.Conv2d(a, b, 1) if a != b else nn.Identity()

    def forward(self, x, t):
        h = self.c1(F.silu(self.n1(x))) + self.t(F.silu(t))[:, :, None, None]
        h = self.c2(F.silu(self.n2(h)))
        return self.skip(x) + h


class Attention(nn.Module):
    def __init__(self, d, ctx, heads):
        super().__init__()
        self.h = heads
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(ctx, d, bias=False)
        self.v = nn.Linear(ctx, d, bias=False)
        self.o = nn.Linear(d, d)

    def forward(self, x, c):
        b, n, d = x.shape
        m = c.shape[1]
        hd = d // self.h
        q = self.q(x).view(b, n, self.h, hd).transpose(1, 2)
        k = self.k(c).view(b, m, self.h, hd).transpose(1, 2)
        v = self.v(c).view(b, m, self.h, hd).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-1, -2) * hd ** -0.5, -1)
        return self.o((a @ v).transpose(1, 2).reshape(b, n, d))


class SpatialTransformer(nn.Module):
    def __init__(self, c, ctx, heads=4):
        super().__init__()
        self.norm = nn.GroupNorm(8, c)
        self.pin, self.pout = nn.Conv2d(c, c, 1), nn.Conv2d(c, c, 1)
        self.n1, self.n2, self.n3 = nn.LayerNorm(c), nn.LayerNorm(c), nn.LayerNorm(c)
        self.self_attn = Attention(c, c, heads)
        self.cross_attn = Attention(c, ctx, heads)
        self.ff1, self.ff2 = nn.Linear(c, 8 * c), nn.Linear(4 * c, c)

    def forward(self, x, ctx):
        b, c, h, w = x.shape
        y = self.pin(self.norm(x)).flatten(2).transpose(1, 2)
        z = self.n1(y)
        y = y + self.self_attn(z, z)
        y = y + self.cross_attn(self.n2(y), ctx)
        a, g = self.ff1(self.n3(y)).chunk(2, -1)
        y = y + self.ff2(a * F.gelu(g))
        return x + self.pout(y.transpose(1, 2).reshape(b, c, h, w))


class UNet(nn.Module):
    CTX = 256

    def __init__(self):
        super().__init__()
        ch, temb = [64, 128, 128], 256
        self.temb = nn.Sequential(nn.Linear(64, temb), nn.SiLU(), nn.Linear(temb, temb))
        self.inp = nn.Conv2d(4, ch[0], 3, padding=1)
        self.r0, self.a0 = ResBlock(ch[0], ch[0], temb), SpatialTransformer(ch[0], self.CTX)
        self.down0 = nn.Conv2d(ch[0], ch[0], 3, 2, 1)
        self.r1, self.a1 = ResBlock(ch[0], ch[1], temb), SpatialTransformer(ch[1], self.CTX)
        self.down1 = nn.Conv2d(ch[1], ch[1], 3, 2, 1)
        self.r2 = ResBlock(ch[1], ch[2], temb)
        self.mid_a, self.mid_r = SpatialTransformer(ch[2], self.CTX), ResBlock(ch[2], ch[2], temb)
        self.u2 = ResBlock(ch[2] + ch[2], ch[1], temb)
        self.u1, self.ua1 = ResBlock(ch[1] + ch[1], ch[1], temb), SpatialTransformer(ch[1], self.CTX)
        self.u0, self.ua0 = ResBlock(ch[1] + ch[0], ch[0], temb), SpatialTransformer(ch[0], self.CTX)
        self.up_c1, self.up_c0 = nn.Conv2d(ch[1], ch[1], 3, padding=1), nn.Conv2d(ch[1], ch[1], 3, padding=1)
        self.out_n, self.out = nn.GroupNorm(8, ch[0]), nn.Conv2d(ch[0], 4, 3, padding=1)

    def forward(self, x, t, ctx):
        te = self.temb(timestep_embedding(t, 64, x.dtype))
        h0 = self.a0(self.r0(self.inp(x), te), ctx)  # 32x32
        h1 = self.a1(self.r1(self.down0(h0), te), ctx)  # 16x16
        h2 = self.r2(self.down1(h1), te)  # 8x8
        m = self.mid_r(self.mid_a(h2, ctx), te)
        u = self.u2(torch.cat((m, h2), 1), te)
        u = self.up_c1(F.interpolate(u, scale_factor=2.0, mode="nearest"))
        u = self.ua1(self.u1(torch.cat((u, h1), 1), te), ctx)
        u = self.up_c0(F.interpolate(u, scale_factor=2.0, mode="nearest"))
        u = self.ua0(self.u0(torch.cat((u, h0), 1), te), ctx)
        return self.out(F.silu(self.out_n(u)))


# --- CLIP-style text encoder ------------------------------------------------

class QuickGelu(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


class ClipLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.o = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), QuickGelu(), nn.Linear(4 * d, d))

    def forward(self, x, mask):
        b, s, d = x.shape
        hd = d // self.h
        q, k, v = self.qkv(self.n1(x)).view(b, s, 3, self.h, hd).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) * hd ** -0.5 + mask, -1)
        x = x + self.o((a @ v).transpose(1, 2).reshape(b, s, d))
        return x + self.mlp(self.n2(x))


class ClipText(nn.Module):
    VOCAB, D, LAYERS, CTX = 49408, 256, 6, 77

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(self.VOCAB, self.D)
        self.pos = nn.Parameter(0.01 * torch.randn(self.CTX, self.D))
        self.layers = nn.ModuleList(ClipLayer(self.D, 4) for _ in range(self.LAYERS))
        self.norm = nn.LayerNorm(self.D)
        self.proj = nn.Linear(self.D, 512, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((self.CTX, self.CTX), float("-inf")), 1))

    def forward(self, ids):
        x = self.tok(ids) + self.pos
        for layer in self.layers:
            x = layer(x, self.mask)
        x = self.norm(x)
        pooled = x[torch.arange(x.shape[0]), ids.argmax(-1)]
        return self.proj(pooled), x


# --- DLRM-style recommender --------------------------------------------------

class Dlrm(nn.Module):
    TABLES, ROWS, DIM, BAG, DENSE = 8, 80000, 32, 4, 13

    def __init__(self):
        super().__init__()
        self.tables = nn.ParameterList(nn.Parameter(0.05 * torch.randn(self.ROWS, self.DIM))
                                       for _ in range(self.TABLES))
        self.bottom = nn.Sequential(nn.Linear(self.DENSE, 256), nn.ReLU(), nn.Linear(256, 64),
                                    nn.ReLU(), nn.Linear(64, self.DIM), nn.ReLU())
        f = self.TABLES + 1
        self.top = nn.Sequential(nn.Linear(self.DIM + f * (f - 1) // 2, 512), nn.ReLU(),
                                 nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 1))
        iu = torch.triu_indices(f, f, 1)
        self.register_buffer("pairs", iu[0] * f + iu[1])

    def forward(self, dense, sparse):  # [B, 13], [B, TABLES, BAG]
        x = self.bottom(dense)
        feats = [x] + [t[sparse[:, i]].sum(1) for i, t in enumerate(self.tables)]
        z = torch.stack(feats, 1)  # [B, F, D]
        inter = torch.bmm(z, z.transpose(1, 2)).flatten(1)[:, self.pairs]
        return torch.sigmoid(self.top(torch.cat((x, inter), 1)))


# --- HiFi-GAN-style vocoder -------------------------------------------------

class HifiRes(nn.Module):
    def __init__(self, c, k=3, dil=(1, 3, 5)):
        super().__init__()
        self.c1 = nn.ModuleList(nn.Conv1d(c, c, k, dilation=d, padding=d * (k - 1) // 2) for d in dil)
        self.c2 = nn.ModuleList(nn.Conv1d(c, c, k, padding=(k - 1) // 2) for _ in dil)

    def forward(self, x):
        for a, b in zip(self.c1, self.c2):
            x = x + b(F.leaky_relu(a(F.leaky_relu(x, 0.1)), 0.1))
        return x


class HifiGan(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = nn.Conv1d(80, 256, 7, padding=3)
        self.ups = nn.ModuleList([nn.ConvTranspose1d(256, 128, 16, 8, 4),
                                  nn.ConvTranspose1d(128, 64, 16, 8, 4),
                                  nn.ConvTranspose1d(64, 32, 4, 2, 1)])
        self.res = nn.ModuleList([HifiRes(128), HifiRes(64), HifiRes(32)])
        self.post = nn.Conv1d(32, 1, 7, padding=3)

    def forward(self, mel):
        x = self.pre(mel)
        for up, res in zip(self.ups, self.res):
            x = res(up(F.leaky_relu(x, 0.1)))
        return torch.tanh(self.post(F.leaky_relu(x)))


# --- Fast style transfer ---------------------------------------------------

class ConvIn(nn.Module):
    def __init__(self, a, b, k, s=1, relu=True, up=False):
        super().__init__()
        self.up = up
        self.pad = nn.ReflectionPad2d(k // 2)
        self.conv = nn.Conv2d(a, b, k, s)
        self.norm = nn.InstanceNorm2d(b, affine=True)
        self.relu = relu

    def forward(self, x):
        if self.up:
            x = F.interpolate(x, scale_factor=2.0, mode="nearest")
        y = self.norm(self.conv(self.pad(x)))
        return F.relu(y) if self.relu else y


class StyleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(ConvIn(3, 32, 9), ConvIn(32, 64, 3, 2), ConvIn(64, 128, 3, 2))
        self.res = nn.ModuleList(nn.Sequential(ConvIn(128, 128, 3), ConvIn(128, 128, 3, relu=False))
                                 for _ in range(5))
        self.dec = nn.Sequential(ConvIn(128, 64, 3, up=True), ConvIn(64, 32, 3, up=True))
        self.pad = nn.ReflectionPad2d(4)
        self.out = nn.Conv2d(32, 3, 9)

    def forward(self, x):
        x = self.enc(x)
        for r in self.res:
            x = x + r(x)
        return self.out(self.pad(self.dec(x)))


# --- DETR-style detector ---------------------------------------------------

class Detr(nn.Module):
    D, QUERIES, CLASSES = 256, 50, 92

    def __init__(self):
        super().__init__()
        import torchvision
        r = torchvision.models.resnet18(weights=None)
        self.backbone = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool, r.layer1, r.layer2,
                                      r.layer3, r.layer4)
        self.proj = nn.Conv2d(512, self.D, 1)
        self.tf = nn.Transformer(self.D, 8, 3, 3, 1024, dropout=0.0, batch_first=True)
        self.query = nn.Parameter(torch.randn(1, self.QUERIES, self.D))
        self.row = nn.Parameter(0.1 * torch.randn(32, self.D // 2))
        self.col = nn.Parameter(0.1 * torch.randn(32, self.D // 2))
        self.cls = nn.Linear(self.D, self.CLASSES)
        self.box = nn.Sequential(nn.Linear(self.D, self.D), nn.ReLU(), nn.Linear(self.D, self.D),
                                 nn.ReLU(), nn.Linear(self.D, 4))

    def forward(self, x):
        f = self.proj(self.backbone(x))
        b, d, h, w = f.shape
        pos = torch.cat((self.col[:w][None].expand(h, w, d // 2),
                         self.row[:h][:, None].expand(h, w, d // 2)), -1).flatten(0, 1)
        src = f.flatten(2).transpose(1, 2) + pos
        hs = self.tf(src, self.query.expand(b, -1, -1))
        return self.cls(hs), self.box(hs).sigmoid()


# --- Graph convolution -----------------------------------------------------

class Gcn(nn.Module):
    NODES, EDGES, FEAT, HID, CLASSES = 2000, 16000, 128, 128, 16

    def __init__(self):
        super().__init__()
        dims = [self.FEAT, self.HID, self.HID, self.CLASSES]
        self.lin = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims, dims[1:]))
        self.root = nn.ModuleList(nn.Linear(a, b, bias=False) for a, b in zip(dims, dims[1:]))

    def forward(self, x, edges, weight):  # [N, F], [2, E] int64, [E]
        src, dst = edges[0], edges[1]
        for i, (lin, root) in enumerate(zip(self.lin, self.root)):
            msg = lin(x)[src] * weight[:, None]
            agg = msg.new_zeros(x.shape[0], msg.shape[1]).scatter_add(
                0, dst[:, None].expand(-1, msg.shape[1]), msg)
            x = agg + root(x)
            if i + 1 < len(self.lin):
                x = F.relu(x)
        return torch.log_softmax(x, -1)


# --- MobileViT-style -------------------------------------------------------

class InvRes(nn.Module):
    def __init__(self, a, b, s, e=4):
        super().__init__()
        h = a * e
        self.body = nn.Sequential(nn.Conv2d(a, h, 1, bias=False), nn.BatchNorm2d(h), nn.SiLU(),
                                  nn.Conv2d(h, h, 3, s, 1, groups=h, bias=False),
                                  nn.BatchNorm2d(h), nn.SiLU(),
                                  nn.Conv2d(h, b, 1, bias=False), nn.BatchNorm2d(b))
        self.res = s == 1 and a == b

    def forward(self, x):
        y = self.body(x)
        return x + y if self.res else y


class MobileVitBlock(nn.Module):
    def __init__(self, c, d, layers, p=2):
        super().__init__()
        self.p = p
        self.local = nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c),
                                   nn.SiLU(), nn.Conv2d(c, d, 1, bias=False))
        layer = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.tf = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.proj = nn.Sequential(nn.Conv2d(d, c, 1, bias=False), nn.BatchNorm2d(c), nn.SiLU())
        self.fuse = nn.Sequential(nn.Conv2d(2 * c, c, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(c), nn.SiLU())

    def forward(self, x):
        y = self.local(x)
        b, d, h, w = y.shape
        p = self.p
        # unfold: [B, D, H, W] -> [B * p * p, (H/p) * (W/p), D]
        u = y.reshape(b, d, h // p, p, w // p, p).permute(0, 3, 5, 2, 4, 1)
        u = u.reshape(b * p * p, (h // p) * (w // p), d)
        u = self.norm(self.tf(u))
        # fold back
        f = u.reshape(b, p, p, h // p, w // p, d).permute(0, 5, 3, 1, 4, 2).reshape(b, d, h, w)
        return self.fuse(torch.cat((x, self.proj(f)), 1))


class MobileVit(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16),
                                  nn.SiLU())
        self.body = nn.Sequential(
            InvRes(16, 32, 1), InvRes(32, 48, 2), InvRes(48, 48, 1),
            InvRes(48, 64, 2), MobileVitBlock(64, 96, 2),
            InvRes(64, 80, 2), MobileVitBlock(80, 120, 4),
            InvRes(80, 96, 2), MobileVitBlock(96, 144, 3))
        self.head = nn.Sequential(nn.Conv2d(96, 384, 1, bias=False), nn.BatchNorm2d(384),
                                  nn.SiLU())
        self.fc = nn.Linear(384, 1000)

    def forward(self, x):
        return self.fc(self.head(self.body(self.stem(x))).mean((2, 3)))


# --- Wide & deep -----------------------------------------------------------

class WideDeep(nn.Module):
    CARDS = [1000 * (i % 7 + 1) for i in range(26)]
    DIM, DENSE = 16, 13

    def __init__(self):
        super().__init__()
        self.emb = nn.ModuleList(nn.Embedding(c, self.DIM) for c in self.CARDS)
        self.wide = nn.ModuleList(nn.Embedding(c, 1) for c in self.CARDS)
        n = len(self.CARDS) * self.DIM + self.DENSE
        self.deep = nn.Sequential(nn.Linear(n, 512), nn.BatchNorm1d(512), nn.ReLU(),
                                  nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(),
                                  nn.Linear(256, 1))
        self.wide_dense = nn.Linear(self.DENSE, 1)

    def forward(self, dense, cats):  # [B, 13], [B, 26] int64
        deep = torch.cat([e(cats[:, i]) for i, e in enumerate(self.emb)] + [dense], 1)
        wide = sum(w(cats[:, i]) for i, w in enumerate(self.wide)) + self.wide_dense(dense)
        return torch.sigmoid(self.deep(deep) + wide)


# --- Einsum attention ------------------------------------------------------

class EinsumLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        hd = d // heads
        self.wq, self.wk, self.wv = (nn.Parameter(torch.randn(d, heads, hd) / d ** 0.5)
                                     for _ in range(3))
        self.wo = nn.Parameter(torch.randn(heads, hd, d) / d ** 0.5)
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.w1 = nn.Parameter(torch.randn(d, 4 * d) / d ** 0.5)
        self.w2 = nn.Parameter(torch.randn(4 * d, d) / (4 * d) ** 0.5)
        self.scale = hd ** -0.5

    def forward(self, x):
        y = self.n1(x)
        q = torch.einsum("bsd,dhk->bhsk", y, self.wq)
        k = torch.einsum("bsd,dhk->bhsk", y, self.wk)
        v = torch.einsum("bsd,dhk->bhsk", y, self.wv)
        a = torch.softmax(torch.einsum("bhsk,bhtk->bhst", q, k) * self.scale, -1)
        o = torch.einsum("bhst,bhtk->bhsk", a, v)
        x = x + torch.einsum("bhsk,hkd->bsd", o, self.wo)
        h = F.gelu(torch.einsum("bsd,df->bsf", self.n2(x), self.w1))
        return x + torch.einsum("bsf,fd->bsd", h, self.w2)


class EinsumEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(*[EinsumLayer(256, 8) for _ in range(4)])

    def forward(self, x):
        return self.layers(x)


# --- Seq2seq GRU with attention --------------------------------------------

class Seq2Seq(nn.Module):
    VOCAB, EMB, HID, STEPS = 4000, 128, 256, 12

    def __init__(self):
        super().__init__()
        self.enc = nn.GRU(80, self.HID, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * self.HID, self.HID)
        self.emb = nn.Embedding(self.VOCAB, self.EMB)
        self.cell_i = nn.Linear(self.EMB + 2 * self.HID, 3 * self.HID)
        self.cell_h = nn.Linear(self.HID, 3 * self.HID)
        self.att_q = nn.Linear(self.HID, self.HID, bias=False)
        self.att_k = nn.Linear(2 * self.HID, self.HID)
        self.att_v = nn.Linear(self.HID, 1, bias=False)
        self.out = nn.Linear(self.HID + 2 * self.HID, self.VOCAB)

    def cell(self, x, h):
        """torch's GRUCell equations written out (the exporter has no aten::gru_cell)."""
        n = self.HID
        gi, gh = self.cell_i(x), self.cell_h(h)
        r = torch.sigmoid(gi[:, :n] + gh[:, :n])
        z = torch.sigmoid(gi[:, n:2 * n] + gh[:, n:2 * n])
        c = torch.tanh(gi[:, 2 * n:] + r * gh[:, 2 * n:])
        return (1.0 - z) * c + z * h

    def forward(self, feats):  # [B, T, 80]
        mem, _ = self.enc(feats)  # [B, T, 2H]
        keys = self.att_k(mem)
        h = torch.tanh(self.bridge(mem.mean(1)))
        tok = torch.zeros(feats.shape[0], dtype=torch.long)
        logits = []
        for _ in range(self.STEPS):
            e = torch.tanh(keys + self.att_q(h)[:, None])
            w = torch.softmax(self.att_v(e).squeeze(-1), -1)  # [B, T]
            ctx = torch.bmm(w[:, None], mem).squeeze(1)
            h = self.cell(torch.cat((self.emb(tok), ctx), 1), h)
            lg = self.out(torch.cat((h, ctx), 1))
            logits.append(lg)
            tok = lg.argmax(-1)
        return torch.stack(logits, 1)


def specs(mm):
    def seeded(ctor, bn_shape=None):
        return zc.seeded(mm, ctor, bn_shape)

    def normal(name, shape, scale=1.0):
        return lambda rs: [(name, (scale * rs.standard_normal(shape)).astype(np.float32))]

    def unet_set(rs):
        return [("latent", rs.standard_normal((1, 4, 32, 32)).astype(np.float32)),
                ("timestep", np.array([int(rs.randint(0, 1000))], dtype=np.int64)),
                ("context", rs.standard_normal((1, 77, UNet.CTX)).astype(np.float32))]

    def clip_set(rs):
        ids = rs.randint(1, ClipText.VOCAB - 1, (1, ClipText.CTX)).astype(np.int64)
        ids[0, 20] = ClipText.VOCAB - 1  # the end token: argmax pools it
        ids[0, 21:] = 0
        return [("input_ids", ids)]

    def dlrm_set(rs):
        return [("dense", rs.standard_normal((128, Dlrm.DENSE)).astype(np.float32)),
                ("sparse", rs.randint(0, Dlrm.ROWS, (128, Dlrm.TABLES, Dlrm.BAG)).astype(np.int64))]

    def gcn_set(rs):
        return [("x", rs.standard_normal((Gcn.NODES, Gcn.FEAT)).astype(np.float32)),
                ("edges", rs.randint(0, Gcn.NODES, (2, Gcn.EDGES)).astype(np.int64)),
                ("edge_weight", rs.uniform(0.0, 0.25, Gcn.EDGES).astype(np.float32))]

    def wide_set(rs):
        cats = np.stack([rs.randint(0, c, 256) for c in WideDeep.CARDS], 1).astype(np.int64)
        return [("dense", rs.standard_normal((256, WideDeep.DENSE)).astype(np.float32)),
                ("cats", cats)]

    def wide_deep():
        m = WideDeep()
        with torch.no_grad():  # running statistics as after training: not the identity
            for bn in (m.deep[1], m.deep[4]):
                bn.running_mean.normal_(0.0, 0.1)
                bn.running_var.uniform_(0.5, 2.0)
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.normal_(0.0, 0.1)
        return m

    return [
        dict(name="yolov8_n", build=seeded(Yolo, (3, 320, 320)),
             sets=[zc.image_set((1, 3, 320, 320))], outputs=["output"]),
        dict(name="sd_unet", build=seeded(UNet), sets=[unet_set], outputs=["noise"]),
        dict(name="clip_text", build=seeded(ClipText), sets=[clip_set],
             outputs=["text_embeds", "last_hidden_state"]),
        dict(name="dlrm", build=seeded(Dlrm), sets=[dlrm_set], outputs=["click"]),
        dict(name="hifigan", build=seeded(HifiGan), sets=[normal("mel", (1, 80, 32))],
             outputs=["audio"]),
        dict(name="style_transfer", build=seeded(StyleNet), sets=[zc.image_set((1, 3, 256, 256))],
             outputs=["output"]),
        dict(name="detr", build=seeded(Detr, (3, 256, 256)), sets=[zc.image_set((1, 3, 256, 256))],
             outputs=["logits", "boxes"]),
        dict(name="gcn", build=seeded(Gcn), sets=[gcn_set], outputs=["log_probs"]),
        dict(name="mobilevit", build=seeded(MobileVit, (3, 192, 192)),
             sets=[zc.image_set((1, 3, 192, 192))], outputs=["logits"]),
        dict(name="wide_deep", build=seeded(wide_deep), sets=[wide_set], outputs=["score"]),
        dict(name="einsum_attn", build=seeded(EinsumEncoder), sets=[normal("x", (1, 128, 256))],
             outputs=["y"]),
        dict(name="seq2seq_gru", build=seeded(Seq2Seq), sets=[normal("features", (1, 60, 80))],
             outputs=["logits"]),
    ]


if __name__ == "__main__":
    zc.main(specs, __doc__)
