#!/usr/bin/env python3
"""Checks deploy/ (the Dockerfile and the Kubernetes and KServe manifests)
against the server they run. There is no Docker or cluster here, so nothing
is deployed: the YAML must parse into the expected objects; every command
line in them must be `tessera serve` with flags the binary takes; the ports
must be the server's defaults and agree between containers, probes and the
Service; each probe path must be one the running server answers (asked of
the server at URL); and the Dockerfile must call the scripts that exist,
build where scripts/build.sh builds, and copy files that exist.

A gRPC probe must name the gRPC port and, when the server serves gRPC
(GRPC_ADDRESS given), be answered by its grpc.health.v1.Health.Check.

Usage: test_deploy.py TESSERA URL [GRPC_ADDRESS]
Exit status 77 (printed as SKIPPED) when python3-yaml is missing."""
import pathlib
import re
import subprocess
import sys

TESSERA, URL = sys.argv[1], sys.argv[2]
GRPC_ADDRESS = sys.argv[3] if len(sys.argv) > 3 else None
ROOT = pathlib.Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"

try:
    import requests
    import yaml
except ImportError as e:
    print(f"SKIPPED: checking deploy/ needs python3-yaml and python3-requests ({e})")
    sys.exit(77)

failures = []


def check(what, condition, detail=""):
    if condition:
        print(f"ok   deploy: {what}")
    else:
        print(f"FAILED CHECK deploy: {what} {detail}")
        failures.append(what)


# What the binary says of `serve`: its flags and default ports.
usage = subprocess.run([TESSERA, "help"], capture_output=True, text=True, timeout=60).stdout
serve_usage = usage[usage.index("  serve "):]
serve_usage = serve_usage[:serve_usage.index("\n  help")]
FLAGS = set(re.findall(r"--[a-z-]+", serve_usage))
DEFAULTS = {flag: int(port) for flag, port in (
    ("--http-port", re.search(r"HTTP \(port (\d+)\)", serve_usage).group(1)),
    ("--grpc-port", re.search(r"gRPC \((\d+)", serve_usage).group(1)),
    ("--metrics-port", re.search(r"Prometheus, (\d+)\)", serve_usage).group(1)))}
check(f"tessera help names the serve flags and default ports {DEFAULTS}",
      {"--model-repository", "--http-port", "--grpc-port", "--metrics-port"} <= FLAGS
      and DEFAULTS == {"--http-port": 8080, "--grpc-port": 8081, "--metrics-port": 8082},
      serve_usage)

# The Dockerfile.
dockerfile = (DEPLOY / "Dockerfile").read_text()
lines = [l for l in re.sub(r"\\\n", " ", dockerfile).splitlines()
         if l.strip() and not l.lstrip().startswith("#")]
instr = [(l.split(None, 1)[0], l.split(None, 1)[1] if " " in l.strip() else "") for l in lines]
check("the Dockerfile starts from debian:12", instr[0] == ("FROM", "debian:12"), instr[0])
workdir = next(a for i, a in instr if i == "WORKDIR").strip()
runs = " && ".join(a for i, a in instr if i == "RUN")
for script in re.findall(r"bash (scripts/\S+)", runs):
    check(f"the Dockerfile runs {script}, which exists", (ROOT / script).is_file())
check("the Dockerfile runs install_deps.sh and then build.sh",
      0 <= runs.find("scripts/install_deps.sh") < runs.find("scripts/build.sh"), runs)
build_sh = (ROOT / "scripts" / "build.sh").read_text()
build_dir = re.search(r'BUILD_DIR="\$\{TESSERA_BUILD_DIR:-([^}]+)\}"', build_sh).group(1)
binary = f"{workdir}/{build_dir}/tessera"
for src in re.findall(r"\bcp (?:-\S+ )*(\S+) ", runs):
    check(f"the Dockerfile copies {src}, which exists", (ROOT / src).exists())
entry = yaml.safe_load(next(a for i, a in instr if i == "ENTRYPOINT"))
cmd = yaml.safe_load(next(a for i, a in instr if i == "CMD"))
check(f"the Dockerfile's ENTRYPOINT runs {binary} serve",
      entry[:2] == [binary, "serve"], entry)
exposed = {int(p) for i, a in instr if i == "EXPOSE" for p in a.split()}
check("the Dockerfile exposes the default ports", exposed == set(DEFAULTS.values()), exposed)


def flags_of(args):
    """{--flag: value} of a `serve` command line, every flag known to tessera."""
    out, i = {}, 0
    while i < len(args):
        check(f"'{args[i]}' is a flag of tessera serve", args[i] in FLAGS, args)
        out[args[i]] = args[i + 1] if i + 1 < len(args) else None
        i += 2
    return out


docker_flags = flags_of(entry[2:] + cmd)
check("the Dockerfile's ports are the defaults",
      all(int(docker_flags[f]) == p for f, p in DEFAULTS.items()), docker_flags)


def health_check(service):
    """grpc.health.v1.Health/Check of `service` at GRPC_ADDRESS: the status
    number (1 SERVING, 2 NOT_SERVING), or the error's code name. The two
    messages are one string field and one enum field, encoded here by hand
    (field 1, wire types 2 and 0) so that no stubs are needed."""
    import grpc
    name = service.encode()
    request = b"\x0a" + bytes([len(name)]) + name if name else b""
    with grpc.insecure_channel(GRPC_ADDRESS) as channel:
        check_rpc = channel.unary_unary("/grpc.health.v1.Health/Check")
        try:
            answer = check_rpc(request, timeout=30)
        except grpc.RpcError as e:
            return e.code().name
    return answer[1] if answer[:1] == b"\x08" else 0


def check_probe(where, probe, ports, want):
    if "grpc" in probe:
        port = ports.get(probe["grpc"]["port"], probe["grpc"]["port"])
        check(f"{where}: gRPC probe on the gRPC port", port == ports["--grpc-port"],
              (port, ports))
        if GRPC_ADDRESS is None:
            print(f"SKIPPED {where}: gRPC probe not asked (this server serves no gRPC)")
            return
        status = health_check(probe["grpc"].get("service", ""))
        # SERVING or, while a model is not loaded, NOT_SERVING: the service exists.
        check(f"{where}: gRPC probe answered by Health.Check ({status})", status in (1, 2),
              status)
        return
    get = probe["httpGet"]
    port = ports.get(get["port"], get["port"])
    r = requests.get(URL + get["path"], timeout=30)
    check(f"{where}: probe {get['path']} on the HTTP port is answered ({r.status_code})",
          port == ports["--http-port"] and r.status_code in want, (port, r.status_code))


def check_container(where, container, repository):
    check(f"{where}: runs {binary}", container["command"] == [binary], container["command"])
    args = container["args"]
    check(f"{where}: runs `serve`", args[0] == "serve", args)
    flags = flags_of(args[1:])
    check(f"{where}: serves {repository}", flags.get("--model-repository") == repository, flags)
    named = {p.get("name"): p["containerPort"] for p in container["ports"]}
    ports = {f: int(flags.get(f, d)) for f, d in DEFAULTS.items()}
    check(f"{where}: the HTTP port is a container port", ports["--http-port"] in named.values(),
          (ports, named))
    ports.update(named)
    check_probe(where + " liveness", container["livenessProbe"], ports, (200,))
    # Ready answers 200 or, while a model is not loaded, 400: the path exists.
    check_probe(where + " readiness", container["readinessProbe"], ports, (200, 400))
    if "startupProbe" in container:
        check_probe(where + " startup", container["startupProbe"], ports, (200,))
    return flags, named


docs = {}
for path in sorted(DEPLOY.rglob("*.yaml")):
    try:
        for doc in yaml.safe_load_all(path.read_text()):
            docs[doc["kind"]] = doc
        check(f"{path.relative_to(ROOT)} parses", True)
    except yaml.YAMLError as e:
        check(f"{path.relative_to(ROOT)} parses", False, e)
check("deploy/ holds a Deployment, a Service, a ServingRuntime and an InferenceService",
      {"Deployment", "Service", "ServingRuntime", "InferenceService"} <= set(docs), list(docs))

deployment = docs["Deployment"]
pod = deployment["spec"]["template"]
check("the Deployment's selector matches its pods' labels",
      deployment["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items())
flags, named = check_container("Deployment", pod["spec"]["containers"][0], "/models")
check("the Deployment's ports are the defaults, named http, grpc and metrics",
      named == {"http": 8080, "grpc": 8081, "metrics": 8082}, named)
grace = int(flags.get("--grace-seconds", 30))
check(f"terminationGracePeriodSeconds outlasts --grace-seconds {grace}",
      pod["spec"]["terminationGracePeriodSeconds"] > grace)
mounts = {m["name"]: m["mountPath"] for m in pod["spec"]["containers"][0]["volumeMounts"]}
volumes = {v["name"] for v in pod["spec"]["volumes"]}
check("the model repository is a mounted volume", mounts.get("models") == "/models"
      and "models" in volumes, (mounts, volumes))
service = docs["Service"]
check("the Service selects the Deployment's pods",
      service["spec"]["selector"].items() <= pod["metadata"]["labels"].items())
targets = {p["targetPort"] for p in service["spec"]["ports"]}
check("the Service's target ports are the container's named ports",
      targets == set(named), targets)

runtime = docs["ServingRuntime"]
runtime_flags, runtime_ports = check_container("ServingRuntime", runtime["spec"]["containers"][0],
                                               "/mnt/models")
check("the ServingRuntime exposes its gRPC port as h2c (KServe's name for gRPC)",
      runtime_ports.get("h2c") == int(runtime_flags.get("--grpc-port", DEFAULTS["--grpc-port"])),
      runtime_ports)
check("the ServingRuntime speaks v2 over HTTP and gRPC",
      {"v2", "grpc-v2"} <= set(runtime["spec"]["protocolVersions"]))
isvc = docs["InferenceService"]["spec"]["predictor"]["model"]
check("the InferenceService uses the ServingRuntime, an onnx model and protocol v2",
      isvc["runtime"] == runtime["metadata"]["name"]
      and isvc["modelFormat"]["name"] in {f["name"] for f in runtime["spec"]["supportedModelFormats"]}
      and isvc["protocolVersion"] in runtime["spec"]["protocolVersions"], isvc)


# deploy/demo_repository: the shipped demo models laid out as a repository
# (links to models/), served as the README says.
sys.path.insert(0, str(ROOT / "tests" / "serve"))
from serve_process import start_server, stop_server  # noqa: E402

demo_log = open("/dev/null", "w")
demo, demo_ports = start_server(TESSERA, DEPLOY / "demo_repository", demo_log, grpc=False,
                                timeout_s=60)
try:
    check("the demo repository serves over HTTP", "HTTP" in demo_ports, demo_ports)
    if "HTTP" in demo_ports:
        base = f"http://127.0.0.1:{demo_ports['HTTP']}/v2"
        for name in ("demo_cnn", "demo_transformer"):
            ready = requests.get(f"{base}/models/{name}/ready", timeout=30)
            check(f"the demo repository's {name} is ready", ready.status_code == 200,
                  ready.status_code)
        meta = requests.get(f"{base}/models/demo_cnn", timeout=30).json()
        shape = meta["inputs"][0]["shape"]
        count = 1
        for d in shape:
            count *= d
        body = {"inputs": [{"name": meta["inputs"][0]["name"], "shape": shape,
                            "datatype": "FP32", "data": [0.5] * count}]}
        answer = requests.post(f"{base}/models/demo_cnn/infer", json=body, timeout=60)
        out = answer.json().get("outputs", [{}])[0] if answer.status_code == 200 else {}
        check("the demo repository's demo_cnn answers an inference",
              answer.status_code == 200 and out.get("shape") == meta["outputs"][0]["shape"]
              and len(out.get("data", [])) == 10, answer.text[:200])
finally:
    stop_server(demo)
    demo_log.close()

print(f"deploy: {len(failures)} failed" if failures else "all deploy checks passed")
sys.exit(1 if failures else 0)
