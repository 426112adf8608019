#!/usr/bin/env python3
"""Tessera's CUDA provider against PyTorch on the same GPU (issue #7's acceptance table).

For ResNet-50 and a BERT-base encoder (seq 128), at each batch size and element type asked
for, this script
  1. builds the model in PyTorch (random weights, fixed seed) and exports it to ONNX
     (opset 17) with fixed shapes;
  2. times PyTorch eager and torch.compile (when this torch has it) with the inputs already
     on the device, by CUDA events (wall clock on the CPU);
  3. times `tessera bench` with [CUDA, CPU] (inputs fed from host memory, outputs returned
     to it: the copies are included), the same with enable_cuda_graph=1 (replayed CUDA
     graphs; the script fails if the timed runs were not replays), both again with
     --device-io (inputs placed on the device once, outputs left there: like for like with
     the torch timings, whose tensors live on the device) and, when the installed
     onnxruntime has CUDAExecutionProvider, ONNX Runtime's CUDA provider;
  4. checks accuracy: the outputs of `tessera run` with [CUDA, CPU] against [CPU] on the same
     inputs (float32: rtol 1e-3 / atol 1e-4; float16: 1e-2 relative to the largest value).

It writes OUT/<model>_b<batch>_<dtype>/{model.onnx,inputs/,cpu/,cuda/}, one JSON line per
measurement to OUT/results.jsonl and a Markdown table (latencies in ms, and Tessera's best
device-IO figure over eager's) to OUT/table.md. Exit status 1 when an accuracy check fails.

Run it on the GPU machine (its python3 has torch, torchvision and onnx), with the CLI built
with CUDA (bash scripts/gpu_check.sh builds build-gpu/):

  python3 bench/gpu_compare.py --tessera build-gpu/tessera --out build-gpu/gpu_check/compare

torch.compile's compiles take minutes: `--only torch` times PyTorch alone (a call of its own
on a short GPU lease), `--only tessera --no-compile` Tessera alone with the accuracy check, and
`--merge A/results.jsonl,B/results.jsonl --out DIR` puts the two into one table.

--zoo NAMES|all adds rows for models of the bench/models zoo (bench/models/zoo_index.py;
the makers import the shared kit's make_models.py, found beside the checkout or in the GPU
pack, or given by --kit): each maker's torch module, built on the CPU, moved to the device
and converted to the row's type, timed as above, and exported again at the row's batch and
type with fixed shapes. Batch B repeats set 0's inputs B times along their first dimension;
a model takes it when every input has a first dimension of 1 and every output of the torch
run has B as its first (otherwise the row says why not). The zoo's float16 and int8
variants are rewrites of another model's ONNX graph, not torch modules: their rows are
listed as not made. Each output is compared as bench/gpu_zoo.py does (integers exactly;
specs that check shapes only, shapes only).

torch.compile costs seconds per row: --compile-only GLOBS compiles only rows whose tag
(MODEL_bBATCH_TYPE, e.g. 'vit_s16_b32_float16', '*_b1_float32') matches one of the
comma-separated globs, and --budget SECONDS starts no row after that many seconds (rows
not started are listed as not run), so a short GPU call can take a chosen part of the table.

--device cpu runs the same steps with torch on the CPU and Tessera's CPU provider alone: a
smoke test of this script on a machine without a GPU (its accuracy pair is [CPU] against
itself; no ONNX Runtime timing).
"""
import argparse
import fnmatch
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn
from onnx import numpy_helper

SEED = 1234
SEQ = 128
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "models"))  # the zoo's makers (--zoo)
# Zoo specs by name (--zoo), filled by load_zoo(); each zoo model's float32 module on the
# CPU, built once and copied for each of its rows (a build calibrates BatchNorm).
ZOO = {}
ZOO_MODULES = {}
# Tessera's timings and the check, as --columns names them.
COLUMNS = ["host", "graph", "device_io", "graph_device_io", "tf32", "check"]


def cuda_providers(extra="", graph=False, tf32=False):
    """Tessera's --providers for [CUDA, CPU]: `extra` CUDA options (K=V:K=V), CUDA graphs,
    TF32 math."""
    opts = [o for o in (extra, "enable_cuda_graph=1" if graph else "",
                        "use_tf32=1" if tf32 else "") if o]
    return ":".join(["CUDAExecutionProvider"] + opts) + ",CPUExecutionProvider"


class Encoder(nn.Module):
    """A BERT-base encoder: embeddings, 12 post-norm layers, erf GELU."""

    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072, seq=SEQ):
        super().__init__()
        self.heads = heads
        self.word = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(seq, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList()
        for _ in range(layers):
            self.layers.append(nn.ModuleDict({
                "qkv": nn.Linear(hidden, 3 * hidden), "out": nn.Linear(hidden, hidden),
                "norm1": nn.LayerNorm(hidden, eps=1e-12), "fc1": nn.Linear(hidden, ffn),
                "fc2": nn.Linear(ffn, hidden), "norm2": nn.LayerNorm(hidden, eps=1e-12)}))

    def forward(self, ids):
        b, s = ids.shape
        pos = torch.arange(s, device=ids.device).unsqueeze(0)
        x = self.norm(self.word(ids) + self.pos(pos))
        hd = x.shape[-1] // self.heads
        for layer in self.layers:
            q, k, v = layer["qkv"](x).split(x.shape[-1], dim=-1)
            q, k, v = (t.reshape(b, s, self.heads, hd).transpose(1, 2) for t in (q, k, v))
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd), dim=-1)
            ctx = (att @ v).transpose(1, 2).reshape(b, s, -1)
            x = layer["norm1"](x + layer["out"](ctx))
            x = layer["norm2"](x + layer["fc2"](nn.functional.gelu(layer["fc1"](x))))
        return x


def build(name, batch, dtype, device):
    torch.manual_seed(SEED)
    if name == "resnet50":
        import torchvision
        model = torchvision.models.resnet50(weights=None)
        feeds = {"input": torch.randn(batch, 3, 224, 224)}
    elif name == "bert_base":
        model = Encoder()
        feeds = {"input_ids": torch.randint(0, 30522, (batch, SEQ), dtype=torch.int64)}
    else:
        raise SystemExit(f"unknown model '{name}' (resnet50, bert_base)")
    model = model.eval().to(device)
    tdtype = {"float32": torch.float32, "float16": torch.float16}[dtype]
    model = model.to(tdtype)
    feeds = {k: (v.to(tdtype) if v.is_floating_point() else v).to(device) for k, v in feeds.items()}
    return model, feeds


class NoBatch(Exception):
    """A zoo model that does not take the row's batch (the row is listed with the reason)."""


def load_zoo(names, kit):
    """Fills ZOO with the specs named (or all); returns their names and rows for those that
    are not torch modules of their own (the zoo's float16 and int8 variants). A family that
    fails to load is reported on stderr; naming one of its models is an error."""
    import zoo_common as zc
    import zoo_index

    specs, errors = zoo_index.all_specs(zc.load_kit(kit or zoo_index.default_kit()))
    for fam, err in errors.items():
        print(f"zoo family {fam} failed to load: {err}", file=sys.stderr)
    wanted = list(specs) if names == "all" else [n for n in names.split(",") if n]
    unknown = [n for n in wanted if n not in specs]
    if unknown:
        raise SystemExit(f"--zoo: unknown model(s) {unknown} (bench/gpu_zoo.py --list names "
                         "them)" + (f"; families that failed to load: {list(errors)}" if errors
                                    else ""))
    skipped = []
    for n in wanted:
        s = specs[n]
        if s.get("half") or s.get("quantize"):
            kind = "float16" if s.get("half") else "int8"
            skipped.append({"model": n, "skipped": f"not made: the {kind} rewrite of an exported "
                                                   "graph has no torch module of its own"})
        else:
            ZOO[n] = s
    return [n for n in wanted if n in ZOO], skipped


def build_zoo(name, batch, dtype, device):
    """A zoo maker's module and set 0's inputs at `batch` (repeated along dim 0) and `dtype`;
    raises NoBatch when the model does not take that batch."""
    import zoo_common as zc

    import copy

    spec = ZOO[name]
    if name not in ZOO_MODULES:
        ZOO_MODULES[name] = spec["build"](zc.SEED)
    model = copy.deepcopy(ZOO_MODULES[name])
    sets = spec["sets"][0](np.random.RandomState(zc.SEED))
    tdtype = {"float32": torch.float32, "float16": torch.float16}[dtype]

    def tensors(b):
        feeds = {}
        for n, a in sets:
            a = np.array(a)  # a copy, 0-d arrays kept 0-d
            if b != 1:
                if a.ndim == 0 or a.shape[0] != 1:
                    raise NoBatch(f"does not take a batch: input '{n}' has shape {list(a.shape)} "
                                  "(batch rows repeat inputs whose first dimension is 1)")
                a = np.concatenate([a] * b, axis=0)
            t = torch.from_numpy(a)
            feeds[n] = (t.to(tdtype) if t.is_floating_point() else t).to(device)
        return feeds

    feeds = tensors(batch)
    model = model.eval().to(device).to(tdtype)
    if batch != 1:
        with torch.inference_mode():
            try:
                out = model(*feeds.values())
            except Exception as e:
                model(*tensors(1).values())  # a model that fails at batch 1 too: the row failed
                raise NoBatch(f"does not take a batch: torch fails on {batch} copies of set 0 "
                              f"({type(e).__name__}: {str(e)[:300]})") from e
        outs = out if isinstance(out, (tuple, list)) else [out]
        for i, o in enumerate(outs):
            if torch.is_tensor(o) and (o.dim() == 0 or o.shape[0] != batch):
                raise NoBatch(f"does not take a batch: output {i} of the torch run has shape "
                                 f"{list(o.shape)}, not [{batch}, ...]")
    return model, feeds


def export_zoo(name, model, feeds, path):
    """Exports a zoo row at its fixed batch and type: the maker's own exporter (on a CPU copy,
    as it expects) where it has one, else the TorchScript exporter."""
    import copy

    import zoo_common as zc

    spec = ZOO[name]
    if spec.get("export"):
        cpu = copy.deepcopy(model).cpu()
        spec["export"](cpu, [(k, v.cpu().numpy()) for k, v in feeds.items()], spec["outputs"],
                       path, None)
        return
    zc.onnx_export(model, tuple(feeds.values()), path, opset_version=zc.OPSET,
                   input_names=list(feeds), output_names=spec["outputs"],
                   do_constant_folding=True)


def export(model, feeds, path):
    args = tuple(feeds.values())
    kwargs = dict(input_names=list(feeds), output_names=["output"], opset_version=17)
    try:  # torch 2.x: the TorchScript exporter (dynamo=False) gives the familiar graph
        torch.onnx.export(model, args, path, dynamo=False, **kwargs)
    except TypeError:  # torch 1.x has no dynamo argument
        torch.onnx.export(model, args, path, **kwargs)
    except Exception as e:  # a torch whose TorchScript exporter is gone or fails here
        print(f"TorchScript export failed ({e}); trying the dynamo exporter", file=sys.stderr)
        torch.onnx.export(model, args, path, dynamo=True, external_data=False, **kwargs)


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def time_torch(fn, feeds, device, warmup, iters):
    """Median milliseconds of fn(**feeds)."""
    times = []
    with torch.inference_mode():
        for i in range(warmup + iters):
            sync(device)
            if device == "cuda":
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fn(*feeds.values())
                end.record()
                end.synchronize()
                ms = start.elapsed_time(end)
            else:
                t0 = time.perf_counter()
                fn(*feeds.values())
                ms = (time.perf_counter() - t0) * 1e3
            if i >= warmup:
                times.append(ms)
    return float(np.median(times))


def tessera(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"tessera {' '.join(args)} failed ({r.returncode}):\n{r.stderr[-4000:]}")
    return r.stdout


def tessera_bench(cli, model, providers, warmup, iters, graph=False, opt_level="all",
                  device_io=False):
    """Median ms of `tessera bench`: host inputs in and host outputs out each run, or with
    device_io the inputs placed on the device once and the outputs left there (what the
    torch timings see: their tensors live on the device)."""
    out = tessera(cli, "bench", model, "--providers", providers, "--warmup", str(warmup),
                  "--iters", str(iters), "--opt-level", opt_level, "--json",
                  *(["--device-io"] if device_io else []))
    result = json.loads(out.strip().splitlines()[-1])
    if graph and result.get("replays", 0) < iters:
        # A row labelled "CUDA graph" must have been replayed, not run node by node.
        raise RuntimeError(f"{model}: runs were not replayed ({result.get('run_capture')})")
    return result["median_ms"]


def tessera_profile(cli, model, providers, outdir, device_time, runs=6):
    """Per-operator times of `runs` runs, summed by bench/profile_summary.py: device times
    (session.profile_device_time: each node waits for its stream) or host times (the time
    to queue each node's work); returns the summary's text."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from profile_summary import summarize
    prefix = os.path.join(outdir, "profile" if device_time else "profile_host")
    out = tessera(cli, "bench", model, "--providers", providers, "--warmup", "0", "--iters",
                  str(runs - 1), "--profile", prefix, "--config",
                  f"session.profile_device_time={int(device_time)}", "--json")
    return summarize(json.loads(out.strip().splitlines()[-1])["profile"], 12)


def tessera_outputs(cli, model, inputs, providers, outdir, load=True):
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):  # a rerun into the same folder compares only its own files
        if f.endswith(".npy"):
            os.remove(os.path.join(outdir, f))
    args = ["run", model, "--providers", providers, "--output-dir", outdir]
    for name, path in inputs.items():
        args += ["--input", f"{name}={path}"]
    tessera(cli, *args)
    if load:
        return np.load(os.path.join(outdir, "output.npy")).astype(np.float64)


def ort_cuda_ms(model, feeds, warmup, iters):
    try:
        import onnxruntime as ort
    except ImportError:
        return None, "onnxruntime is not installed"
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        return None, "this onnxruntime has no CUDAExecutionProvider"
    s = ort.InferenceSession(model, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    host = {k: v.cpu().numpy() for k, v in feeds.items()}
    times = []
    for i in range(warmup + iters):
        t0 = time.perf_counter()
        s.run(None, host)
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times)), ""


def accuracy(cuda_out, cpu_out, dtype):
    """(ok, measure) of the CUDA outputs against the CPU provider's."""
    diff = np.abs(cuda_out - cpu_out)
    if dtype == "float16":
        rel = float(diff.max() / max(np.abs(cpu_out).max(), 1e-30))
        return rel <= 1e-2, f"max abs diff / max abs cpu = {rel:.2e} (limit 1e-2)"
    bad = diff > 1e-4 + 1e-3 * np.abs(cpu_out)
    return not bad.any(), f"max abs diff = {diff.max():.2e}, {int(bad.sum())} beyond rtol 1e-3, atol 1e-4"


def measure_torch(a, model, feeds, dtype, row, compile_ok=True):
    """PyTorch's timings of one row: eager, eager in strict float32 (float32 rows),
    torch.compile (unless --no-compile, or --compile-only leaves the row out; a failure to
    compile is recorded, not raised)."""
    row["torch_eager_ms"] = time_torch(model, feeds, a.device, a.warmup, a.iters)
    if a.device == "cuda" and dtype == "float32":
        # PyTorch's defaults run convolutions in TF32 (cudnn.allow_tf32) and
        # products in strict float32; eager with both strict is what Tessera's
        # default math (use_tf32=0) compares with like for like.
        saved = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
        try:
            row["torch_eager_strict_ms"] = time_torch(model, feeds, a.device, a.warmup, a.iters)
        finally:
            torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved
    if hasattr(torch, "compile") and a.compile and compile_ok:
        try:
            compiled = torch.compile(model)
            t0 = time.perf_counter()
            with torch.inference_mode():  # the first call compiles; its time is reported apart
                compiled(*feeds.values())
            sync(a.device)
            row["torch_compile_first_call_s"] = time.perf_counter() - t0
            row["torch_compile_ms"] = time_torch(compiled, feeds, a.device, a.warmup, a.iters)
        except Exception as e:  # the row's other columns still count
            row["torch_compile_error"] = f"{type(e).__name__}: {e}"[-2000:]


def measure(a, cli, name, dtype, batch):
    """One row of the table: the timings and the accuracy check of one model/type/batch
    (--only torch: PyTorch's timings alone; --only tessera: Tessera's and the check)."""
    tag = f"{name}_b{batch}_{dtype}"
    case = os.path.join(a.out, tag)
    os.makedirs(os.path.join(case, "inputs"), exist_ok=True)
    zoo = name in ZOO
    model, feeds = (build_zoo if zoo else build)(name, batch, dtype, a.device)
    row = {"model": name, "batch": batch, "dtype": dtype, "device": a.device}
    if a.only != "tessera":
        compile_ok = not a.compile_only or any(fnmatch.fnmatch(tag, g) for g in a.compile_only)
        measure_torch(a, model, feeds, dtype, row, compile_ok)
    if a.only == "torch":
        return finish_row(row)
    onnx_path = os.path.join(case, "model.onnx")
    (export_zoo if zoo else export)(*((name,) if zoo else ()), model, feeds, onnx_path)
    # The inputs as .npy (for `tessera run`) and as test_data_set_0 (what
    # `tessera bench` feeds; random token ids could fall outside the vocabulary).
    inputs = {}
    os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
    for i, (k, v) in enumerate(feeds.items()):
        inputs[k] = os.path.join(case, "inputs", f"{k}.npy")
        np.save(inputs[k], v.cpu().numpy())
        tensor = numpy_helper.from_array(v.cpu().numpy(), k)
        with open(os.path.join(case, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
            f.write(tensor.SerializeToString())
    # Every session of the row shares one file of tuned convolution algorithms, so only the
    # first searches (session creation is not what the table times).
    opts = ":".join(o for o in (a.cuda_options,
                                f"cudnn_conv_algo_cache={os.path.join(case, 'conv_algos.txt')}") if o)
    providers = cuda_providers(opts) if a.device == "cuda" else "CPUExecutionProvider"
    col = a.columns.__contains__

    # Columns that may fail on a machine never tried: a failure
    # is recorded in the row (KEY_error) instead of losing the row.
    def try_column(key, fn):
        try:
            row[key] = fn()
        except Exception as e:
            row[key.replace("_ms", "_error")] = f"{type(e).__name__}: {e}"[-2000:]

    if col("host"):
        row["tessera_ms"] = tessera_bench(cli, onnx_path, providers, a.warmup, a.iters)
    if a.device == "cuda" and col("graph"):
        graph_ms = lambda: tessera_bench(cli, onnx_path, cuda_providers(opts, True),  # noqa
                                         a.warmup, a.iters, graph=True)
        # A zoo model whose runs cannot be captured (nodes on the CPU, control flow) keeps
        # its other columns; ResNet-50 and BERT-base must replay.
        if zoo:
            try_column("tessera_graph_ms", graph_ms)
        else:
            row["tessera_graph_ms"] = graph_ms()
    # Like for like with the torch timings: tensors already on the device.
    if col("device_io"):
        try_column("tessera_device_io_ms", lambda: tessera_bench(
            cli, onnx_path, providers, a.warmup, a.iters, device_io=True))
    if a.device == "cuda":
        if col("graph_device_io"):
            try_column("tessera_graph_device_io_ms", lambda: tessera_bench(
                cli, onnx_path, cuda_providers(opts, True), a.warmup, a.iters, graph=True,
                device_io=True))
        row["ort_cuda_ms"], row["ort_note"] = ort_cuda_ms(onnx_path, feeds, a.warmup, a.iters)
        if a.profile:
            # Where the time goes: device time per operator, and the run without the
            # fusions (opt-level basic), to tell a slow fused kernel from a slow library call.
            summary = tessera_profile(cli, onnx_path, providers, case, True)
            with open(os.path.join(case, "profile.txt"), "w") as f:
                f.write(summary + "\n")
            print(f"== {tag}\n" + "\n".join(summary.splitlines()[:16]), flush=True)
            # The host's share: where a run node by node is bound by queueing (batch 1).
            with open(os.path.join(case, "profile_host.txt"), "w") as f:
                f.write(tessera_profile(cli, onnx_path, providers, case, False) + "\n")
            row["tessera_basic_ms"] = tessera_bench(cli, onnx_path, providers, a.warmup,
                                                    a.iters, opt_level="basic")
            if dtype == "float32":
                row["tessera_tf32_ms"] = tessera_bench(
                    cli, onnx_path, cuda_providers(opts, tf32=True), a.warmup, a.iters)
    tf32 = a.device == "cuda" and dtype == "float32" and col("tf32")
    if tf32:
        # TF32 math (use_tf32=1): what PyTorch's convolutions use by default
        # (torch.backends.cudnn.allow_tf32), and ONNX Runtime's default; its
        # accuracy against the float32 check is reported below, not required.
        try_column("tessera_tf32_graph_device_io_ms", lambda: tessera_bench(
            cli, onnx_path, cuda_providers(opts, True, tf32=True), a.warmup, a.iters,
            graph=True, device_io=True))
    # On the CPU (the smoke test) the pair is [CPU] against itself: it only
    # exercises this path.
    if not col("check"):
        row["accuracy"] = "not checked (--columns without check)"
        return finish_row(row)
    if zoo:
        # Every output, each by its type (bench/gpu_zoo.py's rule).
        from gpu_zoo import compare_dirs
        shapes_only = ZOO[name].get("check") == "shapes"
        for sub, p in (("cuda", providers), ("cpu", "CPUExecutionProvider")):
            tessera_outputs(cli, onnx_path, inputs, p, os.path.join(case, sub), load=False)
        row["accuracy_ok"], row["accuracy"], _ = compare_dirs(
            os.path.join(case, "cpu"), os.path.join(case, "cuda"), shapes_only)
        if tf32:
            tessera_outputs(cli, onnx_path, inputs, cuda_providers(opts, tf32=True),
                            os.path.join(case, "cuda_tf32"), load=False)
            row["tf32_accuracy_ok"], row["tf32_accuracy"], _ = compare_dirs(
                os.path.join(case, "cpu"), os.path.join(case, "cuda_tf32"), shapes_only)
        return finish_row(row)
    cuda_out = tessera_outputs(cli, onnx_path, inputs, providers, os.path.join(case, "cuda"))
    cpu_out = tessera_outputs(cli, onnx_path, inputs, "CPUExecutionProvider",
                              os.path.join(case, "cpu"))
    row["accuracy_ok"], row["accuracy"] = accuracy(cuda_out, cpu_out, dtype)
    if tf32:
        # Would TF32 (ONNX Runtime's default) pass the float32 check? Reported, not required.
        tf32_out = tessera_outputs(cli, onnx_path, inputs,
                                   cuda_providers(opts, tf32=True),
                                   os.path.join(case, "cuda_tf32"))
        row["tf32_accuracy_ok"], row["tf32_accuracy"] = accuracy(tf32_out, cpu_out, dtype)
    return finish_row(row)


def finish_row(row):
    """The ratios of a row, from whichever timings it has."""
    eager = row.get("torch_eager_ms")
    best = [v for v in (row.get("tessera_device_io_ms"), row.get("tessera_graph_device_io_ms"))
            if v is not None]
    if eager and "tessera_ms" in row:
        row["tessera_over_eager"] = row["tessera_ms"] / eager
    # The target's measure: Tessera's best like-for-like figure (device IO, with or
    # without CUDA graphs, default math) over eager's.
    if eager and best:
        row["best_device_io_over_eager"] = min(best) / eager
    # float32, math for math: Tessera's default (strict) against eager made strict, and
    # Tessera with TF32 against eager's defaults (TF32 convolutions).
    if row.get("torch_eager_strict_ms") and best:
        row["best_device_io_over_eager_strict"] = min(best) / row["torch_eager_strict_ms"]
    if eager and "tessera_tf32_graph_device_io_ms" in row:
        row["tf32_over_eager"] = row["tessera_tf32_graph_device_io_ms"] / eager
    # The same math on both sides: float32 rows take the worse of strict against
    # strict and TF32 against eager's defaults (PyTorch's convolutions use TF32
    # unless told not to, Tessera's default is strict); float16 rows are alike.
    if row.get("dtype") == "float32":
        pair = [row.get("best_device_io_over_eager_strict"), row.get("tf32_over_eager")]
        if all(v is not None for v in pair):
            row["same_math_over_eager"] = max(pair)
    elif "best_device_io_over_eager" in row:
        row["same_math_over_eager"] = row["best_device_io_over_eager"]
    return row


def merge_rows(paths):
    """Rows of several results.jsonl files (e.g. an --only torch run with torch.compile and
    an --only tessera run), merged by model, batch and type: each field from the first file
    whose row has it, rows that failed left out where another file's did not."""
    runs, order = {}, []
    for path in paths:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                key = (r["model"], r["batch"], r["dtype"])
                if key not in runs:
                    runs[key] = []
                    order.append(key)
                runs[key].append(r)
    rows = []
    for key in order:
        good = [r for r in runs[key] if "error" not in r]
        if not good:
            rows.append(runs[key][0])
            continue
        m = {}
        for r in good:
            for k, v in r.items():
                m.setdefault(k, v)
        if any("skipped" not in r for r in good):
            m.pop("skipped", None)  # a row one file skipped and another measured
        rows.append(finish_row(m))
    return rows


def accuracy_text(r):
    text = r.get("accuracy", "not checked")
    for k, v in r.items():
        if k.endswith("_error") and k != "torch_compile_error":
            text += f"; {k[:-6]} failed: {v.splitlines()[-1][:120]}"
    if "torch_compile_error" in r:
        text += f"; torch.compile failed: {r['torch_compile_error'].splitlines()[-1][:120]}"
    if "tf32_accuracy" in r:
        text += f"; TF32: {r['tf32_accuracy']}"
    return text


def write_table(out, rows):
    fmt = lambda v: "—" if v is None else f"{v:.3f}"
    with open(os.path.join(out, "table.md"), "w") as t:
        t.write("| model | batch | type | torch eager ms | eager, strict f32 ms | "
                "torch.compile ms | Tessera ms | "
                "Tessera CUDA graph ms | Tessera device IO ms | CUDA graph, device IO ms | "
                "same, TF32 ms | ORT CUDA ms | best device IO / eager | same math / eager | "
                "accuracy vs CPU |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            # A row without timings: its reason in the first timing cell, the others empty.
            if "skipped" in r or "error" in r:
                why = r.get("skipped") or f"failed: {r['error'].splitlines()[-1]}"
                cells = [r["model"], r.get("batch", "—"), r.get("dtype", "—"),
                         why[:200].replace("|", "\\|")] + [""] * 11
                t.write("| " + " | ".join(str(c) for c in cells) + " |\n")
                continue
            ratio = r.get("best_device_io_over_eager")
            same = r.get("same_math_over_eager")
            t.write(f"| {r['model']} | {r['batch']} | {r['dtype']} | {fmt(r.get('torch_eager_ms'))} | "
                    f"{fmt(r.get('torch_eager_strict_ms'))} | {fmt(r.get('torch_compile_ms'))} | "
                    f"{fmt(r.get('tessera_ms'))} | "
                    f"{fmt(r.get('tessera_graph_ms'))} | {fmt(r.get('tessera_device_io_ms'))} | "
                    f"{fmt(r.get('tessera_graph_device_io_ms'))} | "
                    f"{fmt(r.get('tessera_tf32_graph_device_io_ms'))} | {fmt(r.get('ort_cuda_ms'))} | "
                    f"{'—' if ratio is None else f'{ratio:.2f}'} | "
                    f"{'—' if same is None else f'{same:.2f}'} | {accuracy_text(r)} |\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessera", default="build-gpu/tessera")
    ap.add_argument("--out", default="build-gpu/gpu_check/compare")
    ap.add_argument("--models", default=None,
                    help="of resnet50 and bert_base (default: both, none with --zoo)")
    ap.add_argument("--zoo", default="",
                    help="comma-separated bench/models zoo models, or 'all', as more rows")
    ap.add_argument("--kit", default="", help="the shared kit's folder (make_models.py), for --zoo")
    ap.add_argument("--compile-only", default="",
                    help="comma-separated globs of row tags (MODEL_bBATCH_TYPE) that torch.compile "
                         "times; the other rows leave its column empty")
    ap.add_argument("--columns", default=",".join(COLUMNS),
                    help="Tessera's columns to take, of " + ",".join(COLUMNS) + " (host IO, "
                         "CUDA graphs, device IO, both, the same with TF32, the accuracy check "
                         "against the CPU provider)")
    ap.add_argument("--budget", type=float, default=0,
                    help="seconds after which no new row starts (0: no limit); later rows are "
                         "listed as not run")
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--dtypes", default="float32,float16")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--no-compile", dest="compile", action="store_false",
                    help="leave out torch.compile (its compile takes most of this script's time)")
    ap.add_argument("--cuda-options", default="",
                    help="more CUDA provider options for every Tessera run, K=V:K=V "
                         "(e.g. attention_kernel=tiled), to compare variants")
    ap.add_argument("--only", choices=["all", "torch", "tessera"], default="all",
                    help="time PyTorch alone (no export, no Tessera: with torch.compile, the slow "
                         "part, in a call of its own) or Tessera alone (with its accuracy check); "
                         "--merge puts such runs together")
    ap.add_argument("--merge", default="",
                    help="comma-separated results.jsonl files to merge into OUT/table.md and "
                         "OUT/results.jsonl instead of measuring (a field from the first file "
                         "that has it)")
    ap.add_argument("--profile", action="store_true",
                    help="per row, also profiles by operator of device time (ROW/profile.txt) "
                         "and host time (ROW/profile_host.txt), and a timing at --opt-level "
                         "basic (no fusions)")
    a = ap.parse_args()
    if a.merge:
        rows = merge_rows(a.merge.split(","))
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "results.jsonl"), "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        write_table(a.out, rows)
        print(open(os.path.join(a.out, "table.md")).read())
        return 0
    if a.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("torch sees no CUDA device (use --device cpu for a smoke test)")
    cli = os.path.abspath(a.tessera)
    os.makedirs(a.out, exist_ok=True)
    a.compile_only = [g for g in a.compile_only.split(",") if g]
    a.columns = [c for c in a.columns.split(",") if c]
    bad = [c for c in a.columns if c not in COLUMNS]
    if bad:
        raise SystemExit(f"--columns: unknown {bad} (known: {','.join(COLUMNS)})")
    models = [m for m in (a.models if a.models is not None
                          else ("" if a.zoo else "resnet50,bert_base")).split(",") if m]
    rows, failed = [], False
    results = open(os.path.join(a.out, "results.jsonl"), "w")
    if a.zoo:
        zoo_names, skipped = load_zoo(a.zoo, a.kit)
        models += zoo_names
        for row in skipped:
            row.update(batch="—", dtype="—", device=a.device)
            results.write(json.dumps(row) + "\n")
            rows.append(row)
    start = time.time()
    # float32 rows of every model first: they matter most if the time runs out.
    for dtype in a.dtypes.split(","):
        for name in models:
            for batch in (int(b) for b in a.batches.split(",")):
                # One row's failure (an export, a Tessera error, a timeout) is recorded
                # and the others still run: a short GPU lease should bring back all it can.
                if a.budget and time.time() - start > a.budget:
                    row = {"model": name, "batch": batch, "dtype": dtype, "device": a.device,
                           "skipped": f"not run: the --budget of {a.budget:.0f} s was spent"}
                else:
                    try:
                        row = measure(a, cli, name, dtype, batch)
                    except NoBatch as e:
                        row = {"model": name, "batch": batch, "dtype": dtype,
                               "device": a.device, "skipped": str(e)[:1000]}
                    except Exception as e:
                        row = {"model": name, "batch": batch, "dtype": dtype,
                               "device": a.device, "error": f"{type(e).__name__}: {e}"[-3000:],
                               "accuracy_ok": False}
                failed |= "skipped" not in row and not row.get("accuracy_ok", "error" not in row)
                print(json.dumps(row), flush=True)
                results.write(json.dumps(row) + "\n")
                results.flush()
                rows.append(row)
                write_table(a.out, rows)
    results.close()
    print(open(os.path.join(a.out, "table.md")).read())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
