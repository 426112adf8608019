#!/usr/bin/env bash
# Builds the CUDA build here (a machine without a GPU) and packs what the GPU
# checks need into .gpu/pack.tar.xz, so the GPU machine spends its short lease
# running them instead of compiling (it also lacks the Debian -dev packages).
#
#   bash scripts/gpu_pack.sh          # then, on the GPU machine (device tool),
#                                     # carry ".gpu" and run
#   bash scripts/gpu_check.sh --prebuilt [--stages ...] [--out DIR]
#
# The pack holds: the CLI, the unit and C API tests and the plugins they load,
# with ctest's files for them (build-gpu/); the shared libraries they need that a CUDA
# machine may lack (lib/: oneDNN, the image codecs, libgomp, libcudart; lib-cxx/:
# the C++ runtime, used only where the machine's is older); the
# ONNX conformance suite (onnx-node/, when ../shared has it: the GPU machine
# gets only the repository); the shared benchmark kit's make_models.py (kit/:
# the zoo makers of bench/models import it, and the zoo stage generates the
# models there, from the repository's makers and that file alone); and
# build_dir, the folder the build was made in
# (ctest's files and the plugin tests name absolute paths under it). cuDNN and
# cuBLASLt are too large to carry: gpu_check.sh finds the GPU machine's own.
#
# A variant (an unverified branch to try beside main in the same lease):
#
#   bash scripts/gpu_pack.sh --variant NAME [--ref BRANCH]
#   bash scripts/gpu_pack.sh
#
# builds the checked-out tree (with --ref, BRANCH in a worktree beside this
# checkout, ../tessera-variant-NAME, so this tree is never switched under a
# running build) into build-gpu-NAME and packs only its binaries into
# .gpu/NAME.tar.xz (the libraries and the suite come from the main pack);
# gpu_check.sh --prebuilt --variant NAME runs its stages with that build.
set -euo pipefail
cd "$(dirname "$0")/.."
VARIANT=""
REF=""
while [ $# -gt 0 ]; do
  case "$1" in
    --ref)
      REF="${2:-}"
      [ -n "$REF" ] || { echo "gpu_pack.sh: --ref needs a branch or commit" >&2; exit 2; }
      shift ;;
    --variant)
      VARIANT="${2:-}"
      [[ "$VARIANT" =~ ^[a-z0-9][a-z0-9-]*$ ]] || {
        echo "gpu_pack.sh: --variant needs a name of lower-case letters, digits and dashes" >&2
        exit 2
      }
      shift ;;
    *) echo "gpu_pack.sh: unknown argument '$1' (see the top of $0)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$REF" ]; then
  [ -n "$VARIANT" ] || { echo "gpu_pack.sh: --ref goes with --variant" >&2; exit 2; }
  wt="$(realpath -m "../tessera-variant-$VARIANT")"
  if [ -d "$wt" ]; then
    git -C "$wt" checkout -q --detach "$REF"
  else
    git worktree add -q --detach "$wt" "$REF"
  fi
  echo "== $REF in $wt"
  bash "$wt/scripts/gpu_pack.sh" --variant "$VARIANT"
  mkdir -p .gpu
  cp "$wt/.gpu/$VARIANT.tar.xz" ".gpu/$VARIANT.tar.xz"
  echo "== copied to .gpu/$VARIANT.tar.xz"
  exit 0
fi
if [ -n "$VARIANT" ]; then
  BUILD_DIR="${TESSERA_BUILD_DIR:-build-gpu-$VARIANT}"
  PACK=".gpu/$VARIANT.tar.xz"
else
  BUILD_DIR="${TESSERA_BUILD_DIR:-build-gpu}"
  PACK=.gpu/pack.tar.xz
fi
CONF="${TESSERA_CONFORMANCE_DIR:-../shared/conformance/onnx-node}"
KIT="${TESSERA_BENCH_KIT:-../shared/bench}"

echo "== build with the CUDA provider into $BUILD_DIR"
TESSERA_BUILD_DIR="$BUILD_DIR" bash scripts/build.sh -DTESSERA_WITH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" > /dev/null
if ! "$BUILD_DIR/tessera" --version | grep -q '^built:.*CUDAExecutionProvider'; then
  echo "the build has no CUDA provider (is CUDA 13 with cuDNN 9 at /usr/local/cuda?)" >&2
  exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build-gpu" "$stage/lib"
cp "$BUILD_DIR"/tessera "$BUILD_DIR"/tessera_unit_tests "$BUILD_DIR"/tessera_capi_tests \
   "$BUILD_DIR"/*.so "$BUILD_DIR"/tessera_unit_tests*.cmake "$BUILD_DIR"/tessera_capi_tests*.cmake \
   "$stage/build-gpu/"
[ -d "$BUILD_DIR/capi_models" ] && cp -r "$BUILD_DIR/capi_models" "$stage/build-gpu/"
# ctest's file for the two GoogleTest programs the pack holds (the build's own
# also names the Python and C-program tests, which the GPU machine cannot run).
grep -E '^include\(.*tessera_(unit|capi)_tests' "$BUILD_DIR/CTestTestfile.cmake" \
  > "$stage/build-gpu/CTestTestfile.cmake"
# ctest's files and the plugin tests' paths name the build folder by its full
# path; gpu_check.sh makes that path lead to the unpacked one.
realpath "$BUILD_DIR" > "$stage/build_dir"
git describe --always --dirty > "$stage/source" 2>/dev/null || echo unknown > "$stage/source"

if [ -n "$VARIANT" ]; then
  mkdir -p .gpu
  tar -C "$stage" -cf - build-gpu build_dir source | xz -T0 -6 > "$PACK.tmp"
  mv "$PACK.tmp" "$PACK"
  echo "== $PACK: $(du -h "$PACK" | cut -f1), the build of $(cat "$stage/source") (needs .gpu/pack.tar.xz beside it)"
  exit 0
fi

# Every library the binaries load, except the C and C++ runtimes (a newer
# system has compatible ones), zlib, and the CUDA libraries the GPU machine
# must provide (cuDNN: too large to carry, and tied to its driver's CUDA).
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libstdc\+\+|libgcc_s|libz\.|libcudnn)'
for bin in "$stage"/build-gpu/tessera "$stage"/build-gpu/tessera_unit_tests \
  "$stage"/build-gpu/tessera_capi_tests "$stage"/build-gpu/*.so; do
  ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ "$name" =~ $skip ]] && continue
  cp -L "$path" "$stage/lib/$name"
done

# The C++ runtime apart: used only where the GPU machine's is older than the
# build's (GLIBCXX_3.4.30, GCC 12), which gpu_check.sh finds out by trying.
mkdir -p "$stage/lib-cxx"
for name in libstdc++.so.6 libgcc_s.so.1; do
  cp -L "$(ldd "$BUILD_DIR/tessera" | awk -v n="$name" '$1 == n {print $3}')" "$stage/lib-cxx/$name"
done

if [ -d "$CONF" ]; then
  cp -r "$CONF" "$stage/onnx-node"
else
  echo "note: no conformance suite at $CONF; the pack has none (gpu_check.sh will look for onnx's own)"
fi

if [ -f "$KIT/make_models.py" ]; then
  mkdir -p "$stage/kit"
  cp "$KIT/make_models.py" "$stage/kit/"
else
  echo "note: no make_models.py in $KIT (TESSERA_BENCH_KIT); the zoo stage cannot generate models"
fi

mkdir -p .gpu
# A local trial of gpu_check.sh --prebuilt leaves the unpacked pack here,
# which would push the carried .gpu past the device tool's 64 MiB.
rm -rf .gpu/unpacked
tar -C "$stage" -cf - . | xz -T0 -6 > "$PACK.tmp"
mv "$PACK.tmp" "$PACK"
echo "== $PACK: $(du -h "$PACK" | cut -f1) (libraries: $(ls "$stage/lib" | tr '\n' ' '))"
echo "   the device tool carries at most 64 MiB with the working tree ($(git ls-files -z | du -ch --files0-from=- | tail -n 1 | cut -f1))"
