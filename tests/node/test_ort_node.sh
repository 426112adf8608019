#!/usr/bin/env bash
# npm's onnxruntime-node 1.30.0, unmodified, on Tessera's library: its native
# binding loads libonnxruntime.so.1 from beside itself, which here is a link
# to build/compat/libonnxruntime.so.1 (Tessera). ort_node_client.js drives it
# through its public JavaScript API and compares with `tessera run`.
#
# usage: tests/node/test_ort_node.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="${1:-build}"
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  echo "node and npm are not installed: the onnxruntime-node client test was skipped"
  exit 0
fi
CLIENT="$BUILD_DIR/ort_node_client"
PKG="$CLIENT/node_modules/onnxruntime-node"
if [ ! -d "$PKG" ]; then
  mkdir -p "$CLIENT"
  # A package.json of its own keeps npm from installing into a node_modules
  # or package.json it finds in a folder above.
  [ -f "$CLIENT/package.json" ] || echo '{"private": true}' > "$CLIENT/package.json"
  if ! (cd "$CLIENT" && npm install --silent --no-audit --no-fund --ignore-scripts onnxruntime-node@1.30.0 > npm.log 2>&1); then
    echo "npm could not install onnxruntime-node@1.30.0 (see $CLIENT/npm.log): the client test was skipped"
    exit 0
  fi
fi
BIN="$PKG/bin/napi-v6/linux/x64"
COMPAT="$(cd "$BUILD_DIR/compat" && pwd)/libonnxruntime.so.1"
# ONNX Runtime's own library is kept aside for the ABI cross-check below.
if [ ! -L "$BIN/libonnxruntime.so.1" ] && [ -f "$BIN/libonnxruntime.so.1" ]; then
  mv "$BIN/libonnxruntime.so.1" "$BIN/libonnxruntime_reference.so.1"
fi
ln -sf "$COMPAT" "$BIN/libonnxruntime.so.1"

status=0
if [ -f "$BIN/libonnxruntime_reference.so.1" ]; then
  PROBE="$CLIENT/abi_probe"
  cc -std=c99 -Iinclude tests/node/abi_probe.c -o "$PROBE" -ldl
  if diff <("$PROBE" "$BIN/libonnxruntime_reference.so.1" | grep -v '^version\|^build info') \
          <("$PROBE" "$COMPAT" | grep -v '^version\|^build info') > "$CLIENT/abi_probe.diff"; then
    echo "ok entries across the OrtApi table answer as ONNX Runtime 1.30's do (tests/node/abi_probe.c)"
  else
    echo "FAIL the OrtApi table differs from ONNX Runtime 1.30's:"; cat "$CLIENT/abi_probe.diff"; status=1
  fi
fi

models=(models/demo_cnn/model.onnx models/demo_transformer/model.onnx)
BENCH="${TESSERA_BENCH_MODELS:-$BUILD_DIR/bench_models}"
if [ ! -d "$BENCH" ] && [ -f ../shared/bench/make_models.py ] && /usr/bin/python3 -c "import torch, torchvision" 2> /dev/null; then
  /usr/bin/python3 ../shared/bench/make_models.py "$BENCH" --no-verify > "$BUILD_DIR/bench_models.log" 2>&1 \
    || echo "make_models.py failed (see $BUILD_DIR/bench_models.log)"
fi
if [ -d "$BENCH" ]; then
  while IFS= read -r m; do models+=("$m"); done < <(find "$BENCH" -name model.onnx -path '*/public/*' | sort)
else
  echo "the bench models are not here (../shared/bench/make_models.py needs python3-torch and python3-torchvision): only the shipped models run"
fi
WORK="$BUILD_DIR/ort_node_work"
rm -rf "$WORK" && mkdir -p "$WORK"
NODE_PATH="$(cd "$CLIENT/node_modules" && pwd)" TESSERA_CAPI_MODELS="$BUILD_DIR/capi_models" \
  node tests/node/ort_node_client.js "$BUILD_DIR/tessera" "$WORK" "${models[@]}" || status=1
exit $status
