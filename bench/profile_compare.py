#!/usr/bin/env python3
"""Per-node profile of one model in Tessera and in ONNX Runtime, side by side.

    /usr/bin/python3 bench/profile_compare.py MODEL_DIR [--threads N] [--runs R]
        [--kit /tmp/bench] [--top 25] [--tessera-cli build/tessera] [--stat median]

MODEL_DIR holds model.onnx and test_data_set_0/ (the benchmark kit's layout).
Both runtimes run the model R times with profiling on; the first run is
dropped and node times are averaged over the rest (or their median or
minimum, --stat). Prints the time per run
by operator type (Tessera's fused and blocked ops keep their own names, so
compare totals and the biggest nodes), then each runtime's slowest nodes.
ONNX Runtime runs through bench/ort_profile.js with onnxruntime-node from
the kit folder (see bench/run_compare.sh); it is never loaded into Tessera.
"""
import argparse
import collections
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def node_times(path, runs, strip_suffix, stat="mean"):
    """{node: (op, µs per run)} over runs 2..R of a Chrome-trace profile, in the
    order of each node's first start; `stat` (mean, median or min) of the runs."""
    with open(path) as f:
        events = json.load(f)
    per = collections.defaultdict(list)
    ops = {}
    first = {}
    for e in events:
        if e.get("cat") != "Node" or "dur" not in e:
            continue
        name = e["name"]
        if strip_suffix:
            if not name.endswith("_kernel_time"):
                continue
            name = name[: -len("_kernel_time")]
        per[name].append(float(e["dur"]))
        ops[name] = e.get("args", {}).get("op_name", "?")
        first[name] = min(first.get(name, float("inf")), float(e.get("ts", 0)))
    out = {}
    for name in sorted(per, key=lambda n: first[n]):
        durs = per[name]
        kept = durs[1:] if len(durs) >= runs and runs > 1 else durs
        pick = {"mean": lambda v: sum(v) / len(v), "median": statistics.median, "min": min}[stat]
        out[name] = (ops[name], pick(kept))
    return out


def tessera_profile(model, threads, runs, prefix):
    sys.path.insert(0, os.path.join(HERE, "..", "build", "python"))
    import numpy as np
    import onnx
    from onnx import numpy_helper
    import tessera

    so = tessera.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = prefix
    so.intra_op_num_threads = threads
    sess = tessera.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    data = os.path.join(os.path.dirname(model), "test_data_set_0")
    feeds = {}
    for k, inp in enumerate(sess.get_inputs()):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"input_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        feeds[inp.name] = np.ascontiguousarray(numpy_helper.to_array(t))
    for _ in range(runs):
        sess.run(None, feeds)
    return sess.end_profiling()


def tessera_cli_profile(tessera, model, threads, runs, prefix):
    """The same profile through `tessera bench --profile` (no Python package needed):
    runs - 1 timed runs after the first."""
    subprocess.run([tessera, "bench", model, "--threads", str(threads), "--warmup", "0",
                    "--iters", str(runs - 1), "--profile", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    files = sorted(glob.glob(prefix + "_*.json"), key=os.path.getmtime)
    if not files:
        sys.exit(f"tessera wrote no profile matching {prefix}_*.json")
    return files[-1]


def ort_profile(model, threads, runs, prefix, kit):
    env = dict(os.environ, NODE_PATH=os.path.join(kit, "node_modules"))
    subprocess.run(["node", os.path.join(HERE, "ort_profile.js"), model, str(threads), str(runs),
                    prefix], check=True, env=env)
    files = sorted(glob.glob(prefix + "*.json"), key=os.path.getmtime)
    if not files:
        sys.exit(f"ONNX Runtime wrote no profile matching {prefix}*.json")
    return files[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model_dir")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--kit", default="/tmp/bench", help="benchmark kit folder with node_modules")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--stat", choices=("mean", "median", "min"), default="mean",
                    help="per node over the runs: median or min keep a loaded machine's "
                         "preemptions out of single nodes")
    ap.add_argument("--tessera-cli", metavar="PATH",
                    help="profile Tessera through this `tessera` binary's bench --profile "
                         "instead of the Python package in build/python")
    ap.add_argument("--pair", action="store_true",
                    help="also list the convolutions of both in execution order, side by side "
                         "(their names differ: ORT names fused nodes by output)")
    a = ap.parse_args()
    model = os.path.join(a.model_dir, "model.onnx")
    tmp = tempfile.mkdtemp(prefix="tessera_prof_")
    prefix = os.path.join(tmp, "tessera")
    if a.tessera_cli:
        path = tessera_cli_profile(os.path.abspath(a.tessera_cli), model, a.threads, a.runs, prefix)
    else:
        path = tessera_profile(model, a.threads, a.runs, prefix)
    ours = node_times(path, a.runs, False, a.stat)
    theirs = node_times(ort_profile(model, a.threads, a.runs, os.path.join(tmp, "ort"), a.kit),
                        a.runs, True, a.stat)

    def by_op(times):
        agg = collections.Counter()
        for op, us in times.values():
            agg[op] += us
        return agg

    mine, yours = by_op(ours), by_op(theirs)
    total_t, total_o = sum(mine.values()), sum(yours.values())
    print(f"{a.model_dir}, {a.threads} thread(s), {a.stat} of runs 2..{a.runs}, ms per run")
    print(f"node total: tessera {total_t / 1e3:.3f}  onnxruntime {total_o / 1e3:.3f}  "
          f"ratio {total_t / max(total_o, 1e-9):.2f}\n")
    print(f"{'op type':28} {'tessera':>9} {'ort':>9}")
    for op in sorted(set(mine) | set(yours), key=lambda o: -max(mine[o], yours[o])):
        print(f"{op:28} {mine[op] / 1e3:9.3f} {yours[op] / 1e3:9.3f}")
    for title, times in (("tessera", ours), ("onnxruntime", theirs)):
        print(f"\nslowest {a.top} nodes, {title}:")
        for name, (op, us) in sorted(times.items(), key=lambda kv: -kv[1][1])[: a.top]:
            print(f"  {us / 1e3:8.3f} ms  {op:22} {name}")
    if a.pair:
        conv = lambda t: [(n, us) for n, (op, us) in t.items() if "Conv" in op]
        mine_c, yours_c = conv(ours), conv(theirs)
        print(f"\nconvolutions in execution order ({len(mine_c)} tessera, {len(yours_c)} ort):")
        print(f"  {'tessera ms':>10} {'ort ms':>8} {'ratio':>6}  tessera node")
        for (n, t_us), (_, o_us) in zip(mine_c, yours_c):
            print(f"  {t_us / 1e3:10.3f} {o_us / 1e3:8.3f} {t_us / max(o_us, 1e-9):6.2f}  {n}")


if __name__ == "__main__":
    main()
