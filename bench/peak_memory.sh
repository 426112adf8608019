#!/usr/bin/env bash
# Peak resident memory of Tessera and ONNX Runtime on the same models, side
# by side: each runtime loads the model, runs it a few times and exits, under
# /usr/bin/time. Each runtime's resident size with its library loaded but no
# session is measured too and subtracted, so the ratio compares what the
# model costs each: ONNX Runtime runs inside node (the kit's ort_bench.js),
# whose baseline is node with onnxruntime-node loaded; Tessera's is the
# `tessera` command started without a model (`tessera --version`). The ratio
# is (Tessera - its baseline) / (ORT - its baseline).
#
# usage: bench/peak_memory.sh [MODELS_DIR]
#   env: WORK (the kit copy bench/run_compare.sh makes, default
#        /tmp/tessera_bench_kit), TESSERA (default ./build/tessera),
#        ONLY (resnet50,mobilenet_v2,bert_base), THREADS (1)
set -euo pipefail
cd "$(dirname "$0")/.."
MODELS=${1:-/tmp/bench/models}
WORK=${WORK:-/tmp/tessera_bench_kit}
TESSERA=$(realpath "${TESSERA:-./build/tessera}")
THREADS=${THREADS:-1}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install -y time)" >&2; exit 1; }
[ -d "$WORK/node_modules/onnxruntime-node" ] || {
  echo "no ONNX Runtime kit at $WORK: run bench/run_compare.sh once first" >&2
  exit 1
}
peak_kb() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1; }
baseline=$(peak_kb node -e "require('$WORK/node_modules/onnxruntime-node'); setTimeout(() => {}, 10)")
tessera_baseline=$(peak_kb "$TESSERA" --version)
printf '%-14s %12s %12s %8s\n' model "ORT MiB" "Tessera MiB" ratio
ONLY=${ONLY:-resnet50,mobilenet_v2,bert_base}
for m in ${ONLY//,/ }; do
  model=$(find "$MODELS" -path "*/$m/model.onnx" | head -n 1)
  [ -n "$model" ] || { echo "$m: no model under $MODELS" >&2; continue; }
  ort=$(peak_kb node "$WORK/ort_bench.js" "$model" --threads "$THREADS" --warmup 1 --iters 3)
  tes=$(peak_kb "$TESSERA" bench "$model" --threads "$THREADS" --warmup 1 --iters 3)
  awk -v m="$m" -v o="$ort" -v b="$baseline" -v t="$tes" -v tb="$tessera_baseline" 'BEGIN {
    printf "%-14s %12.1f %12.1f %8.2f\n", m, (o - b) / 1024, (t - tb) / 1024, (t - tb) / (o - b) }'
done
echo "(ORT: node's peak minus ${baseline} KiB for node with onnxruntime-node loaded;" \
  "Tessera: its peak minus ${tessera_baseline} KiB for tessera --version)"
