#!/usr/bin/env bash
# Runs every test: unit tests, the CLI checks, the shipped models, and the ONNX
# conformance suite as a ratchet against tests/conformance/expected_failures.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${TESSERA_BUILD_DIR:-build}"
bash scripts/build.sh || exit 1
status=0

echo "== unit tests"
(cd "$BUILD_DIR" && ctest --output-on-failure -j2) || status=1

echo "== shipped models"
for m in models/*/; do
  "$BUILD_DIR/tessera" test "$m" || status=1
done

if [ -f tests/cli/test_cli.sh ]; then
  echo "== command line"
  bash tests/cli/test_cli.sh "$BUILD_DIR/tessera" || status=1
fi

echo "== malformed models"
/usr/bin/python3 tests/malformed/test_malformed.py "$BUILD_DIR/tessera" | tail -n 30 || status=1

CONF="${TESSERA_CONFORMANCE_DIR:-../shared/conformance/onnx-node}"
echo "== ONNX conformance suite"
if [ -d "$CONF" ]; then
  "$BUILD_DIR/tessera" test "$CONF" --expected-failures tests/conformance/expected_failures.txt \
    --json "$BUILD_DIR/conformance.json" > "$BUILD_DIR/conformance.log" 2>&1
  rc=$?
  grep -E '^(UNEXPECTED|NEWLY)' "$BUILD_DIR/conformance.log" | head -50
  tail -n 2 "$BUILD_DIR/conformance.log"
  [ $rc -eq 0 ] || { echo "conformance ratchet failed (full log: $BUILD_DIR/conformance.log)"; status=1; }
else
  echo "conformance suite not found at $CONF (set TESSERA_CONFORMANCE_DIR); skipped"
fi

exit $status
