#!/usr/bin/python3
"""Mobile and layout variants of image CNNs for the zoo (bench/models/zoo_common.py
has the layout):

    /usr/bin/python3 bench/models/make_zoo_mobile.py OUTDIR [--only NAME,...] [--kit DIR]

  mobilenet_v3_small        HardSwish / HardSigmoid, squeeze-excitation, 224x224
  mobilenet_v3_small_dynhw  the same with symbolic height and width (sets at 224 and 160)
  mobilenet_v3_small_fp16   float16 weights, inputs and outputs
  mnasnet1_0                inverted residuals with 5x5 depthwise, no activations but Relu
  resnet18_nhwc             channels-last input [1, 224, 224, 3], Transpose inside
  efficientnet_b0_fp16      float16 SiLU, squeeze-excitation, 5x5 depthwise
"""
import numpy as np
import torch.nn as nn
import torchvision

import zoo_common as zc


class Nhwc(nn.Module):
    """A CNN exported with a channels-last input, as converted TensorFlow models have."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x.permute(0, 3, 1, 2))


def specs(mm):
    def cnn(name, wrap=None):
        def build(seed):
            mm.seed_all(seed)
            m = getattr(torchvision.models, name)(weights=None).eval()
            m = mm.calibrate_batchnorm(m, (3, 224, 224), seed + 1)
            return wrap(m).eval() if wrap else m
        return build

    img = zc.image_set((1, 3, 224, 224))
    hw = {"input": {2: "height", 3: "width"}}
    return [
        dict(name="mobilenet_v3_small", build=cnn("mobilenet_v3_small"), sets=[img],
             outputs=["logits"]),
        dict(name="mobilenet_v3_small_dynhw", build=cnn("mobilenet_v3_small"),
             sets=[img, zc.image_set((1, 3, 160, 160))], outputs=["logits"], dynamic=hw),
        dict(name="mobilenet_v3_small_fp16", build=cnn("mobilenet_v3_small"), sets=[img],
             outputs=["logits"], half=True),
        dict(name="mnasnet1_0", build=cnn("mnasnet1_0"), sets=[img], outputs=["logits"]),
        dict(name="resnet18_nhwc", build=cnn("resnet18", Nhwc),
             sets=[lambda rs: [("input", rs.standard_normal((1, 224, 224, 3)).astype(np.float32))]],
             outputs=["logits"]),
        dict(name="efficientnet_b0_fp16", build=cnn("efficientnet_b0"), sets=[img],
             outputs=["logits"], half=True),
    ]


if __name__ == "__main__":
    zc.main(specs, __doc__)
