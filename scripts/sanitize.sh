#!/usr/bin/env bash
# Builds build-asan (AddressSanitizer + UndefinedBehaviorSanitizer) and runs the
# unit and C API tests, the shipped models, the malformed-input checks
# (tests/malformed) and the ONNX conformance suite under it, then the models
# and the suite again through the sandbox plugin. Fails on any sanitizer
# report, even one in a case that otherwise passes. Not part of
# scripts/test.sh: it takes far longer.
# Usage: bash scripts/sanitize.sh   (TESSERA_CONFORMANCE_DIR as for scripts/test.sh;
# TESSERA_SANITIZE_CUDA=1 builds the CUDA provider too)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${TESSERA_ASAN_BUILD_DIR:-build-asan}"
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
# The CUDA provider only when asked (TESSERA_SANITIZE_CUDA=1): its kernels
# take long to compile and these checks run on the CPU. When asked, kernels are
# built for the architectures scripts/build.sh picks: TESSERA_CUDA_ARCHS, else
# the visible GPU's own ("native"), else sm_90 alone.
if [ "${TESSERA_SANITIZE_CUDA:-0}" = 1 ]; then
  archs="${TESSERA_CUDA_ARCHS:-}"
  if [ -z "$archs" ]; then
    if nvidia-smi -L >/dev/null 2>&1; then archs=native; else archs=90; fi
  fi
  cuda=(-DTESSERA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$archs")
else
  cuda=(-DTESSERA_WITH_CUDA=OFF)
fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DTESSERA_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${cuda[@]}" >/dev/null || exit 1
ninja -C "$BUILD_DIR" -j"${TESSERA_JOBS:-2}" || exit 1

# Keep going after a UB report so one run shows them all; ASan errors stop the
# process by nature, which the exit status and the log both show.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=0:${UBSAN_OPTIONS:-}"
LOGS="$BUILD_DIR/sanitize-logs"
rm -rf "$LOGS" && mkdir -p "$LOGS"
status=0
REPORT='runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY: UndefinedBehaviorSanitizer'

# step NAME COMMAND...: runs COMMAND with stdout+stderr to $LOGS/NAME.log; fails
# the script on a nonzero exit or any sanitizer report in the log.
step() {
  local name=$1; shift
  echo "== $name"
  "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  local reports
  reports=$(grep -cE "$REPORT" "$LOGS/$name.log")
  if [ "$reports" -gt 0 ]; then
    echo "   $reports sanitizer report line(s):"
    grep -E "$REPORT" "$LOGS/$name.log" | sort | uniq -c | sort -rn | head -20
    status=1
  fi
  if [ $rc -ne 0 ]; then
    echo "   exit $rc (log: $LOGS/$name.log)"; tail -n 5 "$LOGS/$name.log"; status=1
  elif [ "$reports" -eq 0 ]; then
    echo "   clean"
  fi
}

step unit "$BUILD_DIR/tessera_unit_tests"
# The C API through libtessera.so, with the custom-op library it loads.
step capi "$BUILD_DIR/tessera_capi_tests"
step models "$BUILD_DIR/tessera" test models/*/
step malformed /usr/bin/python3 tests/malformed/test_malformed.py "$BUILD_DIR/tessera"
# The shipped models with damaged fields that still parse (seeded, so repeatable).
step damaged-fields /usr/bin/python3 tests/malformed/damage_fields.py "$BUILD_DIR/tessera" --count 30
CONF="${TESSERA_CONFORMANCE_DIR:-../shared/conformance/onnx-node}"
if [ -d "$CONF" ]; then
  step conformance "$BUILD_DIR/tessera" test "$CONF" \
    --expected-failures tests/conformance/expected_failures.txt
else
  echo "conformance suite not found at $CONF (set TESSERA_CONFORMANCE_DIR); skipped"
fi

# The same through the sandbox plugin, as scripts/test.sh runs it: the plugin
# ABI, the loader's pointer checks and every inserted copy run under the
# sanitizers too (the plugin is built with the same flags).
SANDBOX="$BUILD_DIR/libtessera_sandbox_ep.so"
if [ -f "$SANDBOX" ]; then
  step models-sandbox "$BUILD_DIR/tessera" test models/*/ --provider-library "$SANDBOX"
  if [ -d "$CONF" ]; then
    step conformance-sandbox "$BUILD_DIR/tessera" test "$CONF" --provider-library "$SANDBOX" \
      --expected-failures tests/conformance/expected_failures.txt
  fi
else
  echo "the sandbox plugin was not built ($SANDBOX); sandbox steps skipped"
  status=1
fi

[ $status -eq 0 ] && echo "sanitizers: clean" || echo "sanitizers: FAILED (logs in $LOGS)"
exit $status
