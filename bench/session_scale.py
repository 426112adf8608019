#!/usr/bin/python3
"""Session creation and first run at scale, Tessera beside ONNX Runtime, in CPU time.

    /usr/bin/python3 bench/models/make_big_graphs.py /tmp/big
    /usr/bin/python3 bench/session_scale.py /tmp/big --tessera-cli build/tessera \
        --kit /tmp/bench [--rounds 3] [--filter chain]

For every OUTDIR/KIND_N/model.onnx, each round runs `tessera bench --json`
(one timed run) and bench/ort_create.js in turn, one process each, and takes
the CPU time (user + system, every thread) each process spent creating the
session and on its first run; the median round is reported. CPU time rather
than wall time because the machine's other tenants deschedule a process at
random. Prints a Markdown table with the node count (subgraphs included),
both runtimes' figures and Tessera / ONNX Runtime.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "models"))
from make_big_graphs import count_nodes  # noqa: E402


def run_json(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("outdir")
    p.add_argument("--tessera-cli", required=True)
    p.add_argument("--kit", default="/tmp/bench", help="folder whose node_modules has onnxruntime-node")
    p.add_argument("--threads", default="1")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--filter", default="", help="only models whose folder name contains this")
    a = p.parse_args()
    env = dict(os.environ, NODE_PATH=os.path.join(a.kit, "node_modules"))

    def key(d):
        kind, _, size = d.rpartition("_")
        return (kind, int(size) if size.isdigit() else 0)

    dirs = sorted((d for d in os.listdir(a.outdir) if a.filter in d and
                   os.path.exists(os.path.join(a.outdir, d, "model.onnx"))), key=key)
    print("| model | nodes | Tessera create ms | ORT create ms | ratio | Tessera first run ms |"
          " ORT first run ms | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for d in dirs:
        model = os.path.join(a.outdir, d, "model.onnx")
        nodes = count_nodes(onnx.load(model, load_external_data=False).graph)
        t, o = [], []
        for _ in range(a.rounds):
            t.append(run_json([a.tessera_cli, "bench", model, "--threads", a.threads, "--warmup",
                               "0", "--iters", "1", "--json"]))
            o.append(run_json(["node", os.path.join(HERE, "ort_create.js"), model, a.threads], env))

        def med(rs, k):
            return statistics.median(r[k] for r in rs)

        tc, oc = med(t, "load_cpu_ms"), med(o, "load_cpu_ms")
        tf, of = med(t, "first_run_cpu_ms"), med(o, "first_run_cpu_ms")
        print(f"| {d} | {nodes} | {tc:.0f} | {oc:.0f} | {tc / oc:.2f} | {tf:.1f} | {of:.1f} |"
              f" {tf / of:.2f} |", flush=True)


if __name__ == "__main__":
    main()
