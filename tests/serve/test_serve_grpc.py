#!/usr/bin/env python3
"""The Open Inference Protocol over gRPC against a running `tessera serve`
(started by test_serve.sh on the repository make_serve_repository.py
writes), with a client generated at test time from the project's service
definition (src/serve/proto/grpc_predict_v2.proto) by Debian's
python3-grpc-tools (or protoc and grpc_python_plugin).

Every RPC; every datatype through typed contents and raw_input_contents;
BYTES; requested outputs and request ids; errors with their status codes;
concurrent requests batched; overload and deadlines; the repository
extension. Outputs are compared with the same request over HTTP.

Usage: test_serve_grpc.py GRPC_ADDRESS HTTP_URL WORKDIR METRICS_URL [drain SERVER_PID]
With `drain`, sends one request over each transport to slow_batched (held
1.5 s), sends SIGTERM to the server while they wait, and checks that both
are answered.
Exit status 77 (printed as SKIPPED) when the Python gRPC packages are missing."""
import concurrent.futures
import importlib
import pathlib
import shutil
import subprocess
import sys
import time

ADDRESS, HTTP, WORK, METRICS = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4]
PROTO = pathlib.Path(__file__).resolve().parents[2] / "src" / "serve" / "proto"
TIMEOUT = 60
SKIP = 77

try:
    import grpc
    import numpy as np
    import requests
except ImportError as e:
    print(f"SKIPPED: the gRPC serving test needs python3-grpcio, python3-numpy and "
          f"python3-requests ({e})")
    sys.exit(SKIP)


def generate_stubs(out, name):
    """The client modules of src/serve/proto/NAME.proto, generated into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    proto = str(PROTO / f"{name}.proto")
    tools = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO}",
                            f"--python_out={out}", f"--grpc_python_out={out}", proto],
                           capture_output=True, text=True)
    if tools.returncode != 0:
        plugin = shutil.which("grpc_python_plugin")
        protoc = shutil.which("protoc")
        if not (plugin and protoc):
            print("SKIPPED: neither python3-grpc-tools nor protoc with grpc_python_plugin can "
                  f"generate the client ({tools.stderr.strip()[:200]})")
            sys.exit(SKIP)
        subprocess.run([protoc, f"-I{PROTO}", f"--python_out={out}", f"--grpc_out={out}",
                        f"--plugin=protoc-gen-grpc={plugin}", proto], check=True)
    if str(out) not in sys.path:
        sys.path.insert(0, str(out))
    return (importlib.import_module(f"{name}_pb2"), importlib.import_module(f"{name}_pb2_grpc"))


pb, pb_grpc = generate_stubs(WORK / "grpc_client", "grpc_predict_v2")
health_pb, health_grpc = generate_stubs(WORK / "grpc_client", "health")
channel = grpc.insecure_channel(ADDRESS)
stub = pb_grpc.GRPCInferenceServiceStub(channel)
health_stub = health_grpc.HealthStub(channel)
failures = []


def check(what, condition, detail=""):
    if condition:
        print(f"ok   grpc: {what}")
    else:
        print(f"FAILED CHECK grpc: {what} {detail}")
        failures.append(what)


def call(rpc, request, timeout=TIMEOUT):
    """(response, None) or (None, RpcError)."""
    try:
        return rpc(request, timeout=timeout), None
    except grpc.RpcError as e:
        return None, e


def expect_status(what, rpc, request, code, *words, timeout=TIMEOUT):
    _, err = call(rpc, request, timeout)
    got = (err.code(), err.details()) if err else ("OK", "")
    check(f"{what}: {code.name} naming {', '.join(words)}",
          err is not None and err.code() == code and all(w in err.details() for w in words),
          f"(got {got})")


# The typed contents field of each datatype, and the numpy type of its elements.
FIELDS = {"BOOL": ("bool_contents", np.bool_), "INT8": ("int_contents", np.int8),
          "INT16": ("int_contents", np.int16), "INT32": ("int_contents", np.int32),
          "INT64": ("int64_contents", np.int64), "UINT8": ("uint_contents", np.uint8),
          "UINT16": ("uint_contents", np.uint16), "UINT32": ("uint_contents", np.uint32),
          "UINT64": ("uint64_contents", np.uint64), "FP32": ("fp32_contents", np.float32),
          "FP64": ("fp64_contents", np.float64), "FP16": (None, np.float16)}


def raw_bytes(arr, datatype):
    if datatype == "BYTES":
        return b"".join(len(s).to_bytes(4, "little") + s for s in arr.reshape(-1))
    if datatype == "BF16":
        return (arr.astype(np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
    return arr.astype(arr.dtype.newbyteorder("<")).tobytes()


def infer_request(model, inputs, raw=False, outputs=(), version="", rid="", parameters=None):
    """inputs: [(name, datatype, array)]."""
    r = pb.ModelInferRequest(model_name=model, model_version=version, id=rid)
    for name, datatype, arr in inputs:
        t = r.inputs.add(name=name, datatype=datatype, shape=list(arr.shape))
        if raw:
            r.raw_input_contents.append(raw_bytes(arr, datatype))
        elif datatype == "BYTES":
            t.contents.bytes_contents.extend(list(arr.reshape(-1)))
        else:
            getattr(t.contents, FIELDS[datatype][0]).extend(arr.reshape(-1).tolist())
    for o in outputs:
        r.outputs.add(name=o)
    for key, value in (parameters or {}).items():
        r.parameters[key].CopyFrom(value)
    return r


def output_array(response, index):
    """Output `index` of a response, from raw or typed contents."""
    o = response.outputs[index]
    shape = list(o.shape)
    if response.raw_output_contents:
        data = response.raw_output_contents[index]
        if o.datatype == "BYTES":
            items, at = [], 0
            while at < len(data):
                n = int.from_bytes(data[at:at + 4], "little")
                items.append(data[at + 4:at + 4 + n])
                at += 4 + n
            return np.array(items, dtype=object).reshape(shape)
        if o.datatype == "BF16":
            bits = np.frombuffer(data, "<u2").astype(np.uint32) << 16
            return bits.view(np.float32).reshape(shape)
        dtype = {"BOOL": np.bool_, "FP16": np.float16}.get(o.datatype) or FIELDS[o.datatype][1]
        return np.frombuffer(data, np.dtype(dtype).newbyteorder("<")).reshape(shape)
    if o.datatype == "BYTES":
        return np.array(list(o.contents.bytes_contents), dtype=object).reshape(shape)
    field, dtype = FIELDS[o.datatype]
    return np.array(list(getattr(o.contents, field)), dtype=dtype).reshape(shape)


def server_rpcs():
    r, _ = call(stub.ServerLive, pb.ServerLiveRequest())
    check("ServerLive is live", r is not None and r.live)
    r, _ = call(stub.ServerReady, pb.ServerReadyRequest())
    http_ready = requests.get(f"{HTTP}/v2/health/ready", timeout=TIMEOUT).status_code == 200
    check(f"ServerReady agrees with GET /v2/health/ready ({http_ready})",
          r is not None and r.ready == http_ready, r)
    r, _ = call(stub.ServerMetadata, pb.ServerMetadataRequest())
    check("ServerMetadata names tessera and the model_repository extension",
          r is not None and r.name == "tessera" and r.version and
          "model_repository" in r.extensions, r)


def model_rpcs():
    r, _ = call(stub.ModelReady, pb.ModelReadyRequest(name="add_mul"))
    check("ModelReady add_mul", r is not None and r.ready)
    r, _ = call(stub.ModelReady, pb.ModelReadyRequest(name="add_mul", version="1"))
    check("ModelReady add_mul version 1", r is not None and r.ready)
    r, _ = call(stub.ModelReady, pb.ModelReadyRequest(name="broken"))
    check("ModelReady of a model that failed to load is false", r is not None and not r.ready)
    expect_status("ModelReady of an unknown model", stub.ModelReady,
                  pb.ModelReadyRequest(name="nosuch"), grpc.StatusCode.NOT_FOUND, "nosuch")
    r, _ = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="demo_transformer"))
    check("ModelMetadata demo_transformer: platform onnx, input shape [-1, 8, 32]",
          r is not None and r.platform == "onnx" and list(r.inputs[0].shape) == [-1, 8, 32]
          and r.inputs[0].datatype == "FP32", r)
    r, _ = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="add_mul"))
    check("ModelMetadata add_mul: versions 1 and 2, inputs x and y, outputs sum and product",
          r is not None and list(r.versions) == ["1", "2"]
          and [t.name for t in r.inputs] == ["x", "y"]
          and [t.name for t in r.outputs] == ["sum", "product"], r)
    r, _ = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="strings"))
    check("ModelMetadata strings: BYTES", r is not None and r.inputs[0].datatype == "BYTES", r)
    expect_status("ModelMetadata of an unknown version", stub.ModelMetadata,
                  pb.ModelMetadataRequest(name="add_mul", version="9"),
                  grpc.StatusCode.NOT_FOUND, "add_mul", "9")


def datatypes():
    rng = np.random.default_rng(5)
    cases = [  # model, input, output, datatype, array, expected output
        ("fp64_mul", ["x", "y"], "z", "FP64", rng.standard_normal(4), lambda a: a * a),
        ("int64_add", ["x", "y"], "z", "INT64", np.array([-(2 ** 40), 3, 7]), lambda a: a + a),
        ("int8_add", ["x", "y"], "z", "INT8", np.array([-60, 1, 60], np.int8), lambda a: a + a),
        ("bool_not", ["b"], "not_b", "BOOL", np.array([[True, False], [False, True]]),
         lambda a: ~a),
        ("fp16_add", ["h"], "h2", "FP16", np.array([0.5, -1.25, 3], np.float16), lambda a: a + a),
        ("bf16_add", ["b"], "b2", "BF16", np.array([0.5, -1.25, 3], np.float32),
         lambda a: a + a),
        ("strings", ["text"], "same", "BYTES", np.array([b"a", b"with\0nul", b""], dtype=object),
         lambda a: a),
    ]
    for name, dt in (("uint8", np.uint8), ("uint16", np.uint16), ("uint32", np.uint32),
                     ("uint64", np.uint64), ("int16", np.int16), ("int32", np.int32)):
        info = np.iinfo(dt)
        cases.append((f"echo_{name}", ["a"], "b", name.upper(),
                      np.array([info.min, 1, info.max], dt), lambda a: a))
    for model, inputs, out, datatype, arr, expect in cases:
        for raw in (False, True):
            if not raw and datatype in ("FP16", "BF16"):
                continue  # no typed field: checked as an error below
            req = infer_request(model, [(n, datatype, arr) for n in inputs], raw=raw)
            r, err = call(stub.ModelInfer, req)
            form = "raw_input_contents" if raw else "typed contents"
            if err is not None:
                check(f"ModelInfer {datatype} through {form}", False, err)
                continue
            got = output_array(r, 0)
            want = expect(arr)
            same = (list(got.reshape(-1)) == list(want.reshape(-1)) if datatype == "BYTES"
                    else np.array_equal(got.astype(want.dtype), want))
            check(f"ModelInfer {datatype} through {form} ({model}): "
                  f"{'raw' if r.raw_output_contents else 'typed'} output {r.outputs[0].datatype}",
                  same and r.outputs[0].datatype == datatype and list(r.outputs[0].shape) ==
                  list(arr.shape) and bool(r.raw_output_contents) == (raw or datatype in
                                                                       ("FP16", "BF16")),
                  f"got {got!r}, want {want!r}")


def demo_and_outputs():
    x = np.random.default_rng(3).standard_normal((1, 3, 32, 32)).astype(np.float32)
    meta = requests.get(f"{HTTP}/v2/models/demo_cnn", timeout=TIMEOUT).json()
    name = meta["inputs"][0]["name"]
    http = requests.post(f"{HTTP}/v2/models/demo_cnn/infer", timeout=TIMEOUT, json={
        "inputs": [{"name": name, "shape": list(x.shape), "datatype": "FP32",
                    "data": x.reshape(-1).tolist()}]}).json()
    r, err = call(stub.ModelInfer, infer_request("demo_cnn", [(name, "FP32", x)], raw=True))
    check("demo_cnn over gRPC (raw) gives HTTP's output",
          err is None and np.allclose(output_array(r, 0).reshape(-1),
                                      np.array(http["outputs"][0]["data"]), atol=1e-5), err)

    ones = np.ones((2, 3), np.float32)
    r, err = call(stub.ModelInfer, infer_request(
        "add_mul", [("x", "FP32", ones * 2), ("y", "FP32", ones * 3)], outputs=["product"],
        version="1", rid="req-42"))
    check("requested output, version and id: only 'product' of version 1, id echoed",
          err is None and [o.name for o in r.outputs] == ["product"] and r.model_version == "1"
          and r.id == "req-42" and np.allclose(output_array(r, 0), 6), err or r)
    r, err = call(stub.ModelInfer, infer_request("add_mul", [("x", "FP32", ones),
                                                             ("y", "FP32", ones)]))
    check("no requested outputs: every output, in the model's order, of the highest version",
          err is None and [o.name for o in r.outputs] == ["sum", "product"]
          and r.model_version == "2", err or r)


def errors():
    x3 = np.ones((1, 3), np.float32)
    INVALID = grpc.StatusCode.INVALID_ARGUMENT
    cases = [
        ("unknown model", infer_request("nosuch", []), grpc.StatusCode.NOT_FOUND, ["nosuch"]),
        ("no model_name", infer_request("", []), INVALID, ["model_name"]),
        ("unknown input", infer_request("add_mul", [("w", "FP32", x3)]), INVALID,
         ["add_mul", "'w'", "inputs: x, y"]),
        ("missing input", infer_request("add_mul", [("x", "FP32", x3)]), INVALID,
         ["add_mul", "'y' is missing"]),
        ("wrong datatype", infer_request("add_mul", [("x", "FP64", x3.astype(np.float64)),
                                                     ("y", "FP32", x3)]), INVALID,
         ["add_mul", "'x'", "FP64", "FP32"]),
        ("wrong shape", infer_request("add_mul", [("x", "FP32", np.ones(3, np.float32)),
                                                  ("y", "FP32", x3)]), INVALID,
         ["add_mul", "'x'", "shape [3]"]),
        ("unknown requested output", infer_request("add_mul", [("x", "FP32", x3),
                                                               ("y", "FP32", x3)],
                                                   outputs=["nope"]), INVALID,
         ["add_mul", "'nope'"]),
        ("INT8 element out of range", infer_request("int8_add", [
            ("x", "INT8", np.array([300, 1, 1])), ("y", "INT8", np.array([1, 1, 1]))]), INVALID,
         ["int8_add", "'x'", "300", "-128..127"]),
        ("FP16 in typed contents", infer_request("fp16_add", []), INVALID, []),
        ("batch over max_batch_size", infer_request("demo_transformer", [
            ("input", "FP32", np.zeros((5, 8, 32), np.float32))], raw=True), INVALID,
         ["demo_transformer", "batch 5", "max_batch_size 4"]),
    ]
    # FP16 typed: built by hand (there is no field to fill).
    fp16 = pb.ModelInferRequest(model_name="fp16_add")
    fp16.inputs.add(name="h", datatype="FP16", shape=[3])
    cases[8] = ("FP16 in typed contents", fp16, INVALID, ["fp16_add", "'h'", "raw_input_contents"])
    short = infer_request("add_mul", [("x", "FP32", x3), ("y", "FP32", x3)])
    short.inputs[0].contents.fp32_contents.pop()
    cases.append(("typed contents short of the shape", short, INVALID,
                  ["add_mul", "'x'", "fp32_contents holds 2", "needs 3"]))
    wrong_field = infer_request("add_mul", [("x", "FP32", x3), ("y", "FP32", x3)])
    wrong_field.inputs[1].contents.int64_contents.extend([1, 2, 3])
    cases.append(("a second contents field", wrong_field, INVALID,
                  ["add_mul", "'y'", "int64_contents", "fp32_contents"]))
    raw_short = infer_request("add_mul", [("x", "FP32", x3), ("y", "FP32", x3)], raw=True)
    raw_short.raw_input_contents[1] = raw_short.raw_input_contents[1][:8]
    cases.append(("raw contents of the wrong size", raw_short, INVALID,
                  ["add_mul", "'y'", "raw_input_contents[1] is 8 bytes", "needs 12"]))
    raw_count = infer_request("add_mul", [("x", "FP32", x3), ("y", "FP32", x3)], raw=True)
    del raw_count.raw_input_contents[1]
    cases.append(("one raw entry for two inputs", raw_count, INVALID,
                  ["add_mul", "raw_input_contents has 1 entries for 2 inputs"]))
    mixed = infer_request("add_mul", [("x", "FP32", x3), ("y", "FP32", x3)], raw=True)
    mixed.inputs[0].contents.fp32_contents.extend([1, 2, 3])
    cases.append(("raw and typed contents mixed", mixed, INVALID, ["add_mul", "'x'", "raw"]))
    bad_bytes = infer_request("strings", [("text", "BYTES", np.array([b"ab"], dtype=object))],
                              raw=True)
    bad_bytes.raw_input_contents[0] = (9).to_bytes(4, "little") + b"ab"
    cases.append(("a BYTES length past the data", bad_bytes, INVALID,
                  ["strings", "'text'", "length 9"]))
    timeout = infer_request("add_mul", [("x", "FP32", x3), ("y", "FP32", x3)],
                            parameters={"timeout": pb.InferParameter(string_param="soon")})
    cases.append(("a timeout parameter that is not int64", timeout, INVALID,
                  ["add_mul", "timeout"]))
    big = infer_request("strings", [("text", "BYTES", np.array([b"x" * 2000000], dtype=object))])
    cases.append(("a message over --max-body-bytes (1 MiB in the test)", big,
                  grpc.StatusCode.RESOURCE_EXHAUSTED, []))
    for what, req, code, words in cases:
        expect_status(f"ModelInfer {what}", stub.ModelInfer, req, code, *words)
    r, err = call(stub.ServerLive, pb.ServerLiveRequest())
    check("the server answers after every bad request", err is None and r.live, err)


def metric(name):
    text = requests.get(METRICS, timeout=TIMEOUT).text
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def wait_in_flight(model, n, seconds=20):
    """Waits until the metrics show `n` requests in flight for `model`."""
    key = f'tessera_inference_requests_in_flight{{model="{model}",version="1"}}'
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if metric(key) >= n:
            return True
        time.sleep(0.02)
    check(f"{n} requests in flight for {model} within {seconds} s", False)
    return False


def batching():
    runs = 'tessera_inference_batch_executions_total{model="batched",version="1"}'
    rng = np.random.default_rng(8)

    def one(i):
        x = rng.standard_normal((1, 4)).astype(np.float32)
        idx = np.array([[i % 4]], np.int64)
        r, err = call(stub.ModelInfer, infer_request(
            "batched", [("x", "FP32", x), ("idx", "INT64", idx)], raw=i % 2 == 0, rid=str(i)))
        return (err is None and r.id == str(i)
                and np.allclose(output_array(r, 0), x[0, i % 4])
                and np.allclose(output_array(r, 1), 2 * x))

    before = metric(runs)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(8)))
    executions = metric(runs) - before
    check("8 concurrent requests to a batched model each get their own rows", all(results),
          results)
    check(f"... in {executions:.0f} session runs (at most 3; 8 without batching)",
          1 <= executions <= 3, executions)
    counted = metric('tessera_inference_requests_total{model="batched",version="1",'
                     'outcome="success"}')
    check("gRPC requests are counted in the metrics", counted >= 8, counted)


def overload_and_deadlines():
    row = [("x", "FP32", np.array([[1, 2]], np.float32))]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        held = [pool.submit(call, stub.ModelInfer, infer_request("slow_batched", row))
                for _ in range(2)]
        wait_in_flight("slow_batched", 2)  # both are queued now
        start = time.monotonic()
        expect_status("a request past max_queue_size", stub.ModelInfer,
                      infer_request("slow_batched", row), grpc.StatusCode.RESOURCE_EXHAUSTED,
                      "slow_batched", "max_queue_size 2")
        seconds = time.monotonic() - start
        check(f"... answered at once ({seconds:.2f} s)", seconds < 1.0, seconds)
        answers = [f.result() for f in held]
    check("the queued requests are answered with their rows",
          all(err is None and np.allclose(output_array(r, 0), [[2, 4]]) for r, err in answers),
          answers)
    start = time.monotonic()
    expect_status("a timeout parameter that passes while queued", stub.ModelInfer,
                  infer_request("slow_batched", row,
                                parameters={"timeout": pb.InferParameter(int64_param=100000)}),
                  grpc.StatusCode.DEADLINE_EXCEEDED, "slow_batched", "deadline passed")
    seconds = time.monotonic() - start
    check(f"... answered when it passes ({seconds:.2f} s)", 0.09 < seconds < 1.4, seconds)
    expect_status("config.json's request_timeout_microseconds", stub.ModelInfer,
                  infer_request("timed_batched", row), grpc.StatusCode.DEADLINE_EXCEEDED,
                  "timed_batched", "deadline passed")
    # The call's own deadline: the server gives up on the request too, so the
    # queue is free for the next one (max_queue_size 2).
    for _ in range(3):
        _, err = call(stub.ModelInfer, infer_request("slow_batched", row), timeout=0.2)
        check("a gRPC call deadline: DEADLINE_EXCEEDED",
              err is not None and err.code() == grpc.StatusCode.DEADLINE_EXCEEDED, err)
    end = time.monotonic() + 20
    while metric('tessera_inference_requests_in_flight{model="slow_batched",version="1"}') > 0 \
            and time.monotonic() < end:
        time.sleep(0.02)
    r, err = call(stub.ModelInfer, infer_request("slow_batched", row))
    check("requests whose call deadline passed left the queue", err is None, err)


def repository():
    r, _ = call(stub.RepositoryIndex, pb.RepositoryIndexRequest())
    index = {(m.name, m.version): m for m in r.models} if r else {}
    check("RepositoryIndex lists every version with its state and reason",
          index.get(("add_mul", "2")) is not None and index[("add_mul", "2")].state == "READY"
          and index[("broken", "1")].state == "UNAVAILABLE" and index[("broken", "1")].reason,
          r)
    r, _ = call(stub.RepositoryIndex, pb.RepositoryIndexRequest(ready=True))
    check("RepositoryIndex ready=true lists loaded versions only",
          r is not None and r.models and all(m.state == "READY" for m in r.models), r)
    _, err = call(stub.RepositoryModelUnload, pb.RepositoryModelUnloadRequest(model_name="fp64_mul"))
    check("RepositoryModelUnload", err is None, err)
    r, _ = call(stub.ModelReady, pb.ModelReadyRequest(name="fp64_mul"))
    check("an unloaded model is not ready", r is not None and not r.ready)
    expect_status("ModelInfer on an unloaded model", stub.ModelInfer,
                  infer_request("fp64_mul", [("x", "FP64", np.ones(2)), ("y", "FP64", np.ones(2))]),
                  grpc.StatusCode.UNAVAILABLE, "fp64_mul", "unloaded")
    _, err = call(stub.RepositoryModelLoad, pb.RepositoryModelLoadRequest(model_name="fp64_mul"))
    r, _ = call(stub.ModelReady, pb.ModelReadyRequest(name="fp64_mul"))
    check("RepositoryModelLoad loads it again", err is None and r is not None and r.ready, err)
    expect_status("RepositoryModelLoad of a folder that does not exist", stub.RepositoryModelLoad,
                  pb.RepositoryModelLoadRequest(model_name="nosuch"), grpc.StatusCode.NOT_FOUND,
                  "nosuch")
    expect_status("RepositoryModelLoad of a model that fails to load", stub.RepositoryModelLoad,
                  pb.RepositoryModelLoadRequest(model_name="broken"),
                  grpc.StatusCode.INVALID_ARGUMENT, "broken")
    r, _ = call(stub.ServerReady, pb.ServerReadyRequest())
    check("ServerReady is false once a model asked to load has failed",
          r is not None and not r.ready, r)


def statistics():
    """ModelStatistics carries the figures GET .../stats shows, field for field."""
    def duration(d):
        return {"count": d.count, "ns": d.ns}

    def as_json(m):
        i = m.inference_stats
        return {"name": m.name, "version": m.version, "last_inference": m.last_inference,
                "inference_count": m.inference_count, "execution_count": m.execution_count,
                "inference_stats": {k: duration(getattr(i, k)) for k in (
                    "success", "fail", "queue", "compute_input", "compute_infer",
                    "compute_output", "cache_hit")},
                "batch_stats": [{"batch_size": b.batch_size,
                                 **{k: duration(getattr(b, k)) for k in (
                                     "compute_input", "compute_infer", "compute_output")}}
                                for b in m.batch_stats]}
    # The batched model, idle now: both transports read the same figures.
    r, err = call(stub.ModelStatistics, pb.ModelStatisticsRequest(name="batched"))
    http = requests.get(f"{HTTP}/v2/models/batched/stats", timeout=TIMEOUT).json()["model_stats"]
    check("ModelStatistics equals GET /v2/models/batched/stats",
          err is None and [as_json(m) for m in r.model_stats] == http
          and http and http[0]["execution_count"] > 0, (err, r, http))
    r, _ = call(stub.ModelStatistics, pb.ModelStatisticsRequest())
    check("ModelStatistics without a name: every loaded version",
          r is not None and {("batched", "1"), ("add_mul", "2")} <= {
              (m.name, m.version) for m in r.model_stats}, r)
    expect_status("ModelStatistics of an unknown model", stub.ModelStatistics,
                  pb.ModelStatisticsRequest(name="nosuch"), grpc.StatusCode.NOT_FOUND, "nosuch")
    r, _ = call(stub.ServerMetadata, pb.ServerMetadataRequest())
    check("ServerMetadata lists the statistics extension",
          r is not None and "statistics" in r.extensions, r)


def health():
    """grpc.health.v1.Health: the server, the inference service and each model."""
    Status = health_pb.HealthCheckResponse.ServingStatus
    ready = stub.ServerReady(pb.ServerReadyRequest(), timeout=TIMEOUT).ready
    want = Status.Name(Status.SERVING if ready else Status.NOT_SERVING)
    for service in ("", "inference.GRPCInferenceService"):
        r, err = call(health_stub.Check, health_pb.HealthCheckRequest(service=service))
        check(f"Health.Check('{service}') is {want}, as ServerReady says ({ready})",
              err is None and Status.Name(r.status) == want, err or r)
    r, err = call(health_stub.Check, health_pb.HealthCheckRequest(service="add_mul"))
    check("Health.Check of a loaded model is SERVING",
          err is None and r.status == Status.SERVING, err or r)
    r, err = call(health_stub.Check, health_pb.HealthCheckRequest(service="broken"))
    check("Health.Check of a model that failed to load is NOT_SERVING",
          err is None and r.status == Status.NOT_SERVING, err or r)
    expect_status("Health.Check of an unknown service", health_stub.Check,
                  health_pb.HealthCheckRequest(service="nosuch"), grpc.StatusCode.NOT_FOUND,
                  "nosuch")
    # Watch follows a model through an unload and a load.
    stream = health_stub.Watch(health_pb.HealthCheckRequest(service="int64_add"), timeout=TIMEOUT)
    seen = [Status.Name(next(stream).status)]
    stub.RepositoryModelUnload(pb.RepositoryModelUnloadRequest(model_name="int64_add"),
                               timeout=TIMEOUT)
    seen.append(Status.Name(next(stream).status))
    stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="int64_add"),
                             timeout=TIMEOUT)
    seen.append(Status.Name(next(stream).status))
    stream.cancel()
    check("Health.Watch sends SERVING, NOT_SERVING on unload, SERVING on load",
          seen == ["SERVING", "NOT_SERVING", "SERVING"], seen)
    stream = health_stub.Watch(health_pb.HealthCheckRequest(service="nosuch"), timeout=TIMEOUT)
    first = Status.Name(next(stream).status)
    stream.cancel()
    check("Health.Watch of an unknown service sends SERVICE_UNKNOWN", first == "SERVICE_UNKNOWN",
          first)


def drain(server_pid):
    import os
    import signal
    row = [("x", "FP32", np.array([[1, 2]], np.float32))]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        over_grpc = pool.submit(call, stub.ModelInfer, infer_request("slow_batched", row))
        over_http = pool.submit(requests.post, f"{HTTP}/v2/models/slow_batched/infer",
                                timeout=TIMEOUT, json={"inputs": [{
                                    "name": "x", "shape": [1, 2], "datatype": "FP32",
                                    "data": [1, 2]}]})
        wait_in_flight("slow_batched", 2)  # both wait for their batch now
        watch = health_stub.Watch(health_pb.HealthCheckRequest(service=""), timeout=TIMEOUT)
        first = next(watch).status
        start = time.monotonic()
        os.kill(server_pid, signal.SIGTERM)
        statuses = [first]
        try:
            statuses += [r.status for r in watch]  # until the server ends the stream
            ended = "OK"
        except grpc.RpcError as e:
            ended = e.code().name
        seconds = time.monotonic() - start
        Status = health_pb.HealthCheckResponse.ServingStatus
        check(f"a Health.Watch open at SIGTERM ends with NOT_SERVING ({seconds:.2f} s, not the 30 s grace)",
              statuses[-1] == Status.NOT_SERVING and ended == "OK" and seconds < 5,
              (statuses, ended, seconds))
        r, err = over_grpc.result()
        check("a gRPC request in flight at SIGTERM is answered",
              err is None and np.allclose(output_array(r, 0), [[2, 4]]), err)
        h = over_http.result()
        check("an HTTP request in flight at SIGTERM is answered",
              h.status_code == 200 and h.json()["outputs"][0]["data"] == [2.0, 4.0], h.text[:200])
    sys.exit(1 if failures else 0)


if len(sys.argv) > 5 and sys.argv[5] == "drain":
    drain(int(sys.argv[6]))
server_rpcs()
model_rpcs()
datatypes()
demo_and_outputs()
errors()
batching()
overload_and_deadlines()
statistics()
health()
repository()
print(f"grpc: {len(failures)} failed" if failures else "all gRPC serving checks passed")
sys.exit(1 if failures else 0)
