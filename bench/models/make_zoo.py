#!/usr/bin/python3
"""More model families for the side-by-side benchmark: the shared kit's
make_models.py (ResNet-50, MobileNetV2, BERT-base) plus the architectures a
user of an ONNX runtime is as likely to bring, each exercising operators and
layer shapes the kit's three do not.

    /usr/bin/python3 bench/models/make_zoo.py OUTDIR [--only NAME,...] [--kit DIR] [--no-verify]

Same layout, seed, random weights, BatchNorm calibration, torch reference
outputs and ONNX Runtime verification as the kit (this script imports the
kit's make_models.py and adds these to its list), so run_bench.py and
`tessera test` take the folders unchanged:

  efficientnet_b0     SiLU, squeeze-excitation (pool -> 1x1 -> sigmoid -> Mul), 5x5 depthwise
  mobilenet_v3_large  HardSwish / HardSigmoid, squeeze-excitation
  convnext_tiny       7x7 depthwise, LayerNorm over channels (Transpose around it), GELU
  vit_b_16            16x16 stride-16 patch embedding, 197-token attention
  swin_t              windowed attention (Roll, Reshape/Transpose shuffles), relative bias
  regnet_y_800mf      grouped 3x3 convolutions, squeeze-excitation
  resnext50_32x4d     grouped 3x3 convolutions (32 groups)
  shufflenet_v2       channel shuffle (Reshape -> Transpose -> Reshape), Split, Concat
  densenet121         long Concat chains, BatchNorm -> Relu before convolutions
  googlenet           Inception blocks: parallel branches, Concat, 3x3 max pools
  squeezenet1_1       Concat of 1x1 and 3x3 branches, no BatchNorm
  deeplabv3_mbv3      segmentation: dilated convolutions, Resize (bilinear) to the input size
  r3d_18              video: Conv3d, BatchNorm3d, 3-D pooling (1 x 3 x 16 x 112 x 112)

The models are big (up to 350 MB); keep them out of git (OUTDIR under /tmp).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_kit(path):
    sys.path.insert(0, path)
    import make_models  # the shared kit's exporter
    return make_models


def zoo_specs(mm):
    import numpy as np
    import torch.nn as nn
    import torchvision

    def cnn(name, **kw):
        def build(seed):
            mm.seed_all(seed)
            ctor = getattr(torchvision.models, name)
            m = ctor(weights=None, **kw).eval()
            mm.randomize_layernorm(m, seed + 2)
            return mm.calibrate_batchnorm(m, (3, 224, 224), seed + 1)
        return build

    class SegOut(nn.Module):
        """Segmentation models return a dict; export its main output only."""

        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)["out"]

    def seg(seed):
        mm.seed_all(seed)
        m = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
            weights=None, weights_backbone=None, aux_loss=False).eval()
        return SegOut(mm.calibrate_batchnorm(m, (3, 224, 224), seed + 1)).eval()

    def video(seed):
        mm.seed_all(seed)
        m = torchvision.models.video.r3d_18(weights=None).eval()
        return mm.calibrate_batchnorm(m, (3, 16, 112, 112), seed + 1, batch_size=2)

    def clip_inputs(batch, rs):
        return [("input", rs.standard_normal((batch, 3, 16, 112, 112)).astype(np.float32))]

    image = mm.image_inputs
    specs = [
        ("efficientnet_b0", cnn("efficientnet_b0"), image, "logits"),
        ("mobilenet_v3_large", cnn("mobilenet_v3_large"), image, "logits"),
        ("convnext_tiny", cnn("convnext_tiny"), image, "logits"),
        ("vit_b_16", cnn("vit_b_16"), image, "logits"),
        ("swin_t", cnn("swin_t"), image, "logits"),
        ("regnet_y_800mf", cnn("regnet_y_800mf"), image, "logits"),
        ("resnext50_32x4d", cnn("resnext50_32x4d"), image, "logits"),
        ("shufflenet_v2", cnn("shufflenet_v2_x1_0"), image, "logits"),
        ("densenet121", cnn("densenet121"), image, "logits"),
        ("googlenet", cnn("googlenet", aux_logits=False, init_weights=True), image, "logits"),
        ("squeezenet1_1", cnn("squeezenet1_1"), image, "logits"),
        ("deeplabv3_mbv3", seg, image, "out"),
        ("r3d_18", video, clip_inputs, "logits"),
    ]
    return [dict(name=n, set="public", build=b, inputs=i, outputs=[o]) for n, b, i, o in specs]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kit", default=os.path.realpath(os.path.join(HERE, "../../../shared/bench")),
                    help="the shared benchmark kit (make_models.py, ort_bench.js, node_modules)")
    a, rest = ap.parse_known_args()
    if not os.path.exists(os.path.join(a.kit, "make_models.py")):
        sys.exit(f"make_zoo: no make_models.py in {a.kit} (pass --kit)")
    mm = load_kit(a.kit)
    zoo = zoo_specs(mm)
    mm.MODELS[:] = mm.MODELS + zoo
    # Without --only, make the zoo, not the kit's own three again.
    if not any(r == "--only" or r.startswith("--only=") for r in rest):
        rest += ["--only", ",".join(s["name"] for s in zoo)]
    sys.argv = [sys.argv[0]] + rest
    mm.main()


if __name__ == "__main__":
    main()
