#!/usr/bin/env python3
"""Float32 and float16 twins of two CNNs, for the CPU's float16 path.

Built with onnx helpers only (no torch): a ResNet-18 (BatchNormalization
kept, as an unfused export has it) and a small U-Net with bilinear
up-sampling and a per-pixel Softmax over 21 classes (a segmentation head).
Weights are random (seed 1234); the float16 twin holds the same weights
rounded, with float16 graph inputs and outputs. Each model lands in
OUTDIR/<name>_{fp32,fp16}/model.onnx with test_data_set_0/input_0.pb, which
ort_bench.js and `tessera bench` read.

  /usr/bin/python3 bench/models/make_half_cnns.py /tmp/halfbench
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(1234)


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.k = [], [], 0

    def name(self, prefix):
        self.k += 1
        return f"{prefix}{self.k}"

    def init(self, arr, prefix="w"):
        n = self.name(prefix)
        self.inits.append((n, np.asarray(arr, np.float32)))
        return n

    def op(self, op_type, ins, **attrs):
        y = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, ins, [y], **attrs))
        return y

    def conv(self, x, cin, cout, k, stride=1, pad=None, bn=True, relu=True):
        pad = k // 2 if pad is None else pad
        w = self.init(rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k)))
        y = self.op("Conv", [x, w], kernel_shape=[k, k], strides=[stride] * 2, pads=[pad] * 4)
        if bn:
            stats = [rng.uniform(0.5, 1.5, cout), rng.uniform(-0.2, 0.2, cout),
                     rng.uniform(-0.1, 0.1, cout), rng.uniform(0.5, 1.5, cout)]
            y = self.op("BatchNormalization", [y] + [self.init(s) for s in stats])
        return self.op("Relu", [y]) if relu else y


def resnet18():
    b = Builder()
    y = b.conv("input", 3, 64, 7, 2, 3)
    y = b.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, c in enumerate([64, 128, 256, 512]):
        for block in range(2):
            s = 2 if stage > 0 and block == 0 else 1
            h = b.conv(b.conv(y, cin, c, 3, s), c, c, 3, relu=False)
            skip = y if s == 1 and cin == c else b.conv(y, cin, c, 1, s, 0, relu=False)
            y, cin = b.op("Relu", [b.op("Add", [h, skip])]), c
    y = b.op("Flatten", [b.op("GlobalAveragePool", [y])])
    w = b.init(rng.standard_normal((1000, 512)) * 0.03)
    bias = b.init(rng.standard_normal(1000) * 0.01)
    b.nodes.append(helper.make_node("Gemm", [y, w, bias], ["output"], transB=1))
    return b, [1, 3, 224, 224], [1, 1000]


def unet():
    b = Builder()
    y, cin, skips = "input", 3, []
    for c in [16, 32, 64, 128]:
        y = b.conv(b.conv(y, cin, c, 3), c, c, 3)
        skips.append((y, c))
        y, cin = b.op("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2]), c
    y, cin = b.conv(b.conv(y, cin, 256, 3), 256, 256, 3), 256
    scales = b.init([1, 1, 2, 2], "scales")
    for skip, c in reversed(skips):
        y = b.conv(b.op("Resize", [y, "", scales], mode="linear"), cin, c, 1, pad=0)
        y = b.op("Concat", [y, skip], axis=1)
        y, cin = b.conv(b.conv(y, 2 * c, c, 3), c, c, 3), c
    y = b.conv(y, cin, 21, 1, pad=0, bn=False, relu=False)
    b.nodes.append(helper.make_node("Softmax", [y], ["output"], axis=1))
    return b, [1, 3, 256, 256], [1, 21, 256, 256]


def save(b, in_shape, out_shape, out_dir, half):
    elem = TensorProto.FLOAT16 if half else TensorProto.FLOAT
    dtype = np.float16 if half else np.float32
    # Resize's scales are float in every model.
    inits = [numpy_helper.from_array(a if n.startswith("scales") else a.astype(dtype), n)
             for n, a in b.inits]
    g = helper.make_graph(b.nodes, "g", [helper.make_tensor_value_info("input", elem, in_shape)],
                          [helper.make_tensor_value_info("output", elem, out_shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    os.makedirs(os.path.join(out_dir, "test_data_set_0"), exist_ok=True)
    onnx.save(m, os.path.join(out_dir, "model.onnx"))
    x = np.random.default_rng(7).uniform(-1, 1, in_shape).astype(dtype)
    with open(os.path.join(out_dir, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "input").SerializeToString())


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "halfbench"
    for name, make in [("resnet18", resnet18), ("unet", unet)]:
        b, in_shape, out_shape = make()
        for half in (False, True):
            d = os.path.join(out, f"{name}_{'fp16' if half else 'fp32'}")
            save(b, in_shape, out_shape, d, half)
            print(d)


if __name__ == "__main__":
    main()
