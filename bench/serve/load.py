#!/usr/bin/env python3
"""A bounded load generator for `tessera serve`, on the loopback address.

Writes a model repository holding one model twice: as is, and with dynamic
batching; starts `tessera serve` on free ports; then, for each transport
(HTTP with the binary tensor extension, gRPC with raw_input_contents), each
batching choice and each concurrency, runs that many client threads sending
one-row requests for a fixed duration (and at most --max-requests in all),
and prints a table of throughput and latency percentiles, with the session
runs the server made (from its metrics) to show how requests were batched.
The server and the clients share this machine's cores.

Beside it, the limit: the same model run in this process through Tessera's
Python package (same thread count), one batch after another for each batch
size up to --max-batch. The summary compares the server at one client with
the in-process batch of one (the server's overhead), and the server with
dynamic batching at the most clients with the best in-process throughput
over batch sizes (what batching recovers).

Usage: /usr/bin/python3 bench/serve/load.py --tessera build/tessera
         [--model models/demo_transformer/model.onnx] [--concurrency 1,4,16]
         [--duration 5] [--transports http,grpc] [--max-batch 16] [--delay-us 2000]
         [--access-log none|stderr|FILE] [--no-in-process] [--python-path build/python]

The server runs with `--access-log none` unless asked otherwise, so the
table measures the protocol and the batching, not one log line per request."""
import argparse
import concurrent.futures
import importlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "serve"))
import serve_process  # noqa: E402  (the shared way to start the server)

DTYPES = {"FP32": "<f4", "INT64": "<i8", "INT32": "<i4"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tessera", default=str(ROOT / "build" / "tessera"))
    p.add_argument("--model", default=str(ROOT / "models" / "demo_transformer" / "model.onnx"),
                   help="an ONNX model whose inputs have a dynamic first dimension")
    p.add_argument("--concurrency", default="1,4,16,64")
    p.add_argument("--duration", type=float, default=5.0, help="seconds per row of the table")
    p.add_argument("--max-requests", type=int, default=200000, help="per row, a bound")
    p.add_argument("--transports", default="http,grpc")
    p.add_argument("--batching", default="off,on",
                   help="rows without (off) and with (on) dynamic batching")
    p.add_argument("--seq-lens", default="",
                   help="for inputs whose second dimension is dynamic: the lengths the clients "
                        "send, one per client in turn (default: 1)")
    p.add_argument("--max-batch", type=int, default=16)
    p.add_argument("--delay-us", type=int, default=2000,
                   help="dynamic batching's max_queue_delay_microseconds")
    p.add_argument("--access-log", default="none", help="the server's --access-log")
    p.add_argument("--threads", type=int, default=0, help="intra_op_threads of each model (0: default)")
    p.add_argument("--session-config", action="append", default=[], metavar="KEY=VALUE",
                   help="a session configuration entry of each model (config.json's session_config)")
    p.add_argument("--no-in-process", action="store_true", help="skip the in-process limit")
    p.add_argument("--python-path", default=str(ROOT / "build" / "python"),
                   help="where the tessera Python package is (for the in-process limit)")
    return p.parse_args()


def write_repository(args, repo):
    for name, batching in (("plain", False), ("batched", True)):
        (repo / name / "1").mkdir(parents=True)
        shutil.copy(args.model, repo / name / "1" / "model.onnx")
        config = {"max_batch_size": args.max_batch}
        if args.threads:
            config["intra_op_threads"] = args.threads
        if args.session_config:
            config["session_config"] = dict(e.split("=", 1) for e in args.session_config)
        if batching:
            config["dynamic_batching"] = {"max_queue_delay_microseconds": args.delay_us}
        (repo / name / "config.json").write_text(json.dumps(config))


def start_server(args, repo, log):
    server, ports = serve_process.start_server(
        args.tessera, repo, log, extra=["--http-threads", "80", "--access-log", args.access_log])
    if len(ports) < 3:
        server.kill()
        sys.exit(f"the server did not start (ports seen: {ports}; log: {log.name})")
    return server, ports


def grpc_client(work):
    import grpc
    proto = ROOT / "src" / "serve" / "proto"
    out = work / "client"
    out.mkdir()
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{proto}", f"--python_out={out}",
                    f"--grpc_python_out={out}", str(proto / "grpc_predict_v2.proto")], check=True)
    sys.path.insert(0, str(out))
    return (grpc, importlib.import_module("grpc_predict_v2_pb2"),
            importlib.import_module("grpc_predict_v2_pb2_grpc"))


def session_runs(metrics_url, model):
    text = requests.get(metrics_url, timeout=30).text
    m = re.search(r'tessera_inference_batch_executions_total\{model="%s",version="1"\} (\d+)'
                  % model, text)
    return int(m.group(1)) if m else None


def session_seconds(http, model):
    """Seconds the model's session has spent in runs (statistics extension)."""
    stats = requests.get(f"{http}/v2/models/{model}/versions/1/stats", timeout=30).json()
    return sum(b["compute_infer"]["ns"] for b in stats["model_stats"][0]["batch_stats"]) / 1e9


def requests_total(metrics_url, model):
    text = requests.get(metrics_url, timeout=30).text
    m = re.search(r'tessera_inference_requests_total\{model="%s",version="1",outcome="success"\} '
                  r'(\d+)' % model, text)
    return int(m.group(1)) if m else 0


def cpu_seconds(pid):
    """User plus system CPU time of process `pid` (all its threads), from /proc."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def context_switches(pid):
    """Voluntary plus involuntary context switches of the threads process
    `pid` has now (those of threads that have ended are not counted)."""
    total = 0
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            for line in (task / "status").read_text().splitlines():
                if "ctxt_switches:" in line:
                    total += int(line.split()[1])
        except OSError:  # the thread ended while it was read
            pass
    return total


def batch_compute(http, model):
    """{rows: (session runs, total compute seconds)} of the model's batches
    (statistics extension)."""
    stats = requests.get(f"{http}/v2/models/{model}/versions/1/stats", timeout=30).json()
    return {b["batch_size"]: (b["compute_infer"]["count"], b["compute_infer"]["ns"] / 1e9)
            for b in stats["model_stats"][0]["batch_stats"]}


def run_load(make_send, concurrency, duration, max_requests):
    """Latencies (s) of the requests `concurrency` threads sent in `duration`;
    client i sends with make_send(i)."""
    latencies, errors = [], []
    lock = threading.Lock()
    budget = [max_requests]
    end = time.monotonic() + duration

    def client(i):
        send = make_send(i)
        mine = []
        while time.monotonic() < end:
            with lock:
                if budget[0] <= 0:
                    break
                budget[0] -= 1
            start = time.perf_counter()
            try:
                send()
            except Exception as e:  # counted, and the run goes on
                errors.append(str(e)[:200])
                continue
            mine.append(time.perf_counter() - start)
        with lock:
            latencies.extend(mine)

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        for f in [pool.submit(client, i) for i in range(concurrency)]:
            f.result()
    return latencies, errors, time.monotonic() - started


def main():
    args = parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="tessera-load-"))
    repo = work / "repo"
    write_repository(args, repo)
    log = open(work / "server.log", "w")
    server, ports = start_server(args, repo, log)
    http = f"http://127.0.0.1:{ports['HTTP']}"
    metrics_url = f"http://127.0.0.1:{ports['metrics']}/metrics"
    try:
        meta = requests.get(f"{http}/v2/models/plain", timeout=30).json()
        seq_lens = [int(n) for n in args.seq_lens.split(",")] if args.seq_lens else [1]
        rng = np.random.default_rng(0)

        def make_inputs(seq):
            """One row of every input; a dynamic second dimension is `seq`,
            any other dynamic dimension 1."""
            inputs = []
            for t in meta["inputs"]:
                if t["datatype"] not in DTYPES:
                    sys.exit(f"input {t['name']} is {t['datatype']}; this generator sends "
                             f"{', '.join(DTYPES)}")
                shape = [1] + [d if d > 0 else (seq if i == 1 else 1)
                               for i, d in enumerate(t["shape"][1:], 1)]
                if t["datatype"] == "FP32":
                    data = rng.standard_normal(shape).astype(DTYPES["FP32"])
                else:  # token ids and masks: small non-negative integers fit both
                    data = rng.integers(1, 100, size=shape).astype(DTYPES[t["datatype"]])
                inputs.append((t["name"], t["datatype"], shape, data))
            return inputs
        inputs_of = {seq: make_inputs(seq) for seq in seq_lens}
        inputs = inputs_of[seq_lens[0]]

        senders = {}
        if "http" in args.transports:
            local = threading.local()

            def http_sender(model, seq=seq_lens[0]):
                ins = inputs_of[seq]
                header = json.dumps({"inputs": [
                    {"name": n, "shape": s, "datatype": d,
                     "parameters": {"binary_data_size": a.nbytes}} for n, d, s, a in ins],
                    "parameters": {"binary_data_output": True}}).encode()
                body = header + b"".join(a.tobytes() for _, _, _, a in ins)

                def send():
                    if not hasattr(local, "session"):
                        local.session = requests.Session()
                    r = local.session.post(f"{http}/v2/models/{model}/infer", data=body, timeout=120,
                                           headers={"Inference-Header-Content-Length": str(len(header)),
                                                    "Content-Type": "application/octet-stream"})
                    if r.status_code != 200:
                        raise RuntimeError(f"HTTP {r.status_code}: {r.text[:200]}")
                return send
            senders["http"] = http_sender
        if "grpc" in args.transports:
            grpc, pb, pb_grpc = grpc_client(work)
            channel = grpc.insecure_channel(f"127.0.0.1:{ports['gRPC']}")
            stub = pb_grpc.GRPCInferenceServiceStub(channel)

            def grpc_sender(model, seq=seq_lens[0]):
                req = pb.ModelInferRequest(model_name=model)
                for n, d, s, a in inputs_of[seq]:
                    req.inputs.add(name=n, datatype=d, shape=s)
                    req.raw_input_contents.append(a.tobytes())

                def send():
                    stub.ModelInfer(req, timeout=120)
                return send
            senders["grpc"] = grpc_sender

        # Warm-up: the first runs of each model allocate; the batched model
        # also runs full batches, as the in-process limit is warmed at each
        # batch size.
        models = [m for m, b in (("plain", "off"), ("batched", "on"))
                  if b in args.batching.split(",")]
        for make in senders.values():
            for model in models:
                for _ in range(5):
                    make(model)()
            if "batched" in models:
                sends = [make("batched", seq) for seq in seq_lens]
                with concurrent.futures.ThreadPoolExecutor(args.max_batch) as pool:
                    list(pool.map(lambda i: sends[i % len(sends)](),
                                  range(2 * args.max_batch * len(sends))))

        print(f"model {args.model}, one-row requests; dynamic batching: max_batch_size "
              f"{args.max_batch}, max_queue_delay_microseconds {args.delay_us}; "
              f"{args.duration:g} s per row"
              + (f"; client i sends sequence length {seq_lens} [i mod {len(seq_lens)}]"
                 if args.seq_lens else "") + "\n")
        rows = []
        print("| transport | dynamic batching | clients | requests | throughput (req/s) "
              "| p50 (ms) | p90 (ms) | p99 (ms) | rows per session run | runs in progress "
              "| server CPU (ms/req) | server context switches per req | client CPU (ms/req) | errors |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for transport, make in senders.items():
            for model in models:
                for concurrency in [int(c) for c in args.concurrency.split(",")]:
                    runs_before = session_runs(metrics_url, model)
                    done_before = requests_total(metrics_url, model)
                    busy = session_seconds(http, model)
                    switches = context_switches(server.pid)
                    server_cpu, client_cpu = cpu_seconds(server.pid), time.process_time()
                    lat, errors, seconds = run_load(
                        lambda i: make(model, seq_lens[i % len(seq_lens)]), concurrency,
                        args.duration, args.max_requests)
                    # CPU time, not wall time, apportions the shared cores: the
                    # clients' share is theirs, whatever the scheduler did.
                    server_cpu = cpu_seconds(server.pid) - server_cpu
                    client_cpu = time.process_time() - client_cpu
                    switches = context_switches(server.pid) - switches
                    # Session runs in progress, on average over the row: below
                    # 1 with batching, the batcher left the session idle.
                    busy = f"{(session_seconds(http, model) - busy) / seconds:.2f}"
                    runs = session_runs(metrics_url, model)
                    done = requests_total(metrics_url, model) - done_before
                    per_run = (f"{done / (runs - runs_before):.1f}"
                               if runs is not None and runs > runs_before else "1")
                    ms = np.percentile(np.array(lat) * 1000, [50, 90, 99]) if lat else [0, 0, 0]
                    n = max(len(lat), 1)
                    rows.append({"transport": transport, "batched": model == "batched",
                                 "clients": concurrency, "throughput": len(lat) / seconds,
                                 "p50_ms": ms[0], "server_cpu": server_cpu / n,
                                 "client_cpu": client_cpu / n})
                    print(f"| {transport} | {'on' if model == 'batched' else 'off'} | "
                          f"{concurrency} | {len(lat)} | {len(lat) / seconds:.3g} | "
                          f"{ms[0]:.2f} | {ms[1]:.2f} | {ms[2]:.2f} | {per_run} | {busy} | "
                          f"{server_cpu / n * 1000:.2f} | {switches / n:.1f} | {client_cpu / n * 1000:.2f} | "
                          f"{len(errors)} |", flush=True)
                    if errors:
                        print(f"  first error: {errors[0]}")
        server_batches = batch_compute(http, "batched") if "batched" in models else {}
    finally:
        serve_process.stop_server(server)
        log.close()
        shutil.rmtree(work, ignore_errors=True)
    if not args.no_in_process:
        summarize(rows, in_process(args, inputs), server_batches)


def in_process(args, inputs):
    """{batch: (p50 latency s, rows/s, CPU s per row)} of the model run here,
    batch after batch."""
    sys.path.insert(0, args.python_path)
    import tessera
    options = tessera.SessionOptions()
    if args.threads:
        options.intra_op_num_threads = args.threads
    session = tessera.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    print(f"\nIn process ({tessera.__file__}), batch after batch:\n")
    print("| batch | runs | p50 (ms) | rows/s | CPU (ms/row) |")
    print("|---|---|---|---|---|")
    result = {}
    batch = 1
    while batch <= args.max_batch:
        feeds = {n: np.repeat(a, batch, axis=0) for n, _, _, a in inputs}
        for _ in range(2):
            session.run(None, feeds)
        lat = []
        end = time.monotonic() + args.duration
        cpu = time.process_time()
        while time.monotonic() < end or len(lat) < 3:
            start = time.perf_counter()
            session.run(None, feeds)
            lat.append(time.perf_counter() - start)
        cpu = (time.process_time() - cpu) / (len(lat) * batch)
        p50 = float(np.percentile(lat, 50))
        result[batch] = (p50, batch / p50, cpu)
        print(f"| {batch} | {len(lat)} | {p50 * 1000:.2f} | {batch / p50:.1f} | {cpu * 1000:.2f} |",
              flush=True)
        batch *= 2
    return result


def summarize(rows, limit, server_batches):
    """The server against the in-process limit, per transport: by wall time,
    and by CPU time (which leaves out the clients' share of the cores); and
    the batched model's session runs in the server against the same batch
    in process, by wall time (the whole run: every row of every transport,
    and the warm-up)."""
    if server_batches:
        print("\n| batch | server session runs | server compute per run (ms) "
              "| in-process p50 (ms) | server / in-process |")
        print("|---|---|---|---|---|")
        for rows_, (count, seconds) in sorted(server_batches.items()):
            per_run = seconds / count * 1000 if count else 0.0
            there = limit.get(rows_)
            ratio = f"{per_run / (there[0] * 1000):.3f}" if there else "-"
            there_ms = f"{there[0] * 1000:.2f}" if there else "-"
            print(f"| {rows_} | {count} | {per_run:.2f} | {there_ms} | {ratio} |")
    best_batch, (_, best, best_cpu) = max(limit.items(), key=lambda kv: kv[1][1])
    print("\n| transport | server p50 at 1 client / in-process batch 1 | best server throughput "
          "with dynamic batching / best in-process (batch %d) | in-process CPU per row (batch %d) "
          "/ server CPU per request, same row |" % (best_batch, best_batch))
    print("|---|---|---|---|")
    for transport in sorted({r["transport"] for r in rows}):
        one = [r for r in rows if r["transport"] == transport and not r["batched"]
               and r["clients"] == 1]
        batched = [r for r in rows if r["transport"] == transport and r["batched"]]
        overhead = f"{one[0]['p50_ms'] / (limit[1][0] * 1000):.3f}" if one else "-"
        top = max(batched, key=lambda r: r["throughput"]) if batched else None
        share = f"{top['throughput'] / best:.3f} ({top['clients']} clients)" if top else "-"
        cpu = f"{best_cpu / top['server_cpu']:.3f}" if top and top["server_cpu"] > 0 else "-"
        print(f"| {transport} | {overhead} | {share} | {cpu} |")

if __name__ == "__main__":
    main()
