#!/usr/bin/python3
"""Builds the shipped demo models with PyTorch and writes them in the ONNX
backend-test layout, so `tessera test models/<name>` checks Tessera against
PyTorch's own outputs:

  models/demo_cnn/          conv-bn-relu x3, a residual add, maxpool, global
                            average pool, flatten, gemm; input 1x3x32x32, opset 13
  models/demo_transformer/  one attention block (q/k/v Linear, MatMul, Softmax,
                            LayerNorm, exact Gelu via Erf); input [batch,8,32],
                            opset 14, 'batch' a dynamic axis

Each gets model.onnx and test_data_set_0/{input_0.pb,output_0.pb}.
Run with Debian's python3-torch:  /usr/bin/python3 scripts/make_demo_model.py
"""
import math
import os
import sys
import warnings

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models")


class ConvBnRelu(nn.Sequential):
    def __init__(self, cin, cout, stride=1):
        super().__init__(
            nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
        )


class DemoCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = ConvBnRelu(3, 16)
        self.pool = nn.MaxPool2d(2)
        self.block1 = ConvBnRelu(16, 16)
        self.block2 = ConvBnRelu(16, 16)
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        x = self.pool(self.stem(x))
        x = x + self.block2(self.block1(x))  # residual
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)  # GlobalAveragePool
        return self.head(x)  # Gemm


class DemoAttention(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.scale = 1.0 / math.sqrt(dim)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        att = torch.softmax(torch.matmul(q, k.transpose(1, 2)) * self.scale, dim=-1)
        x = self.norm1(x + torch.matmul(att, v))
        h = nn.functional.gelu(self.fc1(x))  # exact gelu: exported with Erf
        return self.norm2(x + self.fc2(h))


def calibrate_batchnorm(model, shape, batches=4):
    """Gives BatchNorm non-trivial scales, shifts and running statistics, as a
    trained net has (fresh ones are 1, 0, 0 and 1)."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            nn.init.uniform_(m.weight, 0.5, 1.5)
            nn.init.uniform_(m.bias, -0.2, 0.2)
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(*shape) * 2.0 + 0.5)
    model.eval()


def export(model, example, name, opset, dynamic_axes=None):
    out_dir = os.path.join(ROOT, name)
    data_dir = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    path = os.path.join(out_dir, "model.onnx")
    with warnings.catch_warnings():
        # The constant-folding warning is about models in training mode; ours are in eval.
        warnings.filterwarnings("ignore", message=".*constant folding.*")
        torch.onnx.export(model, example, path, opset_version=opset, input_names=["input"],
                          output_names=["output"], dynamic_axes=dynamic_axes,
                          do_constant_folding=True,
                          # PRESERVE keeps BatchNormalization as its own node (EVAL would
                          # fold it into the Conv weights); the model is in eval mode.
                          training=torch.onnx.TrainingMode.PRESERVE)
    onnx.checker.check_model(onnx.load(path))
    with torch.no_grad():
        expected = model(example).numpy()
    for fname, array, pname in (("input_0.pb", example.numpy(), "input"),
                                ("output_0.pb", expected, "output")):
        with open(os.path.join(data_dir, fname), "wb") as f:
            f.write(numpy_helper.from_array(np.ascontiguousarray(array), pname).SerializeToString())
    size = os.path.getsize(path)
    print(f"{path}: {size} bytes, output {expected.shape}")
    if size > 200 * 1024:
        sys.exit(f"{path} is {size} bytes; the demo models must stay under 200 KB")


def main():
    torch.manual_seed(0)
    cnn = DemoCNN()
    calibrate_batchnorm(cnn, (8, 3, 32, 32))
    export(cnn, torch.randn(1, 3, 32, 32), "demo_cnn", opset=13)

    torch.manual_seed(1)
    att = DemoAttention().eval()
    export(att, torch.randn(1, 8, 32), "demo_transformer", opset=14,
           dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})


if __name__ == "__main__":
    main()
