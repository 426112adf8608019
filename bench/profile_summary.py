#!/usr/bin/env python3
"""Sums one Tessera profile (a Chrome trace from enable_profiling or `tessera bench --profile`)
by operator type and provider, and lists its slowest nodes.

    python3 bench/profile_summary.py PROFILE.json [--top 15]

Times are per run, averaged over every run but the first (which searches algorithms and
grows arenas). For a GPU provider, profile with the session option
session.profile_device_time=1: each node then waits for its stream, so its time is the
device's; without it, an asynchronous node's time is only the time to queue its work.
Uses only the standard library (the GPU machine's python has no Tessera package).
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_compare import node_times  # noqa: E402


def summarize(path, top):
    with open(path) as f:
        events = [e for e in json.load(f) if e.get("cat") == "Node" and "dur" in e]
    if not events:
        raise SystemExit(f"{path}: no node events (was profiling on for a run?)")
    runs = collections.Counter(e["name"] for e in events).most_common(1)[0][1]
    provider = {e["name"]: e.get("args", {}).get("provider", "?") for e in events}
    times = node_times(path, runs, False)
    by_op = collections.Counter()
    count = collections.Counter()
    for name, (op, us) in times.items():
        key = (op, provider[name])
        by_op[key] += us
        count[key] += 1
    total = sum(by_op.values())
    lines = [f"{path}: {len(times)} nodes, {runs} runs; ms per run over runs 2..{runs}",
             f"node total {total / 1e3:.3f} ms", "",
             f"{'op type':26} {'provider':28} {'nodes':>5} {'ms':>9} {'share':>6}"]
    for (op, prov), us in by_op.most_common():
        lines.append(f"{op:26} {prov:28} {count[(op, prov)]:5d} {us / 1e3:9.3f} "
                     f"{100 * us / max(total, 1e-9):5.1f}%")
    lines += ["", f"slowest {top} nodes:"]
    for name, (op, us) in sorted(times.items(), key=lambda kv: -kv[1][1])[:top]:
        lines.append(f"  {us / 1e3:8.3f} ms  {op:22} {name}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("profile")
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()
    print(summarize(a.profile, a.top))


if __name__ == "__main__":
    main()
