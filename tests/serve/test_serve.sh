#!/usr/bin/env bash
# `tessera serve` over HTTP and gRPC: writes a model repository
# (make_serve_repository.py), starts the server on free loopback ports, checks
# HTTP with curl and with Python `requests` (test_serve.py) and gRPC with a
# generated Python client (test_serve_grpc.py; skipped, saying so, when this
# tessera or this machine lacks gRPC), checks the access log, the histograms
# and repository polling (test_serve_ops.py, which starts a polling server of
# its own), model control modes and the statistics extension
# (test_serve_control.py, servers of its own), stops it with SIGTERM and
# checks the log.
# Bounded: the server runs under `timeout`, each client call has its own.
# Usage: bash tests/serve/test_serve.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="${1:-build}"
TESSERA="$(realpath "$BUILD_DIR/tessera")"
PY=/usr/bin/python3
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
failures=0
ok() { echo "ok   $1"; }
bad() { echo "FAILED CHECK $1"; failures=$((failures + 1)); }

if ! $PY -c "import onnx, requests, numpy" 2>/dev/null; then
  echo "python3-onnx, python3-requests or python3-numpy is missing; serving not tested"
  exit 1
fi
$PY tests/serve/make_serve_repository.py "$WORK/repo" || exit 1

# Whether this tessera was built with gRPC (cmake/serve.cmake).
GRPC_PORT_ARG=(--grpc-port 0)
# (The answer is read whole: with pipefail, `tessera ... | grep -q` would take
# tessera's exit status 2 for the pipeline's.)
GRPC_PROBE="$("$TESSERA" serve --model-repository "$WORK/none" --grpc-port 0 2>&1)"
if grep -q "gRPC support was not built" <<<"$GRPC_PROBE"; then
  echo "SKIPPED gRPC checks: this tessera was built without gRPC (libgrpc++-dev, protobuf-compiler-grpc, libprotobuf-dev)"
  GRPC_PORT_ARG=(--grpc-port off)
fi

timeout 600 "$TESSERA" serve --model-repository "$WORK/repo" --host 127.0.0.1 --http-port 0 \
  "${GRPC_PORT_ARG[@]}" --metrics-port 0 --max-body-bytes 1048576 --http-threads 12 \
  --access-log "$WORK/access.log" --model-control-mode explicit --load-model '*' \
  >"$WORK/server.out" 2>"$WORK/server.err" &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 600); do
  PORT="$(sed -n 's/^tessera serve: HTTP listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$WORK/server.out")"
  [ -n "$PORT" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$PORT" ]; then
  echo "FAILED CHECK the server did not start"; cat "$WORK/server.out" "$WORK/server.err"; exit 1
fi
URL="http://127.0.0.1:$PORT"
ok "server listening on $URL"
MPORT="$(sed -n 's/^tessera serve: metrics listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$WORK/server.out")"
METRICS="http://127.0.0.1:$MPORT/metrics"
[ -n "$MPORT" ] && ok "metrics on $METRICS" || bad "no metrics port printed"

echo "-- curl"
CURL=(curl -s -m 30 -o "$WORK/body" -w '%{http_code}')
expect_http() {  # WANT_STATUS WANT_BODY_REGEX DESCRIPTION -- CURL ARGS...
  local want=$1 pattern=$2 what=$3; shift 4
  local code; code="$("${CURL[@]}" "$@")"
  if [ "$code" = "$want" ] && { [ -z "$pattern" ] || grep -qE -- "$pattern" "$WORK/body"; }; then ok "$what ($code)"
  else bad "$what: status $code, wanted $want, body: $(head -c 300 "$WORK/body")"; fi
}
expect_http 200 '' "curl GET /v2/health/live" -- "$URL/v2/health/live"
expect_http 400 '' "curl GET /v2/health/ready (three models fail to load)" -- "$URL/v2/health/ready"
expect_http 200 '"extensions":\["model_repository","binary_tensor_data","statistics"\]' "curl GET /v2" -- "$URL/v2"
expect_http 200 '"shape":\[-1,8,32\]' "curl GET /v2/models/demo_transformer" -- "$URL/v2/models/demo_transformer"
expect_http 200 '' "curl GET /v2/models/demo_cnn/versions/1/ready" -- "$URL/v2/models/demo_cnn/versions/1/ready"
expect_http 200 '"outputs":\[\{"data":\[2\.0,3\.0,4\.0\],"datatype":"FP32","name":"sum","shape":\[1,3\]\}\]' \
  "curl POST infer (FP32)" -- -X POST -H 'Content-Type: application/json' \
  -d '{"inputs":[{"name":"x","shape":[1,3],"datatype":"FP32","data":[[1,2,3]]},{"name":"y","shape":[1,3],"datatype":"FP32","data":[1,1,1]}],"outputs":[{"name":"sum"}]}' \
  "$URL/v2/models/add_mul/versions/1/infer"
expect_http 400 '"error":"model .add_mul.: the request body is not valid JSON' "curl malformed JSON" -- \
  -X POST -d '{"inputs":' "$URL/v2/models/add_mul/infer"
expect_http 404 "\"error\":\"unknown model 'nosuch'\"" "curl unknown model" -- -X POST -d '{}' "$URL/v2/models/nosuch/infer"
# Binary tensor data: x's three floats (1, 2, 3) after a JSON header of
# Inference-Header-Content-Length bytes; the output as JSON.
HDR='{"inputs":[{"name":"x","shape":[1,3],"datatype":"FP32","parameters":{"binary_data_size":12}},{"name":"y","shape":[1,3],"datatype":"FP32","data":[1,1,1]}],"outputs":[{"name":"sum"}]}'
{ printf '%s' "$HDR"; printf '\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40'; } >"$WORK/binary_request"
expect_http 200 '"data":\[2\.0,3\.0,4\.0\]' "curl POST infer with a binary input" -- -X POST \
  -H "Inference-Header-Content-Length: ${#HDR}" -H 'Content-Type: application/octet-stream' \
  --data-binary @"$WORK/binary_request" "$URL/v2/models/add_mul/infer"
head -c 2000000 /dev/zero | tr '\0' ' ' >"$WORK/big.json"
expect_http 413 'larger than the server.s limit of 1048576 bytes' "curl body over --max-body-bytes" -- \
  -X POST -H 'Content-Type: application/json' --data-binary @"$WORK/big.json" "$URL/v2/models/add_mul/infer"
expect_http 200 '"name":"broken","reason":"[^"]+","state":"UNAVAILABLE","version":"1"' \
  "curl POST /v2/repository/index" -- -X POST -H 'Content-Length: 0' "$URL/v2/repository/index"
expect_http 400 'needs Content-Length: 0' "curl POST without Content-Length is explained" -- \
  -X POST "$URL/v2/repository/index"

expect_http 200 'tessera_model_ready\{model="broken",version="1"\} 0' "curl GET /metrics: a model that failed is not ready" -- "$METRICS"

echo "-- Python requests"
timeout 300 $PY tests/serve/test_serve.py "$URL" "$TESSERA" "$WORK/repo" "$WORK" "$METRICS" || failures=$((failures + 1))

echo "-- gRPC"
GPORT="$(sed -n 's/^tessera serve: gRPC listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$WORK/server.out")"
if [ "${GRPC_PORT_ARG[1]}" = 0 ]; then
  if [ -z "$GPORT" ]; then
    bad "no gRPC port printed"
  else
    timeout 300 $PY tests/serve/test_serve_grpc.py "127.0.0.1:$GPORT" "$URL" "$WORK" "$METRICS"
    rc=$?
    if [ "$rc" = 77 ]; then GRPC_SKIPPED=1; echo "SKIPPED gRPC checks (the Python gRPC packages are missing; scripts/install_deps.sh installs them)"
    elif [ "$rc" != 0 ]; then failures=$((failures + 1)); fi
  fi
fi

echo "-- operations: access log, histograms, memory, repository polling"
GRPC_ON=off
[ "${GRPC_PORT_ARG[1]}" = 0 ] && [ "${GRPC_SKIPPED:-0}" = 0 ] && GRPC_ON=on
timeout 300 $PY tests/serve/test_serve_ops.py "$URL" "$METRICS" "$WORK/access.log" "$TESSERA" \
  "$WORK" "$GRPC_ON" || failures=$((failures + 1))

echo "-- model control modes and the statistics extension (servers of its own)"
timeout 300 $PY tests/serve/test_serve_control.py "$TESSERA" "$WORK/repo" "$WORK" "$GRPC_ON" ||
  failures=$((failures + 1))

echo "-- deploy/ (parsed and checked against this server; nothing is deployed)"
DEPLOY_GRPC=()
[ "$GRPC_ON" = on ] && DEPLOY_GRPC=("127.0.0.1:$GPORT")
timeout 120 $PY tests/serve/test_deploy.py "$TESSERA" "$URL" "${DEPLOY_GRPC[@]}"
rc=$?
if [ "$rc" = 77 ]; then echo "SKIPPED deploy checks (python3-yaml is missing; scripts/install_deps.sh installs it)"
elif [ "$rc" != 0 ]; then failures=$((failures + 1)); fi

echo "-- stop"
if [ -n "$GPORT" ] && [ "${GRPC_SKIPPED:-0}" = 0 ]; then
  # SIGTERM while a request waits on each transport: both are answered (the drain).
  timeout 120 $PY tests/serve/test_serve_grpc.py "127.0.0.1:$GPORT" "$URL" "$WORK" "$METRICS" \
    drain "$SERVER_PID" || failures=$((failures + 1))
else
  kill -TERM "$SERVER_PID"
fi
wait "$SERVER_PID"
rc=$?
SERVER_PID=""
if [ "$rc" = 0 ] && grep -q "tessera serve: stopped" "$WORK/server.out"; then ok "SIGTERM stops the server (exit 0)"
else bad "the server's exit after SIGTERM: $rc"; fi
if grep -q "model 'broken' version 1: failed to load" "$WORK/server.err" &&
   grep -q "NoSuchExecutionProvider" "$WORK/server.err"; then ok "the log names each model that failed to load and why"
else bad "the log does not name the models that failed"; sed 's/^/     | /' "$WORK/server.err" | head -20; fi

# A signal while the models load (before listening) still stops the server.
timeout 120 "$TESSERA" serve --model-repository "$WORK/repo" --host 127.0.0.1 --http-port 0 \
  --grpc-port off --metrics-port off >"$WORK/early.out" 2>&1 &
EARLY=$!
# The first model's log line: the handlers are installed (before loading).
for _ in $(seq 1 600); do grep -q "tessera serve: model" "$WORK/early.out" && break; sleep 0.1; done
kill -INT "$EARLY"
wait "$EARLY"
rc=$?
if [ "$rc" = 0 ] && grep -q "tessera serve: stopped" "$WORK/early.out"; then ok "SIGINT during loading stops the server once it listens (exit 0)"
else bad "SIGINT during loading: exit $rc"; sed 's/^/     | /' "$WORK/early.out" | tail -5; fi

if [ "$failures" = 0 ]; then echo "serving: all checks passed"; else echo "serving: $failures failed"; fi
[ "$failures" = 0 ]
