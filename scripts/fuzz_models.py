#!/usr/bin/env python3
"""Structure-aware fuzzing of model loading and running, for a sanitizer build.

Takes valid models (the ONNX conformance suite's cases and the shipped models),
changes one to three of their fields at random the way a broken exporter or a
hostile file would (an attribute's value, an initializer's dims or element
type, a declared input shape, a node's input name, the opset), writes the
result and runs `tessera run` on it with random inputs of the declared shapes.
A clean error (exit 1 with an `error (...)` line) or a success is fine; a
sanitizer report, a signal, a hang or an exit without an error line is a
finding, kept with its model under OUT/findings/ and listed at the end.

    python3 scripts/fuzz_models.py --tessera build-asan/tessera --minutes 10 \\
        --seeds ../shared/conformance/onnx-node --out /tmp/fuzz

Needs python3-onnx. Not part of the test command: it is a search, not a
check; what it finds becomes a case of tests/malformed or a unit test.
Exit status 1 when something was found.
"""
import argparse
import contextlib
import copy
import glob
import io
import os
import random
import subprocess
import sys
import time

import onnx
from onnx import AttributeProto, TensorProto

REPORTS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
           "SUMMARY: UndefinedBehaviorSanitizer")
INTS = [-(2**63), -(2**31), -7, -2, -1, 0, 1, 2, 3, 5, 64, 2**31 - 1, 2**31, 2**40, 2**62]
FLOATS = [float("nan"), float("inf"), -float("inf"), -1e30, -1.0, 0.0, 1e-45, 0.5, 1e30]
DIMS = [0, 1, 2, 3, 7, 1000, 2**31, 2**40, -1, -5]


def mutate_attribute(m, rnd):
    attrs = [a for n in m.graph.node for a in n.attribute]
    if not attrs:
        return False
    a = rnd.choice(attrs)
    if a.type == AttributeProto.INT:
        a.i = rnd.choice(INTS)
    elif a.type == AttributeProto.FLOAT:
        a.f = rnd.choice(FLOATS)
    elif a.type == AttributeProto.INTS:
        choice = rnd.randrange(3)
        if choice == 0 and len(a.ints):
            a.ints[rnd.randrange(len(a.ints))] = rnd.choice(INTS)
        elif choice == 1:
            a.ints.append(rnd.choice(INTS))
        elif len(a.ints):
            del a.ints[rnd.randrange(len(a.ints))]
    elif a.type == AttributeProto.FLOATS and len(a.floats):
        a.floats[rnd.randrange(len(a.floats))] = rnd.choice(FLOATS)
    elif a.type == AttributeProto.STRING:
        a.s = rnd.choice([b"", b"NOTSET", b"SAME_UPPER", b"VALID", b"linear", b"\xff\x00x"])
    elif a.type == AttributeProto.TENSOR:
        mutate_tensor(a.t, rnd)
    else:
        return False
    return True


def mutate_tensor(t, rnd):
    choice = rnd.randrange(3)
    if choice == 0 and len(t.dims):
        t.dims[rnd.randrange(len(t.dims))] = rnd.choice(DIMS)
    elif choice == 1:
        t.data_type = rnd.choice([1, 2, 3, 6, 7, 9, 10, 11, 16, 17, 21, 22, 99])
    elif len(t.dims):
        del t.dims[rnd.randrange(len(t.dims))]
    else:
        t.dims.append(rnd.choice(DIMS))


def mutate_initializer(m, rnd):
    if not m.graph.initializer:
        return False
    mutate_tensor(rnd.choice(m.graph.initializer), rnd)
    return True


def mutate_input_shape(m, rnd):
    ins = [i for i in m.graph.input if i.type.HasField("tensor_type")]
    if not ins:
        return False
    tt = rnd.choice(ins).type.tensor_type
    dims = tt.shape.dim
    choice = rnd.randrange(4)
    if choice == 0 and len(dims):
        dims[rnd.randrange(len(dims))].dim_value = rnd.choice([0, 1, 2, 3, 7, 33])
    elif choice == 1:
        tt.shape.dim.add().dim_value = rnd.choice([1, 2, 3])
    elif choice == 2 and len(dims):
        del dims[rnd.randrange(len(dims))]
    else:
        tt.elem_type = rnd.choice([1, 2, 3, 6, 7, 9, 10, 11, 16])
    return True


def mutate_node_inputs(m, rnd):
    if not m.graph.node:
        return False
    n = rnd.choice(m.graph.node)
    names = [i.name for i in m.graph.input] + [i.name for i in m.graph.initializer]
    names += [o for x in m.graph.node for o in x.output]
    choice = rnd.randrange(3)
    if choice == 0 and len(n.input):
        n.input[rnd.randrange(len(n.input))] = rnd.choice(names + ["", "no_such_value"])
    elif choice == 1:
        n.input.append(rnd.choice(names + [""]))
    elif len(n.input):
        del n.input[-1]
    return True


def mutate_opset(m, rnd):
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = rnd.choice([1, 6, 7, 9, 11, 13, 17, 21, 25, 10000])
            return True
    return False


MUTATIONS = [mutate_attribute, mutate_attribute, mutate_initializer, mutate_input_shape,
             mutate_input_shape, mutate_node_inputs, mutate_opset]


def run_one(cli, path, seed, timeout):
    # allocator_may_return_null: a mutated shape asking for terabytes must
    # reach Tessera's own out-of-memory error, as it does without ASan
    # (whose allocator otherwise aborts on sizes past its limit).
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=0")
    try:
        r = subprocess.run([cli, "run", path, "--seed", str(seed), "--threads", "1"],
                           capture_output=True, text=True, errors="replace", timeout=timeout,
                           env=env)
    except subprocess.TimeoutExpired:
        return "hang", ""
    out = r.stdout + r.stderr
    if any(s in out for s in REPORTS):
        return "sanitizer", out
    if r.returncode < 0:
        return f"signal {-r.returncode}", out
    if r.returncode not in (0, 1):
        return f"exit {r.returncode}", out
    if r.returncode == 1 and "error (" not in out:
        return "exit 1 without an error line", out
    return None, out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessera", default="build-asan/tessera")
    ap.add_argument("--seeds", nargs="+", default=["../shared/conformance/onnx-node", "models"])
    ap.add_argument("--contrib", action="store_true",
                    help="also seed with the com.microsoft and language-model cases of "
                         "tests/python/contrib_cases.py (written under OUT/contrib_seeds)")
    ap.add_argument("--out", default="/tmp/tessera-fuzz")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20)
    a = ap.parse_args()
    seeds = []
    if a.contrib:  # the cases that found three crashes the first time they were seeds
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.join(here, "..", "tests", "python"))
        sys.path.insert(0, os.path.join(here, "..", "bench", "models"))
        import contrib_cases
        import make_tiny_llm
        d = os.path.join(a.out, "contrib_seeds")
        with contextlib.redirect_stdout(io.StringIO()):  # (it lists what it writes)
            contrib_cases.write(d)
        os.makedirs(os.path.join(d, "tiny_llm"), exist_ok=True)
        onnx.save(make_tiny_llm.build(), os.path.join(d, "tiny_llm", "model.onnx"))
        a.seeds.append(d)
    for d in a.seeds:
        seeds += sorted(glob.glob(os.path.join(d, "**", "model.onnx"), recursive=True))
    # Large seeds make slow runs under a sanitizer; the small ones reach the same code.
    seeds = [s for s in seeds if os.path.getsize(s) < 2_000_000]
    if not seeds:
        sys.exit(f"no model.onnx under {a.seeds}")
    rnd = random.Random(a.seed)
    os.makedirs(os.path.join(a.out, "findings"), exist_ok=True)
    work = os.path.join(a.out, "case.onnx")
    end = time.time() + a.minutes * 60
    runs, findings, clean_errors = 0, [], 0
    while time.time() < end:
        src = rnd.choice(seeds)
        m = onnx.load(src)
        changes = []
        for _ in range(rnd.randint(1, 3)):
            f = rnd.choice(MUTATIONS)
            if f(m, rnd):
                changes.append(f.__name__)
        if not changes:
            continue
        with open(work, "wb") as fh:
            fh.write(m.SerializeToString())
        kind, out = run_one(a.tessera, work, runs, a.timeout)
        runs += 1
        if kind is None:
            clean_errors += "error (" in out
            continue
        name = f"{len(findings):03d}_{kind.replace(' ', '_')}"
        os.replace(work, os.path.join(a.out, "findings", name + ".onnx"))
        with open(os.path.join(a.out, "findings", name + ".log"), "w") as fh:
            fh.write(f"seed model: {src}\nmutations: {changes}\nrun seed: {runs - 1}\n\n{out}")
        findings.append((name, src, changes))
        print(f"FINDING {name}: {kind} from {src} ({', '.join(changes)})", flush=True)
    print(f"{runs} runs from {len(seeds)} seed models: {clean_errors} clean errors, "
          f"{runs - clean_errors - len(findings)} successes, {len(findings)} findings"
          + (f" (in {os.path.join(a.out, 'findings')})" if findings else ""))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
