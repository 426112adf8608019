#!/usr/bin/env bash
# Makes the built `tessera` Python package importable by the system Python
# (/usr/bin/python3) from anywhere, by placing a .pth file that points at
# build/python in its site-packages. Run after scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
PKG="$PWD/${TESSERA_BUILD_DIR:-build}/python"
[ -f "$PKG/tessera/__init__.py" ] || { echo "no built package at $PKG (run scripts/build.sh first)"; exit 1; }
# TESSERA_SITE_DIR installs elsewhere (the test suite uses it with a scratch folder).
SITE="${TESSERA_SITE_DIR:-$($PY -c "import site; print(site.getsitepackages()[0])")}"
SUDO=""
if [ "$(id -u)" != 0 ] && [ ! -w "$(dirname "$SITE")" ]; then SUDO=sudo; fi
$SUDO mkdir -p "$SITE"
echo "$PKG" | $SUDO tee "$SITE/tessera-build.pth" >/dev/null
echo "tessera is importable by $PY (via $SITE/tessera-build.pth -> $PKG)"
cd /  # not the source tree: the import must come through the .pth
$PY -c "import site; site.addsitedir('$SITE'); import tessera; print('available providers:', tessera.get_available_providers())"
