#!/usr/bin/env bash
# The CUDA provider's checks that need a GPU (issue #7 stays open until they
# pass). Run on a machine with an NVIDIA GPU, its driver, CUDA 13 and cuDNN 9
# (H100/H200: the default CMAKE_CUDA_ARCHITECTURES=90 fits; set
# CUDA_ARCHS=80 etc. for another GPU):
#
#   bash scripts/gpu_check.sh            # build-gpu/, results in build-gpu/gpu_check/
#
# It builds with the CUDA provider, then runs: the CUDA unit tests (none may
# be skipped here), the whole unit suite, the shipped models and the ONNX
# conformance suite with [CUDA, CPU] at the CPU's expected-failures list, the
# partition of each shipped model (which nodes CUDA took), the shipped
# models and the suite again with CUDA graphs (each data set run three times),
# a benchmark of each shipped model on the CPU, CUDA and CUDA with graphs, and
# bench/gpu_compare.py
# (ResNet-50 and BERT-base against PyTorch on the same GPU, with an accuracy
# check against the CPU provider). Exit 0 only when all passed.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${TESSERA_BUILD_DIR:-build-gpu}"
CONF="${TESSERA_CONFORMANCE_DIR:-../shared/conformance/onnx-node}"
OUT="$BUILD_DIR/gpu_check"
CUDA="CUDAExecutionProvider,CPUExecutionProvider"
status=0

echo "== build with the CUDA provider"
TESSERA_BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DTESSERA_WITH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" || exit 1
mkdir -p "$OUT"
T="$BUILD_DIR/tessera"
source scripts/conformance_lib.sh

echo "== doctor"
"$T" doctor > "$OUT/doctor.txt" 2>&1
sed -n '/^  CUDAExecutionProvider/,/^  [A-Za-z]*ExecutionProvider:/p' "$OUT/doctor.txt"
if ! "$T" --version | grep -q '^providers:.*CUDAExecutionProvider'; then
  echo "CUDAExecutionProvider cannot run on this machine (the reason is above); nothing checked"
  exit 1
fi

echo "== CUDA unit tests (every one must run here: a skip is a failure)"
"$BUILD_DIR/tessera_unit_tests" --gtest_filter='Cuda*:RuntimeProviderArena*' \
  > "$OUT/cuda_unit_tests.log" 2>&1 || status=1
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/cuda_unit_tests.log"
if grep -q '^\[  SKIPPED \]' "$OUT/cuda_unit_tests.log"; then
  echo "some CUDA tests were skipped on a machine with a GPU"
  status=1
fi

echo "== all unit tests"
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)" > gpu_check/ctest.log 2>&1) || {
  grep -E 'tests passed|Failed|\*\*\*' "$OUT/ctest.log" | head -40
  status=1
}
tail -n 1 "$OUT/ctest.log"

echo "== shipped models with $CUDA"
for m in models/*/; do
  "$T" test "$m" --providers "$CUDA" || status=1
  "$T" partition "$m/model.onnx" --providers "$CUDA" > "$OUT/partition_$(basename "$m").txt" 2>&1
  grep -cE 'CUDAExecutionProvider' "$OUT/partition_$(basename "$m").txt" |
    sed "s/^/   lines naming CUDAExecutionProvider in the partition of $(basename "$m"): /"
done

echo "== ONNX conformance suite with $CUDA"
if [ -d "$CONF" ]; then
  ratchet "$CUDA" "$OUT/conformance_cuda" --providers "$CUDA"
else
  echo "conformance suite not found at $CONF (set TESSERA_CONFORMANCE_DIR)"
  status=1
fi

GRAPH="CUDAExecutionProvider:enable_cuda_graph=1,CPUExecutionProvider"
echo "== shipped models and the conformance suite with CUDA graphs (each data set run 3 times:"
echo "   the second run of a shape is captured, the third replayed; every run is checked)"
for m in models/*/; do
  "$T" test "$m" --providers "$GRAPH" --repeat 3 || status=1
done
if [ -d "$CONF" ]; then
  ratchet "$GRAPH" "$OUT/conformance_cuda_graph" --providers "$GRAPH" --repeat 3
fi

echo "== benchmarks: shipped models, CPU vs CUDA vs CUDA graphs (medians; copies in and out included)"
for m in models/*/; do
  for p in CPUExecutionProvider "$CUDA" "CUDAExecutionProvider:enable_cuda_graph=1,CPUExecutionProvider"; do
    "$T" bench "$m/model.onnx" --providers "$p" --warmup 5 --iters 50 --json \
      >> "$OUT/bench.jsonl" 2> "$OUT/bench_err.log" || status=1
    tail -n 1 "$OUT/bench.jsonl"
  done
done

echo "== ResNet-50 and BERT-base against PyTorch eager/torch.compile (and ORT CUDA), batch 1 and 32,"
echo "   float32 and float16, with Tessera CUDA's outputs checked against its CPU provider's"
python3 bench/gpu_compare.py --tessera "$T" --out "$OUT/compare" > "$OUT/compare.log" 2>&1 || status=1
tail -n 12 "$OUT/compare.log"

echo "== results in $OUT"
[ $status -eq 0 ] && echo "gpu_check: all passed" || echo "gpu_check: FAILED"
exit $status
