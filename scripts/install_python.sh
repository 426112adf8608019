#!/usr/bin/env bash
# Builds the `tessera` wheel from the built tree (pyproject.toml + setup.py,
# docs/python.md "Wheel") and installs it, offline, for the system Python
# (/usr/bin/python3), so `import tessera` works from any folder. Run after
# scripts/build.sh. TESSERA_SITE_DIR installs into that folder instead (the
# test suite uses it with a scratch folder).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
BUILD="${TESSERA_BUILD_DIR:-build}"
[ -f "$BUILD/python/tessera/__init__.py" ] || { echo "no built package in $BUILD/python (run scripts/build.sh first)"; exit 1; }
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 TESSERA_BUILD_DIR="$BUILD"
DIST="$BUILD/dist"
rm -rf "$DIST"
$PY -m pip wheel --quiet --no-build-isolation --no-deps --no-cache-dir -w "$DIST" .
WHEEL=$(ls "$DIST"/tessera-*.whl)
if [ -n "${TESSERA_SITE_DIR:-}" ]; then
  $PY -m pip install --quiet --no-index --no-deps --upgrade --target "$TESSERA_SITE_DIR" "$WHEEL"
  SITE="$TESSERA_SITE_DIR"
else
  # Debian marks its Python as externally managed (PEP 668); the wheel goes
  # to the local administrator's folder (/usr/local/lib/python3.*/dist-packages),
  # beside, not over, Debian's packages.
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO $PY -m pip install --quiet --no-index --no-deps --force-reinstall --break-system-packages "$WHEEL"
  SITE=$($PY -c "import site; print(site.getsitepackages()[0])")
fi
echo "installed $(basename "$WHEEL") for $PY into $SITE"
cd /  # not the source tree: the import must come from the installed wheel
PYTHONPATH="" $PY -c "import sys; sys.path.insert(0, '$SITE'); import tessera; print(tessera.__file__); print('available providers:', tessera.get_available_providers())"
