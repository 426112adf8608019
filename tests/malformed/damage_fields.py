#!/usr/bin/env python3
"""Damages models field by field, through their protobuf structure, and runs each copy.

test_malformed.py cuts models at every N-th byte and changes random bytes,
which mostly lands inside weights or breaks the wire format, so the reader
stops it early. This parses the wire format instead (every field of every
nested message: graph, nodes, attributes, tensors, types, opsets) and changes
one or two fields the way a broken exporter or a hostile file would, then
writes the model again with consistent lengths, so the damage gets past the
reader to what trusts the fields' meaning: a varint made 0, negative, 2^31,
2^63-1 (a dim, a data type, an attribute's type or value, an opset), a field
dropped, repeated or swapped with a sibling, bytes cut short (raw data, a
name) or replaced by another string of the model (an input's name). One copy
in five breaks the framing instead (a cut after a field or inside its tag, a
length made wrong or huge, an overlong varint, a changed wire type). What is
damaged is drawn from a seeded generator, so a run is repeatable.

Each copy goes to `tessera run` (random inputs, one thread). Exit 0, or exit
1 with an `error (` line, is fine; a sanitizer report, a signal, another exit
status, exit 1 without an error line or a run past the time limit is a
failure, printed with the damage that caused it (and copied into --keep). Run
it on a sanitizer build (scripts/sanitize.sh does).

Usage: damage_fields.py TESSERA [--count N] [--seed N] [--timeout S] [--keep DIR] [MODEL ...]
Defaults: the shipped models (models/*/model.onnx), 60 copies each.
"""
import argparse
import glob
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_malformed import REPORT, report_failure  # noqa: E402

VARINT, I64, LEN, I32 = 0, 1, 2, 5
MEMORY_LIMIT = 2 << 30  # bytes of address space for a run of a build without sanitizers


def read_varint(buf, i, end):
    """(value, next offset), or None when the varint runs past end or past 10 bytes."""
    value = shift = 0
    while i < end and shift < 70:
        b = buf[i]
        value |= (b & 0x7F) << shift
        i += 1
        if not b & 0x80:
            return value, i
        shift += 7
    return None


def varint(value):
    value &= (1 << 64) - 1  # negative numbers as protobuf writes them: ten bytes
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def parse(buf, start, end, depth=0):
    """The message in buf[start:end] as a list of fields [number, wire, value],
    value an int (varint, fixed), bytes, or for a length-delimited field that
    parses as a message, a nested list (a guess: bytes that happen to parse are
    damaged as a message, which is just as hostile). None when it does not parse."""
    out = []
    i = start
    while i < end:
        tag = read_varint(buf, i, end)
        if tag is None or tag[0] >> 3 == 0:
            return None
        number, wire, i = tag[0] >> 3, tag[0] & 7, tag[1]
        if wire == VARINT:
            v = read_varint(buf, i, end)
            if v is None:
                return None
            value, i = v
        elif wire in (I64, I32):
            size = 8 if wire == I64 else 4
            if i + size > end:
                return None
            value, i = buf[i:i + size], i + size
        elif wire == LEN:
            n = read_varint(buf, i, end)
            if n is None or n[1] + n[0] > end:
                return None
            i = n[1] + n[0]
            value = bytes(buf[n[1]:i])
            inner = parse(buf, n[1], i, depth + 1) if value and depth < 12 else None
            if inner:
                value = inner
        else:
            return None
        out.append([number, wire, value])
    return out


def write(message):
    out = bytearray()
    for number, wire, value in message:
        out += varint((number << 3) | wire)
        if wire == VARINT:
            out += varint(value)
        elif wire == LEN:
            body = write(value) if isinstance(value, list) else value
            out += varint(len(body)) + body
        else:
            out += value
    return bytes(out)


def walk(message, path=""):
    """(path, enclosing message, index) of every field, nested ones included."""
    for i, f in enumerate(message):
        here = f"{path}/{f[0]}[{i}]"
        yield here, message, i
        if isinstance(f[2], list):
            yield from walk(f[2], here)


def damage_structure(tree, rng):
    """Changes one field of a parsed model; the framing around it stays
    consistent, so the damage passes the wire reader and reaches what reads
    the fields' meaning (the model reader, the graph checks, the kernels).
    Returns a label, or None when the chosen field did not fit the change."""
    path, msg, i = rng.choice(list(walk(tree)))
    number, wire, value = msg[i]
    kind = rng.choice(["value", "value", "value", "drop", "twice", "swap", "shorten", "bytes"])
    if kind == "value" and wire == VARINT:
        new = rng.choice([0, 1, 2, 3, 7, 99, 2**31, 2**32 + 1, 2**62, 2**63 - 1, -1, -2, -(2**63), value + 1])
        msg[i][2] = new
        return f"varint {path}: {value} -> {new}"
    if kind == "drop":
        del msg[i]
        return f"dropped {path}"
    if kind == "twice":
        msg.insert(i + 1, [number, wire, value])
        return f"repeated {path}"
    if kind == "swap":
        same = [j for j, f in enumerate(msg) if f[0] == number and j != i]
        if not same:
            return None
        j = rng.choice(same)
        msg[i], msg[j] = msg[j], msg[i]
        return f"swapped {path} with field {j}"
    if kind == "shorten" and wire == LEN:
        body = write(value) if isinstance(value, list) else value
        keep = rng.randrange(len(body) + 1) if body else 0
        msg[i][2] = body[:keep]
        return f"{path}: {len(body)} bytes cut to {keep}"
    if kind == "bytes" and wire == LEN and not isinstance(value, list):
        others = [f[2] for _, m, j in walk(tree) for f in [m[j]]
                  if f[1] == LEN and not isinstance(f[2], list) and len(f[2]) < 64]
        new = rng.choice(others + [b"", b"\xff\xfe", b"x" * 300]) if others else b""
        msg[i][2] = new
        return f"bytes {path}: {value[:20]!r} -> {new[:20]!r}"
    if kind == "value" and wire in (I64, I32):
        msg[i][2] = bytes(rng.choice([0x00, 0xFF, 0x7F]) for _ in value)
        return f"fixed {path}: {value.hex()} -> {msg[i][2].hex()}"
    return None


def damage_framing(data, rng):
    """Breaks the wire format itself at one point of data: (label, bytes)."""
    spans = []  # (tag offset, value offset, end, wire) of every field

    def scan(start, end):
        i = start
        while i < end:
            tag = read_varint(data, i, end)
            if tag is None:
                return
            wire, value = tag[0] & 7, tag[1]
            if wire == VARINT:
                v = read_varint(data, value, end)
                stop = v[1] if v else end
            elif wire == LEN:
                n = read_varint(data, value, end)
                if n is None:
                    return
                stop = n[1] + n[0]
                if stop <= end and parse(data, n[1], stop) is not None:
                    scan(n[1], stop)
            else:
                stop = value + (8 if wire == I64 else 4)
            spans.append((i, value, stop, wire))
            i = stop

    scan(0, len(data))
    at, value, stop, wire = rng.choice(spans)
    kind = rng.choice(["cut", "length", "overlong", "wire"])
    if kind == "cut":
        cut = rng.choice([stop, at + 1, value + 1])
        return f"cut at {cut}", data[:cut]
    if kind == "length" and wire == LEN:
        n, body = read_varint(data, value, len(data))
        new = rng.choice([0, n - 1, n + 1, 2**31 - 1, 2**32 + n, 2**63, 2**64 - 1])
        return f"length at {value}: {n} -> {max(new, 0)}", data[:value] + varint(max(new, 0)) + data[body:]
    if kind == "overlong":
        return f"overlong varint at {value}", data[:value] + bytes([0xFF] * 10 + [0x01]) + data[value:]
    tag, value = read_varint(data, at, len(data))
    new = rng.choice([w for w in range(8) if w != tag & 7])
    return f"wire type at {at}: {tag & 7} -> {new}", data[:at] + varint((tag & ~7) | new) + data[value:]


def damages(data, count, rng):
    """(label, bytes) pairs: count damaged copies of data, most of them with a
    consistent wire format (the reader's framing checks are test_malformed.py's)."""
    if parse(data, 0, len(data)) is None:
        sys.exit("not a protobuf message")
    made = 0
    while made < count:
        if rng.random() < 0.2:
            yield damage_framing(data, rng)
            made += 1
            continue
        tree = parse(data, 0, len(data))
        labels = [damage_structure(tree, rng) for _ in range(rng.choice([1, 1, 2]))]
        labels = [l for l in labels if l]
        if labels:
            yield "; ".join(labels), write(tree)
            made += 1


def use_test_data(model, case):
    """Links the model's test data sets into case; False when it has none."""
    folder = os.path.dirname(os.path.abspath(model))
    sets = sorted(d for d in os.listdir(folder) if d.startswith("test_data_set_"))
    for d in sets:
        os.symlink(os.path.join(folder, d), os.path.join(case, d))
    return bool(sets)


def address_space_limit(tessera):
    """A limit for the runs' memory, so that a damaged dim or attribute asking
    for gigabytes (valid, but slow to fill and a burden on a shared machine)
    ends in an allocation error. A sanitizer build reserves terabytes of
    address space for its shadow memory, so there ASAN_OPTIONS caps each
    allocation instead (main); elsewhere the address space is limited."""
    try:
        linked = subprocess.run(["ldd", tessera], capture_output=True, text=True).stdout
    except OSError:
        linked = ""
    if "libasan" in linked:
        return None
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(cmd, env, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout, env=env,
                           preexec_fn=address_space_limit.chosen)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", ""


def verdict(rc, out):
    """None when the run ended well, else what went wrong."""
    if any(r in out for r in REPORT):
        return "sanitizer report"
    if rc == 0 or (rc == 1 and "error (" in out):
        return None
    if rc == 1:
        return "exit 1 without an error line"
    return f"signal {-rc}" if isinstance(rc, int) and rc < 0 else f"exit {rc}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tessera")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--count", type=int, default=60, help="damaged copies per model")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--keep", help="folder to copy failing inputs into")
    args = ap.parse_intermixed_args()
    models = args.models or sorted(glob.glob(os.path.join(ROOT, "models", "*", "model.onnx")))
    rng = random.Random(args.seed)
    env = dict(os.environ)
    # A damaged dim can ask for an absurd allocation, which must be Tessera's
    # error as it is without the sanitizer (whose allocator otherwise aborts);
    # allocations past 1 GiB fail the same way (address_space_limit).
    env["ASAN_OPTIONS"] = ("allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1:" +
                           env.get("ASAN_OPTIONS", ""))
    address_space_limit.chosen = address_space_limit(args.tessera)
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=0")
    runs = failures = errors = 0
    with tempfile.TemporaryDirectory() as tmp:
        case = os.path.join(tmp, "case")
        path = os.path.join(case, "model.onnx")
        for model in models:
            data = open(model, "rb").read()
            shutil.rmtree(case, ignore_errors=True)
            os.makedirs(case)
            cmd = [args.tessera, "run", path, "--threads", "1", "--seed", "1"]
            for label, bad in [("unchanged", data)] + list(damages(data, args.count, rng)):
                with open(path, "wb") as f:
                    f.write(bad)
                runs += 1
                rc, out = run(cmd, env, args.timeout)
                if label == "unchanged" and rc == 1 and use_test_data(model, case):
                    # Random inputs do not fit this model (shape or index inputs):
                    # run it as a backend test case, with its own inputs.
                    cmd = [args.tessera, "test", case, "--threads", "1"]
                    rc, out = run(cmd, env, args.timeout)
                if label == "unchanged":
                    wrong = None if rc == 0 else "the model fails unchanged"
                elif cmd[1] == "test":
                    # `test` reports a wrong result or a load error as exit 1 with a FAIL or ERROR line.
                    wrong = None if rc in (0, 1) and not any(r in out for r in REPORT) else verdict(rc, out)
                else:
                    wrong = verdict(rc, out)
                errors += rc == 1
                if wrong is None:
                    continue
                failures += 1
                report_failure(model, label, wrong, out, bad, args.keep, failures)
    print(f"damaged fields: {runs} runs ({errors} clean errors), {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
