"""Starting `tessera serve` on free loopback ports, shared by the serving
tests and bench/serve/load.py: the server is asked for port 0 on each
transport and the ports it took are read from the lines it prints
("tessera serve: HTTP listening on 127.0.0.1:PORT")."""
import re
import subprocess
import time

LISTENING = re.compile(r"tessera serve: (HTTP|gRPC|metrics) listening on 127\.0\.0\.1:(\d+)")


def start_server(tessera, repo, log, grpc=True, extra=(), timeout_s=120):
    """(process, {"HTTP": port, "metrics": port[, "gRPC": port]}); the dict
    lacks a transport that did not come up within `timeout_s` (the caller
    checks and reads `log`, where the server's stderr goes)."""
    server = subprocess.Popen(
        [str(tessera), "serve", "--model-repository", str(repo), "--host", "127.0.0.1",
         "--http-port", "0", "--grpc-port", "0" if grpc else "off", "--metrics-port", "0",
         *extra],
        stdout=subprocess.PIPE, stderr=log, text=True)
    wanted = 3 if grpc else 2
    ports = {}
    end = time.monotonic() + timeout_s
    while len(ports) < wanted and time.monotonic() < end:
        line = server.stdout.readline()
        if not line:
            break
        m = LISTENING.match(line)
        if m:
            ports[m.group(1)] = int(m.group(2))
    return server, ports


def stop_server(server, timeout_s=60):
    """SIGTERM, then SIGKILL when it has not exited within `timeout_s`; its
    exit status."""
    server.terminate()
    try:
        return server.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        server.kill()
        return server.wait()
