#!/usr/bin/env python3
"""The bench/models zoo with Tessera's CUDA provider (issue #38): every zoo model
generated on this machine, run with [CUDA, CPU] and with [CPU] alone on the same
inputs, the outputs compared, and the partition summed up.

  python3 bench/gpu_zoo.py --tessera build-gpu/tessera --out DIR [--only A,B | --skip A,B]
      [--jobs N] [--deadline SECONDS] [--reuse ZOO/public] [--kit DIR]
  python3 bench/gpu_zoo.py --list
  python3 bench/gpu_zoo.py --table ZOO/results.jsonl --compare C1/results.jsonl[,C2/...]

Per model (one worker each, --jobs at a time):
  1. generation: the model's maker spec (bench/models/zoo_index.py) built and exported by
     this machine's torch in a process of its own (one thread), set 0's inputs saved;
     no torch reference outputs and no ONNX Runtime check (the makers' own runs do
     those). --reuse DIR takes DIR/NAME/model.onnx and test_data_set_0 instead.
  2. `tessera partition --json` with [CUDA, CPU]: nodes CUDA runs out of all, the nodes
     left to the CPU grouped by op type and CUDA's reason for declining, and the copies
     between memory spaces per run (and once, at creation); of the top-level graph (If,
     Loop and Scan bodies have plans of their own, which the report does not list).
  3. `tessera run` with [CUDA, CPU] and with [CPU], the outputs compared: float32
     |cuda - cpu| <= 1e-4 + 1e-3 |cpu| everywhere; float16 max |cuda - cpu| at most 1e-2
     of max |cpu|; integers and booleans equal; a spec with check="shapes" (detectors
     whose NonMaxSuppression picks among near-equal scores) compares shapes only.
A model that fails to generate, crashes, or runs out of time gets a row saying which
step and why; the others go on. --deadline bounds the whole run: steps are cut at it,
and models not started by then are listed as not run.

Writes DIR/results.jsonl (a row per model, as each finishes), DIR/table.md (the table,
in the zoo's order: by family) and DIR/partition.md (every model's CPU nodes by op with the reasons
in full); DIR/models/NAME/ keeps each model's files and logs. Exit status 1 when a row
failed.

--table prints the zoo table of docs/performance.md: this script's rows (CUDA's share of
the nodes, copies per run, accuracy against the CPU) beside bench/gpu_compare.py --zoo's
(its results.jsonl files, merged as its --merge does: Tessera's milliseconds with host IO
and its best with device IO, PyTorch eager's and torch.compile's, per batch and type). On a machine without a GPU the [CUDA, CPU] runs fall back to the CPU provider
(the partition's `in use` says so in each row): a test of this script.
"""
import argparse
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CUDA = "CUDAExecutionProvider,CPUExecutionProvider"
CPU = "CPUExecutionProvider"
CUDA_EP = "CUDAExecutionProvider"


# ---------------------------------------------------------------- generation (child process)

def generate_one(name, family, model_dir, kit):
    """Builds and exports one spec of `family` into model_dir: model.onnx, inputs/*.npy,
    test_data_set_0/input_*.pb and gen.json. Runs in a process of its own, which imports
    only that family's maker."""
    sys.path.insert(0, os.path.join(HERE, "models"))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    import zoo_common as zc
    import zoo_index
    from onnx import numpy_helper

    torch.set_num_threads(1)
    t0 = time.time()
    specs = {s["name"]: s for s in zoo_index.family_specs(family, zc.load_kit(kit))}
    if name not in specs:
        raise SystemExit(f"{family} has no model '{name}'")
    spec = dict(specs[name], family=family)
    os.makedirs(model_dir, exist_ok=True)
    sets = zc.test_sets(spec)
    zc.export_model(spec, spec["build"](zc.SEED), sets, os.path.join(model_dir, "model.onnx"))
    feeds = zc.set_inputs(spec, sets[0])
    write_inputs(model_dir, feeds, numpy_helper)
    with open(os.path.join(model_dir, "gen.json"), "w") as f:
        json.dump(dict(family=spec["family"], check=spec.get("check", "values"),
                       seconds=round(time.time() - t0, 1), torch=torch.__version__), f)


def write_inputs(model_dir, feeds, numpy_helper):
    """Set 0 as .npy files (for `tessera run`) and as test_data_set_0 (for `tessera bench`)."""
    os.makedirs(os.path.join(model_dir, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(model_dir, "test_data_set_0"), exist_ok=True)
    names = []
    for i, (n, a) in enumerate(feeds):
        a = np.asarray(a)
        np.save(os.path.join(model_dir, "inputs", f"{i}.npy"), a)
        with open(os.path.join(model_dir, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
        names.append(n)
    with open(os.path.join(model_dir, "inputs", "names.json"), "w") as f:
        json.dump(names, f)


def reuse_one(src, model_dir):
    """Takes a model made earlier (SRC/model.onnx, SRC/test_data_set_0) instead of making it."""
    import glob

    import onnx
    from onnx import numpy_helper

    if not os.path.exists(os.path.join(src, "model.onnx")):
        raise FileNotFoundError(f"{src}/model.onnx does not exist")
    os.makedirs(model_dir, exist_ok=True)
    dst = os.path.join(model_dir, "model.onnx")
    if os.path.lexists(dst):
        os.remove(dst)
    os.symlink(os.path.realpath(os.path.join(src, "model.onnx")), dst)
    pbs = sorted(glob.glob(os.path.join(src, "test_data_set_0", "input_*.pb")),
                 key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    feeds = []
    for p in pbs:
        t = onnx.load_tensor(p)
        feeds.append((t.name, numpy_helper.to_array(t)))
    write_inputs(model_dir, feeds, numpy_helper)


# ---------------------------------------------------------------- checks

def compare_dirs(cpu_dir, cuda_dir, shapes_only=False):
    """(ok, text, worst) for the .npy outputs of two `tessera run --output-dir`s."""
    cpu_files = sorted(f for f in os.listdir(cpu_dir) if f.endswith(".npy"))
    cuda_files = sorted(f for f in os.listdir(cuda_dir) if f.endswith(".npy"))
    if not cpu_files:
        return False, "the CPU run wrote no .npy output", None
    if cpu_files != cuda_files:
        return False, f"outputs differ: CPU {cpu_files}, CUDA {cuda_files}", None
    ok, notes, worst = True, [], {}
    for f in cpu_files:
        c = np.load(os.path.join(cpu_dir, f), allow_pickle=False)
        g = np.load(os.path.join(cuda_dir, f), allow_pickle=False)
        out = f[:-4]
        if c.shape != g.shape or c.dtype != g.dtype:
            ok = False
            notes.append(f"{out}: CPU {c.dtype}{list(c.shape)}, CUDA {g.dtype}{list(g.shape)}")
            continue
        if shapes_only or c.size == 0:
            continue
        if c.dtype.kind not in "fc":
            bad = int((c != g).sum())
            if bad:
                ok = False
                notes.append(f"{out}: {bad} of {c.size} elements differ")
            continue
        c64, g64 = c.astype(np.float64), g.astype(np.float64)
        same_nan = np.isnan(c64) == np.isnan(g64)
        if not same_nan.all():
            ok = False
            notes.append(f"{out}: NaN in different places ({int((~same_nan).sum())})")
        fin = np.isfinite(c64) & np.isfinite(g64)
        diff = np.where(fin, np.abs(g64 - c64), 0.0)
        inf_bad = int(((~fin) & ~(np.isnan(c64) & np.isnan(g64)) & (c64 != g64)).sum())
        if c.dtype == np.float16:
            scale = float(np.abs(np.where(fin, c64, 0)).max())
            rel = float(diff.max()) / max(scale, 1e-30)
            worst[out] = rel
            if rel > 1e-2 or inf_bad:
                ok = False
                notes.append(f"{out}: max diff / max |cpu| = {rel:.2e} (limit 1e-2)"
                             + (f", {inf_bad} infinities differ" if inf_bad else ""))
        else:
            bad = int((diff > 1e-4 + 1e-3 * np.abs(np.where(fin, c64, 0))).sum()) + inf_bad
            worst[out] = float(diff.max())
            if bad:
                ok = False
                notes.append(f"{out}: {bad} of {c.size} beyond rtol 1e-3, atol 1e-4 "
                             f"(max diff {diff.max():.2e})")
    if ok:
        if shapes_only:
            text = "shapes equal (values not compared: the spec's check is shapes)"
        elif worst:
            # float32 outputs by absolute difference, float16 ones relative to the largest value
            k = max(worst, key=worst.get)
            text = f"within tolerance ({len(cpu_files)} outputs); worst {k} {worst[k]:.1e}"
        else:
            text = f"equal ({len(cpu_files)} outputs)"
    else:
        text = "; ".join(notes)
    return ok, text, worst


def summarize_partition(report):
    """Counts from `tessera partition --json`: CUDA's nodes, the CPU's by op and reason,
    the copies."""
    nodes = report.get("nodes", [])
    on_cuda = [n for n in nodes if n["provider"].startswith(CUDA_EP)]
    by_op = {}
    for n in nodes:
        if n["provider"].startswith(CUDA_EP):
            continue
        reasons = [d["reason"] for d in n.get("declined", []) if d["provider"].startswith(CUDA_EP)]
        if reasons:
            why = reasons[0]
        elif n.get("override"):
            why = f"override: {n['override']}"
        elif CUDA_EP not in report.get("in_use", []):
            why = "CUDA not in use"
        else:
            why = "no reason recorded"
        by_op.setdefault(n["op_type"], {}).setdefault(why, 0)
        by_op[n["op_type"]][why] += 1
    copies = report.get("copies", [])
    per_run = [c for c in copies if not c.get("at_creation")]
    return dict(nodes_total=len(nodes), nodes_cuda=len(on_cuda),
                cuda_share=(len(on_cuda) / len(nodes)) if nodes else None,
                cuda_in_use=CUDA_EP in report.get("in_use", []),
                cpu_nodes_by_op=by_op, copies_per_run=len(per_run),
                copies_at_creation=len(copies) - len(per_run),
                copies_per_run_values=[f"{c['value']}: {c['from']} -> {c['to']}"
                                       for c in per_run][:40])


class Deadline:
    def __init__(self, seconds):
        self.end = time.time() + seconds if seconds else None

    def left(self):
        return None if self.end is None else self.end - time.time()

    def timeout(self, step_limit):
        """(seconds the next step may take, whether the deadline rather than the step's own
        limit set them)."""
        left = self.left()
        if left is None or left >= step_limit:
            return step_limit, False
        return max(1.0, left), True


def run_step(row, step, cmd, limit, log, env=None):
    """Runs one command of a model's check within `limit` (Deadline.timeout's pair); False
    (with the row's status and error set) when it fails or times out."""
    timeout, by_deadline = limit
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        row["status"] = f"{step} timed out"
        row["error"] = (f"{step}: no result after {timeout:.0f} s"
                        + (" (the run's --deadline)" if by_deadline else ""))
        with open(log, "a") as f:
            f.write(f"$ {' '.join(cmd)}\n(timed out after {timeout:.0f} s)\n"
                    f"{(e.stdout or b'')[-4000:]!r}\n{(e.stderr or b'')[-4000:]!r}\n")
        return False
    row.setdefault("step_s", {})[step] = round(time.time() - t0, 2)
    with open(log, "a") as f:
        f.write(f"$ {' '.join(cmd)}\n(exit {r.returncode})\n{r.stdout[-20000:]}\n{r.stderr[-20000:]}\n")
    if r.returncode != 0:
        row["status"] = f"{step} failed"
        sig = f" (signal {-r.returncode})" if r.returncode < 0 else f" (exit {r.returncode})"
        tail = (r.stderr.strip() or r.stdout.strip())[-1500:]
        row["error"] = f"{step}{sig}: {tail}"
        return False
    return True


def check_model(a, name, spec_info, deadline):
    """One model's row: generate (or reuse), partition, both runs, the comparison."""
    row = dict(model=name, family=spec_info.get("family", ""), status="ok")
    d = os.path.join(a.out, "models", name)
    log = os.path.join(d, "log.txt")
    os.makedirs(d, exist_ok=True)
    t0 = time.time()
    if deadline.left() is not None and deadline.left() <= 5:
        row.update(status="not run", error="the run's --deadline passed before this model started")
        return row
    if a.reuse:
        try:
            reuse_one(os.path.join(a.reuse, name), d)
        except Exception as e:
            row.update(status="reuse failed", error=f"{type(e).__name__}: {e}")
            return row
    else:
        cmd = [sys.executable, os.path.abspath(__file__), "--generate", name, "--family",
               spec_info.get("family", ""), "--model-dir", d, "--kit", a.kit]
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        if not run_step(row, "generate", cmd, deadline.timeout(a.gen_timeout), log, env):
            return row
        with open(os.path.join(d, "gen.json")) as f:
            row["generate_s"] = json.load(f)["seconds"]
    model = os.path.join(d, "model.onnx")
    with open(os.path.join(d, "inputs", "names.json")) as f:
        names = json.load(f)
    feeds = []
    for i, n in enumerate(names):
        feeds += ["--input", f"{n}={os.path.join(d, 'inputs', f'{i}.npy')}"]
    part = os.path.join(d, "partition.json")
    if not run_step(row, "partition", [a.tessera, "partition", model, "--providers", a.providers,
                                       "--json", part], deadline.timeout(a.run_timeout), log):
        return row
    with open(part) as f:
        row.update(summarize_partition(json.load(f)))
    if a.expect_cuda and not row["cuda_in_use"]:
        # The session skipped the CUDA provider (its warning is in the log): on a GPU
        # machine, the row's comparison would be the CPU against itself.
        row.update(status="CUDA not in use", error=f"see {log} for the session's warning")
        return row
    for step, providers, sub in (("cpu run", CPU, "cpu"), ("cuda run", a.providers, "cuda")):
        out = os.path.join(d, sub)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        cmd = [a.tessera, "run", model, "--providers", providers, "--threads", str(a.threads),
               "--output-dir", out] + feeds
        if not run_step(row, step, cmd, deadline.timeout(a.run_timeout), log):
            return row
    shapes_only = spec_info.get("check") == "shapes"
    ok, text, worst = compare_dirs(os.path.join(d, "cpu"), os.path.join(d, "cuda"), shapes_only)
    row.update(accuracy_ok=ok, accuracy=text, worst=worst)
    if not ok:
        row["status"] = "accuracy FAILED"
    row["seconds"] = round(time.time() - t0, 1)
    if not a.keep:  # the models are large; the logs and partitions stay
        for sub in ("cpu", "cuda", "inputs", "test_data_set_0"):
            shutil.rmtree(os.path.join(d, sub), ignore_errors=True)
        if os.path.lexists(model):
            os.remove(model)
    return row


# ---------------------------------------------------------------- report

def reasons_text(by_op, limit=None):
    parts = []
    for op, reasons in sorted(by_op.items(), key=lambda kv: -sum(kv[1].values())):
        for why, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
            parts.append(f"{op} x{count}: {why}")
    if limit and len(parts) > limit:
        parts = parts[:limit] + [f"... {len(parts) - limit} more (partition.md)"]
    return parts


def md_cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def write_report(out, rows, spec_order):
    order = {n: i for i, n in enumerate(spec_order)}
    rows = sorted(rows, key=lambda r: (order.get(r["model"], len(order)), r["model"]))
    with open(os.path.join(out, "table.md"), "w") as t:
        t.write("| model | family | CUDA nodes | copies per run | accuracy vs CPU | "
                "on the CPU (op xN: CUDA's reason) | result |\n|---|---|---|---|---|---|---|\n")
        for r in rows:
            share = "—"
            if r.get("nodes_total") is not None:
                share = (f"{r['nodes_cuda']}/{r['nodes_total']} "
                         f"({100 * (r['cuda_share'] or 0):.0f}%)")
                if not r.get("cuda_in_use"):
                    share += ", CUDA not in use"
            copies = "—" if "copies_per_run" not in r else str(r["copies_per_run"])
            acc = r.get("accuracy", "—")
            cpu = "; ".join(reasons_text(r.get("cpu_nodes_by_op", {}), 4)) or "—"
            result = r["status"] + (f": {r['error'][-300:]}" if r.get("error") else "")
            fam = r.get("family", "").replace("make_", "")
            t.write(f"| {r['model']} | {fam} | {share} | {copies} | {md_cell(acc)} | "
                    f"{md_cell(cpu)} | {md_cell(result)} |\n")
        good = sum(1 for r in rows if r["status"] == "ok")
        t.write(f"\n{good} of {len(rows)} models passed.\n")
    with open(os.path.join(out, "partition.md"), "w") as p:
        for r in rows:
            p.write(f"## {r['model']}\n\n")
            if "nodes_total" not in r:
                p.write(f"no partition ({r['status']})\n\n")
                continue
            p.write(f"CUDA runs {r['nodes_cuda']} of {r['nodes_total']} nodes; "
                    f"{r['copies_per_run']} copies per run, {r['copies_at_creation']} at "
                    "creation.\n\n")
            for line in reasons_text(r.get("cpu_nodes_by_op", {})):
                p.write(f"- {line}\n")
            for c in r.get("copies_per_run_values", []):
                p.write(f"- copy {c}\n")
            p.write("\n")


def combined_table(zoo_path, compare_paths):
    """The zoo table: a line per timed row (model, batch, type), the model's partition and
    accuracy from the zoo run on its first line; models without timings get one line."""
    sys.path.insert(0, HERE)
    from gpu_compare import merge_rows

    with open(zoo_path) as f:
        zoo = [json.loads(line) for line in f if line.strip()]
    timed = merge_rows(compare_paths) if compare_paths else []
    by_model = {}
    for r in timed:
        by_model.setdefault(r["model"], []).append(r)
    fmt = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731
    lines = ["| model | CUDA nodes | copies per run | accuracy vs CPU | batch | type | "
             "Tessera ms | Tessera device IO ms | eager ms | torch.compile ms | best / eager | "
             "row's check |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    names = [r["model"] for r in zoo] + [m for m in by_model if m not in {r["model"] for r in zoo}]
    zoo_by = {r["model"]: r for r in zoo}
    for name in names:
        z = zoo_by.get(name, {})
        if "nodes_total" in z:
            share = f"{z['nodes_cuda']}/{z['nodes_total']}"
            if not z.get("cuda_in_use"):
                share += " (CUDA not in use)"
            copies = str(z["copies_per_run"])
        else:
            share, copies = "—", "—"
        acc = ("pass" if z.get("status") == "ok" else z.get("status", "not run")
               if z else "not in the zoo run")
        head = [name, share, copies, acc]
        rows = by_model.get(name) or [None]
        for i, r in enumerate(rows):
            cells = head if i == 0 else ["", "", "", ""]
            if r is None:
                lines.append("| " + " | ".join(cells + ["—"] * 8) + " |")
                continue
            if "skipped" in r or "error" in r:
                why = (r.get("skipped") or r["error"].splitlines()[-1])[:160]
                lines.append("| " + " | ".join(cells + [str(r["batch"]), str(r["dtype"]),
                                                        md_cell(why)] + [""] * 5) + " |")
                continue
            best = [v for v in (r.get("tessera_device_io_ms"), r.get("tessera_graph_device_io_ms"))
                    if v is not None]
            ratio = r.get("best_device_io_over_eager")
            lines.append("| " + " | ".join(cells + [
                str(r["batch"]), r["dtype"], fmt(r.get("tessera_ms")),
                fmt(min(best) if best else None), fmt(r.get("torch_eager_ms")),
                fmt(r.get("torch_compile_ms")), "—" if ratio is None else f"{ratio:.2f}",
                {True: "pass", False: "FAIL"}.get(r.get("accuracy_ok"), "—")]) + " |")
    return "\n".join(lines) + "\n"


def binary_starts(cli):
    """None when `tessera --version` runs, else why not (with ldd's missing libraries)."""
    try:
        r = subprocess.run([cli, "--version"], capture_output=True, text=True, timeout=60)
        if r.returncode == 0:
            return None
        why = f"exit {r.returncode}: {(r.stderr or r.stdout).strip()[-800:]}"
    except (OSError, subprocess.TimeoutExpired) as e:
        why = f"{type(e).__name__}: {e}"
    real = cli
    try:  # gpu_check.sh's wrapper script execs the binary; ldd wants the binary itself
        with open(cli, "rb") as f:
            head = f.read(4096)
        if head.startswith(b"#!"):
            for tok in head.decode(errors="replace").split():
                if tok.strip('"').endswith("/tessera"):
                    real = tok.strip('"')
    except OSError:
        pass
    try:
        ldd = subprocess.run(["ldd", real], capture_output=True, text=True, timeout=30)
        missing = [ln.strip() for ln in ldd.stdout.splitlines() if "not found" in ln]
        if missing:
            why += "; ldd: " + ", ".join(missing)
    except (OSError, subprocess.TimeoutExpired):
        pass
    return why


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessera", default="build-gpu/tessera")
    ap.add_argument("--out", default="build-gpu/gpu_check/zoo")
    ap.add_argument("--only", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--skip", default="", help="comma-separated model names to leave out")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="models in flight at once (default: one per core)")
    ap.add_argument("--threads", type=int, default=1, help="--threads of each `tessera run`")
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds for the whole run (0: none); steps are cut at it")
    ap.add_argument("--gen-timeout", type=float, default=180, help="seconds per generation")
    ap.add_argument("--run-timeout", type=float, default=120, help="seconds per tessera command")
    ap.add_argument("--providers", default=CUDA, help="the side compared with [CPU]")
    ap.add_argument("--expect-cuda", action="store_true",
                    help="a model whose session could not use the CUDA provider fails "
                         "(gpu_check.sh sets it where CUDA can run)")
    ap.add_argument("--reuse", default="",
                    help="a folder of models made earlier (NAME/model.onnx, test_data_set_0) "
                         "to check instead of generating them")
    ap.add_argument("--kit", default="", help="the shared kit's folder (make_models.py)")
    ap.add_argument("--keep", action="store_true",
                    help="keep each model, its inputs and both runs' outputs")
    ap.add_argument("--list", action="store_true", help="print the zoo's model names and exit")
    ap.add_argument("--table", default="",
                    help="a zoo run's results.jsonl: print the combined table and exit")
    ap.add_argument("--compare", default="",
                    help="with --table: comma-separated bench/gpu_compare.py results.jsonl files")
    ap.add_argument("--generate", default="", help=argparse.SUPPRESS)
    ap.add_argument("--model-dir", default="", help=argparse.SUPPRESS)
    ap.add_argument("--family", default="", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.table:
        print(combined_table(a.table, [p for p in a.compare.split(",") if p]), end="")
        return 0
    sys.path.insert(0, os.path.join(HERE, "models"))
    import zoo_index

    a.kit = a.kit or zoo_index.default_kit()
    if a.generate:
        generate_one(a.generate, a.family, a.model_dir, a.kit)
        return 0
    import zoo_common as zc

    deadline = Deadline(a.deadline)
    if a.reuse and not a.only:
        names = sorted(n for n in os.listdir(a.reuse)
                       if os.path.exists(os.path.join(a.reuse, n, "model.onnx")))
    else:
        names = None
    specs, family_errors = zoo_index.all_specs(zc.load_kit(a.kit))
    if a.list:
        for n, s in specs.items():
            print(f"{n:<28} {s['family']}")
        for fam, err in family_errors.items():
            print(f"{fam}: cannot load: {err}", file=sys.stderr)
        return 0 if not family_errors else 1
    spec_order = list(specs)
    only = [n for n in a.only.split(",") if n]
    unknown = [n for n in only if n not in specs and not a.reuse]
    if unknown:
        raise SystemExit(f"unknown model(s) {unknown}; `--list` names them")
    skip = set(n for n in a.skip.split(",") if n)
    names = [n for n in (only or names or spec_order) if n not in skip]
    os.makedirs(a.out, exist_ok=True)
    a.out = os.path.abspath(a.out)
    a.tessera = os.path.abspath(a.tessera)
    rows = [dict(model=f"({fam})", family=fam, status="family failed to load", error=err)
            for fam, err in family_errors.items()]
    why = binary_starts(a.tessera)
    if why:
        rows.append(dict(model="(all)", status="tessera does not start", error=why))
        write_report(a.out, rows, spec_order)
        print(f"gpu_zoo: {a.tessera} does not start here: {why}")
        return 1
    lock = threading.Lock()
    results = open(os.path.join(a.out, "results.jsonl"), "w")
    for r in rows:
        results.write(json.dumps(r) + "\n")

    def task(name):
        try:
            row = check_model(a, name, specs.get(name, {}), deadline)
        except Exception as e:  # a bug in a check is the row's failure, not the run's
            row = dict(model=name, family=specs.get(name, {}).get("family", ""),
                       status="check crashed", error=traceback.format_exc()[-1500:])
        with lock:
            rows.append(row)
            results.write(json.dumps(row) + "\n")
            results.flush()
            write_report(a.out, rows, spec_order)
            left = deadline.left()
            print(f"[{len(rows)}/{len(names)}] {name:<26} {row['status']}"
                  + (f" ({left:.0f} s left)" if left is not None else ""), flush=True)
        return row

    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        list(pool.map(task, names))
    results.close()
    write_report(a.out, rows, spec_order)
    print(open(os.path.join(a.out, "table.md")).read())
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
