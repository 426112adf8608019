#!/usr/bin/python3
"""The whole-model table of docs/performance.md from one run_bench.py result
file (ONNX Runtime and `--other tessera=...` in the same run) and, optionally,
bench/peak_memory.sh's output:

    /usr/bin/python3 bench/zoo_report.py RESULTS.json [--memory PEAK.txt] [--threads 1,2]

Every column is Tessera / ONNX Runtime (below 1.00: Tessera is faster or
smaller): the median latency at each thread count, session creation
(load_ms) and the first run (first_run_ms) at one thread, peak resident
memory. Cells above 1.00 are bold.
"""
import argparse
import json


def cell(x):
    if x is None:
        return "-"
    return f"**{x:.2f}**" if x > 1.0 else f"{x:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--memory")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--other", default="tessera")
    a = ap.parse_args()
    with open(a.results) as f:
        res = json.load(f)
    threads = [int(t) for t in a.threads.split(",")]
    s = {(r["runtime"], r["model"], r["threads"]): r for r in res["summary"]}
    models = list(dict.fromkeys(r["model"] for r in res["summary"]))
    mem = {}
    if a.memory:
        with open(a.memory) as f:
            for line in f:
                p = line.split()
                if len(p) == 4 and p[0] != "model":
                    try:
                        mem[p[0]] = (float(p[1]), float(p[2]), float(p[3]))
                    except ValueError:
                        pass

    def ratio(model, t, key):
        o, x = s.get(("ort", model, t)), s.get((a.other, model, t))
        if not o or not x or o.get("error") or x.get("error") or not o.get(key):
            return None
        return x[key] / o[key]

    head = ["model", "Tessera 1T ms", "ORT 1T ms"] + [f"{t}T" for t in threads] + [
        "creation", "first run", "peak memory"]
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    for m in models:
        o, x = s.get(("ort", m, threads[0])), s.get((a.other, m, threads[0]))
        err = lambda r: "error" if not r or r.get("error") else f"{r['median_ms']:.2f}"  # noqa
        cells = [m, err(x), err(o)] + [cell(ratio(m, t, "median_ms")) for t in threads]
        cells += [cell(ratio(m, threads[0], "load_ms")), cell(ratio(m, threads[0], "first_run_ms"))]
        cells.append(cell(mem[m][2]) if m in mem else "-")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
