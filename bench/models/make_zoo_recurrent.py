#!/usr/bin/python3
"""Recurrent models for the zoo (bench/models/zoo_common.py has the layout):

    /usr/bin/python3 bench/models/make_zoo_recurrent.py OUTDIR [--only NAME,...] [--kit DIR]

  lstm_2x256     2-layer LSTM, 80 features -> 256, 100 steps, Linear head;
                 batch and time symbolic (sets: 1 x 100, 2 x 37)
  gru_2x256      the same with GRU
  bilstm_2x256   2-layer bidirectional LSTM, 100 steps
  bigru_256      1-layer bidirectional GRU, 100 steps
  conv_lstm      speech-style: 3 Conv1d + BatchNorm + Relu (stride 2 once) over 80 x 200
                 frames, then a 2-layer LSTM 320 and a 29-way LogSoftmax
  crnn_ctc       text recognizer: VGG-style CNN over a 1 x 32 x 128 crop, 2 bidirectional
                 LSTM 256 over 32 columns, 37-way LogSoftmax (CTC)
  vad_if_lstm    voice-activity detector: an If on the sample rate (16000 or 8000) whose
                 branches each run their own Conv1d front end, LSTM 64 with state in and
                 out, and Sigmoid; sets for both rates
"""
import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper

import zoo_common as zc


class SeqModel(nn.Module):
    def __init__(self, cell, inp, hidden, layers, bidirectional, out):
        super().__init__()
        self.rnn = cell(inp, hidden, layers, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(hidden * (2 if bidirectional else 1), out)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


class ConvLstm(nn.Module):
    def __init__(self):
        super().__init__()
        layers, c = [], 80
        for cout, stride in ((256, 2), (256, 1), (256, 1)):
            layers += [nn.Conv1d(c, cout, 5, stride, 2), nn.BatchNorm1d(cout), nn.ReLU()]
            c = cout
        self.conv = nn.Sequential(*layers)
        self.lstm = nn.LSTM(256, 320, 2, batch_first=True)
        self.head = nn.Linear(320, 29)

    def forward(self, x):  # x: [B, 80, T]
        y, _ = self.lstm(self.conv(x).transpose(1, 2))
        return torch.log_softmax(self.head(y), -1)


class Crnn(nn.Module):
    def __init__(self):
        super().__init__()

        def block(cin, cout, pool):
            return [nn.Conv2d(cin, cout, 3, 1, 1), nn.BatchNorm2d(cout), nn.ReLU()] + (
                [nn.MaxPool2d(pool, pool)] if pool else [])

        self.cnn = nn.Sequential(*block(1, 64, (2, 2)), *block(64, 128, (2, 2)),
                                 *block(128, 256, None), *block(256, 256, (2, 1)),
                                 *block(256, 512, None), *block(512, 512, (2, 1)),
                                 nn.Conv2d(512, 512, (2, 1)), nn.ReLU())
        self.rnn = nn.LSTM(512, 256, 2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(512, 37)

    def forward(self, x):  # x: [B, 1, 32, 128]
        f = self.cnn(x).squeeze(2).transpose(1, 2)  # [B, 32, 512]
        y, _ = self.rnn(f)
        return torch.log_softmax(self.head(y), -1)


class VadBranch(nn.Module):
    """One sample rate's detector: a strided Conv1d front end, an LSTM with state."""

    def __init__(self, window):
        super().__init__()
        self.front = nn.Conv1d(1, 64, window // 8, window // 16)
        self.enc = nn.Sequential(nn.ReLU(), nn.Conv1d(64, 64, 3, 1, 1), nn.ReLU())
        self.lstm = nn.LSTM(64, 64, 1)
        self.out = nn.Linear(64, 1)

    def forward(self, x, h, c):  # x: [1, window]
        f = self.enc(self.front(x.unsqueeze(1)))  # [1, 64, frames]
        y, (h2, c2) = self.lstm(f.permute(2, 0, 1), (h, c))
        return torch.sigmoid(self.out(y[-1])), h2, c2


class Vad(nn.Module):
    def __init__(self):
        super().__init__()
        self.b16 = VadBranch(512)
        self.b8 = VadBranch(256)

    def forward(self, x, sr, h, c):
        return self.b16(x, h, c) if int(sr) == 16000 else self.b8(x, h, c)


def branch_graph(module, x, h, c, tag, tmp):
    """Exports one branch and returns it as an If body: no inputs (it reads
    the outer x, h, c), every other name prefixed with the tag."""
    path = f"{tmp}/{tag}.onnx"
    zc.onnx_export(module, (x, h, c), path, opset_version=zc.OPSET,
                   input_names=["x", "h", "c"], output_names=["prob", "h_out", "c_out"],
                   dynamic_axes={"x": {1: "samples"}}, do_constant_folding=True)
    g = onnx.load(path).graph
    outer = {"x", "h", "c", ""}
    ren = lambda n: n if n in outer else f"{tag}_{n}"  # noqa: E731
    for n in g.node:
        n.name = ren(n.name) if n.name else ""
        n.input[:] = [ren(i) for i in n.input]
        n.output[:] = [ren(o) for o in n.output]
    for t in g.initializer:
        t.name = ren(t.name)
    for o in g.output:
        o.name = ren(o.name)
    del g.input[:]
    del g.value_info[:]
    g.name = tag
    return g


def export_vad(model, feeds, out_names, path, dynamic):
    import tempfile

    x16 = torch.zeros(1, 512)
    x8 = torch.zeros(1, 256)
    h = torch.zeros(1, 1, 64)
    with tempfile.TemporaryDirectory() as tmp:
        then_g = branch_graph(model.b16, x16, h, h, "sr16k", tmp)
        else_g = branch_graph(model.b8, x8, h, h, "sr8k", tmp)
    nodes = [
        helper.make_node("Constant", [], ["rate16k"],
                         value=helper.make_tensor("v", TensorProto.INT64, [], [16000])),
        helper.make_node("Equal", ["sr", "rate16k"], ["is16k"]),
        helper.make_node("If", ["is16k"], out_names, then_branch=then_g, else_branch=else_g),
    ]
    f = TensorProto.FLOAT
    g = helper.make_graph(
        nodes, "vad",
        [helper.make_tensor_value_info("x", f, [1, "samples"]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, []),
         helper.make_tensor_value_info("h", f, [1, 1, 64]),
         helper.make_tensor_value_info("c", f, [1, 1, 64])],
        [helper.make_tensor_value_info(out_names[0], f, [1, 1]),
         helper.make_tensor_value_info(out_names[1], f, [1, 1, 64]),
         helper.make_tensor_value_info(out_names[2], f, [1, 1, 64])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", zc.OPSET)])
    m.ir_version = 8
    onnx.save(m, path)


def specs(mm):
    def build(ctor):
        def b(seed):
            mm.seed_all(seed)
            return ctor().eval()
        return b

    def calibrated(ctor, shape):
        def b(seed):
            mm.seed_all(seed)
            return mm.calibrate_batchnorm(ctor().eval(), shape, seed + 1, batch_size=2)
        return b

    def seq(batch, steps, feat):
        return lambda rs: [("input", rs.standard_normal((batch, steps, feat)).astype(np.float32))]

    dyn = {"input": {0: "batch", 1: "time"}, "output": {0: "batch", 1: "time"}}
    rnn = lambda cell, layers, bi: build(  # noqa: E731
        lambda: SeqModel(cell, 80, 256, layers, bi, 40))
    vad_sets = []
    for sr, n in ((16000, 512), (8000, 256)):
        vad_sets.append(lambda rs, sr=sr, n=n: [
            ("x", (0.3 * rs.standard_normal((1, n))).astype(np.float32)),
            ("sr", np.array(sr, np.int64)),
            ("h", (0.5 * rs.standard_normal((1, 1, 64))).astype(np.float32)),
            ("c", (0.5 * rs.standard_normal((1, 1, 64))).astype(np.float32))])
    return [
        dict(name="lstm_2x256", build=rnn(nn.LSTM, 2, False), sets=[seq(1, 100, 80), seq(2, 37, 80)],
             outputs=["output"], dynamic=dyn),
        dict(name="gru_2x256", build=rnn(nn.GRU, 2, False), sets=[seq(1, 100, 80), seq(2, 37, 80)],
             outputs=["output"], dynamic=dyn),
        dict(name="bilstm_2x256", build=rnn(nn.LSTM, 2, True), sets=[seq(1, 100, 80)],
             outputs=["output"]),
        dict(name="bigru_256", build=rnn(nn.GRU, 1, True), sets=[seq(1, 100, 80)],
             outputs=["output"]),
        dict(name="conv_lstm", build=calibrated(ConvLstm, (80, 200)),
             sets=[lambda rs: [("input", rs.standard_normal((1, 80, 200)).astype(np.float32))]],
             outputs=["log_probs"]),
        dict(name="crnn_ctc", build=calibrated(Crnn, (1, 32, 128)),
             sets=[lambda rs: [("input", rs.standard_normal((1, 1, 32, 128)).astype(np.float32))]],
             outputs=["log_probs"]),
        dict(name="vad_if_lstm", build=build(Vad), sets=vad_sets,
             outputs=["prob", "h_out", "c_out"], export=export_vad),
    ]


if __name__ == "__main__":
    zc.main(specs, __doc__)
