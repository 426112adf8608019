#!/usr/bin/env python3
"""Feeds truncated and byte-corrupted copies of real models to `tessera test`
(with the model's own test data) or `tessera run` (random inputs).

The unchanged model must pass; each damaged copy must end with exit 0 (the
damage was harmless) or 1 (a reported error or a wrong result), within the
time limit, and without a sanitizer report: a crash, hang or out-of-bounds
read on malformed input is a bug (DESIGN.md, rule 1). Run it on a sanitizer
build (scripts/sanitize.sh does) to catch silent memory errors.

Usage: test_malformed.py TESSERA [--stride N] [--flips N] [--seed N] [MODEL ...]
Defaults keep it under ~20 s: the shipped demo CNN and a few conformance
models (when the suite is found), every 97th truncation, 12 random flips each.

Then two kinds of hand-made bad input, each of which must end with exit 1 and
an error that names the problem: nodes that run through a function body (no
kernel for their type) but carry attributes of the wrong type or arity, and
damaged provider libraries (truncated copies of the sandbox plugin, a file
that is not a library) given with --provider-library.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CONF = os.environ.get("TESSERA_CONFORMANCE_DIR", os.path.join(ROOT, "..", "shared", "conformance", "onnx-node"))
# Small conformance models that reach different parts of the loader and the
# kernels: initializers, attributes, subgraphs, shape-valued inputs.
CONF_CASES = ["test_conv_with_strides_padding", "test_gather_0", "test_reshape_reordered_all_dims",
              "test_if", "test_loop11", "test_lstm_defaults", "test_slice", "test_resize_upsample_scales_linear"]
REPORT = ("runtime error:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "AddressSanitizer:")


def report_failure(model, label, why, out, bad, keep, index):
    """Prints a failed run (its sanitizer lines or the head of its output) and
    keeps the model that made it as KEEP/<case>_<index>.onnx when asked."""
    print(f"FAILED {model}: {label}: {why}")
    lines = [l for l in out.splitlines() if any(r in l for r in REPORT) or l.startswith("    #")]
    print("\n".join("     | " + l for l in (lines or out.splitlines())[:25]))
    if keep:
        os.makedirs(keep, exist_ok=True)
        name = f"{os.path.basename(os.path.dirname(model))}_{index}.onnx"
        with open(os.path.join(keep, name), "wb") as f:
            f.write(bad)


def mutations(data, stride, flips, rng):
    """(label, bytes) pairs: truncations at every stride-th offset, then random flips."""
    yield "unchanged", data  # must run cleanly, or every other run proves nothing
    for cut in range(0, len(data), stride):
        yield f"truncated at {cut}", data[:cut]
    for _ in range(flips):
        b = bytearray(data)
        count = rng.randint(1, 4)
        where = []
        for _ in range(count):
            i = rng.randrange(len(b))
            b[i] = rng.choice([0x00, 0xFF, 0x7F, 0x80, rng.randrange(256), b[i] ^ (1 << rng.randrange(8))])
            where.append(i)
        yield f"bytes changed at {sorted(where)}", bytes(b)


def function_body_cases():
    """(label, model bytes, exit code, text the output must hold). Double Celu/Selu/
    MVN have no kernel, so they run through their spec function bodies; the bad
    attribute reaches a body node (through an @attribute reference) or the
    expansion itself, which must turn it into an error, not a crash."""
    try:
        from onnx import TensorProto as T, helper as h
    except ImportError:
        return []

    def model(node, itype=T.DOUBLE, opset=18, extra=()):
        g = h.make_graph([node], "g", [h.make_tensor_value_info("X", itype, [2, 3])] + list(extra),
                         [h.make_tensor_value_info("Y", itype, None)])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
        m.ir_version = 8
        return m.SerializeToString()

    return [
        # The same body with a good attribute runs, so the errors below come from the attribute.
        ("Celu body, good alpha", model(h.make_node("Celu", ["X"], ["Y"], alpha=2.0)), 0, "Y:"),
        ("Celu body, string alpha", model(h.make_node("Celu", ["X"], ["Y"], alpha="abc")), 1,
         "has type string, expected float"),
        ("Celu body, ints alpha", model(h.make_node("Celu", ["X"], ["Y"], alpha=[1, 2])), 1,
         "has type ints, expected float"),
        ("Celu body, graph alpha",
         model(h.make_node("Celu", ["X"], ["Y"], alpha=h.make_graph([], "a", [], []))), 1,
         "has type graph, expected float"),
        ("Selu body, string gamma", model(h.make_node("Selu", ["X"], ["Y"], gamma="g")), 1,
         "has type string, expected float"),
        ("Celu body, two outputs", model(h.make_node("Celu", ["X"], ["Y", "Z"])), 1,
         "passes 1 inputs and 2 outputs to function 'Celu'"),
        ("Celu body, no input", model(h.make_node("Celu", [], ["Y"])), 1, "input 0 is missing"),
        # int32 has no MVN kernel, so the body is expanded; its Sqrt has none for int32 either.
        # int32 is not a type MVN takes: the type check names it before any body or kernel.
        ("MeanVarianceNormalization body, int32 input, float axes",
         model(h.make_node("MeanVarianceNormalization", ["X"], ["Y"], axes=[0.5]), itype=T.INT32), 1,
         "input 0 'X' is int32, but its type T allows float"),
    ]


def type_constraint_cases():
    """(label, model bytes, exit code, text the output must hold). Inputs of types
    their op's schema does not allow, or one type variable bound to two types:
    session creation fails naming the node, the input, the type found and the
    types allowed (or the input it disagrees with)."""
    try:
        from onnx import TensorProto as T, helper as h
    except ImportError:
        return []

    def model(nodes, inputs, opset=18):
        g = h.make_graph(nodes, "g", [h.make_tensor_value_info(n, t, [2, 3]) for n, t in inputs],
                         [h.make_tensor_value_info("Y", T.UNDEFINED, None)])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
        m.ir_version = 8
        return m.SerializeToString()

    def cond_model(inner):
        branch = h.make_graph([inner], "then", [], [h.make_tensor_value_info("Z", T.UNDEFINED, None)])
        node = h.make_node("If", ["C"], ["Y"], then_branch=branch, else_branch=branch)
        g = h.make_graph([node], "g", [h.make_tensor_value_info("C", T.BOOL, []),
                                       h.make_tensor_value_info("S", T.STRING, [2])],
                         [h.make_tensor_value_info("Y", T.UNDEFINED, None)])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)])
        m.ir_version = 8
        return m.SerializeToString()

    return [
        ("Add of two floats", model([h.make_node("Add", ["A", "B"], ["Y"])],
                                    [("A", T.FLOAT), ("B", T.FLOAT)]), 0, "Y:"),
        ("Relu of a string", model([h.make_node("Relu", ["X"], ["Y"], name="r")], [("X", T.STRING)]), 1,
         "Relu node 'r': input 0 'X' is string, but its type T allows float, double"),
        ("Add of float and double",
         model([h.make_node("Add", ["A", "B"], ["Y"], name="add")], [("A", T.FLOAT), ("B", T.DOUBLE)]), 1,
         "Add node 'add': input 1 'B' is double but input 0 'A' is float; both are of type T"),
        ("Concat's third input int64",
         model([h.make_node("Concat", ["A", "B", "C"], ["Y"], axis=0, name="cat")],
               [("A", T.FLOAT), ("B", T.FLOAT), ("C", T.INT64)]), 1,
         "input 2 'C' is int64 but input 0 'A' is float"),
        ("If's condition a float", model([h.make_node("If", ["X"], ["Y"], name="if",
                                                      then_branch=h.make_graph([], "t", [], []),
                                                      else_branch=h.make_graph([], "e", [], []))],
                                         [("X", T.FLOAT)]), 1,
         "input 0 'X' is float, but its type B allows bool"),
        ("Sigmoid of a string inside an If branch",
         cond_model(h.make_node("Sigmoid", ["S"], ["Z"], name="inner")), 1,
         "Sigmoid node 'inner': input 0 'S' is string"),
    ]


def extreme_size_cases():
    """(label, model bytes, exit code, text the output must hold). Sizes, axes,
    pads and counts at the ends of int64 in attributes and constant inputs: each
    must be an error naming the node (or, where the values are valid, a
    result), never an overflowed size or index (UBSan found Reshape's, Pad's,
    Range's and DepthToSpace's)."""
    try:
        import numpy as np
        from onnx import TensorProto as T, helper as h, numpy_helper as nh
    except ImportError:
        return []
    big, lo, hi = 1 << 62, -(1 << 63), (1 << 63) - 1
    w = np.ones([2, 2, 3, 3], np.float32)

    def model(nodes, inits=(), opset=18):
        arrays = [nh.from_array(v if isinstance(v, np.ndarray) else np.array(v, np.int64), n)
                  for n, v in inits]
        g = h.make_graph(nodes, "g", [h.make_tensor_value_info("X", T.FLOAT, [1, 2, 4, 4])],
                         [h.make_tensor_value_info("Y", T.FLOAT, None)], initializer=arrays)
        m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
        m.ir_version = 8
        return m.SerializeToString()

    def node(op, inputs, outputs=("Y",), **attrs):
        return h.make_node(op, list(inputs), list(outputs), **attrs)

    err = [  # (op, nodes, initializers[, opset]) that must fail naming the op
        ("Reshape", [node("Reshape", ["X", "s"])], [("s", [big, 8, 2])]),
        ("Expand", [node("Expand", ["X", "s"])], [("s", [big, big, 4, 4])]),
        ("Tile", [node("Tile", ["X", "r"])], [("r", [big, 1, 1, 4])]),
        ("ConstantOfShape", [node("ConstantOfShape", ["s"])], [("s", [1 << 40, 1 << 40])]),
        ("Pad", [node("Pad", ["X", "p"])], [("p", [0, 0, big, 0, 0, 0, big, 0])]),
        ("Pad", [node("Pad", ["X", "p"])], [("p", [0, 0, lo, 0, 0, 0, hi, 0])]),
        ("Conv", [node("Conv", ["X", "W"], dilations=[big, big])], [("W", w)]),
        ("Conv", [node("Conv", ["X", "W"], pads=[big] * 4)], [("W", w)]),
        ("Conv", [node("Conv", ["X", "W"], group=big)], [("W", w)]),
        ("Conv", [node("Conv", ["X", "W"], group=lo)], [("W", w)]),
        ("ConvTranspose", [node("ConvTranspose", ["X", "W"], group=big)], [("W", w)]),
        ("MaxPool", [node("MaxPool", ["X"], kernel_shape=[big, big])], []),
        ("AveragePool", [node("AveragePool", ["X"], kernel_shape=[2, 2], dilations=[big, big])], [],
         19),
        ("ConvTranspose", [node("ConvTranspose", ["X", "W"], strides=[big, big])], [("W", w)]),
        ("Resize", [node("Resize", ["X", "", "", "z"])], [("z", [1, 2, big, big])]),
        ("Resize", [node("Resize", ["X", "", "c"])], [("c", np.array([1, 1, 1e30, 1e30], np.float32))]),
        ("Split", [node("Split", ["X", "s"], ["Y", "Z"], axis=3)], [("s", [big, -big + 4])]),
        ("Split", [node("Split", ["X", "s"], ["Y", "Z"], axis=3)], [("s", [big, big])]),
        ("SplitToSequence", [node("SplitToSequence", ["X", "s"], ["Q"], axis=3),
                             node("SequenceAt", ["Q", "i"])], [("s", [big, big]), ("i", [0])]),
        ("Gather", [node("Gather", ["X", "i"], axis=3)], [("i", [lo])]),
        ("Unsqueeze", [node("Unsqueeze", ["X", "a"])], [("a", [lo])]),
        ("Transpose", [node("Transpose", ["X"], perm=[0, 1, 2, big])], []),
        ("DepthToSpace", [node("DepthToSpace", ["X"], blocksize=big)], []),
        ("SpaceToDepth", [node("SpaceToDepth", ["X"], blocksize=big)], []),
        ("TopK", [node("TopK", ["X", "k"], ["Y", "I"])], [("k", [big])]),
        ("Range", [node("Range", ["a", "b", "c"])], [("a", [0]), ("b", [hi]), ("c", [1])]),
        ("Flatten", [node("Flatten", ["X"], axis=lo)], []),
        ("Concat", [node("Concat", ["X", "X"], axis=lo)], []),
        ("ReduceSum", [node("ReduceSum", ["X", "a"])], [("a", [lo])]),
        ("CumSum", [node("CumSum", ["X", "a"])], [("a", [lo])]),
        # 2^59 + 1 floats: the byte count wrapped to 4 and the fill ran off the block.
        ("ConstantOfShape", [node("ConstantOfShape", ["s"])], [("s", [(1 << 59) + 1])]),
        ("Pad", [node("Pad", ["X", "p"])], [("p", [0, 0, 1 << 40, 0, 0, 0, 1 << 40, 0])]),
        ("CenterCropPad", [node("CenterCropPad", ["X", "s"])], [("s", [1, 2, big, big])]),
        ("Col2Im", [node("Reshape", ["X", "s"], ["C"]), node("Col2Im", ["C", "i", "b"])],
         [("s", [1, 8, 4]), ("i", [big, big]), ("b", [2, 2])]),
        ("RoiAlign", [node("RoiAlign", ["X", "r", "b"], output_height=1 << 30, output_width=1 << 30)],
         [("r", np.array([[0, 0, 1, 1]], np.float32)), ("b", [0])]),
        ("RoiAlign", [node("RoiAlign", ["X", "r", "b"], sampling_ratio=big)],
         [("r", np.array([[0, 0, 1, 1]], np.float32)), ("b", [0])]),
        ("AffineGrid", [node("AffineGrid", ["t", "s"])],
         [("t", np.zeros([1, 2, 3], np.float32)), ("s", [1, 1, 1 << 29, 1 << 29])], 20),
        ("MelWeightMatrix", [node("MelWeightMatrix", ["m", "d", "r", "l", "h"])],
         [("m", np.array(big, np.int64)), ("d", np.array(8, np.int64)),
          ("r", np.array(16000, np.int64)), ("l", np.array(0, np.float32)),
          ("h", np.array(8000, np.float32))]),
    ]
    ok = [  # valid values at the ends of int64: a result
        ("Range over all of int64", [node("Range", ["a", "b", "c"])],
         [("a", [lo]), ("b", [hi]), ("c", [big])]),
        ("Slice from INT64_MIN to INT64_MAX", [node("Slice", ["X", "b", "e", "a"])],
         [("b", [lo]), ("e", [hi]), ("a", [3])]),
        ("Slice with step INT64_MIN", [node("Slice", ["X", "b", "e", "a", "s"])],
         [("b", [0]), ("e", [4]), ("a", [3]), ("s", [lo])]),
        ("LRN of size 2^62", [node("LRN", ["X"], size=big)], []),
    ]
    cases = [(f"{c[0]} at the ends of int64 ({i})", model(c[1], c[2], *c[3:]), 1, f"{c[0]} node")
             for i, c in enumerate(err)]
    cases += [(label, model(nodes, inits), 0, "Y:") for label, nodes, inits in ok]
    return cases


def sandbox_conv_case():
    """A Conv the sandbox plugin claims, whose kernel_shape disagrees with W: the
    plugin once sized its window from the attribute and read past W."""
    try:
        import numpy as np
        from onnx import TensorProto as T, helper as h, numpy_helper as nh
    except ImportError:
        return None
    w = nh.from_array(np.ones([3, 2, 3, 3], np.float32), "W")
    g = h.make_graph([h.make_node("Conv", ["X", "W"], ["Y"], kernel_shape=[5, 5])], "g",
                     [h.make_tensor_value_info("X", T.FLOAT, [1, 2, 5, 5])],
                     [h.make_tensor_value_info("Y", T.FLOAT, None)], initializer=[w])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    return ("sandbox plugin, Conv kernel_shape disagrees with W", m.SerializeToString(),
            "does not match weights")


def plugin_cases(tessera, tmp):
    """(label, library path, text the error must hold): damaged provider libraries."""
    sandbox = os.path.join(os.path.dirname(tessera), "libtessera_sandbox_ep.so")
    cases = []
    junk = os.path.join(tmp, "libjunk.so")
    with open(junk, "wb") as f:
        f.write(b"not a shared library\n")
    cases.append(("not a library", junk, "could not be loaded"))
    cases.append(("a folder", tmp, "could not be loaded"))
    if os.path.exists(sandbox):
        data = open(sandbox, "rb").read()
        # Inside the ELF header, inside the program headers, inside the first
        # and the second loadable segment: dlopen would map missing pages.
        for cut in (40, 100, 3000, 8192, len(data) // 2):
            path = os.path.join(tmp, f"libsandbox_cut_{cut}.so")
            with open(path, "wb") as f:
                f.write(data[:cut])
            cases.append((f"sandbox plugin truncated at {cut}", path, "provider library"))
    return cases


def run_checked(cmd, env, cwd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout,
                           env=env, cwd=cwd)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", ""


def crafted(args, env, tmp):
    """Runs the hand-made cases; returns (runs, failures)."""
    runs = failures = 0
    demo = os.path.join(ROOT, "models", "demo_cnn", "model.onnx")
    checks = []
    for label, data, want_rc, want_text in (function_body_cases() + extreme_size_cases() +
                                            type_constraint_cases()):
        path = os.path.join(tmp, "body.onnx")
        checks.append((label, [args.tessera, "run", path], want_rc, want_text, (path, data)))
    sandbox = os.path.join(os.path.dirname(args.tessera), "libtessera_sandbox_ep.so")
    conv = sandbox_conv_case()
    if conv and os.path.exists(sandbox):
        path = os.path.join(tmp, "conv.onnx")
        checks.append((conv[0], [args.tessera, "run", path, "--provider-library", sandbox], 1, conv[2],
                       (path, conv[1])))
    for label, lib, want_text in plugin_cases(args.tessera, tmp):
        checks.append((label, [args.tessera, "run", demo, "--provider-library", lib], 1, want_text, None))
    for label, cmd, want_rc, want_text, write in checks:
        if write:
            with open(write[0], "wb") as f:
                f.write(write[1])
        runs += 1
        rc, out = run_checked(cmd, env, tmp, args.timeout)
        if rc == want_rc and want_text in out and not any(r in out for r in REPORT):
            continue
        failures += 1
        print(f"FAILED {label}: exit {rc} (want {want_rc} and output with {want_text!r})")
        print("\n".join("     | " + l for l in out.splitlines()[:25]))
    return runs, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tessera")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--stride", type=int, default=97)
    ap.add_argument("--flips", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--keep", help="folder to copy failing inputs into")
    args = ap.parse_intermixed_args()
    args.tessera = os.path.abspath(args.tessera)

    models = args.models
    if not models:
        models = [os.path.join(ROOT, "models", "demo_cnn", "model.onnx")]
        models += [os.path.join(CONF, c, "model.onnx") for c in CONF_CASES
                   if os.path.exists(os.path.join(CONF, c, "model.onnx"))]
    rng = random.Random(args.seed)
    env = dict(os.environ)
    # A corrupted dim can ask for an absurd allocation: that must be an error,
    # not an abort, so let the sanitizer allocator return null like malloc does.
    env["ASAN_OPTIONS"] = "allocator_may_return_null=1:detect_leaks=1:" + env.get("ASAN_OPTIONS", "")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=0")
    failures = runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            data = open(model, "rb").read()
            # With the model's own test data (a backend-test folder), run it as a
            # test case so the real inputs reach the kernels (random ones would
            # be refused early, e.g. as shape inputs); otherwise `tessera run`.
            case = os.path.join(tmp, "case")
            shutil.rmtree(case, ignore_errors=True)
            os.makedirs(case)
            sets = sorted(d for d in os.listdir(os.path.dirname(model)) if d.startswith("test_data_set_"))
            for d in sets:
                os.symlink(os.path.join(os.path.dirname(os.path.abspath(model)), d), os.path.join(case, d))
            path = os.path.join(case, "model.onnx")
            cmd = [args.tessera, "test", case] if sets else [args.tessera, "run", path, "--output-dir",
                                                             os.path.join(tmp, "out")]
            for label, bad in mutations(data, args.stride, args.flips, rng):
                with open(path, "wb") as f:
                    f.write(bad)
                runs += 1
                try:
                    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=args.timeout,
                                       env=env, cwd=tmp)
                    rc, out = p.returncode, p.stdout + p.stderr
                except subprocess.TimeoutExpired:
                    rc, out = "timeout", ""
                allowed = (0,) if label == "unchanged" else (0, 1)
                if rc in allowed and not any(r in out for r in REPORT):
                    continue
                failures += 1
                report_failure(model, label, f"exit {rc}", out, bad, args.keep, failures)
        r, f = crafted(args, env, tmp)
        runs, failures = runs + r, failures + f
    print(f"malformed models: {runs} runs, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
