#!/usr/bin/python3
"""Writes the benchmark kit's bert-base encoder (../shared/bench/make_models.py,
`bert_base_mask`: same weights, seed 1234) as ONNX with both the batch and the
sequence length dynamic, for serving figures where requests of different
lengths arrive together (docs/serving.md, BERT-base).

The kit exports the encoder with the sequence length fixed (its Reshapes
spell it out); here the same modules run with the length read from the
input, so the exported graph computes it (Shape, Gather) and the position
embeddings are sliced to it.

Usage: /usr/bin/python3 bench/serve/make_bert_dynamic.py OUT.onnx [--kit DIR]
Needs python3-torch, python3-torchvision (the kit imports it) and python3-onnx;
downloads nothing. The file is about 420 MB: write it outside the repository."""
import argparse
import math
import pathlib
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[2]


class DynamicLengthBert(torch.nn.Module):
    """The kit's BertEncoder modules, run for any batch and sequence length."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert
        max_pos = bert.pos.weight.shape[0]
        self.register_buffer("positions", torch.arange(max_pos, dtype=torch.int64),
                             persistent=False)

    def layer(self, m, x, mask_bias):
        b, s = x.shape[0], x.shape[1]
        q = m.q(x).view(b, s, m.nh, m.hd).transpose(1, 2)
        k = m.k(x).view(b, s, m.nh, m.hd).permute(0, 2, 3, 1)
        v = m.v(x).view(b, s, m.nh, m.hd).transpose(1, 2)
        p = torch.softmax(torch.matmul(q, k) / math.sqrt(m.hd) + mask_bias, dim=-1)
        ctx = torch.matmul(p, v).transpose(1, 2).reshape(b, s, m.h)
        x = m.ln1(x + m.o(ctx))
        return m.ln2(x + m.fc2(F.gelu(m.fc1(x))))

    def forward(self, input_ids, attention_mask):
        s = input_ids.shape[1]
        x = self.bert.ln(self.bert.tok(input_ids) + self.bert.pos(self.positions[:s]))
        mask_bias = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
        for m in self.bert.layers:
            x = self.layer(m, x, mask_bias)
        return x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--kit", default=str(ROOT.parent / "shared" / "bench"),
                    help="the folder of the benchmark kit's make_models.py")
    a = ap.parse_args()
    sys.path.insert(0, a.kit)
    import make_models  # the kit: the encoder's modules and its weights

    model = DynamicLengthBert(make_models.build_bert(make_models.SEED)).eval()
    rs = np.random.RandomState(7)
    ids = torch.from_numpy(rs.randint(0, 30522, size=(2, 16)).astype(np.int64))
    mask = torch.ones((2, 16), dtype=torch.int64)
    dims = {0: "batch", 1: "sequence"}
    torch.onnx.export(model, (ids, mask), a.out, opset_version=make_models.OPSET,
                      input_names=["input_ids", "attention_mask"],
                      output_names=["last_hidden_state"],
                      dynamic_axes={"input_ids": dims, "attention_mask": dims,
                                    "last_hidden_state": dims},
                      do_constant_folding=True)
    m = onnx.load(a.out)
    onnx.checker.check_model(m)
    # The kit's fixed-length export must agree with this one at its length:
    # the same weights, so the same numbers.
    with torch.no_grad():
        ids = torch.from_numpy(rs.randint(0, 30522, size=(1, 128)).astype(np.int64))
        mask = torch.ones((1, 128), dtype=torch.int64)
        mask[0, 100:] = 0
        want = model.bert(ids, mask).numpy()
        got = model(ids, mask).numpy()
    if not np.allclose(want, got, atol=1e-5):
        sys.exit("the dynamic-length encoder differs from the kit's at length 128")
    print(f"wrote {a.out}: inputs {[(i.name, [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]) for i in m.graph.input]}")


if __name__ == "__main__":
    main()
