#!/usr/bin/env python3
"""Serving operations against `tessera serve` (started by test_serve.sh):
the access log, the latency and batch-size histograms and the memory gauge
of the server test_serve.sh runs; then repository polling on a server of its
own (started here with --repository-poll-secs 1 on a repository it changes
while the server runs).

Usage: test_serve_ops.py URL METRICS_URL ACCESS_LOG TESSERA WORKDIR GRPC(on|off)"""
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import sys
import time

import numpy as np
import onnx
import requests
from onnx import TensorProto, helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from serve_process import start_server, stop_server  # noqa: E402

URL, METRICS, ACCESS_LOG = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
TESSERA, WORK, GRPC = sys.argv[4], pathlib.Path(sys.argv[5]), sys.argv[6] == "on"
TIMEOUT = 60
failures = []


def check(what, condition, detail=""):
    if condition:
        print(f"ok   ops: {what}")
    else:
        print(f"FAILED CHECK ops: {what} {detail}")
        failures.append(what)


def metric_values(url=METRICS):
    values = {}
    for line in requests.get(url, timeout=TIMEOUT).text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            values[key] = float(value)
    return values


def tensor(name, arr, datatype):
    return {"name": name, "shape": list(arr.shape), "datatype": datatype,
            "data": arr.reshape(-1).tolist()}


def log_lines():
    """The access log's lines, each parsed (None for a line that is not JSON)."""
    out = []
    for line in ACCESS_LOG.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append(None)
    return out


def wait_for_line(predicate, seconds=10):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = [e for e in log_lines() if e and predicate(e)]
        if found:
            return found[-1]
        time.sleep(0.05)
    return None


FIELDS = {"time": str, "transport": str, "model": str, "version": str, "id": str, "status": int,
          "batch_size": int, "queue_us": int, "compute_us": int, "total_us": int, "bytes_in": int,
          "bytes_out": int}


def access_log():
    x = np.ones((2, 3), np.float32)
    body = json.dumps({"id": "log-ok", "inputs": [tensor("x", x, "FP32"), tensor("y", x, "FP32")]})
    r = requests.post(f"{URL}/v2/models/add_mul/infer", data=body, timeout=TIMEOUT)
    ok = wait_for_line(lambda e: e.get("id") == "log-ok")
    check("an HTTP request's access-log line has every field, typed",
          ok is not None and all(isinstance(ok.get(k), t) for k, t in FIELDS.items()), ok)
    if ok:
        check("... with its model, version, status, rows (1: no max_batch_size) and byte counts",
              ok["transport"] == "http" and ok["model"] == "add_mul" and ok["version"] == "2"
              and ok["status"] == 200 and ok["batch_size"] == 1 and "error" not in ok
              and ok["bytes_in"] == len(body) and ok["bytes_out"] == len(r.content), ok)
        check("... and times that add up (queue + compute <= total, compute > 0)",
              ok["compute_us"] > 0 and ok["queue_us"] >= 0
              and ok["queue_us"] + ok["compute_us"] <= ok["total_us"], ok)
        check("... and an RFC 3339 UTC time",
              re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", ok["time"]) is not None, ok)
    requests.post(f"{URL}/v2/models/batched/infer", timeout=TIMEOUT, json={
        "id": "log-rows", "inputs": [tensor("x", np.ones((2, 4), np.float32), "FP32"),
                                     tensor("idx", np.zeros((2, 1), np.int64), "INT64")]})
    rows = wait_for_line(lambda e: e.get("id") == "log-rows")
    check("a model with max_batch_size logs the request's rows as its batch_size",
          rows is not None and rows["batch_size"] == 2 and rows["status"] == 200, rows)
    requests.post(f"{URL}/v2/models/add_mul/infer", timeout=TIMEOUT,
                  json={"id": "log-bad", "inputs": [tensor("x", x, "FP32")]})
    bad = wait_for_line(lambda e: e.get("id") == "log-bad")
    check("a failed request's line has its status and error",
          bad is not None and bad["status"] == 400 and "'y' is missing" in bad.get("error", "")
          and bad["compute_us"] == 0, bad)
    requests.post(f"{URL}/v2/models/nosuch/versions/4/infer", json={"id": "x"}, timeout=TIMEOUT)
    unknown = wait_for_line(lambda e: e.get("model") == "nosuch")
    check("a request for an unknown model is logged with 404 and the version asked for",
          unknown is not None and unknown["status"] == 404 and unknown["version"] == "4", unknown)
    lines = log_lines()
    check(f"every access-log line ({len(lines)}) is a JSON object with the fields",
          lines and all(e is not None and FIELDS.keys() <= e.keys() for e in lines),
          [e for e in lines if e is None or not FIELDS.keys() <= e.keys()][:3])
    if GRPC:
        grpc_lines = [e for e in lines if e["transport"] == "grpc"]
        check(f"gRPC requests are logged ({len(grpc_lines)} lines) with grpc_code",
              grpc_lines and all("grpc_code" in e for e in grpc_lines)
              and any(e["grpc_code"] == "INVALID_ARGUMENT" and e["status"] == 400
                      for e in grpc_lines), grpc_lines[:3])


def histograms():
    lab = 'model="batched",version="1"'
    before = metric_values()

    def one(i):
        x = np.full((1, 4), i, np.float32)
        return requests.post(f"{URL}/v2/models/batched/infer", timeout=TIMEOUT, json={
            "inputs": [tensor("x", x, "FP32"),
                       tensor("idx", np.zeros((1, 1), np.int64), "INT64")]}).status_code
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        codes = list(pool.map(one, range(4)))
    after = metric_values()

    def delta(key):
        return after.get(key, 0) - before.get(key, 0)
    for name in ("request", "queue", "compute"):
        h = f"tessera_inference_{name}_duration_seconds"
        check(f"{h}: 4 more requests counted, +Inf equal to the count, a sum above 0",
              codes == [200] * 4 and delta(f"{h}_count{{{lab}}}") == 4
              and after[f'{h}_bucket{{{lab},le="+Inf"}}'] == after[f"{h}_count{{{lab}}}"]
              and delta(f"{h}_sum{{{lab}}}") > 0, (codes, delta(f"{h}_count{{{lab}}}")))
    # The batch holds the requests for up to 300 ms (make_serve_repository.py):
    # their queue times are most of it, their compute times a small part.
    q = delta(f"tessera_inference_queue_duration_seconds_sum{{{lab}}}")
    c = delta(f"tessera_inference_compute_duration_seconds_sum{{{lab}}}")
    check(f"the queue time ({q:.3f} s for 4) is the batch's wait, above the compute ({c:.4f} s)",
          q > c, (q, c))
    runs = delta(f"tessera_inference_batch_size_count{{{lab}}}")
    rows = delta(f"tessera_inference_batch_size_sum{{{lab}}}")
    check(f"tessera_inference_batch_size: {runs:.0f} runs of {rows:.0f} rows for the 4 one-row "
          "requests, runs equal to tessera_inference_batch_executions_total",
          rows == 4 and 1 <= runs <= 4 and after[f"tessera_inference_batch_size_count{{{lab}}}"]
          == after[f"tessera_inference_batch_executions_total{{{lab}}}"], (runs, rows))
    resident = after.get("process_resident_memory_bytes", 0)
    check(f"process_resident_memory_bytes: {resident / 2**20:.0f} MiB, between 1 MiB and "
          "the virtual size", 2**20 < resident <= after.get("process_virtual_memory_bytes", 0),
          resident)


# -- repository polling, on a server of its own

def save_model(path, op):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2])
    model = helper.make_model(helper.make_graph([helper.make_node(op, ["x", "x"], ["y"])],
                                                "m", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 17)])
    # Written beside, then renamed into place: the server never reads half a file.
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    onnx.save(model, str(tmp))
    os.replace(tmp, path)


def add_folder(repo, name, versions, op="Add", config=None):
    """A model folder made outside the repository, then moved in at once."""
    staging = WORK / "staging" / name
    for v in versions:
        save_model(staging / v / "model.onnx", op)
    if config is not None:
        (staging / "config.json").write_text(json.dumps(config))
    os.rename(staging, repo / name)


def start_polling_server(repo, log):
    return start_server(TESSERA, repo, log, grpc=False,
                        extra=["--repository-poll-secs", "1", "--access-log", "none"])


LOG_PATH = WORK / "poll_server.err"


def polling():
    repo = WORK / "poll_repo"
    (WORK / "staging").mkdir(exist_ok=True)
    repo.mkdir()
    add_folder(repo, "first", ["1"])
    log_path = LOG_PATH
    with open(log_path, "w") as log:
        server, ports = start_polling_server(repo, log)
    if len(ports) < 2:
        server.kill()
        check("the polling server starts", False, log_path.read_text()[-800:])
        return
    url = f"http://127.0.0.1:{ports['HTTP']}"
    try:
        polling_checks(repo, url, f"http://127.0.0.1:{ports['metrics']}/metrics")
    finally:
        stop_server(server)
        check("the polling server stops on SIGTERM (exit 0)", server.returncode == 0,
              server.returncode)
    text = log_path.read_text()
    check("its log names what polling loaded and unloaded",
          "model 'second': new in the repository" in text
          and "model 'second': its folder is gone; unloaded" in text
          and "model 'second' version 1: its folder is gone; unloaded" in text, text[-1500:])


def infer(url, model, value=1.0, version=""):
    path = f"/v2/models/{model}" + (f"/versions/{version}" if version else "") + "/infer"
    return requests.post(url + path, timeout=TIMEOUT, json={
        "inputs": [tensor("x", np.full((1, 2), value, np.float32), "FP32")]})


def index(url):
    return {(e["name"], e["version"]): e
            for e in requests.post(url + "/v2/repository/index", json={}, timeout=TIMEOUT).json()}


def wait_until(what, condition, seconds=15):
    end = time.monotonic() + seconds
    start = time.monotonic()
    while time.monotonic() < end:
        if condition():
            check(f"{what} (after {time.monotonic() - start:.1f} s, polling every 1 s)", True)
            return True
        time.sleep(0.1)
    check(f"{what} within {seconds} s", False)
    return False


def polling_checks(repo, url, metrics):
    check("the model present at start serves", infer(url, "first").status_code == 200)
    # A new model folder appears in the index and serves.
    add_folder(repo, "second", ["1"], op="Add",
               config={"max_batch_size": 4,
                       "dynamic_batching": {"max_queue_delay_microseconds": 2000000}})
    if not wait_until("a model folder added while serving is loaded",
                      lambda: index(url).get(("second", "1"), {}).get("state") == "READY"):
        return
    r = infer(url, "second", 3.0)
    check("... and serves (Add: 3 + 3)", r.status_code == 200
          and r.json()["outputs"][0]["data"] == [6.0, 6.0], r.text[:200])

    # model.onnx replaced while a request waits in the old model's batch
    # (2 s delay): that request is answered by the model it reached, and the
    # requests after the swap by the new one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        held = pool.submit(infer, url, "second", 5.0)
        end = time.monotonic() + 10
        key = 'tessera_inference_requests_in_flight{model="second",version="1"}'
        while metric_values(metrics).get(key, 0) < 1 and time.monotonic() < end:
            time.sleep(0.02)
        save_model(repo / "second" / "1" / "model.onnx", "Mul")
        swapped = wait_until("a changed model.onnx is loaded again (Mul: 3 * 3)",
                             lambda: infer(url, "second", 3.0).json().get("outputs", [{}])[0]
                             .get("data") == [9.0, 9.0])
        r = held.result()
    check("the request in flight during the swap is answered by the old model (5 + 5)",
          swapped and r.status_code == 200 and r.json()["outputs"][0]["data"] == [10.0, 10.0],
          r.text[:200])

    # A new version, then the old version's folder removed.
    save_model(repo / "second" / "2" / "model.onnx", "Add")
    wait_until("a version folder added is loaded",
               lambda: requests.get(f"{url}/v2/models/second", timeout=TIMEOUT).json()
               .get("versions") == ["1", "2"])
    check("requests without a version go to it", infer(url, "second").json().get(
        "model_version") == "2")
    shutil.rmtree(repo / "second" / "1")
    wait_until("a version folder removed is unloaded",
               lambda: requests.get(f"{url}/v2/models/second", timeout=TIMEOUT).json()
               .get("versions") == ["2"])
    check("... and asking for it is 404", infer(url, "second", version="1").status_code == 404)

    # A replacement that does not load leaves the loaded version serving.
    broken = repo / "second" / "2" / "model.onnx.tmp"
    broken.write_bytes(b"not an ONNX model")
    os.replace(broken, repo / "second" / "2" / "model.onnx")
    wait_until("a replacement that fails to load is reported in the index",
               lambda: "failed to load" in index(url).get(("second", "2"), {}).get("reason", ""))
    entry = index(url).get(("second", "2"), {})
    check("... while the version loaded before stays READY and serves",
          entry.get("state") == "READY" and infer(url, "second").status_code == 200, entry)

    # config.json changed: every version is loaded again with it.
    (repo / "second" / "config.json").write_text(json.dumps({"max_batch_size": 1}))
    save_model(repo / "second" / "2" / "model.onnx", "Add")
    wait_until("a changed config.json is applied (max_batch_size 1 refuses a batch of 2)",
               lambda: requests.post(f"{url}/v2/models/second/infer", timeout=TIMEOUT, json={
                   "inputs": [tensor("x", np.ones((2, 2), np.float32), "FP32")]})
               .status_code == 400)

    # The folder removed: the model leaves the index.
    shutil.rmtree(repo / "second")
    wait_until("a model folder removed is unloaded and leaves the index",
               lambda: not any(n == "second" for n, _ in index(url)))
    check("... and requests for it are 404", infer(url, "second").status_code == 404)
    # A model copied in place slowly (no rename): not read until it stops
    # changing, so no poll loads it half-written.
    third = repo / "third" / "1" / "model.onnx"
    third.parent.mkdir(parents=True)
    save_model(WORK / "staging" / "third.onnx", "Mul")
    data = (WORK / "staging" / "third.onnx").read_bytes()
    pieces = 12
    with open(third, "wb") as f:
        for i in range(pieces):  # 3 s of writing, 0.25 s between pieces
            f.write(data[i * len(data) // pieces:(i + 1) * len(data) // pieces])
            f.flush()
            time.sleep(0.25)
    wait_until("a model copied in slowly is loaded once written",
               lambda: index(url).get(("third", "1"), {}).get("state") == "READY")
    r = infer(url, "third", 2.0)
    check("... and serves (Mul: 2 * 2)", r.status_code == 200
          and r.json()["outputs"][0]["data"] == [4.0, 4.0], r.text[:200])
    check("... with no attempt to load it half-written",
          "model 'third' version 1: failed to load" not in LOG_PATH.read_text())
    check("the other model served throughout", infer(url, "first").status_code == 200)
    check("the server is ready", requests.get(f"{url}/v2/health/ready",
                                              timeout=TIMEOUT).status_code == 200)


access_log()
histograms()
polling()
print(f"ops: {len(failures)} failed" if failures else "all serving-operations checks passed")
sys.exit(1 if failures else 0)
