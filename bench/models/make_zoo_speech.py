#!/usr/bin/python3
"""Speech models for the zoo (bench/models/zoo_common.py has the layout); needs
Debian's python3-torchaudio:

    /usr/bin/python3 bench/models/make_zoo_speech.py OUTDIR [--only NAME,...] [--kit DIR]

  wav2vec2_base      torchaudio wav2vec2_base: 7 Conv1d feature extractor (GroupNorm, GELU)
                     over 1 s of 16 kHz audio, grouped positional Conv1d, 12 post-LN layers
  wav2vec2_int8      the same, MatMuls dynamically quantized to int8
  conformer_4x       torchaudio Conformer, 4 layers, 80 features x 200 frames with a
                     lengths input (padding mask), depthwise Conv1d kernel 31, GLU, SiLU
  whisper_enc        Whisper-tiny-shaped encoder: 2 Conv1d + GELU over 80 x 1000 mel
                     frames, sinusoidal positions, 4 pre-LN layers of 384, 6 heads
  speech_embed_nhwc  speaker-embedding CNN with a channels-last input [1, 200, 64, 1]
                     (Transpose inside), LeakyRelu, max-feature-map (Max of channel
                     halves), mean and standard-deviation pooling, 256-wide embedding
  conv_tasnet        torchaudio ConvTasNet (2 sources): Conv1d encoder, 16 dilated
                     depthwise blocks (PReLU, GroupNorm), ConvTranspose1d decoder; 1 s at 8 kHz
  deepspeech         torchaudio DeepSpeech: per-frame Linear layers with Hardtanh-clipped
                     Relu, a bidirectional Relu RNN, 29-way LogSoftmax; 200 frames
  wav2letter         torchaudio Wav2Letter over 40 MFCC features x 300 frames
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchaudio

import zoo_common as zc


class FirstOutput(nn.Module):
    """torchaudio models return (output, lengths): export the output."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, *x):
        return self.m(*x)[0]


class WhisperEncoder(nn.Module):
    def __init__(self, n_mels=80, frames=1000, d=384, nh=6, layers=4):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        n = frames // 2
        inv = torch.exp(-math.log(10000) / (d // 2 - 1) * torch.arange(d // 2))
        t = torch.arange(n)[:, None] * inv[None, :]
        self.register_buffer("pos", torch.cat([torch.sin(t), torch.cos(t)], 1), persistent=False)
        layer = lambda: nn.ModuleDict(dict(  # noqa: E731
            ln1=nn.LayerNorm(d), qkv=nn.Linear(d, 3 * d), o=nn.Linear(d, d), ln2=nn.LayerNorm(d),
            fc1=nn.Linear(d, 4 * d), fc2=nn.Linear(4 * d, d)))
        self.layers = nn.ModuleList([layer() for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.nh, self.d = nh, d

    def forward(self, mel):
        x = F.gelu(self.conv2(F.gelu(self.conv1(mel)))).transpose(1, 2) + self.pos
        b, n, d, nh = x.size(0), x.size(1), self.d, self.nh
        for L in self.layers:
            q, k, v = L["qkv"](L["ln1"](x)).view(b, n, 3, nh, d // nh).permute(2, 0, 3, 1, 4)
            a = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // nh), -1)
            x = x + L["o"](torch.matmul(a, v).transpose(1, 2).reshape(b, n, d))
            x = x + L["fc2"](F.gelu(L["fc1"](L["ln2"](x))))
        return self.ln(x)


class Mfm(nn.Module):
    """Max-feature-map: a convolution to twice the channels, the Max of the halves."""

    def __init__(self, cin, cout, k, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, 2 * cout, k, stride, k // 2)
        self.bn = nn.BatchNorm2d(2 * cout)

    def forward(self, x):
        a, b = torch.chunk(self.bn(self.conv(x)), 2, dim=1)
        return torch.max(a, b)


class SpeechEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.01),
            Mfm(32, 32, 3), nn.MaxPool2d(2), Mfm(32, 64, 3), nn.LeakyReLU(0.01),
            Mfm(64, 64, 3, 2), Mfm(64, 128, 3), nn.MaxPool2d(2), Mfm(128, 128, 3))
        self.fc = nn.Linear(2 * 128 * 8, 256)

    def forward(self, x):  # x: [B, T, F, 1]
        h = self.body(x.permute(0, 3, 2, 1))  # [B, 128, F/8, T/8]
        h = h.flatten(1, 2)
        stats = torch.cat([h.mean(-1), torch.sqrt(h.var(-1, unbiased=False) + 1e-5)], 1)
        return self.fc(stats)


def specs(mm):
    def build(ctor, shape=None):
        def b(seed):
            mm.seed_all(seed)
            m = ctor().eval()
            mm.randomize_layernorm(m, seed + 2)
            if shape:
                m = mm.calibrate_batchnorm(m, shape, seed + 1, batch_size=2)
            return m.eval()
        return b

    def audio(n):
        return lambda rs: [("waveform", (0.1 * rs.standard_normal((1, n))).astype(np.float32))]

    def feats(name, shape):
        return lambda rs: [(name, rs.standard_normal(shape).astype(np.float32))]

    w2v = lambda: FirstOutput(torchaudio.models.wav2vec2_base(aux_num_out=32))  # noqa: E731
    conformer = lambda: FirstOutput(torchaudio.models.Conformer(  # noqa: E731
        input_dim=80, num_heads=4, ffn_dim=1024, num_layers=4, depthwise_conv_kernel_size=31))
    conf_set = lambda rs: [("features", rs.standard_normal((1, 200, 80)).astype(np.float32)),  # noqa
                           ("lengths", np.array([200], np.int64))]
    return [
        dict(name="wav2vec2_base", build=build(w2v), sets=[audio(16000)], outputs=["emissions"]),
        dict(name="wav2vec2_int8", build=build(w2v), sets=[audio(16000)], outputs=["emissions"],
             quantize="dynamic", rtol=1.0, atol=0.2),
        dict(name="conformer_4x", build=build(conformer, None), sets=[conf_set],
             outputs=["encoded"]),
        dict(name="whisper_enc", build=build(WhisperEncoder), sets=[feats("mel", (1, 80, 1000))],
             outputs=["encoded"]),
        dict(name="speech_embed_nhwc", build=build(SpeechEmbed, (200, 64, 1)),
             sets=[feats("features", (1, 200, 64, 1))], outputs=["embedding"]),
        dict(name="conv_tasnet", build=build(lambda: torchaudio.models.ConvTasNet(
             num_sources=2, enc_num_feats=256, msk_num_feats=128, msk_num_hidden_feats=256,
             msk_num_layers=8, msk_num_stacks=2)),
             sets=[lambda rs: [("waveform", (0.1 * rs.standard_normal((1, 1, 8000)))
                                .astype(np.float32))]], outputs=["sources"]),
        dict(name="deepspeech", build=build(lambda: torchaudio.models.DeepSpeech(80, 512)),
             sets=[feats("features", (1, 1, 200, 80))], outputs=["log_probs"]),
        dict(name="wav2letter", build=build(lambda: torchaudio.models.Wav2Letter(
             num_classes=29, input_type="mfcc", num_features=40)),
             sets=[feats("features", (1, 40, 300))], outputs=["log_probs"]),
    ]


if __name__ == "__main__":
    zc.main(specs, __doc__)
