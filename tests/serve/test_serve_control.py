#!/usr/bin/env python3
"""Model control modes and the statistics extension, on servers of its own
(started by test_serve.sh after the shared server's checks):

- `--model-control-mode explicit`: only the --load-model models load at
  start; the index lists the others as not loaded; the repository API loads
  and unloads; an unknown --load-model name stops the server at start.
- `--model-control-mode none` (the default): every model loads; the
  repository API's load and unload are refused (HTTP 400, gRPC
  FAILED_PRECONDITION) naming the mode.
- `--model-control-mode poll` without a period polls every 15 s; the
  command line's contradictions are usage errors.
- GET v2/models[/NAME[/versions/V]]/stats: the statistics extension's
  layout, counts after known requests (a batch of concurrent requests is one
  execution of their rows), and a model loaded again starts from zero (the
  Prometheus batch counter too).

Usage: test_serve_control.py TESSERA REPO WORKDIR GRPC(on|off)
(REPO: the repository make_serve_repository.py wrote; models are copied
from it.)"""
import concurrent.futures
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import requests

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from serve_process import start_server  # noqa: E402

TESSERA, SOURCE, WORK, GRPC = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), \
    sys.argv[4] == "on"
TIMEOUT = 60
failures = []


def check(what, condition, detail=""):
    if condition:
        print(f"ok   control: {what}")
    else:
        print(f"FAILED CHECK control: {what} {detail}")
        failures.append(what)


def tensor(name, arr, datatype):
    return {"name": name, "shape": list(arr.shape), "datatype": datatype,
            "data": arr.reshape(-1).tolist()}


def make_repo():
    repo = WORK / "control_repo"
    repo.mkdir()
    for name in ("add_mul", "int64_add", "batched"):
        shutil.copytree(SOURCE / name, repo / name)
    return repo


class Server:
    def __init__(self, repo, name, extra, grpc=False):
        self.log_path = WORK / f"control_{name}.err"
        with open(self.log_path, "w") as log:
            self.process, ports = start_server(TESSERA, repo, log, grpc=grpc,
                                               extra=["--access-log", "none", *extra])
        self.ok = len(ports) == (3 if grpc else 2)
        if not self.ok:
            self.process.kill()
            check(f"the {name} server starts", False, self.log_path.read_text()[-800:])
            return
        self.url = f"http://127.0.0.1:{ports['HTTP']}"
        self.metrics = f"http://127.0.0.1:{ports['metrics']}/metrics"
        self.grpc_port = ports.get("gRPC")

    def stop(self):
        if not self.ok:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def post(self, path, body=None):
        return requests.post(self.url + path, json=body if body is not None else {},
                             timeout=TIMEOUT)

    def get(self, path):
        return requests.get(self.url + path, timeout=TIMEOUT)

    def index(self):
        return {(e["name"], e["version"]): e for e in self.post("/v2/repository/index").json()}


def add_mul_request(rows=1):
    x = np.ones((rows, 3), np.float32)
    return {"inputs": [tensor("x", x, "FP32"), tensor("y", x, "FP32")]}


def run_command(*args):
    """(exit status, stdout + stderr) of `tessera serve ARGS` that should stop at once."""
    r = subprocess.run([TESSERA, "serve", *args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout + r.stderr


def explicit(repo):
    s = Server(repo, "explicit", ["--model-control-mode", "explicit", "--load-model", "add_mul"])
    if not s.ok:
        return
    try:
        index = s.index()
        check("explicit: the --load-model model loads at start",
              index.get(("add_mul", "2"), {}).get("state") == "READY", index)
        check("explicit: the others are listed as not loaded",
              index.get(("int64_add", ""), {}).get("reason") == "not loaded"
              and index.get(("batched", ""), {}).get("state") == "UNAVAILABLE", index)
        r = s.post("/v2/models/int64_add/infer", {"inputs": []})
        check("explicit: a model not loaded is unknown to inference (404)", r.status_code == 404,
              r.text)
        check("explicit: the server is ready with the models asked for",
              s.get("/v2/health/ready").status_code == 200)
        r = s.post("/v2/repository/models/int64_add/load")
        x = np.array([1, 2], np.int64)
        r2 = s.post("/v2/models/int64_add/infer",
                    {"inputs": [tensor("x", x, "INT64"), tensor("y", x, "INT64")]})
        check("explicit: the repository API loads a model, which then serves",
              r.status_code == 200 and r2.status_code == 200
              and r2.json()["outputs"][0]["data"] == [2, 4], (r.text, r2.text))
        r = s.post("/v2/repository/models/add_mul/unload")
        r2 = s.post("/v2/models/add_mul/infer", add_mul_request())
        check("explicit: the repository API unloads a model (then 503)",
              r.status_code == 200 and r2.status_code == 503, (r.text, r2.text))
    finally:
        s.stop()
    check("explicit: the server stops on SIGTERM (exit 0)", s.process.returncode == 0,
          s.process.returncode)

    s = Server(repo, "explicit_all", ["--model-control-mode", "explicit", "--load-model", "*"])
    if s.ok:
        try:
            index = s.index()
            check("explicit with --load-model '*' loads every model",
                  all(index.get(k, {}).get("state") == "READY"
                      for k in (("add_mul", "1"), ("add_mul", "2"), ("int64_add", "1"),
                                ("batched", "1"))), index)
        finally:
            s.stop()

    rc, text = run_command("--model-repository", str(repo), "--host", "127.0.0.1",
                           "--http-port", "0", "--grpc-port", "off", "--metrics-port", "off",
                           "--model-control-mode", "explicit", "--load-model", "nosuch")
    check("explicit: --load-model of a folder the repository lacks stops the server, naming it",
          rc == 1 and "--load-model 'nosuch'" in text and "no model folder" in text, (rc, text))


def none_mode(repo):
    s = Server(repo, "none", [], grpc=GRPC)
    if not s.ok:
        return
    try:
        check("none is the default mode, and every model loads",
              all(s.get(f"/v2/models/{m}/ready").status_code == 200
                  for m in ("add_mul", "int64_add", "batched")))
        for verb in ("load", "unload"):
            r = s.post(f"/v2/repository/models/add_mul/{verb}")
            err = r.json().get("error", "") if r.status_code != 200 else ""
            check(f"none: the repository API's {verb} is refused (400) naming the mode",
                  r.status_code == 400 and f"cannot {verb} model 'add_mul'" in err
                  and "--model-control-mode none" in err, r.text)
        check("none: the model still serves", s.post("/v2/models/add_mul/infer",
                                                     add_mul_request()).status_code == 200)
        if s.grpc_port:
            grpc_refused(s.grpc_port)
    finally:
        s.stop()


def grpc_refused(port):
    try:
        import grpc
    except ImportError:
        print("SKIPPED control: gRPC refusal (python3-grpcio is missing)")
        return
    out = WORK / "control_client"
    out.mkdir(exist_ok=True)
    proto = HERE.parents[1] / "src" / "serve" / "proto"
    made = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{proto}",
                           f"--python_out={out}", f"--grpc_python_out={out}",
                           str(proto / "grpc_predict_v2.proto")], capture_output=True)
    if made.returncode != 0:
        print("SKIPPED control: gRPC refusal (grpc_tools.protoc is missing)")
        return
    sys.path.insert(0, str(out))
    import grpc_predict_v2_pb2 as pb
    import grpc_predict_v2_pb2_grpc as pbg
    stub = pbg.GRPCInferenceServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
    try:
        stub.RepositoryModelUnload(pb.RepositoryModelUnloadRequest(model_name="add_mul"),
                                   timeout=TIMEOUT)
        check("none: gRPC RepositoryModelUnload is refused", False, "it succeeded")
    except grpc.RpcError as e:
        check("none: gRPC RepositoryModelUnload is refused with FAILED_PRECONDITION",
              e.code() == grpc.StatusCode.FAILED_PRECONDITION
              and "--model-control-mode none" in e.details(), (e.code(), e.details()))


def usage(repo):
    base = ["--model-repository", str(repo), "--host", "127.0.0.1", "--http-port", "0",
            "--grpc-port", "off", "--metrics-port", "off"]
    for extra, needle in (
            (["--model-control-mode", "sometimes"], "must be none, poll or explicit"),
            (["--load-model", "add_mul"], "--load-model names the models to load"),
            (["--model-control-mode", "explicit", "--repository-poll-secs", "1"],
             "--repository-poll-secs polls the repository")):
        rc, text = run_command(*base, *extra)
        check(f"usage error (exit 2) for {' '.join(extra)}", rc == 2 and needle in text,
              (rc, text[-400:]))
    s = Server(repo, "poll", ["--model-control-mode", "poll"])
    if s.ok:
        s.stop()
        # Printed after the listening lines start_server read.
        out = s.process.stdout.read()
        check("poll without a period polls every 15 s",
              s.process.returncode == 0 and "polling the model repository every 15 s" in out, out)


def stats_entry(s, path):
    r = s.get(path)
    return r, (r.json().get("model_stats", []) if r.status_code == 200 else [])


def check_layout(entry):
    """Every field of the statistics extension's model statistics, typed."""
    duration = lambda d: isinstance(d, dict) and set(d) == {"count", "ns"} and all(
        isinstance(v, int) and v >= 0 for v in d.values())
    infer = entry.get("inference_stats", {})
    return (isinstance(entry.get("name"), str) and isinstance(entry.get("version"), str)
            and all(isinstance(entry.get(k), int) for k in
                    ("last_inference", "inference_count", "execution_count"))
            and all(duration(infer.get(k)) for k in
                    ("success", "fail", "queue", "compute_input", "compute_infer",
                     "compute_output", "cache_hit"))
            and isinstance(entry.get("batch_stats"), list)
            and all(isinstance(b.get("batch_size"), int)
                    and all(duration(b.get(k)) for k in
                            ("compute_input", "compute_infer", "compute_output"))
                    for b in entry["batch_stats"]))


def batch_runs(s):
    text = requests.get(s.metrics, timeout=TIMEOUT).text
    m = re.search(r'tessera_inference_batch_executions_total\{model="batched",version="1"\} (\d+)',
                  text)
    return int(m.group(1)) if m else None


def statistics(repo):
    s = Server(repo, "stats", ["--model-control-mode", "explicit", "--load-model", "*"])
    if not s.ok:
        return
    try:
        r = s.get("/v2")
        check("GET /v2 lists the statistics extension", "statistics" in r.json().get("extensions", []),
              r.text)
        r, all_stats = stats_entry(s, "/v2/models/stats")
        names = [(e["name"], e["version"]) for e in all_stats]
        check("GET /v2/models/stats: every loaded version, fresh",
              r.status_code == 200 and names == [("add_mul", "1"), ("add_mul", "2"), ("batched", "1"),
                                                 ("int64_add", "1")]
              and all(check_layout(e) and e["inference_count"] == 0 and e["last_inference"] == 0
                      for e in all_stats), r.text[:600])

        for rows in (1, 2, 3):
            s.post("/v2/models/add_mul/versions/2/infer", add_mul_request(rows))
        s.post("/v2/models/add_mul/versions/2/infer", {"inputs": [tensor("x", np.ones((1, 3), np.float32), "FP32")]})
        r, entries = stats_entry(s, "/v2/models/add_mul/versions/2/stats")
        e = entries[0] if entries else {}
        st = e.get("inference_stats", {})
        sizes = {b["batch_size"]: b["compute_infer"]["count"] for b in e.get("batch_stats", [])}
        # add_mul has no max_batch_size: each request is one inference, as
        # the extension counts a model without batching.
        check("version stats: 3 requests (of 1, 2, 3 rows; no batch dimension) and a bad one",
              r.status_code == 200 and len(entries) == 1 and check_layout(e)
              and e["version"] == "2" and e["inference_count"] == 3 and e["execution_count"] == 3
              and st["success"]["count"] == 3 and st["fail"]["count"] == 1
              and st["queue"]["count"] == 3 and st["compute_infer"]["count"] == 3
              and st["compute_infer"]["ns"] > 0
              and st["success"]["ns"] >= st["compute_infer"]["ns"]
              and sizes == {1: 3} and e["last_inference"] > 1.7e12, r.text[:800])
        r, entries = stats_entry(s, "/v2/models/add_mul/stats")
        check("model stats: each loaded version",
              [x["version"] for x in entries] == ["1", "2"]
              and entries[0]["inference_count"] == 0, r.text[:400])
        r = s.get("/v2/models/nosuch/stats")
        check("stats of an unknown model: 404", r.status_code == 404 and "nosuch" in r.text, r.text)
        r = s.get("/v2/models/add_mul/versions/9/stats")
        check("stats of an unknown version: 404", r.status_code == 404, r.text)

        # Four concurrent one-row requests to the batched model (300 ms
        # delay, max batch 8) run together.
        x = np.arange(4, dtype=np.float32).reshape(1, 4)
        req = {"inputs": [tensor("x", x, "FP32"), tensor("idx", np.array([[1]], np.int64), "INT64")]}
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            codes = list(pool.map(lambda _: s.post("/v2/models/batched/infer", req).status_code,
                                  range(4)))
        r, entries = stats_entry(s, "/v2/models/batched/stats")
        e = entries[0] if entries else {}
        st = e.get("inference_stats", {})
        rows = sum(b["batch_size"] * b["compute_infer"]["count"] for b in e.get("batch_stats", []))
        check("batched stats: 4 requests, 4 rows, fewer executions, their rows in batch_stats",
              codes == [200] * 4 and e.get("inference_count") == 4
              and e.get("execution_count", 0) < 4 and st["success"]["count"] == 4
              and st["compute_input"]["count"] == 4 and rows == 4
              and max(b["batch_size"] for b in e["batch_stats"]) > 1
              and st["queue"]["ns"] > 0, r.text[:800])
        runs_before = batch_runs(s)

        # Loaded again: the new load's statistics start from zero, per version.
        r = s.post("/v2/repository/models/batched/load")
        r2 = s.post("/v2/repository/models/add_mul/load")
        _, entries = stats_entry(s, "/v2/models/stats")
        fresh = {(x["name"], x["version"]): x for x in entries}
        check("a model loaded again starts its statistics from zero",
              r.status_code == 200 and r2.status_code == 200
              and fresh[("batched", "1")]["inference_count"] == 0
              and fresh[("batched", "1")]["execution_count"] == 0
              and fresh[("batched", "1")]["batch_stats"] == []
              and fresh[("add_mul", "2")]["inference_stats"]["fail"]["count"] == 0
              and fresh[("add_mul", "2")]["last_inference"] == 0, entries)
        check("... and so does its Prometheus batch counter",
              runs_before and runs_before > 0 and batch_runs(s) == 0, (runs_before, batch_runs(s)))
        s.post("/v2/models/batched/infer", req)
        _, entries = stats_entry(s, "/v2/models/batched/versions/1/stats")
        check("the reloaded model counts its own requests",
              entries and entries[0]["inference_count"] == 1
              and entries[0]["execution_count"] == 1, entries)
        s.post("/v2/repository/models/int64_add/unload")
        _, entries = stats_entry(s, "/v2/models/stats")
        r = s.get("/v2/models/int64_add/stats")
        check("an unloaded model has no statistics (503 naming why)",
              "int64_add" not in {x["name"] for x in entries} and r.status_code == 503
              and "unloaded" in r.text, r.text)
    finally:
        s.stop()


repo = make_repo()
explicit(repo)
none_mode(repo)
usage(repo)
statistics(repo)
print(f"control: {len(failures)} failed" if failures else "control: all checks passed")
sys.exit(1 if failures else 0)
