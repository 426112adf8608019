#!/usr/bin/python3
"""Prints the markdown report of an operator benchmark run (run_ops.py's results JSON).

    /usr/bin/python3 bench/ops/report.py /tmp/opbench/results.json [--summary-only] [--worst N]

A summary table (per family: cases, geometric-mean Tessera/ORT ratio and the worst case, at each
thread count), then one table per family: case, Tessera ms, ORT ms and their ratio per thread
count. Ratio = Tessera median / ONNX Runtime median, so below 1.00 Tessera is faster; ratios above
1.00 are bold. Cases where a runtime failed show FAIL and are listed, with the message, at the end.
--worst N also lists the N cases with the highest ratio and their folder names (for run_ops.py --match).
"""
import argparse
import json
import math


def ratio(res, t):
    r = res.get(str(t))
    if not r or r["tessera"]["median_ms"] is None or r["ort"]["median_ms"] is None:
        return None
    return r["tessera"]["median_ms"] / r["ort"]["median_ms"]


def fmt_ratio(x):
    if x is None:
        return "FAIL"
    return f"**{x:.2f}**" if x > 1.0 else f"{x:.2f}"


def fmt_ms(v):
    if v is None:
        return "FAIL"
    return f"{v:.3f}" if v < 10 else f"{v:.1f}"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--summary-only", action="store_true")
    ap.add_argument("--worst", type=int, default=0, help="also list the N cases with the highest ratio")
    args = ap.parse_args()
    with open(args.results) as f:
        data = json.load(f)
    meta, cases = data["meta"], data["cases"]
    threads = meta["threads"]
    families = list(dict.fromkeys(c["family"] for c in cases))

    print(f"{meta['date']}, {meta['cpu']} ({meta['cores']} cores), warm-up {meta['warmup']}, "
          f"{meta['iters']} timed runs, {meta['rounds']} round(s), Tessera ISA {meta['isa']}.\n")
    head = " | ".join(f"{t}T geomean | {t}T worst" for t in threads)
    print(f"| family | cases | {head} |")
    print("|---|---|" + "---|---|" * len(threads))
    for fam in families:
        fc = [c for c in cases if c["family"] == fam]
        cells = []
        for t in threads:
            rs = [(ratio(c["results"], t), c) for c in fc]
            ok = [(r, c) for r, c in rs if r is not None]
            if not ok:
                cells += ["FAIL", ""]
                continue
            worst_r, worst_c = max(ok, key=lambda x: x[0])
            cells += [fmt_ratio(geomean([r for r, _ in ok])), f"{fmt_ratio(worst_r)} {worst_c['op']} {worst_c['label']}"]
        print(f"| {fam} | {len(fc)} | " + " | ".join(cells) + " |")
    all_cells = []
    for t in threads:
        ok = [r for r in (ratio(c["results"], t) for c in cases) if r is not None]
        all_cells += [fmt_ratio(geomean(ok)), f"{sum(r > 1.0 for r in ok)} of {len(ok)} above 1.00"]
    print(f"| all | {len(cases)} | " + " | ".join(all_cells) + " |")

    if not args.summary_only:
        for fam in families:
            print(f"\n### {fam}\n")
            head = " | ".join(f"{t}T Tessera ms | {t}T ORT ms | {t}T ratio" for t in threads)
            print(f"| op | case | {head} |")
            print("|---|---|" + "---|---|---|" * len(threads))
            for c in (c for c in cases if c["family"] == fam):
                cells = []
                for t in threads:
                    r = c["results"].get(str(t), {})
                    cells += [fmt_ms(r.get("tessera", {}).get("median_ms")), fmt_ms(r.get("ort", {}).get("median_ms")),
                              fmt_ratio(ratio(c["results"], t))]
                print(f"| {c['op']} | {c['label']} | " + " | ".join(cells) + " |")

    failures = [(c, t, who, r[who]["error"]) for c in cases for t, r in c["results"].items()
                for who in ("tessera", "ort") if r[who].get("error")]
    if failures:
        print("\nFailures:\n")
        for c, t, who, err in failures:
            print(f"- {c['family']} {c['op']} {c['label']}, {t}T, {who}: {err}")

    if args.worst:
        scored = [(max((r for r in (ratio(c["results"], t) for t in threads) if r is not None), default=0), c)
                  for c in cases]
        scored.sort(key=lambda x: -x[0])
        print(f"\nWorst {args.worst} (highest ratio at any thread count):\n")
        for r, c in scored[:args.worst]:
            print(f"- {r:.2f} {c['family']} {c['op']} {c['label']} ({c['name']})")


if __name__ == "__main__":
    main()
