#!/usr/bin/env python3
"""Per-run CPU time of Tessera and ONNX Runtime on one model, side by side.

On a machine whose other tenants keep the cores busy, a run's wall time
counts the time it was descheduled; its CPU time (user + system, every
thread of the process) does not. Each runtime's command runs twice, with
--iters LOW and --iters HIGH, and the CPU time the child used
(getrusage(RUSAGE_CHILDREN)) is differenced, so loading, session creation
and the first run cancel out: per run = (cpu(HIGH) - cpu(LOW)) / (HIGH - LOW).
Rounds alternate the runtimes; the median round is reported. Creation's
own CPU time varies between processes (by hundreds of ms for a model with
large weights, such as gpt2_past), so HIGH - LOW runs must outweigh that
variation; a figure at or below zero says they did not.

  /usr/bin/python3 bench/cpu_time_compare.py /tmp/zoo/public/MODEL/model.onnx \
      --tessera-cli build/tessera --kit /tmp/bench --threads 1 --rounds 3
"""
import argparse
import resource
import statistics
import subprocess


def child_cpu_s():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def cpu_of(cmd, cwd):
    before = child_cpu_s()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return child_cpu_s() - before


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--tessera-cli", required=True)
    p.add_argument("--baseline-cli",
                   help="a second Tessera build (e.g. without a change), run in the same "
                        "rounds; its time and ratios are printed beside the first's")
    p.add_argument("--kit", default="/tmp/bench", help="folder with ort_bench.js")
    p.add_argument("--threads", default="1")
    p.add_argument("--low", type=int, default=2)
    p.add_argument("--high", type=int, default=22)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    if a.high <= a.low:
        p.error("--high must be above --low")
    runtimes = {
        "onnxruntime": lambda n: ["node", "ort_bench.js", a.model, "--threads", a.threads,
                                  "--warmup", "1", "--iters", str(n)],
        "tessera": lambda n: [a.tessera_cli, "bench", a.model, "--threads", a.threads,
                              "--warmup", "1", "--iters", str(n), "--json"],
    }
    if a.baseline_cli:
        runtimes["baseline"] = lambda n: [a.baseline_cli, "bench", a.model, "--threads",
                                          a.threads, "--warmup", "1", "--iters", str(n), "--json"]
    per_run = {name: [] for name in runtimes}
    for _ in range(a.rounds):
        for name, cmd in runtimes.items():
            low = cpu_of(cmd(a.low), a.kit)
            high = cpu_of(cmd(a.high), a.kit)
            per_run[name].append((high - low) / (a.high - a.low) * 1e3)
    t = statistics.median(per_run["tessera"])
    o = statistics.median(per_run["onnxruntime"])
    if t <= 0 or o <= 0:
        raise SystemExit(f"{a.model}: per-run CPU time came out at or below zero "
                         f"(tessera {t:.2f}, onnxruntime {o:.2f} ms): raise --high")
    print(f"{a.model}: {a.threads} thread(s), CPU ms per run (median of {a.rounds} rounds): "
          f"tessera {t:.2f}, onnxruntime {o:.2f}, ratio {t / o:.2f}")
    if a.baseline_cli:
        b = statistics.median(per_run["baseline"])
        if b <= 0:
            raise SystemExit(f"{a.model}: the baseline's per-run CPU time came out at or below "
                             f"zero ({b:.2f} ms): raise --high")
        print(f"  baseline {b:.2f} ms, ratio to onnxruntime {b / o:.2f}; "
              f"tessera / baseline {t / b:.2f}")


if __name__ == "__main__":
    main()
