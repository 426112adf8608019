#!/usr/bin/env bash
# Configures and builds Tessera into build/ (Release, ccache when present).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${TESSERA_BUILD_DIR:-build}"
# Let ccache share results between clones in different folders (CI uses fresh clones).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# GPU architectures: CMake's default (cmake/cuda.cmake) builds kernels for
# every one from sm_75, for builds that others run; this script builds to run
# here, so it takes the visible GPU's own ("native"), or sm_90 alone where
# none is (a compile check), unless TESSERA_CUDA_ARCHS or a
# -DCMAKE_CUDA_ARCHITECTURES argument says otherwise.
archs=()
case " $* " in
  *CMAKE_CUDA_ARCHITECTURES*) ;;
  *)
    a="${TESSERA_CUDA_ARCHS:-}"
    if [ -z "$a" ]; then
      if nvidia-smi -L > /dev/null 2>&1; then a=native; else a=90; fi
    fi
    archs=(-DCMAKE_CUDA_ARCHITECTURES="$a") ;;
esac
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
  "${archs[@]}" "$@" >/dev/null
ninja -C "$BUILD_DIR"
