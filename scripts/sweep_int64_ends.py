#!/usr/bin/env python3
"""Feeds one-node models with values at the ends of int64 to `tessera run`.

    /usr/bin/python3 scripts/sweep_int64_ends.py build-asan/tessera [--only OP,OP]

From the ONNX schemas (python3-onnx), for every default-domain op up to
opset 18: each INT/INTS attribute set to INT64_MIN, INT64_MAX and +-2^62,
and each input that takes int64 fed INT64_MIN, INT64_MAX, [2^62, 2^62],
[-2^62, 3] and 2^59 + 1 as a constant (other inputs: float [1, 2, 4, 4]).
Each run must end with exit 0 or 1, without a sanitizer report and without
a C++ library message standing in for an error (std::bad_alloc, vector
lengths): sizes, axes and counts from a model must be errors naming the
node. Run it on the sanitizer build (scripts/sanitize.sh builds it); it
takes a few minutes there. tests/malformed/test_malformed.py keeps the
cases it found as fixed tests.
"""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto as T, defs, helper as h, numpy_helper as nh

BIG, LO, HI = 1 << 62, -(1 << 63), (1 << 63) - 1
ATTR_VALUES = [LO, HI, BIG, -BIG]
INPUT_VALUES = [[LO], [HI], [BIG, BIG], [-BIG, 3], [(1 << 59) + 1]]
REPORT = ("runtime error:", "ERROR: AddressSanitizer", "AddressSanitizer:")
STAND_INS = ("std::", "bad_alloc", "vector")  # library text instead of an error of ours


def latest_schemas(only):
    out = {}
    for s in defs.get_all_schemas_with_history():
        if s.domain != "" or s.since_version > 18 or s.deprecated or s.name in ("If", "Loop", "Scan"):
            continue
        if only and s.name not in only:
            continue
        if s.name not in out or out[s.name].since_version < s.since_version:
            out[s.name] = s
    return out


def allowed(schema, formal):
    for c in schema.type_constraints:
        if c.type_param_str == formal.typeStr:
            return set(c.allowed_type_strs)
    return {formal.typeStr}


def model(name, inputs, outputs, attrs, graph_inputs, inits):
    node = h.make_node(name, inputs, outputs, **attrs)
    g = h.make_graph([node], "g", graph_inputs or [h.make_tensor_value_info("Z", T.FLOAT, [1])],
                     [h.make_tensor_value_info(o, T.FLOAT, None) for o in outputs], initializer=inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)])
    m.ir_version = 8
    return m.SerializeToString()


def cases(schemas):
    """(label, model bytes) for every schema's int attributes and int64 inputs."""
    x = lambda n: h.make_tensor_value_info(n, T.FLOAT, [1, 2, 4, 4])
    for name, s in sorted(schemas.items()):
        outs = [f"Y{o}" for o in range(len(s.outputs))]
        required = [f"X{j}" for j, i in enumerate(s.inputs)
                    if i.option != defs.OpSchema.FormalParameterOption.Optional] or ["X0"]
        for a, v in itertools.product(
                [a for a, d in s.attributes.items()
                 if d.type in (onnx.AttributeProto.INT, onnx.AttributeProto.INTS)], ATTR_VALUES):
            value = v if s.attributes[a].type == onnx.AttributeProto.INT else [v, v]
            yield (f"{name} {a}={v}",
                   model(name, required, outs, {a: value}, [x(n) for n in required], []))
        ints = [k for k, i in enumerate(s.inputs) if "tensor(int64)" in allowed(s, i)]
        for k, v in itertools.product(ints, INPUT_VALUES):
            names, graph_inputs, inits = [], [], []
            for j, formal in enumerate(s.inputs):
                if (formal.option == defs.OpSchema.FormalParameterOption.Optional and j != k
                        and j > max(ints)):
                    break
                n = f"X{j}"
                names.append(n)
                kinds = allowed(s, formal)
                if j == k or ("tensor(int64)" in kinds and "tensor(float)" not in kinds):
                    inits.append(nh.from_array(np.array(v if j == k else [1], np.int64), n))
                else:
                    graph_inputs.append(x(n))
            yield f"{name} input {k}={v}", model(name, names, outs, {}, graph_inputs, inits)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tessera")
    ap.add_argument("--only", default="", help="comma-separated op types")
    ap.add_argument("--timeout", type=float, default=30)
    args = ap.parse_args()
    env = dict(os.environ, ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=0")
    only = set(filter(None, args.only.split(",")))
    runs = bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.onnx")
        for label, data in cases(latest_schemas(only)):
            with open(path, "wb") as f:
                f.write(data)
            runs += 1
            try:
                p = subprocess.run([args.tessera, "run", path], capture_output=True, text=True,
                                   errors="replace", timeout=args.timeout, env=env)
                rc, out = p.returncode, p.stdout + p.stderr
            except subprocess.TimeoutExpired:
                rc, out = "timeout", ""
            error = next((l for l in out.splitlines() if l.startswith("error")), "")
            if rc in (0, 1) and not any(r in out for r in REPORT) and not any(
                    t in error for t in STAND_INS):
                continue
            bad += 1
            line = next((l for l in out.splitlines() if any(r in l for r in REPORT)), error)
            print(f"FAILED {label}: exit {rc}: {line[:220]}", flush=True)
    print(f"int64 ends: {runs} runs, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
