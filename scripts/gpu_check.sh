#!/usr/bin/env bash
# The CUDA provider's checks that need a GPU (issue #7 stays open until they
# pass). Run on a machine with an NVIDIA GPU and its driver.
#
#   bash scripts/gpu_check.sh [--prebuilt] [--stages LIST] [--out DIR] [--archive FILE]
#
# --prebuilt   use .gpu/pack.tar.xz, made by scripts/gpu_pack.sh on a build
#              machine (the GPU machine needs only the driver, cuDNN 9 and
#              cuBLASLt 13, which it is searched for, and python3 with torch
#              for the compare stage). Without it the script builds into
#              build-gpu/ here (CUDA 13, cuDNN 9 and the Debian -dev packages
#              of scripts/install_deps.sh; CUDA_ARCHS=80 etc. for a non-Hopper GPU).
# --stages     a comma-separated subset of the stages, in this order:
#   unit         every unit test (ctest, one process each); a skipped CUDA test
#                is a failure here
#   models       the shipped models with [CUDA, CPU], and which nodes CUDA took
#   conformance  the ONNX conformance suite with [CUDA, CPU], ratcheted against
#                the CPU's expected failures
#   graphs       the shipped models and the suite with enable_cuda_graph=1, each
#                data set run three times (the second run of a shape is
#                captured, the third replayed; every run is checked)
#   bench        each shipped model on the CPU, CUDA and CUDA with graphs
#   zoo          bench/gpu_zoo.py: every bench/models zoo model generated here
#                (in parallel, one per core), run with [CUDA, CPU] and [CPU],
#                outputs compared, the partition summed up (zoo/table.md);
#                GPU_ZOO_ARGS adds arguments (--only A,B, --skip A,B, --jobs N)
#   compare      bench/gpu_compare.py: ResNet-50 and BERT-base against PyTorch
#                eager / torch.compile (and ORT CUDA), with Tessera CUDA's
#                outputs checked against its CPU provider's; GPU_COMPARE_ARGS
#                adds arguments (--zoo NAMES, --no-compile, --batches 1, ...)
#              (default: all). Each stage has a time limit (STAGE_LIMIT_<name>
#              seconds overrides it) so one hang cannot eat a short lease.
# --variant N  with --prebuilt: the build in .gpu/N.tar.xz (scripts/gpu_pack.sh
#              --variant N, a branch to try) instead of the main pack's, with
#              the main pack's libraries and suite; it runs in build-gpu-N
# --out        where logs and results go (default BUILD/gpu_check)
# --no-gpu-ok  run the stages even where CUDA cannot run (to try this script
#              on a build machine; the unit stage then fails on the skips)
# --archive    also pack the logs (not the models or tensors) into FILE
#              (.tar.gz), e.g. under the device tool's $OUT
#
# Exit 0 only when every stage run passed; OUT/summary.txt lists each stage
# with its time and result.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${TESSERA_BUILD_DIR:-build-gpu}"
CONF="${TESSERA_CONFORMANCE_DIR:-../shared/conformance/onnx-node}"
STAGES="unit,models,conformance,graphs,bench,zoo,compare"
# The Python with torch, torchvision and onnx for the zoo and compare stages.
PYTHON="${PYTHON:-python3}"
PREBUILT=0
VARIANT=""
NO_GPU_OK=0
OUT=""
ARCHIVE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prebuilt) PREBUILT=1 ;;
    --variant)
      [ -n "${2:-}" ] || { echo "gpu_check.sh: --variant needs a name" >&2; exit 2; }
      VARIANT="$2"; shift ;;
    --stages) STAGES="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    --archive) ARCHIVE="$2"; shift ;;
    --no-gpu-ok) NO_GPU_OK=1 ;;
    *) echo "gpu_check.sh: unknown argument '$1' (see the top of $0)" >&2; exit 2 ;;
  esac
  shift
done
for s in ${STAGES//,/ }; do
  case "$s" in unit|models|conformance|graphs|bench|zoo|compare) ;;
    *) echo "gpu_check.sh: unknown stage '$s' in --stages" >&2; exit 2 ;;
  esac
done
if [ -n "$VARIANT" ]; then
  [ $PREBUILT = 1 ] || { echo "gpu_check.sh: --variant needs --prebuilt" >&2; exit 2; }
  [[ "$VARIANT" =~ ^[a-z0-9][a-z0-9-]*$ ]] || { echo "gpu_check.sh: bad --variant name '$VARIANT'" >&2; exit 2; }
  BUILD_DIR="build-gpu-$VARIANT"
fi
OUT=$(realpath -m "${OUT:-$BUILD_DIR/gpu_check}")
CUDA="CUDAExecutionProvider,CPUExecutionProvider"
GRAPH="CUDAExecutionProvider:enable_cuda_graph=1,CPUExecutionProvider"
status=0

# find_gpu_lib NAME: the folder holding the shared library NAME on this machine
# (the loader's cache, the CUDA toolkit, then Python's nvidia-* packages, which
# is where a PyTorch image keeps cuDNN).
find_gpu_lib() {
  local name="$1" f d
  f=$(ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n {print $NF; exit}')
  [ -n "$f" ] && { dirname "$f"; return; }
  for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -e "$d/$name" ] && { echo "$d"; return; }
  done
  f=$(find /usr/local /opt /usr/lib "$HOME" -name "$name" 2>/dev/null | head -n 1)
  [ -n "$f" ] && dirname "$f"
}

if [ $PREBUILT = 1 ]; then
  echo "== unpack .gpu/pack.tar.xz"
  [ -f .gpu/pack.tar.xz ] || { echo "no .gpu/pack.tar.xz (make it with scripts/gpu_pack.sh and carry .gpu)"; exit 1; }
  rm -rf .gpu/unpacked "$BUILD_DIR"
  mkdir -p .gpu/unpacked
  tar -C .gpu/unpacked -xJf .gpu/pack.tar.xz || exit 1
  if [ -n "$VARIANT" ]; then
    [ -f ".gpu/$VARIANT.tar.xz" ] || { echo "no .gpu/$VARIANT.tar.xz (scripts/gpu_pack.sh --variant $VARIANT)"; exit 1; }
    rm -rf .gpu/unpacked/build-gpu .gpu/unpacked/build_dir
    tar -C .gpu/unpacked -xJf ".gpu/$VARIANT.tar.xz" || exit 1
    echo "   variant $VARIANT: the build of $(cat .gpu/unpacked/source)"
  fi
  mv .gpu/unpacked/build-gpu "$BUILD_DIR"
  # ctest's files and the plugin tests name the build folder by the full path
  # it had on the build machine: make that path lead here.
  built_at=$(cat .gpu/unpacked/build_dir)
  here=$(realpath "$BUILD_DIR")
  if [ "$(realpath -m "$built_at")" != "$here" ]; then
    if [ -e "$(dirname "$built_at")" ]; then
      echo "the pack was built in $built_at, which exists here as something else; ctest cannot run"
      exit 1
    fi
    mkdir -p "$(dirname "$(dirname "$built_at")")"
    ln -s "$PWD" "$(dirname "$built_at")"
  fi
  [ -d "$CONF" ] || CONF=.gpu/unpacked/onnx-node
  libs="$PWD/.gpu/unpacked/lib"
else
  echo "== build with the CUDA provider"
  TESSERA_BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DTESSERA_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" || exit 1
  libs=""
fi
for name in libcudnn.so.9 libcublasLt.so.13; do
  d=$(find_gpu_lib "$name")
  if [ -n "$d" ]; then echo "   $name: $d"; libs="$libs:$d"; else echo "   $name: not found"; fi
done
# Only Tessera's own processes get these folders (python3 and torch keep theirs).
TESSERA_LD_PATH="${libs#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
T="$OUT/tessera"
printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$TESSERA_LD_PATH" "$(realpath "$BUILD_DIR")/tessera" > "$T"
chmod +x "$T"
source scripts/conformance_lib.sh
: > "$OUT/summary.txt"

if ! "$T" --version > /dev/null 2>&1 && [ $PREBUILT = 1 ]; then
  # An older C++ runtime than the build's: take the one the pack carries.
  echo "   the binary does not start with this machine's C++ runtime; using the pack's"
  TESSERA_LD_PATH="$PWD/.gpu/unpacked/lib-cxx:$TESSERA_LD_PATH"
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$TESSERA_LD_PATH" "$(realpath "$BUILD_DIR")/tessera" > "$T"
fi
# starts NAME BINARY ARGS...: whether BINARY runs with ARGS here; if not, says
# why (its own message, and the libraries and symbol versions ldd cannot find)
# in the output and in summary.txt.
starts() {
  local name="$1" bin="$2"
  shift 2
  local msg
  msg=$(LD_LIBRARY_PATH="$TESSERA_LD_PATH" timeout 60 "$bin" "$@" 2>&1 > /dev/null) && return 0
  {
    echo "$name does not start here ($bin):"
    printf '%s\n' "$msg" | head -5 | sed 's/^/   /'
    LD_LIBRARY_PATH="$TESSERA_LD_PATH" ldd "$bin" 2>&1 | grep -E 'not found|GLIBC|version' |
      head -10 | sed 's/^/   ldd: /'
  } | tee -a "$OUT/summary.txt"
  return 1
}
binary_ok=1
if ! starts tessera "$BUILD_DIR/tessera" --version; then
  echo "gpu_check: FAILED (the tessera binary does not start; every stage needs it)" |
    tee -a "$OUT/summary.txt"
  status=1
  STAGES=""
  binary_ok=0
fi
if [[ ",$STAGES," == *,unit,* ]] && [ -x "$BUILD_DIR/tessera_unit_tests" ] &&
  ! starts tessera_unit_tests "$BUILD_DIR/tessera_unit_tests" --gtest_list_tests; then
  status=1
fi
if [[ ",$STAGES," == *,zoo,* || ",$STAGES," == *,compare,* ]] &&
  ! msg=$("$PYTHON" -c 'import numpy, onnx, torch, torchvision' 2>&1); then
  echo "$PYTHON cannot import numpy, onnx, torch and torchvision (the zoo and compare stages need them): $(printf '%s' "$msg" | tail -n 1)" |
    tee -a "$OUT/summary.txt"
fi
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/   /'
"$T" doctor > "$OUT/doctor.txt" 2>&1
sed -n '/^  CUDAExecutionProvider/,/^  [A-Za-z]*ExecutionProvider:/p' "$OUT/doctor.txt"
CUDA_OK=1
if [ $binary_ok = 1 ] && ! "$T" --version | grep -q '^providers:.*CUDAExecutionProvider'; then
  CUDA_OK=0
  echo "CUDAExecutionProvider cannot run on this machine (doctor's reason is above; $OUT/doctor.txt)"
  echo "gpu_check: FAILED (no usable GPU)" | tee -a "$OUT/summary.txt"
  status=1
  [ $NO_GPU_OK = 1 ] || STAGES=""
fi

stage_unit() {
  (cd "$BUILD_DIR" && LD_LIBRARY_PATH="$TESSERA_LD_PATH" ctest --output-on-failure -j"$(nproc)" \
     --timeout 120 > "$OUT/ctest.log" 2>&1)
  local rc=$?
  grep -E 'tests passed|\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception|Not Run' "$OUT/ctest.log" | head -60
  # A test of the GPU-less path (its name says WithoutADevice) skips where a GPU is.
  if grep -E '(Cuda|RuntimeProviderArena)[A-Za-z0-9_/.]* \.+ *\*\*\*Skipped' "$OUT/ctest.log" |
    grep -v WithoutADevice; then
    echo "   CUDA tests were skipped on a machine with a GPU (above)"
    rc=1
  fi
  return $rc
}

stage_models() {
  local rc=0 m
  for m in models/*/; do
    "$T" test "$m" --providers "$CUDA" || rc=1
    "$T" partition "$m/model.onnx" --providers "$CUDA" > "$OUT/partition_$(basename "$m").txt" 2>&1
    grep -cE 'CUDAExecutionProvider' "$OUT/partition_$(basename "$m").txt" |
      sed "s/^/   lines naming CUDAExecutionProvider in the partition of $(basename "$m"): /"
  done
  return $rc
}

stage_conformance() {
  [ -d "$CONF" ] || { echo "   conformance suite not found at $CONF (set TESSERA_CONFORMANCE_DIR)"; return 1; }
  local status=0
  ratchet "$CUDA" "$OUT/conformance_cuda" --providers "$CUDA"
  return $status
}

stage_graphs() {
  local status=0 m
  for m in models/*/; do
    "$T" test "$m" --providers "$GRAPH" --repeat 3 || status=1
  done
  if [ -d "$CONF" ]; then
    ratchet "$GRAPH" "$OUT/conformance_cuda_graph" --providers "$GRAPH" --repeat 3
  else
    echo "   conformance suite not found at $CONF"; status=1
  fi
  return $status
}

stage_bench() {
  local rc=0 m p
  echo "   medians; copies in and out included"
  for m in models/*/; do
    for p in CPUExecutionProvider "$CUDA" "$GRAPH"; do
      "$T" bench "$m/model.onnx" --providers "$p" --warmup 5 --iters 50 --json \
        >> "$OUT/bench.jsonl" 2>> "$OUT/bench_err.log" || rc=1
      tail -n 1 "$OUT/bench.jsonl"
    done
  done
  return $rc
}

stage_zoo() {
  # Its own deadline a little inside the stage's limit, so the table is
  # written before the limit ends the stage.
  # Where CUDA can run, a model whose session skipped it fails.
  local expect=""
  [ "$CUDA_OK" = 1 ] && expect=--expect-cuda
  PYTHONUNBUFFERED=1 "$PYTHON" bench/gpu_zoo.py --tessera "$T" --out "$OUT/zoo" \
    --deadline "$(( STAGE_LIMIT > 40 ? STAGE_LIMIT - 20 : STAGE_LIMIT / 2 ))" $expect \
    ${GPU_ZOO_ARGS:-} > "$OUT/zoo.log" 2>&1
  local rc=$?
  grep -E '^\[[0-9]+/[0-9]+\]' "$OUT/zoo.log" | grep -v ' ok' | head -40
  grep -E 'models passed' "$OUT/zoo.log" || tail -n 5 "$OUT/zoo.log"
  return $rc
}

stage_compare() {
  # GPU_COMPARE_ARGS: more arguments for it (--no-compile, --batches 1, ...).
  PYTHONUNBUFFERED=1 "$PYTHON" bench/gpu_compare.py --tessera "$T" --out "$OUT/compare" \
    ${GPU_COMPARE_ARGS:-} > "$OUT/compare.log" 2>&1
  local rc=$?
  tail -n 14 "$OUT/compare.log"
  return $rc
}

export -f ratchet stage_unit stage_models stage_conformance stage_graphs stage_bench stage_zoo \
  stage_compare
export T OUT CONF CUDA GRAPH BUILD_DIR TESSERA_LD_PATH PYTHON CUDA_OK
# Sized for the lent GPU machine's 15 minutes (docs/cuda.md): the first five
# stages fit one call of about 7 minutes, compare another.
# The zoo stage (generating about 60 models on 16 cores, then three runs of
# each) joins the first five in a call of 10 minutes, with lower limits for
# unit, conformance and graphs (docs/cuda.md, "A lease for the model zoo").
declare -A LIMIT=([unit]=150 [models]=30 [conformance]=90 [graphs]=90 [bench]=45 [zoo]=240
  [compare]=400)
for s in ${STAGES//,/ }; do
  var="STAGE_LIMIT_$s"
  limit="${!var:-${LIMIT[$s]}}"
  echo "== $s (limit ${limit} s)"
  start=$(date +%s)
  # timeout runs the stage in its own process group and ends all of it
  # (ctest and the tests it started too) when the limit passes.
  STAGE_LIMIT="$limit" timeout -k 10 "$limit" bash -c "stage_$s"
  rc=$?
  took=$(( $(date +%s) - start ))
  if [ $rc -eq 0 ]; then result=passed; elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then result="TIMED OUT"; else result=FAILED; fi
  [ $rc -eq 0 ] || status=1
  printf '%-12s %-10s %4d s\n' "$s" "$result" "$took" | tee -a "$OUT/summary.txt"
done

echo "== results in $OUT"
if [ -n "$ARCHIVE" ]; then
  tar -czf "$ARCHIVE" --exclude='*.onnx' --exclude='*.npy' --exclude='*.pb' \
    --exclude='test_data_set_*' --exclude=tessera -C "$(dirname "$OUT")" "$(basename "$OUT")" &&
    echo "   logs packed into $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1))"
fi
[ $status -eq 0 ] && echo "gpu_check: all passed" || echo "gpu_check: FAILED"
exit $status
