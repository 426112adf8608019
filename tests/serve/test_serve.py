#!/usr/bin/env python3
"""The Open Inference Protocol over HTTP, with Python `requests`, against a
running `tessera serve` (started by test_serve.sh on the repository that
make_serve_repository.py writes). Outputs of the demo models are compared
with `tessera run` on the same .npy inputs.

Usage: test_serve.py URL TESSERA REPOSITORY WORKDIR METRICS_URL"""
import concurrent.futures
import json
import pathlib
import subprocess
import sys

import numpy as np
import requests

URL, TESSERA, REPO, WORK = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
METRICS = sys.argv[5]
TIMEOUT = 60
failures = []


def check(what, condition, detail=""):
    if condition:
        print(f"ok   {what}")
    else:
        print(f"FAILED CHECK {what} {detail}")
        failures.append(what)


def get(path):
    return requests.get(URL + path, timeout=TIMEOUT)


def post(path, body=None, data=None, headers=None):
    if body is not None:
        return requests.post(URL + path, json=body, timeout=TIMEOUT)
    return requests.post(URL + path, data=data, headers=headers, timeout=TIMEOUT)


def error_of(r):
    try:
        return r.json().get("error", "")
    except ValueError:
        return ""


def expect_error(what, r, status, *words):
    msg = error_of(r)
    check(f"{what}: {status} with an error naming {', '.join(words)}",
          r.status_code == status and all(w in msg for w in words),
          f"(got {r.status_code}: {r.text[:300]})")


def tensor(name, arr, datatype, nested=False):
    return {"name": name, "shape": list(arr.shape), "datatype": datatype,
            "data": arr.tolist() if nested else arr.reshape(-1).tolist()}


def tessera_run(model, name, arr, out_name):
    d = WORK / f"run_{model}"
    d.mkdir(exist_ok=True)
    np.save(d / f"{name}.npy", arr)
    subprocess.run([TESSERA, "run", str(REPO / model / "1" / "model.onnx"),
                    "--input", f"{name}={d / (name + '.npy')}", "--output-dir", str(d)],
                   check=True, capture_output=True, timeout=TIMEOUT)
    return np.load(d / f"{out_name}.npy")


def output(r, name):
    for o in r.json()["outputs"]:
        if o["name"] == name:
            return o
    raise KeyError(name)


def health_and_metadata():
    check("GET /v2/health/live is 200", get("/v2/health/live").status_code == 200)
    r = get("/v2/health/ready")
    check("GET /v2/health/ready is 400 while models failed to load", r.status_code == 400, r.status_code)
    r = get("/v2")
    meta = r.json()
    check("GET /v2: server name, version, extensions",
          r.status_code == 200 and meta["name"] == "tessera" and meta["version"]
          and "model_repository" in meta["extensions"], r.text)

    r = get("/v2/models/demo_cnn")
    m = r.json()
    check("GET /v2/models/demo_cnn: inputs and outputs with datatypes and shapes",
          r.status_code == 200 and m["name"] == "demo_cnn" and m["versions"] == ["1"]
          and m["inputs"] == [{"name": "input", "datatype": "FP32", "shape": [1, 3, 32, 32]}]
          and m["outputs"] == [{"name": "output", "datatype": "FP32", "shape": [1, 10]}], r.text)
    m = get("/v2/models/demo_transformer").json()
    check("dynamic dimensions are -1", m["inputs"][0]["shape"] == [-1, 8, 32], m)
    m = get("/v2/models/add_mul/versions/1").json()
    check("GET /v2/models/add_mul/versions/1: both versions listed",
          m.get("versions") == ["1", "2"] and [o["name"] for o in m["outputs"]] == ["sum", "product"], m)
    types = {n: get(f"/v2/models/{n}").json()["inputs"][0]["datatype"]
             for n in ("int64_add", "int8_add", "fp64_mul", "strings", "bool_not", "fp16_add")}
    check("datatypes INT64, INT8, FP64, BYTES, BOOL, FP16",
          types == {"int64_add": "INT64", "int8_add": "INT8", "fp64_mul": "FP64", "strings": "BYTES",
                    "bool_not": "BOOL", "fp16_add": "FP16"}, types)
    expect_error("metadata of an unknown model", get("/v2/models/nosuch"), 404, "nosuch")
    expect_error("metadata of an unknown version", get("/v2/models/add_mul/versions/9"), 404, "add_mul", "9")
    expect_error("metadata of a model that failed to load", get("/v2/models/broken"), 503, "broken")

    check("GET /v2/models/demo_cnn/ready is 200", get("/v2/models/demo_cnn/ready").status_code == 200)
    check("GET /v2/models/add_mul/versions/2/ready is 200",
          get("/v2/models/add_mul/versions/2/ready").status_code == 200)
    check("a model that failed to load is not ready", get("/v2/models/broken/ready").status_code == 400)
    check("an unknown model's readiness is 404", get("/v2/models/nosuch/ready").status_code == 404)
    expect_error("an unknown endpoint", get("/v2/nothing/here"), 404, "/v2/nothing/here")


def demo_models():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 3, 32, 32)).astype(np.float32)
    r = post("/v2/models/demo_cnn/infer", {"id": "cnn-1", "inputs": [tensor("input", x, "FP32", nested=True)]})
    check("infer demo_cnn (nested data): 200, id echoed, model and version named",
          r.status_code == 200 and r.json()["id"] == "cnn-1" and r.json()["model_name"] == "demo_cnn"
          and r.json()["model_version"] == "1", r.text[:300])
    out = output(r, "output")
    want = tessera_run("demo_cnn", "input", x, "output")
    got = np.array(out["data"], dtype=np.float32).reshape(out["shape"])
    check("demo_cnn output equals `tessera run` on the same input",
          out["datatype"] == "FP32" and got.shape == want.shape
          and np.allclose(got, want, rtol=1e-5, atol=1e-5), f"max diff {np.abs(got - want).max()}")

    x = rng.standard_normal((2, 8, 32)).astype(np.float32)
    r = post("/v2/models/demo_transformer/infer", {"inputs": [tensor("input", x, "FP32")]})
    out = output(r, "output")
    want = tessera_run("demo_transformer", "input", x, "output")
    got = np.array(out["data"], dtype=np.float32).reshape(out["shape"])
    check("demo_transformer batch 2 (flat data) equals `tessera run`",
          r.status_code == 200 and got.shape == (2, 8, 32) and np.allclose(got, want, rtol=1e-5, atol=1e-5),
          r.text[:300])
    x5 = rng.standard_normal((5, 8, 32)).astype(np.float32)
    expect_error("batch 5 beyond config.json's max_batch_size 4",
                 post("/v2/models/demo_transformer/infer", {"inputs": [tensor("input", x5, "FP32")]}),
                 400, "demo_transformer", "input", "max_batch_size 4")


def datatypes():
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    y = np.array([[0.5, 0.5, 0.5], [2, 2, 2]], dtype=np.float32)
    r = post("/v2/models/add_mul/infer", {"id": "req-7", "parameters": {"note": "x"},
                                          "inputs": [tensor("x", x, "FP32"), tensor("y", y, "FP32")],
                                          "outputs": [{"name": "product"}]})
    body = r.json()
    check("FP32: requested outputs only, id echoed, latest version",
          r.status_code == 200 and [o["name"] for o in body["outputs"]] == ["product"]
          and body["id"] == "req-7" and body["model_version"] == "2"
          and body["outputs"][0]["data"] == (x * y).reshape(-1).tolist()
          and body["outputs"][0]["shape"] == [2, 3], r.text)
    r = post("/v2/models/add_mul/versions/1/infer",
             {"inputs": [tensor("x", x, "FP32"), tensor("y", y, "FP32")]})
    check("FP32 on version 1: every output when none is requested",
          r.status_code == 200 and r.json()["model_version"] == "1"
          and output(r, "sum")["data"] == (x + y).reshape(-1).tolist(), r.text)

    a = np.array([2 ** 40, -3, 7], dtype=np.int64)
    b = np.array([1, -2 ** 41, 0], dtype=np.int64)
    r = post("/v2/models/int64_add/infer", {"inputs": [tensor("x", a, "INT64"), tensor("y", b, "INT64")]})
    check("INT64 beyond 32 bits", r.status_code == 200 and output(r, "z")["data"] == (a + b).tolist()
          and output(r, "z")["datatype"] == "INT64", r.text)
    r = post("/v2/models/fp64_mul/infer", {"inputs": [tensor("x", np.array([1e300, 0.1]), "FP64"),
                                                      tensor("y", np.array([2.0, 3.0]), "FP64")]})
    check("FP64", r.status_code == 200 and output(r, "z")["data"] == [2e300, 0.1 * 3.0], r.text)
    words = ["héllo", "", "tensor with spaces", "nul\u0000inside"]
    r = post("/v2/models/strings/infer",
             {"inputs": [{"name": "text", "shape": [4], "datatype": "BYTES", "data": words}]})
    check("BYTES as strings (UTF-8, empty, a NUL inside)",
          r.status_code == 200 and output(r, "same")["data"] == words
          and output(r, "same")["datatype"] == "BYTES", r.text)
    r = post("/v2/models/bool_not/infer",
             {"inputs": [{"name": "b", "shape": [2, 2], "datatype": "BOOL", "data": [[True, False], [False, True]]}]})
    check("BOOL", r.status_code == 200 and output(r, "not_b")["data"] == [False, True, True, False], r.text)
    r = post("/v2/models/fp16_add/infer",
             {"inputs": [{"name": "h", "shape": [3], "datatype": "FP16", "data": [0.5, -1.25, 1000]}]})
    check("FP16 (JSON numbers in, float16 values out)",
          r.status_code == 200 and output(r, "h2")["data"] == [1.0, -2.5, 2000.0], r.text)
    r = post("/v2/models/bf16_add/infer",
             {"inputs": [{"name": "b", "shape": [3], "datatype": "BF16", "data": [0.5, -1.25, 1000]}]})
    check("BF16 (JSON numbers in, bfloat16 values out)",
          r.status_code == 200 and output(r, "b2")["data"] == [1.0, -2.5, 2000.0]
          and output(r, "b2")["datatype"] == "BF16", r.text)


def binary_post(path, header, binary=b""):
    head = json.dumps(header).encode()
    return requests.post(URL + path, data=head + binary, timeout=TIMEOUT,
                         headers={"Inference-Header-Content-Length": str(len(head)),
                                  "Content-Type": "application/octet-stream"})


def split_binary(r):
    """The JSON header and each binary output's bytes, by name."""
    n = int(r.headers.get("Inference-Header-Content-Length", len(r.content)))
    header = json.loads(r.content[:n])
    at, parts = n, {}
    for o in header.get("outputs", []):
        size = o.get("parameters", {}).get("binary_data_size")
        if size is not None:
            parts[o["name"]] = r.content[at:at + size]
            at += size
    return header, parts, at == len(r.content)


def binary_strings(items):
    return b"".join(len(s).to_bytes(4, "little") + s for s in items)


def binary_data():
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    y = np.array([[0.5, 0.5, 0.5], [2, 2, 2]], dtype=np.float32)
    r = binary_post("/v2/models/add_mul/infer", {
        "inputs": [{"name": "x", "shape": [2, 3], "datatype": "FP32", "parameters": {"binary_data_size": 24}},
                   tensor("y", y, "FP32")],
        "outputs": [{"name": "sum", "parameters": {"binary_data": True}}, {"name": "product"}]}, x.tobytes())
    header, parts, whole = split_binary(r)
    sums = np.frombuffer(parts.get("sum", b""), dtype=np.float32)
    check("binary input beside a JSON input; a binary output beside a JSON output",
          r.status_code == 200 and whole and header["outputs"][0]["parameters"]["binary_data_size"] == 24
          and "data" not in header["outputs"][0] and sums.tolist() == (x + y).reshape(-1).tolist()
          and header["outputs"][1]["data"] == (x * y).reshape(-1).tolist(), r.content[:300])

    words = [b"caf\xc3\xa9", b"", b"\x00\x01binary"]
    r = binary_post("/v2/models/strings/infer", {
        "inputs": [{"name": "text", "shape": [3], "datatype": "BYTES",
                    "parameters": {"binary_data_size": len(binary_strings(words))}}],
        "parameters": {"binary_data_output": True}}, binary_strings(words))
    header, parts, whole = split_binary(r)
    check("BYTES as binary both ways (length-prefixed, any bytes)",
          r.status_code == 200 and whole and parts.get("same") == binary_strings(words), r.content[:300])

    rng = np.random.default_rng(3)
    img = rng.standard_normal((1, 3, 32, 32)).astype(np.float32)
    r = binary_post("/v2/models/demo_cnn/infer", {
        "inputs": [{"name": "input", "shape": [1, 3, 32, 32], "datatype": "FP32",
                    "parameters": {"binary_data_size": img.nbytes}}],
        "parameters": {"binary_data_output": True}}, img.tobytes())
    header, parts, whole = split_binary(r)
    got = np.frombuffer(parts.get("output", b""), dtype=np.float32)
    want = tessera_run("demo_cnn", "input", img, "output").reshape(-1)
    check("demo_cnn with binary input and binary_data_output equals `tessera run`",
          r.status_code == 200 and r.headers["Content-Type"] == "application/octet-stream"
          and got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5), r.content[:300])

    fp16 = np.array([0.5, -1.25, 1000], dtype=np.float16)
    r = binary_post("/v2/models/fp16_add/infer", {
        "inputs": [{"name": "h", "shape": [3], "datatype": "FP16", "parameters": {"binary_data_size": 6}}],
        "outputs": [{"name": "h2", "parameters": {"binary_data": True}}]}, fp16.tobytes())
    header, parts, whole = split_binary(r)
    check("FP16 as binary", r.status_code == 200
          and np.frombuffer(parts.get("h2", b""), dtype=np.float16).tolist() == [1.0, -2.5, 2000.0], r.content[:300])

    expect_error("binary_data_size that does not fit the shape",
                 binary_post("/v2/models/fp16_add/infer", {"inputs": [
                     {"name": "h", "shape": [3], "datatype": "FP16", "parameters": {"binary_data_size": 4}}]},
                     fp16.tobytes()[:4]), 400, "fp16_add", "'h'", "binary_data_size is 4", "needs 6")
    expect_error("binary_data_size past the body",
                 binary_post("/v2/models/fp16_add/infer", {"inputs": [
                     {"name": "h", "shape": [3], "datatype": "FP16", "parameters": {"binary_data_size": 6}}]},
                     b"\x00\x00"), 400, "fp16_add", "'h'", "goes past")
    expect_error("binary bytes no input claims",
                 binary_post("/v2/models/fp16_add/infer", {"inputs": [
                     {"name": "h", "shape": [3], "datatype": "FP16", "parameters": {"binary_data_size": 6}}]},
                     fp16.tobytes() + b"xx"), 400, "fp16_add", "8 bytes", "add up to 6")
    expect_error("a BOOL byte other than 0 or 1",
                 binary_post("/v2/models/bool_not/infer", {"inputs": [
                     {"name": "b", "shape": [2, 2], "datatype": "BOOL", "parameters": {"binary_data_size": 4}}]},
                     b"\x01\x00\x02\x00"), 400, "bool_not", "'b'", "element 2")
    expect_error("a BYTES length past the data",
                 binary_post("/v2/models/strings/infer", {"inputs": [
                     {"name": "text", "shape": [1], "datatype": "BYTES", "parameters": {"binary_data_size": 6}}]},
                     b"\x09\x00\x00\x00ab"), 400, "strings", "'text'", "length 9")
    r = requests.post(URL + "/v2/models/add_mul/infer", data=b"{}", timeout=TIMEOUT,
                      headers={"Inference-Header-Content-Length": "99"})
    expect_error("Inference-Header-Content-Length beyond the body", r, 400, "add_mul", "exceeds")


def bad_requests():
    good = {"inputs": [{"name": "x", "shape": [1, 3], "datatype": "FP32", "data": [1, 2, 3]},
                       {"name": "y", "shape": [1, 3], "datatype": "FP32", "data": [1, 1, 1]}]}
    expect_error("malformed JSON", post("/v2/models/add_mul/infer", data=b'{"inputs": [',
                                        headers={"Content-Type": "application/json"}),
                 400, "add_mul", "not valid JSON")
    expect_error("an empty body", post("/v2/models/add_mul/infer", data=b""), 400, "add_mul", "no body")
    expect_error("no inputs array", post("/v2/models/add_mul/infer", {"id": "x"}), 400, "add_mul", "inputs")
    bad = json.loads(json.dumps(good))
    bad["inputs"][0]["datatype"] = "FP64"
    expect_error("wrong datatype", post("/v2/models/add_mul/infer", bad), 400, "add_mul", "'x'", "FP64", "FP32")
    bad = json.loads(json.dumps(good))
    bad["inputs"][0]["datatype"] = "FLOAT128"
    expect_error("unknown datatype", post("/v2/models/add_mul/infer", bad), 400, "'x'", "FLOAT128")
    bad = json.loads(json.dumps(good))
    bad["inputs"][0]["shape"] = [3]
    expect_error("wrong rank", post("/v2/models/add_mul/infer", bad), 400, "add_mul", "'x'", "shape [3]", "[-1, 3]")
    bad = json.loads(json.dumps(good))
    bad["inputs"][0]["shape"] = [1, 4]
    bad["inputs"][0]["data"] = [1, 2, 3, 4]
    expect_error("wrong fixed dimension", post("/v2/models/add_mul/infer", bad), 400, "'x'", "shape [1, 4]")
    bad = json.loads(json.dumps(good))
    bad["inputs"][0]["data"] = [1, 2]
    expect_error("data size mismatch", post("/v2/models/add_mul/infer", bad), 400, "'x'", "2 elements", "needs 3")
    bad = json.loads(json.dumps(good))
    bad["inputs"][0]["data"] = [1, "two", 3]
    expect_error("a string in FP32 data", post("/v2/models/add_mul/infer", bad), 400, "'x'", "element 1")
    bad = json.loads(json.dumps(good))
    bad["inputs"][0]["shape"] = [3, 3]
    bad["inputs"][0]["data"] = [1] * 9
    bad["inputs"][1]["shape"] = [2, 3]
    bad["inputs"][1]["data"] = [1] * 6
    expect_error("inputs whose shapes the model cannot combine", post("/v2/models/add_mul/infer", bad), 400, "add_mul")
    deep = b'{"inputs": [{"name": "x", "shape": [1, 3], "datatype": "FP32", "data": ' + \
        b"[" * 200000 + b"1" + b"]" * 200000 + b"}]}"
    expect_error("data nested 200000 deep (no recursion that deep)",
                 post("/v2/models/add_mul/infer", data=deep, headers={"Content-Type": "application/json"}),
                 400, "'x'", "nested deeper than shape [1, 3]")
    bad = json.loads(json.dumps(good))
    bad["inputs"][0]["data"] = [[[1, 2, 3]]]
    expect_error("data nested deeper than the shape's rank", post("/v2/models/add_mul/infer", bad), 400,
                 "'x'", "nested deeper")
    bad = json.loads(json.dumps(good))
    bad["inputs"][1]["name"] = "w"
    expect_error("unknown input tensor", post("/v2/models/add_mul/infer", bad), 400, "add_mul", "'w'")
    bad = json.loads(json.dumps(good))
    del bad["inputs"][1]
    expect_error("missing input", post("/v2/models/add_mul/infer", bad), 400, "add_mul", "'y'", "missing")
    bad = json.loads(json.dumps(good))
    bad["outputs"] = [{"name": "quotient"}]
    expect_error("unknown requested output", post("/v2/models/add_mul/infer", bad), 400, "add_mul", "'quotient'")
    expect_error("INT8 out of range",
                 post("/v2/models/int8_add/infer", {"inputs": [
                     {"name": "x", "shape": [1], "datatype": "INT8", "data": [300]},
                     {"name": "y", "shape": [1], "datatype": "INT8", "data": [1]}]}),
                 400, "int8_add", "'x'", "300")
    expect_error("infer on an unknown model", post("/v2/models/nosuch/infer", good), 404, "nosuch")
    expect_error("infer on a model that failed to load", post("/v2/models/broken/infer", good), 503, "broken")
    big = b'{"inputs": [' + b" " * (2 << 20) + b"]}"
    r = post("/v2/models/add_mul/infer", data=big, headers={"Content-Type": "application/json"})
    expect_error("a body over --max-body-bytes", r, 413, "1048576")
    r = post("/v2/models/add_mul/infer", good)
    check("a good request after the bad ones", r.status_code == 200 and output(r, "sum")["data"] == [2, 3, 4], r.text)


def concurrent_requests():
    def one(i):
        if i % 3 == 0:
            return post("/v2/models/add_mul/infer", data=b"{bad", headers={}).status_code == 400
        x = np.full((1, 3), i, dtype=np.float32)
        r = post("/v2/models/add_mul/infer", {"id": str(i), "inputs": [tensor("x", x, "FP32"), tensor("y", x, "FP32")]})
        return r.status_code == 200 and r.json()["id"] == str(i) and output(r, "sum")["data"] == [2.0 * i] * 3
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(96)))
    check("96 requests on 8 connections at once, a third of them malformed: each answered as its own",
          all(results), f"{results.count(False)} wrong")


def connection_burst(clients=128, rounds=3):
    """`clients` connections opened at the same instant, each sending one
    request: half to `batched` (answered 200 with its row), half to
    `slow_batched` (max_queue_size 2: two answered 200 after its 1.5 s batch
    delay, the rest 503 at once). Every connection must get a protocol
    answer; a burst that overflows the listen queue makes the kernel reset
    connections instead (docs/serving.md, Connections)."""
    import http.client
    import threading
    host, port = URL.split("//")[1].split(":")
    bodies = {
        "batched": json.dumps({"inputs": [
            tensor("x", np.array([[1, 2, 3, 4]], np.float32), "FP32"),
            tensor("idx", np.array([[2]], np.int64), "INT64")]}),
        "slow_batched": json.dumps({"inputs": [
            tensor("x", np.array([[1, 2]], np.float32), "FP32")]})}
    wrong = []
    for _ in range(rounds):
        start = threading.Barrier(clients)
        answers = [None] * clients

        def one(i):
            model = "batched" if i % 2 == 0 else "slow_batched"
            try:
                start.wait()
                c = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
                c.request("POST", f"/v2/models/{model}/infer", body=bodies[model],
                          headers={"Content-Type": "application/json"})
                r = c.getresponse()
                answers[i] = (model, r.status, r.read())
                c.close()
            except Exception as e:  # a reset or a refusal: what the check is for
                answers[i] = (model, None, repr(e))
        threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for model, status, body in answers:
            if status == 200:
                data = json.loads(body)["outputs"]
                ok = any(o["data"] in ([3.0], [2.0, 4.0]) for o in data)
            elif status == 503:
                ok = model == "slow_batched" and "max_queue_size 2" in json.loads(body)["error"]
            else:
                ok = False
            if not ok:
                wrong.append((model, status, body[:120]))
    check(f"{rounds} bursts of {clients} connections opened at once: each answered 200 with its "
          "row or 503 with the JSON error, none reset", not wrong, f"{len(wrong)} wrong: {wrong[:3]}")


def metric_values():
    r = requests.get(METRICS, timeout=TIMEOUT)
    values = {}
    for line in r.text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            values[key] = float(value)
    return r, values


def wait_in_flight(model, n, seconds=20):
    """Waits until the metrics show `n` requests in flight for `model`."""
    import time
    key = f'tessera_inference_requests_in_flight{{model="{model}",version="1"}}'
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if metric_values()[1].get(key, 0) >= n:
            return True
        time.sleep(0.02)
    check(f"{n} requests in flight for {model} within {seconds} s", False)
    return False


def metrics():
    lab = 'model="int64_add",version="1"'
    _, before = metric_values()
    good = {"inputs": [{"name": "x", "shape": [2], "datatype": "INT64", "data": [1, 2]},
                       {"name": "y", "shape": [2], "datatype": "INT64", "data": [3, 4]}]}
    for _ in range(3):
        post("/v2/models/int64_add/infer", good)
    post("/v2/models/int64_add/infer", {"inputs": []})
    r, after = metric_values()

    def delta(key):
        return after.get(key, 0) - before.get(key, 0)
    check("GET /metrics is Prometheus text", r.status_code == 200
          and r.headers["Content-Type"].startswith("text/plain")
          and "# TYPE tessera_inference_requests_total counter" in r.text, r.text[:300])
    check("3 successes and 1 failure counted for int64_add",
          delta(f'tessera_inference_requests_total{{{lab},outcome="success"}}') == 3
          and delta(f'tessera_inference_requests_total{{{lab},outcome="failure"}}') == 1, r.text[:600])
    check("the duration histogram counts the 4 and its +Inf bucket equals the count",
          delta(f"tessera_inference_request_duration_seconds_count{{{lab}}}") == 4
          and after[f'tessera_inference_request_duration_seconds_bucket{{{lab},le="+Inf"}}']
          == after[f"tessera_inference_request_duration_seconds_count{{{lab}}}"]
          and after[f"tessera_inference_request_duration_seconds_sum{{{lab}}}"] > 0, r.text[:600])
    check("tessera_model_ready: 1 for a loaded model, 0 for one that failed",
          after.get('tessera_model_ready{model="demo_cnn",version="1"}') == 1
          and after.get('tessera_model_ready{model="broken",version="1"}') == 0, r.text[-600:])


def dynamic_batching():
    runs = 'tessera_inference_batch_executions_total{model="batched",version="1"}'
    rng = np.random.default_rng(11)

    def request(i, rows, bad=False):
        x = rng.standard_normal((rows, 4)).astype(np.float32)
        idx = np.full((rows, 1), 9 if bad else i % 4, dtype=np.int64)
        r = post("/v2/models/batched/infer", {"id": str(i), "inputs": [
            tensor("x", x, "FP32"), tensor("idx", idx, "INT64")]})
        if bad:
            return r.status_code == 400 and "batched" in error_of(r)
        picked = np.take_along_axis(x, idx, axis=1)
        return (r.status_code == 200 and r.json()["id"] == str(i)
                and output(r, "picked")["shape"] == [rows, 1]
                and np.allclose(np.array(output(r, "picked")["data"]), picked.reshape(-1))
                and np.allclose(np.array(output(r, "doubled")["data"]), (2 * x).reshape(-1)))

    _, before = metric_values()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: request(i, 1), range(8)))
    _, after = metric_values()
    executions = after.get(runs, 0) - before.get(runs, 0)
    check("dynamic batching: 8 concurrent requests of 1 row each get their own row back",
          all(results), results)
    check(f"dynamic batching: they ran as {executions:.0f} session runs (at most 3; 8 without batching)",
          1 <= executions <= 3, executions)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: request(i, 1 + i % 2, bad=(i == 2)), range(4)))
    check("dynamic batching: requests of 1 and 2 rows, one with an index out of range: "
          "that one fails alone (400), the others get their rows", all(results), results)


def batching_by_length():
    """seq_batched: inputs [batch, seq] with dynamic batching up to 8 rows.
    Eight concurrent one-row requests, four of length 3 and four of length 5:
    a run may join only requests of one length, so no run holds more than 4
    rows, and each request gets its own row back."""
    rng = np.random.default_rng(5)

    def stats():
        r = get("/v2/models/seq_batched/versions/1/stats").json()["model_stats"][0]
        return {b["batch_size"]: b["compute_infer"]["count"] for b in r["batch_stats"]}

    def request(i):
        x = rng.standard_normal((1, 3 if i % 2 else 5)).astype(np.float32)
        r = post("/v2/models/seq_batched/infer", {"id": str(i), "inputs": [tensor("x", x, "FP32")]})
        return (r.status_code == 200 and r.json()["id"] == str(i)
                and output(r, "doubled")["shape"] == list(x.shape)
                and np.allclose(output(r, "doubled")["data"], (2 * x).reshape(-1))
                and np.allclose(output(r, "total")["data"], x.sum(axis=1), atol=1e-5)), r.text[:200]
    before = stats()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(request, range(8)))
    after = stats()
    runs = {size: after.get(size, 0) - before.get(size, 0) for size in after}
    runs = {size: n for size, n in runs.items() if n}
    check("batching by length: 8 concurrent requests of lengths 3 and 5 each get their own row",
          all(ok for ok, _ in results), [text for ok, text in results if not ok])
    check(f"batching by length: runs by rows {runs}: none holds more than the 4 requests of one "
          "length, the 8 rows are all counted, and some ran together",
          runs and max(runs) <= 4 and sum(size * n for size, n in runs.items()) == 8
          and sum(runs.values()) < 8, runs)


def preferred_batches():
    """pair_batched: max_batch_size 8, preferred batch size 2, two instances,
    a queue delay of 5 s. Eight concurrent one-row requests run as four
    batches of 2 rows, each at once when its second row arrives (long before
    the delay), and each request gets its own row back."""
    import time
    rng = np.random.default_rng(7)

    def stats():
        r = get("/v2/models/pair_batched/versions/1/stats").json()["model_stats"][0]
        return {b["batch_size"]: b["compute_infer"]["count"] for b in r["batch_stats"]}

    def request(i):
        x = rng.standard_normal((1, 4)).astype(np.float32)
        r = post("/v2/models/pair_batched/infer", {"id": str(i), "inputs": [tensor("x", x, "FP32")]})
        return (r.status_code == 200 and r.json()["id"] == str(i)
                and np.allclose(output(r, "doubled")["data"], (2 * x).reshape(-1))), r.text[:200]
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(request, range(8)))
    seconds = time.monotonic() - start
    runs = {size: n for size, n in stats().items() if n}
    check("preferred batch size: 8 concurrent requests each get their own row",
          all(ok for ok, _ in results), [text for ok, text in results if not ok])
    check(f"preferred batch size 2: runs by rows {runs} are four runs of 2, answered in "
          f"{seconds:.1f} s, before the 5 s queue delay", runs == {2: 4} and seconds < 4.5,
          (runs, seconds))


def config_dims():
    """fixed_seq: inputs [batch, seq]; its config.json fixes seq at 4 for x
    and doubled. The metadata reports the fixed dims, a request of length 4
    runs, one of length 3 is refused naming the input and the dimension."""
    meta = get("/v2/models/fixed_seq").json()
    shapes = {t["name"]: t["shape"] for t in meta["inputs"] + meta["outputs"]}
    check("config input/output dims: the metadata reports x [-1, 4], doubled [-1, 4], total [-1, 1]",
          shapes == {"x": [-1, 4], "doubled": [-1, 4], "total": [-1, 1]}, shapes)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    r = post("/v2/models/fixed_seq/infer", {"inputs": [tensor("x", x, "FP32")]})
    check("config input dims: a request of the fixed length runs",
          r.status_code == 200 and np.allclose(output(r, "doubled")["data"], (2 * x).reshape(-1)),
          r.text[:200])
    r = post("/v2/models/fixed_seq/infer", {"inputs": [tensor("x", x[:, :3], "FP32")]})
    check("config input dims: a request of another length is refused naming the input and shapes",
          r.status_code == 400 and "fixed_seq" in r.json()["error"] and "'x'" in r.json()["error"]
          and "[2, 3] given" in r.json()["error"] and "[-1, 4]" in r.json()["error"], r.text[:300])


def overload_and_timeouts():
    """slow_batched holds its requests 1.5 s for a batch that does not fill
    and takes at most 2 at once; timed_batched answers each after 200 ms."""
    import time
    row = {"inputs": [tensor("x", np.array([[1, 2]], np.float32), "FP32")]}

    def timed(body, model="slow_batched"):
        start = time.monotonic()
        r = post(f"/v2/models/{model}/infer", body)
        return r, time.monotonic() - start

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        held = [pool.submit(timed, row) for _ in range(2)]
        wait_in_flight("slow_batched", 2)  # both are queued now
        r, seconds = timed(row)
        expect_error("a request past max_queue_size", r, 503, "slow_batched", "max_queue_size 2")
        check(f"the overloaded request is answered at once ({seconds:.2f} s), not queued",
              seconds < 1.0, seconds)
        answers = [f.result() for f in held]
    check("the 2 queued requests are answered 200 with their rows",
          all(r.status_code == 200 and output(r, "y")["data"] == [2.0, 4.0] for r, _ in answers),
          [r.text[:200] for r, _ in answers])
    r, seconds = timed(row)
    check("the queue has room again afterwards", r.status_code == 200, r.text[:200])

    r, seconds = timed({**row, "parameters": {"timeout": 100000}})
    expect_error("a request whose \"timeout\" parameter passes while it is queued", r, 504,
                 "slow_batched", "deadline passed")
    check(f"... answered when its timeout passes ({seconds:.2f} s), not after the batch delay",
          0.09 < seconds < 1.4, seconds)
    r, seconds = timed(row, "timed_batched")
    expect_error("a request past config.json's request_timeout_microseconds", r, 504,
                 "timed_batched", "deadline passed")
    check(f"... answered after about 200 ms ({seconds:.2f} s)", 0.19 < seconds < 1.4, seconds)
    # A deadline that passes while the session runs stops the run between nodes.
    start = time.monotonic()
    r = post("/v2/models/slow_run/infer", {"parameters": {"timeout": 20000}, "inputs": [
        tensor("x", np.ones((1, 256), np.float32), "FP32")], "outputs": [
        {"name": "y", "parameters": {"binary_data": True}}]})
    seconds = time.monotonic() - start
    expect_error("a deadline that passes while the model runs", r, 504, "slow_run",
                 "while it ran (the run was stopped)")
    key = 'tessera_inference_requests_in_flight{model="slow_run",version="1"}'
    check(f"... answered in {seconds:.2f} s, and the model holds no request after it",
          metric_values()[1].get(key) == 0, metric_values()[1].get(key))
    expect_error("a negative \"timeout\" parameter", post("/v2/models/add_mul/infer", {
        "parameters": {"timeout": -5}, "inputs": [
            tensor("x", np.ones((1, 3), np.float32), "FP32"),
            tensor("y", np.ones((1, 3), np.float32), "FP32")]}), 400, "add_mul", "timeout")


def repository():
    r = post("/v2/repository/index", {})
    index = {(e["name"], e["version"]): e for e in r.json()}
    check("POST /v2/repository/index lists every model version with its state",
          r.status_code == 200 and index[("demo_cnn", "1")]["state"] == "READY"
          and index[("add_mul", "2")]["state"] == "READY"
          and index[("broken", "1")]["state"] == "UNAVAILABLE" and index[("broken", "1")]["reason"]
          and "NoSuchExecutionProvider" in index[("bad_provider", "1")]["reason"]
          and "session.intra_op.allow_spinning" in index[("bad_session_config", "1")]["reason"]
          and "fixed first dimension 1" in index[("cnn_batched", "1")]["reason"], r.text[:600])
    r = post("/v2/repository/index", {"ready": True})
    check("index with ready: true lists only ready models",
          r.status_code == 200 and all(e["state"] == "READY" for e in r.json())
          and "broken" not in {e["name"] for e in r.json()}, r.text[:300])
    r = post("/v2/repository/models/add_mul/unload")
    check("unload add_mul", r.status_code == 200, r.text)
    check("an unloaded model is not ready", get("/v2/models/add_mul/ready").status_code == 400)
    expect_error("infer on an unloaded model", post("/v2/models/add_mul/infer", {"inputs": []}), 503, "add_mul", "unloaded")
    entry = [e for e in post("/v2/repository/index").json() if e["name"] == "add_mul"]
    check("the index shows it unloaded", all(e["state"] == "UNAVAILABLE" and e["reason"] == "unloaded" for e in entry), entry)
    r = post("/v2/repository/models/add_mul/load")
    check("load add_mul again", r.status_code == 200 and get("/v2/models/add_mul/ready").status_code == 200, r.text)
    expect_error("load a model the repository does not have", post("/v2/repository/models/nosuch/load"), 404, "nosuch")
    expect_error("unload an unknown model", post("/v2/repository/models/nosuch/unload"), 404, "nosuch")
    expect_error("load a model that cannot load", post("/v2/repository/models/broken/load"), 400, "broken")
    check("the server is still not ready", get("/v2/health/ready").status_code == 400)
    for name in ("broken", "bad_provider", "bad_session_config", "cnn_batched"):
        post("/v2/repository/models/" + name + "/unload")
    check("ready once the models that fail are unloaded", get("/v2/health/ready").status_code == 200)
    # Unloads and loads while requests run: each request is answered 200 or
    # 503 (the model was away), never dropped or 500.
    x = np.ones((1, 3), dtype=np.float32)
    req = {"inputs": [tensor("x", x, "FP32"), tensor("y", x, "FP32")]}

    def churn(i):
        if i % 8 == 0:
            a = post("/v2/repository/models/add_mul/unload").status_code
            b = post("/v2/repository/models/add_mul/load").status_code
            return a == 200 and b == 200
        r = post("/v2/models/add_mul/infer", req)
        return r.status_code == 503 or (r.status_code == 200 and output(r, "sum")["data"] == [2.0] * 3)
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(churn, range(48)))
    check("unload and load while requests run: every request answered 200 or 503",
          all(results) and get("/v2/models/add_mul/ready").status_code == 200, results)
    # A model added to the repository while serving is loaded on request.
    src = REPO / "int64_add" / "1" / "model.onnx"
    dst = REPO / "late" / "3"
    dst.mkdir(parents=True)
    (dst / "model.onnx").write_bytes(src.read_bytes())
    r = post("/v2/repository/models/late/load")
    check("a model added while serving loads on request",
          r.status_code == 200 and get("/v2/models/late").json().get("versions") == ["3"], r.text)


health_and_metadata()
demo_models()
datatypes()
binary_data()
bad_requests()
concurrent_requests()
connection_burst()
metrics()
dynamic_batching()
batching_by_length()
preferred_batches()
config_dims()
overload_and_timeouts()
repository()
print(f"{len(failures)} failed" if failures else "all serving checks passed")
sys.exit(1 if failures else 0)
