#!/usr/bin/env bash
# Configures and builds Tessera into build/ (Release, ccache when present).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${TESSERA_BUILD_DIR:-build}"
# Let ccache share results between clones in different folders (CI uses fresh clones).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" "$@" >/dev/null
ninja -C "$BUILD_DIR"
