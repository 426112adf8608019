#!/usr/bin/env python3
"""Alternates tessera_microbench builds and prints each row's medians by CPU time.

  bench/microbench_compare.py --rounds 7 --filter 'FmaPeak|Sgemm' /tmp/before build/tessera_microbench

Each round runs every build once over the filtered rows (BM_FmaPeak included
when the filter matches it), so the builds see the same load on a shared
machine. Per build and row: the median and the maximum of GFLOPS_cpu (the
rate by CPU time, see bench/microbench.cpp) over the rounds, and the median
over the rounds of GFLOPS_cpu divided by the same run's BM_FmaPeak, in percent
(T times the peak for a row on T threads): the core's clock moves with the
machine's load, and the ratio to a peak measured seconds before moves less.
A build may be given as 'VAR=value;VAR2=value@path' to set environment
variables for it.
"""
import argparse
import collections
import json
import os
import statistics
import subprocess


def run(spec, filt):
    env, path = dict(os.environ), spec
    if "@" in spec:
        sets, path = spec.split("@", 1)
        for kv in sets.split(";"):
            k, v = kv.split("=", 1)
            env[k] = v
    out = subprocess.run([path, "--benchmark_format=json", f"--benchmark_filter={filt}"],
                         capture_output=True, text=True, env=env, check=True).stdout
    return [b for b in json.loads(out)["benchmarks"] if b.get("run_type") != "aggregate"]


# Which argument of a row's name is its thread count (see bench/microbench.cpp).
THREADS_ARG = {"BM_Sgemm": 4, "BM_Conv": 5, "BM_ConvBlocked": 5, "BM_Depthwise": 3}


def threads_of(name):
    parts = name.split("/")
    at = THREADS_ARG.get(parts[0])
    return int(parts[1 + at]) if at is not None and len(parts) > 1 + at else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--filter", default="FmaPeak|Sgemm")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", help="write the per-round values here")
    args = ap.parse_args()
    rate = {b: collections.defaultdict(list) for b in args.builds}
    ratio = {b: collections.defaultdict(list) for b in args.builds}
    names = []
    for _ in range(args.rounds):
        for b in args.builds:
            rows = run(b, args.filter)
            peak = next((r["GFLOPS_cpu"] for r in rows if r["name"].startswith("BM_FmaPeak")), None)
            for r in rows:
                name = r["name"].replace("/real_time", "")
                if name not in names:
                    names.append(name)
                v = r.get("GFLOPS_cpu")
                if v is None:
                    continue
                rate[b][name].append(v)
                if peak:
                    ratio[b][name].append(100.0 * v / (peak * threads_of(name)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rate": rate, "ratio": ratio}, f)
    print("per build: median GFLOPS_cpu, max, median % of the same run's BM_FmaPeak")
    print(f"{'row':42s}" + "".join(f"{b[-24:]:>26s}" for b in args.builds))
    for n in names:
        cells = []
        for b in args.builds:
            v, r = rate[b].get(n), ratio[b].get(n)
            cell = f"{statistics.median(v):7.1f} {max(v):6.1f}" if v else ""
            cell += f" {statistics.median(r):5.1f}%" if r else ""
            cells.append(f"{cell:>26s}")
        print(f"{n:42s}" + "".join(cells))


if __name__ == "__main__":
    main()
