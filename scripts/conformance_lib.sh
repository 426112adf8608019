# Sourced by scripts/test.sh and scripts/gpu_check.sh: the shipped models and
# the ONNX conformance suite, as a ratchet against
# tests/conformance/expected_failures.txt. Needs T (the tessera binary) and
# CONF (the suite's folder); a failure sets status=1.

# ratchet LABEL LOGBASE ARGS...: the suite with ARGS given to every
# `tessera test`; the log and results go to LOGBASE.log and LOGBASE.json.
ratchet() {
  local label="$1" base="$2"
  shift 2
  "$T" test "$CONF" "$@" --expected-failures tests/conformance/expected_failures.txt \
    --json "$base.json" > "$base.log" 2>&1
  local rc=$?
  grep -E '^(UNEXPECTED|NEWLY)' "$base.log" | head -50
  tail -n 2 "$base.log"
  [ $rc -eq 0 ] || { echo "conformance ratchet with $label failed (full log: $base.log)"; status=1; }
}

# run_with LABEL LOGBASE ARGS...: the shipped models, then the suite where it
# is present (its absence fails only when CONF_REQUIRED is set).
run_with() {
  local label="$1" base="$2"
  shift 2
  echo "== shipped models with $label"
  for m in models/*/; do
    "$T" test "$m" "$@" || status=1
  done
  echo "== ONNX conformance suite with $label"
  if [ -d "$CONF" ]; then
    ratchet "$label" "$base" "$@"
  else
    echo "conformance suite not found at $CONF (set TESSERA_CONFORMANCE_DIR); skipped"
    [ -z "${CONF_REQUIRED:-}" ] || status=1
  fi
}
