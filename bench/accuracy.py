#!/usr/bin/python3
"""Each output's largest deviation from a float64 evaluation of the same model,
for Tessera and for ONNX Runtime, on the zoo's folders:

    /usr/bin/python3 bench/accuracy.py MODELS_DIR [--only NAME,...] [--tessera build/tessera]
        [--kit /tmp/bench] [--threads 1] [--json FILE] [--markdown] [--worst]

A zoo folder (bench/models/make_zoo_*.py) holds model.onnx, test_data_set_0/
and reference_float64/output_*.pb: the torch model in double on set 0's
inputs. Both runtimes run set 0 once (Tessera through `tessera run`, ONNX
Runtime through bench/ort_outputs.js with the kit's onnxruntime-node); for
each output the table gives max |runtime - float64| for both and their ratio.
The rule (issue #33): Tessera's deviation at most twice ONNX Runtime's.
Integer and boolean outputs count differing elements instead.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def sorted_pbs(d, prefix):
    files = glob.glob(os.path.join(d, f"{prefix}_*.pb"))
    return sorted(files, key=lambda p: int(os.path.basename(p)[len(prefix) + 1:-3]))


def run_tessera(tessera, model_dir, out_dir, threads):
    args = [tessera, "run", os.path.join(model_dir, "model.onnx"), "--threads", str(threads),
            "--output-dir", out_dir]
    for path in sorted_pbs(os.path.join(model_dir, "test_data_set_0"), "input"):
        name, a = read_pb(path)
        npy = os.path.join(out_dir, f"in_{len(args)}.npy")
        np.save(npy, a)
        args += ["--input", f"{name}={npy}"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError((p.stderr or p.stdout).strip()[-800:])
    names = [o.name for o in onnx.load(os.path.join(model_dir, "model.onnx"),
                                       load_external_data=False).graph.output]
    return [np.load(os.path.join(out_dir, f"{n}.npy")) for n in names]


def run_ort(kit, model_dir, out_dir, threads):
    env = dict(os.environ, NODE_PATH=os.path.join(kit, "node_modules"))
    p = subprocess.run(["node", os.path.join(HERE, "ort_outputs.js"),
                        os.path.join(model_dir, "model.onnx"),
                        os.path.join(model_dir, "test_data_set_0"), out_dir, str(threads)],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError((p.stderr or p.stdout).strip()[-800:])
    n = len(glob.glob(os.path.join(out_dir, "*.npy")))
    return [np.load(os.path.join(out_dir, f"{k}.npy")) for k in range(n)]


def deviation(out, ref):
    """max |out - ref| for float outputs; the count of differing elements otherwise."""
    if out.shape != ref.shape:
        return dict(error=f"shape {list(out.shape)} vs float64 reference {list(ref.shape)}")
    if ref.dtype.kind == "f":
        d = np.abs(out.astype(np.float64) - ref)
        return dict(max_abs=float(d.max()) if d.size else 0.0,
                    ref_max=float(np.abs(ref).max()) if ref.size else 0.0)
    return dict(mismatches=int((out != ref).sum()), n=int(ref.size))


def check(tes, ort):
    if "error" in tes or "error" in ort:
        return "error"
    if "max_abs" in tes:
        if tes["max_abs"] <= 2 * ort["max_abs"] or tes["max_abs"] == 0.0:
            return "pass"
        return "FAIL"
    return "pass" if tes["mismatches"] <= max(2 * ort["mismatches"], 0) else "FAIL"


def evaluate(model_dir, tessera, kit, threads):
    refs = [read_pb(p) for p in sorted_pbs(os.path.join(model_dir, "reference_float64"), "output")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        res = {}
        for rt, fn, arg in (("tessera", run_tessera, tessera), ("ort", run_ort, kit)):
            d = os.path.join(tmp, rt)
            os.makedirs(d)
            try:
                res[rt] = fn(arg, model_dir, d, threads)
            except RuntimeError as e:
                res[rt] = str(e)
        for k, (name, ref) in enumerate(refs):
            row = dict(output=name)
            for rt in ("tessera", "ort"):
                outs = res[rt]
                if isinstance(outs, str):
                    row[rt] = dict(error=outs)
                elif k >= len(outs):
                    row[rt] = dict(error=f"{len(outs)} outputs, reference has {len(refs)}")
                else:
                    row[rt] = deviation(outs[k], ref)
            row["rule"] = check(row["tessera"], row["ort"])
            if "max_abs" in row["tessera"] and "max_abs" in row["ort"] and row["ort"]["max_abs"]:
                row["ratio"] = row["tessera"]["max_abs"] / row["ort"]["max_abs"]
            rows.append(row)
    return rows


def fmt(d):
    if "error" in d:
        return "error"
    if "max_abs" in d:
        return f"{d['max_abs']:.2e}"
    return f"{d['mismatches']} of {d['n']} differ"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models")
    ap.add_argument("--only", default="")
    ap.add_argument("--tessera", default=os.path.join(HERE, "..", "build", "tessera"))
    ap.add_argument("--kit", default="/tmp/bench")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--worst", action="store_true",
                    help="print one row per model: the output whose rule is failed, else the "
                         "one with the largest Tessera / ONNX Runtime ratio")
    a = ap.parse_args()
    tessera = os.path.abspath(a.tessera)
    only = set(filter(None, a.only.split(",")))
    dirs = sorted(os.path.dirname(p) for p in
                  glob.glob(os.path.join(a.models, "**", "reference_float64"), recursive=True))
    dirs = [d for d in dirs if not only or os.path.basename(d) in only]
    if not dirs:
        sys.exit(f"accuracy: no folder with reference_float64/ under {a.models}")
    results, failed = {}, 0
    if a.markdown:
        print("| model | output | largest |float64| | Tessera | ONNX Runtime | ratio | rule |")
        print("|---|---|---:|---:|---:|---:|---|")
    for d in dirs:
        name = os.path.basename(d)
        rows = evaluate(d, tessera, a.kit, a.threads)
        results[name] = rows
        shown = rows
        if a.worst and rows:
            key = lambda r: (r["rule"] != "pass", r.get("ratio", 0.0))  # noqa: E731
            shown = [max(rows, key=key)]
        for r in rows:
            failed += r["rule"] != "pass"
        for r in shown:
            ratio = f"{r['ratio']:.2f}" if "ratio" in r else "-"
            scale = r["tessera"].get("ref_max", r["ort"].get("ref_max"))
            scale = f"{scale:.3g}" if scale is not None else "-"
            if a.markdown:
                rule = r["rule"] if r["rule"] == "pass" else f"**{r['rule']}**"
                print(f"| {name} | {r['output']} | {scale} | {fmt(r['tessera'])} | "
                      f"{fmt(r['ort'])} | {ratio} | {rule} |", flush=True)
            else:
                print(f"{name:28} {r['output']:16} |ref| {scale:>9} tessera {fmt(r['tessera']):>18}"
                      f"  ort {fmt(r['ort']):>18}  ratio {ratio:>6}  {r['rule']}", flush=True)
                for rt in ("tessera", "ort"):
                    if "error" in r[rt]:
                        print(f"    {rt}: {r[rt]['error']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
