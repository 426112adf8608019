#!/usr/bin/env bash
# Tessera vs ONNX Runtime, side by side, with the shared benchmark kit
# (shared/bench: run_bench.py alternates the two runtimes per cell and round,
# report.py prints the tables with a Tessera/ORT ratio column).
#
# ONNX Runtime never enters this repository: the kit is copied to a temp dir
# and `npm install --ignore-scripts` fetches onnxruntime-node there.
#
# usage: bench/run_compare.sh [MODELS_DIR] [-- extra run_bench.py args]
#   env: KIT (default ../shared/bench), WORK (default /tmp/tessera_bench_kit),
#        TESSERA (default ./build/tessera), THREADS (1,2), ROUNDS (3), WARMUP (5),
#        ITERS (30), ONLY (resnet50,mobilenet_v2,bert_base), VARIANTS (fixed),
#        OPT_LEVEL (all)
set -euo pipefail
cd "$(dirname "$0")/.."
MODELS=${1:-/tmp/bench/models}
shift || true
[ "${1:-}" = "--" ] && shift
KIT=${KIT:-$(realpath ../shared/bench)}
WORK=${WORK:-/tmp/tessera_bench_kit}
TESSERA=$(realpath "${TESSERA:-./build/tessera}")
PY=/usr/bin/python3  # Debian's python (a pyenv one earlier on PATH lacks onnx/numpy)

if [ ! -d "$WORK/node_modules/onnxruntime-node" ]; then
  mkdir -p "$WORK"
  cp -r "$KIT"/. "$WORK"/
  (cd "$WORK" && npm install --ignore-scripts --no-audit --no-fund >/dev/null)
fi
[ -x "$TESSERA" ] || { echo "no tessera binary at $TESSERA (build first)" >&2; exit 1; }

OUT="$WORK/results/compare_$(date +%Y%m%d_%H%M%S).json"
mkdir -p "$WORK/results"
"$PY" "$WORK/run_bench.py" --models "$MODELS" \
  --threads "${THREADS:-1,2}" --rounds "${ROUNDS:-3}" --warmup "${WARMUP:-5}" --iters "${ITERS:-30}" \
  --only "${ONLY:-resnet50,mobilenet_v2,bert_base}" --variants "${VARIANTS:-fixed}" \
  --other "tessera=$TESSERA bench {model} --threads {threads} --warmup {warmup} --iters {iters} --opt-level ${OPT_LEVEL:-all} --json" \
  --out "$OUT" "$@"
"$PY" "$WORK/report.py" --results "$OUT" --models "$MODELS" --stats-cache "$WORK/results/model_stats.json"
echo "raw results: $OUT"
