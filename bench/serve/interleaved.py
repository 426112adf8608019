#!/usr/bin/env python3
"""The batched server and the same model in process, measured in turns.

On a machine whose load changes by the minute, a table of server rows
followed by in-process rows compares two different machines. Here every
round runs, for each configuration and number of clients: a slice of that
many HTTP clients sending one-row requests (binary tensors) to the model
with dynamic batching, then a slice of the model in its own process
(Tessera's Python package, the same session configuration) running full
batches of max_batch_size rows one after another. Each line pairs a server slice with
the in-process slice after it:

- throughput: the server's requests per second over the in-process rows per
  second (the limit batching can reach);
- compute per full batch: the server's mean session run of max_batch_size
  rows (statistics extension) over the in-process mean run;
- CPU per row: the server process's CPU time per request (all its threads,
  /proc) over the in-process CPU time per row; the server's context
  switches per request, and the share of its CPU its two busiest threads
  took (the thread that runs the session and the intra-op worker, with two
  cores);
- the load average at the end of the pair.

Sequence lengths (`--seq-lens`): a dynamic second dimension of the inputs
(token ids) is given one length per client in turn, so requests of
different lengths arrive together and must be batched apart; the in-process
slice runs the first length.

Usage: /usr/bin/python3 bench/serve/interleaved.py --model M.onnx
         [--tessera build/tessera] [--configs '{}' '{"session_config": {...}}' ...]
         [--rounds 3] [--seconds 10] [--clients 16|8,16] [--max-batch 8] [--delay-us 5000]
         [--seq-lens 128] [--python-path build/python]"""
import argparse
import json
import os
import pathlib
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
import serve_process  # noqa: E402

DTYPES = {"FP32": "<f4", "INT64": "<i8", "INT32": "<i4"}

# The in-process slice, run by a fresh interpreter: argv = python path, model,
# seconds, JSON {"intra_op_threads", "session_config"}, .npz of one batch.
IN_PROCESS = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import tessera
config = json.loads(sys.argv[4])
options = tessera.SessionOptions()
if config.get("intra_op_threads"):
    options.intra_op_num_threads = config["intra_op_threads"]
for k, v in config.get("session_config", {}).items():
    options.add_session_config_entry(k, v)
s = tessera.InferenceSession(sys.argv[2], options, providers=["CPUExecutionProvider"])
feeds = dict(np.load(sys.argv[5]))
s.run(None, feeds)
runs, cpu, start = 0, time.process_time(), time.monotonic()
while time.monotonic() < start + float(sys.argv[3]) or runs < 2:
    s.run(None, feeds)
    runs += 1
print(json.dumps({"runs": runs, "seconds": time.monotonic() - start,
                  "cpu": time.process_time() - cpu}))
"""


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="ONNX model whose inputs have a dynamic first dimension")
    p.add_argument("--tessera", default=str(ROOT / "build" / "tessera"))
    p.add_argument("--configs", nargs="+", default=["{}"],
                   help="config.json keys to add to each variant (JSON objects)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=10.0, help="length of each slice")
    p.add_argument("--clients", default="16",
                   help="HTTP clients of a server slice; a list (8,16) measures each in turn")
    p.add_argument("--max-batch", type=int, default=8)
    p.add_argument("--delay-us", type=int, default=5000)
    p.add_argument("--seq-lens", default="1", help="lengths of a dynamic second dimension, one per client in turn")
    p.add_argument("--python-path", default=str(ROOT / "build" / "python"))
    return p.parse_args()


def process_times(pid):
    """(CPU seconds, context switches, {thread id: CPU ticks}) of process
    `pid`'s threads now."""
    ticks, switches, per_thread = 0, 0, {}
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            status = (task / "status").read_text()
        except OSError:  # the thread ended while it was read
            continue
        per_thread[task.name] = int(fields[11]) + int(fields[12])
        ticks += per_thread[task.name]
        switches += sum(int(line.split()[1]) for line in status.splitlines()
                        if "ctxt_switches:" in line)
    return ticks / os.sysconf("SC_CLK_TCK"), switches, per_thread


def top_two_share(before, after):
    """The share of a slice's server CPU taken by its two busiest threads."""
    used = sorted((t - before.get(k, 0) for k, t in after.items()), reverse=True)
    return sum(used[:2]) / sum(used) if sum(used) > 0 else float("nan")


def full_batches(http, model, rows):
    """(session runs, seconds) of the model's runs of `rows` rows so far."""
    stats = requests.get(f"{http}/v2/models/{model}/versions/1/stats", timeout=60).json()
    for b in stats["model_stats"][0]["batch_stats"]:
        if b["batch_size"] == rows:
            return b["compute_infer"]["count"], b["compute_infer"]["ns"] / 1e9
    return 0, 0.0


def make_row(meta, seq, rng):
    row = {}
    for t in meta["inputs"]:
        if t["datatype"] not in DTYPES:
            sys.exit(f"input {t['name']} is {t['datatype']}; this bench sends {', '.join(DTYPES)}")
        shape = [1] + [d if d > 0 else (seq if i == 1 else 1) for i, d in enumerate(t["shape"][1:], 1)]
        if t["datatype"] == "FP32":
            row[t["name"]] = (t["datatype"], rng.standard_normal(shape).astype("<f4"))
        else:  # token ids and masks: small positive integers fit both
            row[t["name"]] = (t["datatype"], rng.integers(1, 100, size=shape).astype(DTYPES[t["datatype"]]))
    return row


def http_body(row):
    header = json.dumps({"inputs": [
        {"name": n, "shape": list(a.shape), "datatype": d, "parameters": {"binary_data_size": a.nbytes}}
        for n, (d, a) in row.items()], "parameters": {"binary_data_output": True}}).encode()
    return header, header + b"".join(a.tobytes() for _, a in row.values())


def server_slice(http, model, bodies, clients, seconds):
    """Requests answered while `clients` threads send for `seconds` (and
    the wall time until the last is answered)."""
    end = time.monotonic() + seconds
    done, failures, lock = [0], [], threading.Lock()

    def client(i):
        header, body = bodies[i % len(bodies)]
        session = requests.Session()
        while time.monotonic() < end:
            r = session.post(f"{http}/v2/models/{model}/infer", data=body, timeout=300,
                             headers={"Inference-Header-Content-Length": str(len(header))})
            with lock:
                if r.status_code == 200:
                    done[0] += 1
                else:
                    failures.append(f"HTTP {r.status_code}: {r.text[:200]}")
    start = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        sys.exit(f"{len(failures)} requests failed; the first: {failures[0]}")
    return done[0], time.monotonic() - start


def main():
    args = parse_args()
    configs = [json.loads(c) for c in args.configs]
    client_counts = [int(c) for c in args.clients.split(",")]
    seq_lens = [int(s) for s in args.seq_lens.split(",")]
    work = pathlib.Path(tempfile.mkdtemp(prefix="tessera-interleaved-"))
    repo = work / "repo"
    for i, extra in enumerate(configs):
        (repo / f"v{i}" / "1").mkdir(parents=True)
        os.symlink(pathlib.Path(args.model).resolve(), repo / f"v{i}" / "1" / "model.onnx")
        config = {"max_batch_size": args.max_batch,
                  "dynamic_batching": {"max_queue_delay_microseconds": args.delay_us}, **extra}
        (repo / f"v{i}" / "config.json").write_text(json.dumps(config))
    log = open(work / "server.log", "w")
    server, ports = serve_process.start_server(
        args.tessera, repo, log, grpc=False,
        extra=["--http-threads", str(max(client_counts) + 8), "--access-log", "none"])
    try:
        if "HTTP" not in ports:
            sys.exit(f"the server did not start: {(work / 'server.log').read_text()[-2000:]}")
        http = f"http://127.0.0.1:{ports['HTTP']}"
        meta = requests.get(f"{http}/v2/models/v0", timeout=60).json()
        rng = np.random.default_rng(0)
        rows = [make_row(meta, seq, rng) for seq in seq_lens]
        bodies = [http_body(r) for r in rows]
        batch = {n: np.repeat(a, args.max_batch, axis=0) for n, (_, a) in rows[0].items()}
        np.savez(work / "batch.npz", **batch)
        # Warm-up: the first runs at a shape allocate and plan; each model
        # runs at least 3 full batches before it is measured.
        for i in range(len(configs)):
            while full_batches(http, f"v{i}", args.max_batch)[0] < 3:
                server_slice(http, f"v{i}", bodies, max(client_counts), 2)
        print(f"model {args.model}; one-row requests over HTTP"
              f"{'; sequence lengths ' + args.seq_lens if args.seq_lens != '1' else ''}; "
              f"max_batch_size {args.max_batch}, max_queue_delay_microseconds {args.delay_us}; "
              f"{args.seconds:g} s slices; the in-process slice runs batches of {args.max_batch}\n")
        print("| round | config | clients | server req/s | in-process rows/s | throughput ratio "
              "| server ms per full batch | in-process ms per batch | compute ratio "
              "| server CPU ms/req | in-process CPU ms/row | CPU ratio | server context switches/req "
              "| server CPU in its 2 busiest threads | load average |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in range(args.rounds):
            for i, extra, clients in [(i, e, c) for i, e in enumerate(configs) for c in client_counts]:
                model = f"v{i}"
                runs0, busy0 = full_batches(http, model, args.max_batch)
                cpu0, switches0, threads0 = process_times(server.pid)
                done, seconds = server_slice(http, model, bodies, clients, args.seconds)
                cpu1, switches1, threads1 = process_times(server.pid)
                runs1, busy1 = full_batches(http, model, args.max_batch)
                out = subprocess.run(
                    [sys.executable, "-c", IN_PROCESS, args.python_path, args.model,
                     str(args.seconds), json.dumps(extra), str(work / "batch.npz")],
                    capture_output=True, text=True, timeout=args.seconds * 20 + 300)
                if out.returncode != 0:
                    sys.exit(f"the in-process slice failed: {out.stderr[-2000:]}")
                ip = json.loads(out.stdout.strip().splitlines()[-1])
                rate, ip_rate = done / seconds, ip["runs"] * args.max_batch / ip["seconds"]
                full = (busy1 - busy0) / (runs1 - runs0) * 1000 if runs1 > runs0 else float("nan")
                ip_run = ip["seconds"] / ip["runs"] * 1000
                cpu, ip_cpu = (cpu1 - cpu0) / done * 1000, ip["cpu"] / (ip["runs"] * args.max_batch) * 1000
                print(f"| {r + 1} | {json.dumps(extra) if extra else 'default'} | {clients} "
                      f"| {rate:.2f} | {ip_rate:.2f} "
                      f"| {rate / ip_rate:.3f} | {full:.1f} | {ip_run:.1f} | {full / ip_run:.3f} "
                      f"| {cpu:.1f} | {ip_cpu:.1f} | {cpu / ip_cpu:.3f} "
                      f"| {(switches1 - switches0) / done:.1f} | {top_two_share(threads0, threads1):.3f} "
                      f"| {os.getloadavg()[0]:.1f} |", flush=True)
    finally:
        serve_process.stop_server(server)
        log.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
