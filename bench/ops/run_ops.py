#!/usr/bin/python3
"""Times every case of an operator benchmark folder (make_op_models.py) in Tessera and ONNX Runtime.

    /usr/bin/python3 bench/ops/run_ops.py /tmp/opbench --tessera build/tessera --out /tmp/opbench/results.json
        [--only FAMILY,...] [--match SUBSTR,...] [--threads 1,2] [--warmup 3] [--iters 15]
        [--rounds 1] [--timeout 60] [--ort-dir DIR] [--isa avx2]

For each case and thread count it runs `tessera bench MODEL --threads T --warmup W --iters I --json`
and `node ORT_DIR/ort_bench.js MODEL --threads T --warmup W --iters I`, each in its own process,
alternating which goes first (so neither always gets the warmer caches or the quieter moment).
Both read the same inputs from test_data_set_0/ next to the model. With --rounds R each pair
runs R times and the lowest median counts: on a shared machine a slow round is someone else's
build, not the runtime. A failure or timeout is recorded with its message and the sweep goes on.
The results file is rewritten after every case, so an interrupted sweep keeps what it measured.

ONNX Runtime's runner (onnxruntime-node) lives in --ort-dir (default $TESSERA_ORT_BENCH_DIR, else
/tmp/bench). To set it up: cp -r shared/bench /tmp/bench && cd /tmp/bench && npm install --ignore-scripts
(shared/bench is ../shared/bench next to the repository checkout).
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run_json(cmd, timeout, env=None):
    """Runs one benchmark process; returns (median_ms, None) or (None, why it failed)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout} s"
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-3:]
        return None, f"exit {p.returncode}: " + " | ".join(tail)[:400]
    try:
        return float(json.loads(lines[-1])["median_ms"]), None
    except (ValueError, KeyError) as e:
        return None, f"unreadable output: {e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", help="folder written by make_op_models.py (has manifest.json)")
    ap.add_argument("--tessera", default=os.environ.get("TESSERA_BIN", os.path.join(REPO, "build", "tessera")),
                    help="tessera binary (default $TESSERA_BIN, else build/tessera)")
    ap.add_argument("--ort-dir", default=os.environ.get("TESSERA_ORT_BENCH_DIR", "/tmp/bench"),
                    help="folder with ort_bench.js and node_modules/onnxruntime-node")
    ap.add_argument("--out", help="results JSON (default MODELS/results.json)")
    ap.add_argument("--only", help="comma-separated families")
    ap.add_argument("--match", help="comma-separated substrings of case names (e.g. from report.py --worst)")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=1, help="runs of each pair; the lowest median counts")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per benchmark process")
    ap.add_argument("--isa", help="TESSERA_CPU_ISA for the Tessera runs (avx512, avx2, portable)")
    args = ap.parse_args()

    ort_js = os.path.join(args.ort_dir, "ort_bench.js")
    if not os.path.exists(ort_js) or not os.path.isdir(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node")):
        sys.exit(f"ONNX Runtime runner not found in {args.ort_dir}. Install it with:\n"
                 f"  cp -r ../shared/bench {args.ort_dir} && (cd {args.ort_dir} && npm install --ignore-scripts)\n"
                 f"or point --ort-dir / TESSERA_ORT_BENCH_DIR at an installed copy.")
    if not os.access(args.tessera, os.X_OK):
        sys.exit(f"tessera binary not found: {args.tessera} (build it, or pass --tessera)")
    with open(os.path.join(args.models, "manifest.json")) as f:
        manifest = json.load(f)
    if args.only:
        families = set(args.only.split(","))
        manifest = [c for c in manifest if c["family"] in families]
    if args.match:
        subs = args.match.split(",")
        manifest = [c for c in manifest if any(s in c["name"] for s in subs)]
    if not manifest:
        sys.exit("no cases selected")
    threads = [int(t) for t in args.threads.split(",")]
    out_path = args.out or os.path.join(args.models, "results.json")

    tessera_env = dict(os.environ)
    if args.isa:
        tessera_env["TESSERA_CPU_ISA"] = args.isa
    results = {
        "meta": {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                 "cpu": cpu_model(), "cores": os.cpu_count(), "tessera": os.path.abspath(args.tessera),
                 "isa": args.isa or "default", "warmup": args.warmup, "iters": args.iters,
                 "rounds": args.rounds, "threads": threads, "command": " ".join(sys.argv)},
        "cases": [],
    }
    flip = False
    start = time.time()
    for i, c in enumerate(manifest):
        model = os.path.join(args.models, c["file"])
        entry = dict(c, results={})
        for t in threads:
            common = ["--threads", str(t), "--warmup", str(args.warmup), "--iters", str(args.iters)]
            runners = {
                "tessera": ([args.tessera, "bench", model, "--json"] + common, tessera_env),
                "ort": (["node", ort_js, model] + common, None),
            }
            got = {"tessera": [], "ort": []}
            errors = {}
            for _ in range(args.rounds):
                order = ["ort", "tessera"] if flip else ["tessera", "ort"]
                flip = not flip
                for who in order:
                    cmd, env = runners[who]
                    ms, err = run_json(cmd, args.timeout, env)
                    if err:
                        errors[who] = err
                    else:
                        got[who].append(ms)
            entry["results"][str(t)] = {
                who: {"median_ms": min(got[who]) if got[who] else None, "rounds": got[who],
                      **({"error": errors[who]} if who in errors and not got[who] else {})}
                for who in ("tessera", "ort")}
        results["cases"].append(entry)
        with open(out_path + ".tmp", "w") as f:
            json.dump(results, f, indent=1)
        os.replace(out_path + ".tmp", out_path)
        summary = "  ".join(
            f"{t}T " + "/".join(f"{r[w]['median_ms']:.3f}" if r[w]["median_ms"] is not None else "FAIL"
                                for w in ("tessera", "ort"))
            for t, r in entry["results"].items())
        print(f"[{i + 1}/{len(manifest)} {time.time() - start:.0f}s] {c['family']:12} {c['op']} {c['label']}: {summary}",
              flush=True)
    print(f"wrote {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
