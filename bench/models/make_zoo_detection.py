#!/usr/bin/python3
"""Detection, segmentation and OCR models for the zoo (bench/models/zoo_common.py
has the layout):

    /usr/bin/python3 bench/models/make_zoo_detection.py OUTDIR [--only NAME,...] [--kit DIR]

  ssdlite320          torchvision ssdlite320_mobilenet_v3_large with its post-processing:
                      box decoding, per-class TopK, NonMaxSuppression; outputs boxes,
                      scores, labels (1 x 3 x 320 x 320 in [0, 1])
  fasterrcnn_mbv3     torchvision fasterrcnn_mobilenet_v3_large_320_fpn: RPN, NMS,
                      RoiAlign over an FPN, box head, second NMS
  unet_convt          U-Net: 4 levels of Conv+BN+Relu, ConvTranspose2d 2x2/2 up-sampling,
                      skip Concat, 21-class head; height and width symbolic (256 and 192)
  unet_convt_fp16     the same in float16
  lraspp_mbv3         torchvision lraspp_mobilenet_v3_large: HardSwish, squeeze-excitation,
                      AveragePool, Sigmoid gate, bilinear Resize to the input size
  ocr_det_db          DB-style text detector: mobilenet_v3_small backbone (HardSwish,
                      squeeze-excitation), FPN with nearest Resize, two ConvTranspose2d
                      2x2/2 and Sigmoid; 1 x 3 x 640 x 640
  ocr_rec_svtr        text recognizer: Conv stem to 80 columns, 2 transformer blocks whose
                      LayerNorm is written out (ReduceMean, Sub, Pow, Sqrt, Div), Swish MLP,
                      6625-way Softmax; 1 x 3 x 48 x 320
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

import zoo_common as zc


class Detector(nn.Module):
    """torchvision detectors take a list of images and return a list of dicts."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        r = self.m([x[0]])[0]
        return r["boxes"], r["scores"], r["labels"]


class SegOut(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


def cbr(cin, cout, k=3, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU())


class UNet(nn.Module):
    def __init__(self, widths=(32, 64, 128, 256), classes=21):
        super().__init__()
        self.down, c = nn.ModuleList(), 3
        for w in widths:
            self.down.append(nn.Sequential(cbr(c, w), cbr(w, w)))
            c = w
        self.mid = nn.Sequential(cbr(c, 2 * c), cbr(2 * c, 2 * c))
        self.up, self.dec, c = nn.ModuleList(), nn.ModuleList(), 2 * c
        for w in reversed(widths):
            self.up.append(nn.ConvTranspose2d(c, w, 2, 2))
            self.dec.append(nn.Sequential(cbr(2 * w, w), cbr(w, w)))
            c = w
        self.head = nn.Conv2d(c, classes, 1)

    def forward(self, x):
        skips = []
        for d in self.down:
            x = d(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.mid(x)
        for up, dec, s in zip(self.up, self.dec, reversed(skips)):
            x = dec(torch.cat([up(x), s], 1))
        return self.head(x)


class DbDetector(nn.Module):
    def __init__(self):
        super().__init__()
        f = torchvision.models.mobilenet_v3_small(weights=None).features
        # strides 4, 8, 16, 32 end after blocks 1, 3, 8, 12 (16, 24, 48, 576 channels)
        self.stages = nn.ModuleList([f[:2], f[2:4], f[4:9], f[9:]])
        self.lat = nn.ModuleList([nn.Conv2d(c, 96, 1, bias=False) for c in (16, 24, 48, 576)])
        self.smooth = nn.ModuleList([nn.Conv2d(96, 24, 3, 1, 1, bias=False) for _ in range(4)])
        self.head = nn.Sequential(
            nn.Conv2d(96, 24, 3, 1, 1, bias=False), nn.BatchNorm2d(24), nn.ReLU(),
            nn.ConvTranspose2d(24, 24, 2, 2), nn.BatchNorm2d(24), nn.ReLU(),
            nn.ConvTranspose2d(24, 1, 2, 2), nn.Sigmoid())

    def forward(self, x):
        feats = []
        for s in self.stages:
            x = s(x)
            feats.append(x)
        lat = [l(f) for l, f in zip(self.lat, feats)]
        for i in (2, 1, 0):
            lat[i] = lat[i] + F.interpolate(lat[i + 1], scale_factor=2.0, mode="nearest")
        outs = [F.interpolate(s(l), scale_factor=float(2 ** i), mode="nearest") if i else s(l)
                for i, (s, l) in enumerate(zip(self.smooth, lat))]
        return self.head(torch.cat(outs[::-1], 1))


class LayerNormWrittenOut(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))
        self.eps = eps

    def forward(self, x):
        u = x.mean(-1, keepdim=True)
        s = torch.pow(x - u, 2).mean(-1, keepdim=True)
        return (x - u) / torch.sqrt(s + self.eps) * self.weight + self.bias


class SvtrBlock(nn.Module):
    def __init__(self, d, nh):
        super().__init__()
        self.n1, self.n2 = LayerNormWrittenOut(d), LayerNormWrittenOut(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.nh, self.d = nh, d

    def forward(self, x):
        b, n, d, nh = x.size(0), x.size(1), self.d, self.nh
        q, k, v = self.qkv(self.n1(x)).view(b, n, 3, nh, d // nh).permute(2, 0, 3, 1, 4)
        a = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * (d // nh) ** -0.5, -1)
        x = x + self.proj(torch.matmul(a, v).transpose(1, 2).reshape(b, n, d))
        h = self.fc1(self.n2(x))
        return x + self.fc2(h * torch.sigmoid(h))


class SvtrRecognizer(nn.Module):
    def __init__(self, d=192, classes=6625):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.Hardswish(),
            nn.Conv2d(32, 64, 3, (2, 1), 1), nn.BatchNorm2d(64), nn.Hardswish(),
            nn.Conv2d(64, 128, 3, (2, 2), 1), nn.BatchNorm2d(128), nn.Hardswish(),
            nn.Conv2d(128, d, 3, (2, 1), 1), nn.BatchNorm2d(d), nn.Hardswish())
        self.blocks = nn.ModuleList([SvtrBlock(d, 6) for _ in range(2)])
        self.norm = LayerNormWrittenOut(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):  # [B, 3, 48, 320] -> [B, 192, 3, 80]
        f = self.stem(x).mean(2).transpose(1, 2)  # [B, 80, 192]
        for blk in self.blocks:
            f = blk(f)
        return torch.softmax(self.head(self.norm(f)), -1)


def specs(mm):
    def build(ctor, shape):
        def b(seed):
            mm.seed_all(seed)
            m = ctor().eval()
            mm.randomize_layernorm(m, seed + 2)
            with torch.no_grad():
                for mod in m.modules():
                    if isinstance(mod, LayerNormWrittenOut):
                        mod.weight.add_(0.1 * torch.randn(mod.weight.shape))
                        mod.bias.add_(0.02 * torch.randn(mod.bias.shape))
            return mm.calibrate_batchnorm(m, shape, seed + 1, batch_size=2).eval()
        return b

    def tv_det(name, **kw):
        def ctor():
            return Detector(getattr(torchvision.models.detection, name)(
                weights=None, weights_backbone=None, **kw))
        return ctor

    def det_build(ctor, size):
        def b(seed):
            mm.seed_all(seed)
            m = ctor().eval()
            # calibrate the backbone's BatchNorm on its own (the detector's forward
            # in train mode needs targets)
            mm.calibrate_batchnorm(m.m.backbone, (3, size, size), seed + 1, batch_size=2)
            return m.eval()
        return b

    def img(shape, lo=None):
        if lo is None:
            return zc.image_set(shape)
        return lambda rs: [("input", rs.uniform(0, 1, shape).astype(np.float32))]

    hw = {"input": {2: "height", 3: "width"}, "logits": {2: "height", 3: "width"}}
    seg = lambda: SegOut(torchvision.models.segmentation.lraspp_mobilenet_v3_large(  # noqa: E731
        weights=None, weights_backbone=None))
    return [
        dict(name="ssdlite320", build=det_build(tv_det("ssdlite320_mobilenet_v3_large"), 320),
             sets=[img((1, 3, 320, 320), 0)], outputs=["boxes", "scores", "labels"],
             check="shapes"),
        dict(name="fasterrcnn_mbv3", build=det_build(
             tv_det("fasterrcnn_mobilenet_v3_large_320_fpn"), 320),
             sets=[img((1, 3, 320, 320), 0)], outputs=["boxes", "scores", "labels"],
             check="shapes"),
        dict(name="unet_convt", build=build(UNet, (3, 256, 256)),
             sets=[img((1, 3, 256, 256)), img((1, 3, 192, 192))], outputs=["logits"],
             dynamic=hw),
        dict(name="unet_convt_fp16", build=build(UNet, (3, 256, 256)),
             sets=[img((1, 3, 256, 256))], outputs=["logits"], half=True),
        dict(name="lraspp_mbv3", build=build(seg, (3, 224, 224)), sets=[img((1, 3, 224, 224))],
             outputs=["out"]),
        dict(name="ocr_det_db", build=build(DbDetector, (3, 640, 640)),
             sets=[img((1, 3, 640, 640))], outputs=["prob_map"]),
        dict(name="ocr_rec_svtr", build=build(SvtrRecognizer, (3, 48, 320)),
             sets=[img((1, 3, 48, 320))], outputs=["probs"]),
    ]


if __name__ == "__main__":
    zc.main(specs, __doc__)
