#!/usr/bin/python3
"""The exporter the make_zoo_*.py family scripts share.

Each family script lists model specs and calls main(); this module exports
them in the shared kit's layout (it imports the kit's make_models.py for its
seeding, BatchNorm calibration and test-set writer), so run_bench.py,
ort_bench.js --check and `tessera test` take the folders unchanged:

    OUTDIR/public/NAME/model.onnx
    OUTDIR/public/NAME/test_data_set_K/input_*.pb, output_*.pb   torch float32 reference
    OUTDIR/public/NAME/reference_float64/output_*.pb             torch in float64 on set 0's
                                                                 inputs (bench/accuracy.py)
    OUTDIR/manifest.json                                         entries merged by name

A spec is a dict:
  name        folder name
  build       seed -> torch module in eval mode
  sets        [rs -> [(input name, array)]]: one per test data set; set 0 is the
              one run_bench.py times
  outputs     output names
  dynamic     {input or output name: {axis: symbol}} for torch.onnx.export, or None
  export      optional (module, feeds, out_names, path, dynamic) -> None, for graphs
              torch cannot export directly (the If-wrapped VAD)
  half        True: the exported model is rewritten to float16 (float inputs,
              outputs, weights and constants; to_float16 below)
  quantize    "dynamic": MatMuls by constant weights rewritten as int8
              (quantize_dynamic.py's graph)
  rtol, atol  the ONNX Runtime check's tolerances (default the kit's 1e-3, 1e-4)
  check       "shapes": the check compares output shapes only (detectors with random
              weights: many boxes score within rounding of each other, so which of them
              NonMaxSuppression keeps, and their order, differs between runtimes)
"""
import argparse
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 17
SEED = 1234


def load_kit(path):
    if not os.path.exists(os.path.join(path, "make_models.py")):
        sys.exit(f"zoo: no make_models.py in {path} (pass --kit)")
    sys.path.insert(0, path)
    import make_models  # the shared kit's exporter

    return make_models


def torch_outputs(model, feeds, double=False):
    import torch

    m = model
    args = []
    for _, a in feeds:
        t = torch.from_numpy(np.array(a))
        if double and t.is_floating_point():
            t = t.double()
        args.append(t)
    if double:
        m = copy.deepcopy(model).double()
    with torch.no_grad():
        out = m(*args)
    outs = out if isinstance(out, (tuple, list)) else [out]
    res = []
    for o in outs:
        o = o.detach().numpy()
        res.append(o.astype(np.float64 if double else np.float32) if o.dtype.kind == "f" else o)
    return res


def onnx_export(model, args, path, **kwargs):
    """torch.onnx.export with the TorchScript exporter: torch 2.9 and later
    default to the dynamo exporter, whose graphs differ from the ones these
    makers were written and checked against (torch 1.x has no `dynamo`)."""
    import torch

    try:
        torch.onnx.export(model, args, path, dynamo=False, **kwargs)
    except TypeError as e:
        if "dynamo" not in str(e):
            raise
        torch.onnx.export(model, args, path, **kwargs)


def torch_export(model, feeds, out_names, path, dynamic):
    import torch

    args = tuple(torch.from_numpy(np.array(a)) for _, a in feeds)
    onnx_export(model, args, path, opset_version=OPSET,
                input_names=[n for n, _ in feeds], output_names=out_names,
                dynamic_axes=dynamic, do_constant_folding=True, export_params=True)


# Inputs that ONNX requires to be float32 whatever the data type (Resize's roi
# and scales), so the float16 rewrite leaves the constants feeding them alone.
FLOAT_ONLY_INPUTS = {"Resize": (1, 2), "Upsample": (1,)}


def to_float16(m):
    """Rewrites a float32 model to float16 throughout: graph inputs and outputs,
    weights, Constant and ConstantOfShape values, Casts to float. Values that
    feed float-only inputs stay float32."""
    g = m.graph
    keep = set()
    for n in g.node:
        for i in FLOAT_ONLY_INPUTS.get(n.op_type, ()):
            if i < len(n.input) and n.input[i]:
                keep.add(n.input[i])
    for v in list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    for i, t in enumerate(g.initializer):
        if t.data_type == TensorProto.FLOAT and t.name not in keep:
            a = numpy_helper.to_array(t).astype(np.float16)
            g.initializer[i].CopyFrom(numpy_helper.from_array(a, t.name))
    for n in g.node:
        for at in n.attribute:
            if n.op_type == "Cast" and at.name == "to" and at.i == TensorProto.FLOAT:
                at.i = TensorProto.FLOAT16
            if (n.op_type in ("Constant", "ConstantOfShape") and at.name == "value"
                    and at.t.data_type == TensorProto.FLOAT and n.output[0] not in keep):
                a = numpy_helper.to_array(at.t).astype(np.float16)
                at.t.CopyFrom(numpy_helper.from_array(a, at.t.name))
    del g.value_info[:]
    return m


def io_desc(values):
    res = []
    for v in values:
        tt = v.type.tensor_type
        dims = [d.dim_param if d.dim_param else d.dim_value for d in tt.shape.dim]
        res.append(dict(name=v.name, dtype=TensorProto.DataType.Name(tt.elem_type).lower(),
                        shape=dims))
    return res


def write_tensors(dirpath, prefix, names, arrays):
    os.makedirs(dirpath, exist_ok=True)
    for i, (n, a) in enumerate(zip(names, arrays)):
        with open(os.path.join(dirpath, f"{prefix}_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(a), n).SerializeToString())


def test_sets(spec):
    """The spec's input sets, each [(input name, array)], seeded as every maker seeds them."""
    return [maker(np.random.RandomState(SEED + 2 * k)) for k, maker in enumerate(spec["sets"])]


def export_model(spec, model, sets, path):
    """Exports the built module to `path` as the spec asks (its own exporter,
    the float16 and int8 rewrites) and returns the saved onnx.ModelProto."""
    (spec.get("export") or torch_export)(model, sets[0], spec["outputs"], path,
                                         spec.get("dynamic"))
    m = onnx.load(path)
    if spec.get("half", False):
        m = to_float16(m)
    if spec.get("quantize") == "dynamic":
        sys.path.insert(0, HERE)
        import quantize_dynamic

        m = quantize_dynamic.quantize(m, per_column=False)
    m.producer_name = "tessera bench/models zoo (torch %s)" % __import__("torch").__version__
    m.doc_string = ""
    for n in m.graph.node:
        n.doc_string = ""
    onnx.checker.check_model(m)
    onnx.save(m, path)
    return m


def set_inputs(spec, feeds):
    """A set's inputs as the exported model takes them (float16 models take float16)."""
    if spec.get("half", False):
        return [(n, a.astype(np.float16) if a.dtype == np.float32 else a) for n, a in feeds]
    return feeds


def make_one(spec, outdir, mm):
    name = spec["name"]
    t0 = time.time()
    model = spec["build"](SEED)
    d = os.path.join(outdir, "public", name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    out_names = spec["outputs"]
    sets = test_sets(spec)
    m = export_model(spec, model, sets, path)
    half = spec.get("half", False)
    for k, feeds in enumerate(sets):
        outs = torch_outputs(model, feeds)
        if half:
            feeds = set_inputs(spec, feeds)
            outs = [o.astype(np.float16) if o.dtype == np.float32 else o for o in outs]
        sd = os.path.join(d, f"test_data_set_{k}")
        write_tensors(sd, "input", [n for n, _ in feeds], [a for _, a in feeds])
        write_tensors(sd, "output", out_names, outs)
    ref64 = torch_outputs(model, sets[0], double=True)
    write_tensors(os.path.join(d, "reference_float64"), "output", out_names, ref64)
    n_params = sum(int(np.prod(i.dims)) for i in m.graph.initializer)
    entry = dict(name=name, base=name, set="public", dynamic_batch=False,
                 path=os.path.relpath(path, outdir), opset=OPSET,
                 inputs=io_desc(m.graph.input), outputs=io_desc(m.graph.output),
                 params=n_params, file_bytes=os.path.getsize(path), n_nodes=len(m.graph.node),
                 op_types=sorted({n.op_type for n in m.graph.node}), test_sets=len(sets),
                 family=spec.get("family", ""))
    print(f"  {name}: {len(m.graph.node)} nodes, {n_params / 1e6:.2f} M params, "
          f"{os.path.getsize(path) / 1e6:.1f} MB, {time.time() - t0:.1f}s", flush=True)
    return entry


def verify(outdir, entry, kit, rtol, atol, shapes_only=False):
    """Every test set through onnxruntime-node (bench/ort_outputs.js, which
    reads float16 too) against the torch reference: |ort - ref| <= atol + rtol |ref|."""
    model_dir = os.path.dirname(os.path.join(outdir, entry["path"]))
    env = dict(os.environ, NODE_PATH=os.path.join(kit, "node_modules"))
    worst, ok, sets = 0.0, True, sorted(glob.glob(os.path.join(model_dir, "test_data_set_*")))
    with tempfile.TemporaryDirectory() as tmp:
        for k, sd in enumerate(sets):
            od = os.path.join(tmp, str(k))
            p = subprocess.run(["node", os.path.join(HERE, "..", "ort_outputs.js"),
                                os.path.join(model_dir, "model.onnx"), sd, od, "2"],
                               capture_output=True, text=True, env=env)
            if p.returncode != 0:
                print(f"verify {entry['name']}: ONNX Runtime FAILED on {os.path.basename(sd)}: "
                      f"{p.stderr.strip()[-1500:]}")
                entry["verify"] = dict(ok=False, error=p.stderr.strip()[-2000:])
                return False
            refs = [numpy_helper.to_array(onnx.load_tensor(f))
                    for f in sorted(glob.glob(os.path.join(sd, "output_*.pb")),
                                    key=lambda f: int(f.rsplit("_", 1)[1][:-3]))]
            for i, ref in enumerate(refs):
                out = np.load(os.path.join(od, f"{i}.npy"))
                if out.shape != ref.shape:
                    print(f"verify {entry['name']}: output {i} shape {out.shape} vs torch {ref.shape}")
                    ok = False
                    continue
                if shapes_only:
                    continue
                if ref.dtype.kind != "f":
                    bad = int((out != ref).sum())
                    ok &= bad == 0
                    if bad:
                        print(f"verify {entry['name']}: output {i}: {bad} elements differ")
                    continue
                o, r = out.astype(np.float64), ref.astype(np.float64)
                d = np.abs(o - r)
                worst = max(worst, float(d.max()) if d.size else 0.0)
                bad = int((d > atol + rtol * np.abs(r)).sum())
                if bad:
                    print(f"verify {entry['name']}: {os.path.basename(sd)} output {i}: {bad} of "
                          f"{d.size} beyond rtol {rtol}, atol {atol} (max {d.max():.3g})")
                    ok = False
    entry["verify"] = dict(ok=ok, rtol=rtol, atol=atol, max_abs_err=worst)
    print(f"verify {entry['name']:<26} {'PASS' if ok else 'FAIL'}  sets={len(sets)} "
          f"max_abs_err={worst:.3g}", flush=True)
    return ok


def update_manifest(outdir, entries):
    path = os.path.join(outdir, "manifest.json")
    doc = dict(opset=OPSET, seed=SEED, models=[])
    if os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
    by_name = {e["name"]: e for e in doc["models"]}
    for e in entries:
        by_name[e["name"]] = e
    doc["models"] = list(by_name.values())
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {path}")


def main(make_specs, doc):
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--only", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--kit", default=os.path.realpath(os.path.join(HERE, "../../../shared/bench")),
                    help="the shared benchmark kit (make_models.py, ort_bench.js, node_modules)")
    ap.add_argument("--no-verify", action="store_true")
    a = ap.parse_args()
    mm = load_kit(a.kit)
    import torch

    torch.set_num_threads(1)
    specs = make_specs(mm)
    only = set(filter(None, a.only.split(",")))
    unknown = only - {s["name"] for s in specs}
    if unknown:
        sys.exit(f"unknown model(s): {sorted(unknown)}; known: {[s['name'] for s in specs]}")
    outdir = os.path.abspath(a.outdir)
    entries, ok = [], True
    for spec in specs:
        if only and spec["name"] not in only:
            continue
        print(f"[zoo] {spec['name']}", flush=True)
        e = make_one(spec, outdir, mm)
        if not a.no_verify:
            half = spec.get("half", False)
            ok &= verify(outdir, e, a.kit, spec.get("rtol", 1e-2 if half else 1e-3),
                         spec.get("atol", 1e-2 if half else 1e-4), spec.get("check") == "shapes")
        entries.append(e)
        update_manifest(outdir, [e])
    if not ok:
        sys.exit("some models FAILED verification")


def image_set(shape, scale=1.0):
    """An input maker: one float32 input named 'input' of the given shape."""
    return lambda rs: [("input", (scale * rs.standard_normal(shape)).astype(np.float32))]


def seeded(mm, ctor, bn_shape=None):
    """A builder: seed -> ctor() in eval mode with the kit's seeded weights;
    with bn_shape, its BatchNorm statistics calibrated on a random input of
    that shape (mm is the kit's make_models module)."""
    def build(seed):
        mm.seed_all(seed)
        m = ctor().eval()
        if bn_shape:
            m = mm.calibrate_batchnorm(m, bn_shape, seed + 1)
        return m.eval()
    return build
