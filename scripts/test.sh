#!/usr/bin/env bash
# Runs every test: unit tests, the CLI checks, the shipped models, and the ONNX
# conformance suite as a ratchet against tests/conformance/expected_failures.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${TESSERA_BUILD_DIR:-build}"
bash scripts/build.sh || exit 1
status=0

echo "== layering"
# Every #include under src/ and include/ against the rooms' table
# (tests/layering/allowed_includes.txt, docs/architecture.md).
/usr/bin/python3 tests/layering/check_layering.py | tail -n 20 || status=1
# The runtime's files and functions within their sizes (600 and 100 lines).
/usr/bin/python3 tests/layering/check_sizes.py | tail -n 20 || status=1

echo "== unit tests"
(cd "$BUILD_DIR" && ctest --output-on-failure -j2) || status=1

if [ -f tests/cli/test_cli.sh ]; then
  echo "== command line"
  bash tests/cli/test_cli.sh "$BUILD_DIR/tessera" || status=1
fi

echo "== tessera serve"
# The Open Inference Protocol over HTTP and gRPC (docs/serving.md): a model
# repository written at test time, served on free loopback ports, checked with
# curl, Python requests and a generated gRPC client; deploy/'s manifests
# checked against it; stopped with SIGTERM.
bash tests/serve/test_serve.sh "$BUILD_DIR" || status=1

echo "== Python package"
if ls "$BUILD_DIR"/python/tessera/_C*.so > /dev/null 2>&1; then
  PYTHONPATH="$BUILD_DIR/python" /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python || status=1
else
  echo "the Python extension was not built (needs pybind11-dev, python3-dev, python3-numpy); skipped"
fi

echo "== onnxruntime-node on Tessera's C ABI"
# npm's onnxruntime-node 1.30.0, unmodified, loading Tessera's library.
bash tests/node/test_ort_node.sh "$BUILD_DIR" || status=1

echo "== the installed SDK"
# cmake --install into a temporary prefix; examples/ built against it with
# find_package(Tessera) and run; programs built with pkg-config and with
# ONNX Runtime's include layout; the compatibility folder (docs/sdk.md).
bash tests/sdk/test_sdk.sh "$BUILD_DIR" || status=1

echo "== generated docs"
# Each operator table names its providers, so it reads the same on every
# machine: docs/operators.md the CPU and oneDNN providers, docs/operators_cuda.md
# the CUDA provider (listed without a GPU), checked when the build has it.
check_ops_doc() {
  if "$BUILD_DIR/tessera" ops --markdown --providers "$2" | diff -q - "$1" >/dev/null; then
    echo "$1 matches the kernel registries"
  else
    echo "$1 is stale: regenerate it with: $BUILD_DIR/tessera ops --markdown --providers $2 > $1"
    status=1
  fi
}
check_ops_doc docs/operators.md CPUExecutionProvider,DnnlExecutionProvider
# The C API's table, its header and docs/c_api.md come from src/capi/api_entries.txt.
/usr/bin/python3 scripts/gen_c_api.py --check && echo "the C API table and docs/c_api.md are current" || status=1
if "$BUILD_DIR/tessera" --version | grep -q '^built:.*CUDAExecutionProvider'; then
  check_ops_doc docs/operators_cuda.md CUDAExecutionProvider
else
  echo "the CUDA provider is not built; docs/operators_cuda.md not checked"
fi

echo "== malformed models"
/usr/bin/python3 tests/malformed/test_malformed.py "$BUILD_DIR/tessera" | tail -n 30 || status=1

T="$BUILD_DIR/tessera"
CONF="${TESSERA_CONFORMANCE_DIR:-../shared/conformance/onnx-node}"
source scripts/conformance_lib.sh

# The shipped models and the conformance suite on the CPU provider, then again
# with other providers first: their nodes must give the same results, so the
# same expected-failures list applies.
run_with "the CPU provider" "$BUILD_DIR/conformance"

# oneDNN: only when it is built.
if "$BUILD_DIR/tessera" --version | grep -q '^providers:.*DnnlExecutionProvider'; then
  run_with "DnnlExecutionProvider,CPUExecutionProvider" "$BUILD_DIR/conformance_dnnl" \
    --providers DnnlExecutionProvider,CPUExecutionProvider
fi

# CUDA: where this machine has a GPU for it (scripts/gpu_check.sh runs this
# and the CUDA unit tests on a GPU machine).
if "$BUILD_DIR/tessera" --version | grep -q '^providers:.*CUDAExecutionProvider'; then
  run_with "CUDAExecutionProvider,CPUExecutionProvider" "$BUILD_DIR/conformance_cuda" \
    --providers CUDAExecutionProvider,CPUExecutionProvider
elif "$BUILD_DIR/tessera" --version | grep -q '^built:.*CUDAExecutionProvider'; then
  echo "== CUDAExecutionProvider is built but cannot run here (no GPU); its GPU tests were skipped"
fi

# The sandbox plugin (plugins/sandbox): a device with memory of its own whose
# kernels refuse foreign pointers, so every copy the runtime must insert
# between it and the CPU is exercised end to end.
SANDBOX="$BUILD_DIR/libtessera_sandbox_ep.so"
if [ -f "$SANDBOX" ]; then
  run_with "the sandbox plugin, CPUExecutionProvider" "$BUILD_DIR/conformance_sandbox" \
    --provider-library "$SANDBOX"
else
  echo "the sandbox plugin was not built ($SANDBOX); skipped"
fi

exit $status
