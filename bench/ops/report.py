#!/usr/bin/python3
"""Prints the markdown report of operator benchmark runs (run_ops.py's results JSON).

    /usr/bin/python3 bench/ops/report.py RESULTS.json [MORE.json ...] [--summary-only] [--worst N]

Several results files combine: each is filed under the Tessera instruction set it ran with (its
meta "isa"), and within one instruction set a case in a later file replaces the same case in an
earlier one at the thread counts the later file measured, so a sweep followed by its confirm
runs (run_ops.py --match --iters 50 --rounds 3, at the thread counts that were above 1.00)
reports the confirmed numbers.

A summary table (per family: cases, then for each instruction set and thread count the median
Tessera/ORT ratio and the worst case), then one table per family with each case's ratio in every
column. Ratio = Tessera median / ONNX Runtime median, so below 1.00 Tessera is faster; ratios
above 1.00 are bold. Cases where a runtime failed show FAIL and are listed, with the message, at
the end. --worst N also lists the N cases with the highest ratio and their folder names (for
run_ops.py --match).
"""
import argparse
import json
import statistics


def ratio(res, t):
    r = res.get(str(t))
    if not r or r["tessera"]["median_ms"] is None or r["ort"]["median_ms"] is None:
        return None
    return r["tessera"]["median_ms"] / r["ort"]["median_ms"]


def fmt_ratio(x):
    if x is None:
        return "FAIL"
    return f"**{x:.2f}**" if x > 1.0 else f"{x:.2f}"


def load(paths):
    """Returns ({isa: {case name: case}}, [meta of each file]); a case in a later file replaces
    the same case's results at the thread counts it has."""
    by_isa, metas = {}, []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        metas.append(data["meta"])
        cases = by_isa.setdefault(data["meta"]["isa"], {})
        for c in data["cases"]:
            if c["name"] in cases:  # a rerun replaces the thread counts it measured
                merged = dict(cases[c["name"]], results=dict(cases[c["name"]]["results"]))
                merged["results"].update(c["results"])
                cases[c["name"]] = merged
            else:
                cases[c["name"]] = c
    return by_isa, metas


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+")
    ap.add_argument("--summary-only", action="store_true")
    ap.add_argument("--worst", type=int, default=0, help="also list the N cases with the highest ratio")
    args = ap.parse_args()
    by_isa, metas = load(args.results)
    threads = sorted({t for m in metas for t in m["threads"]})
    columns = [(isa, t) for isa in by_isa for t in threads]  # one ratio column per instruction set and thread count

    # Every case once, in the order of the first file that has it.
    names = list(dict.fromkeys(n for cases in by_isa.values() for n in cases))
    first = {n: next(cases[n] for cases in by_isa.values() if n in cases) for n in names}
    families = list(dict.fromkeys(first[n]["family"] for n in names))

    def ratio_of(name, isa, t):
        c = by_isa[isa].get(name)
        return ratio(c["results"], t) if c else None

    for m in metas:
        print(f"- {m['date']}, {m['cpu']} ({m['cores']} cores), ISA {m['isa']}, threads "
              f"{','.join(map(str, m['threads']))}, warm-up {m['warmup']}, {m['iters']} timed runs, "
              f"{m['rounds']} round(s): `{m.get('command', '')}`")
    print()
    head = " | ".join(f"{isa} {t}T median | {isa} {t}T worst" for isa, t in columns)
    print(f"| family | cases | {head} |")
    print("|---|---|" + "---|---|" * len(columns))
    for fam in families:
        fnames = [n for n in names if first[n]["family"] == fam]
        cells = []
        for isa, t in columns:
            ok = [(r, first[n]) for n in fnames if (r := ratio_of(n, isa, t)) is not None]
            if not ok:
                cells += ["FAIL", ""]
                continue
            worst_r, worst_c = max(ok, key=lambda x: x[0])
            cells += [fmt_ratio(statistics.median(r for r, _ in ok)),
                      f"{fmt_ratio(worst_r)} {worst_c['op']} {worst_c['label']}"]
        print(f"| {fam} | {len(fnames)} | " + " | ".join(cells) + " |")
    all_cells = []
    for isa, t in columns:
        ok = [r for n in names if (r := ratio_of(n, isa, t)) is not None]
        all_cells += [fmt_ratio(statistics.median(ok)) if ok else "FAIL", f"{sum(r > 1.0 for r in ok)} of {len(ok)} above 1.00"]
    print(f"| all | {len(names)} | " + " | ".join(all_cells) + " |")

    if not args.summary_only:
        for fam in families:
            print(f"\n#### {fam}\n")
            print("| op | case | " + " | ".join(f"{isa} {t}T" for isa, t in columns) + " |")
            print("|---|---|" + "---|" * len(columns))
            for n in (n for n in names if first[n]["family"] == fam):
                cells = [fmt_ratio(ratio_of(n, isa, t)) if n in by_isa[isa] else "" for isa, t in columns]
                print(f"| {first[n]['op']} | {first[n]['label']} | " + " | ".join(cells) + " |")

    failures = [(c, isa, t, who, r[who]["error"]) for isa, cases in by_isa.items() for c in cases.values()
                for t, r in c["results"].items() for who in ("tessera", "ort") if r[who].get("error")]
    if failures:
        print("\nFailures:\n")
        for c, isa, t, who, err in failures:
            print(f"- {c['family']} {c['op']} {c['label']}, {isa} {t}T, {who}: {err}")

    if args.worst:
        scored = []
        for n in names:
            rs = [(r, isa, t) for isa, t in columns if (r := ratio_of(n, isa, t)) is not None]
            if rs:
                scored.append((max(rs), first[n]))
        scored.sort(key=lambda x: -x[0][0])
        print(f"\nWorst {args.worst} (highest ratio in any column):\n")
        for (r, isa, t), c in scored[:args.worst]:
            print(f"- {r:.2f} ({isa} {t}T) {c['family']} {c['op']} {c['label']} ({c['name']})")


if __name__ == "__main__":
    main()
