#!/usr/bin/env bash
# The installed SDK, used the way a program outside this tree uses it:
#   1. `cmake --install BUILD_DIR` into a temporary prefix, and the layout it
#      must have (headers, libraries and their links, the compatibility
#      folder, the command, the plugin, the CMake and pkg-config packages,
#      RUNPATHs), and a DESTDIR install that stays under its stage;
#   2. examples/ configured and built against that prefix alone
#      (-DCMAKE_PREFIX_PATH, a fresh build folder; the compile commands are
#      checked to name nothing of this source tree's include/ or src/), and
#      each example run by ctest, and once installed (RUNPATH);
#   3. one program compiled with `pkg-config --cflags --libs tessera` and run,
#      one with `pkg-config --libs tessera-static`, and ONNX Runtime's
#      `#include <onnxruntime_c_api.h>` with -I<prefix>/include/onnxruntime only;
#   4. the installed `tessera` command runs a shipped model, and the
#      compatibility folder's libonnxruntime.so.1 serves OrtGetApiBase.
# Usage: tests/sdk/test_sdk.sh [BUILD_DIR]  (ends with "N passed, N failed").
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC="$PWD"
BUILD_DIR="$(cd "${1:-build}" && pwd)"
WORK="$(mktemp -d /tmp/tessera-sdk.XXXXXX)"
PREFIX="$WORK/prefix"
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
check() { local what="$1"; shift; if "$@" >"$WORK/out.txt" 2>&1; then ok "$what"; else bad "$what"; tail -n 30 "$WORK/out.txt"; fi; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" = 0 ]; exit $?; }

# 1. Install and layout.
if ! cmake --install "$BUILD_DIR" --prefix "$PREFIX" >"$WORK/install.txt" 2>&1; then
  bad "cmake --install $BUILD_DIR"; tail -n 30 "$WORK/install.txt"; finish
fi
ok "cmake --install into a temporary prefix"
LIBDIR="$PREFIX/lib"
[ -d "$LIBDIR/cmake/Tessera" ] || LIBDIR="$(dirname "$(find "$PREFIX" -name TesseraConfig.cmake | head -n 1)")/../.."
layout_ok=1
for f in include/tessera/onnxruntime_c_api.h include/tessera/ort_api_table.h include/tessera/tessera.hpp \
         include/tessera/cxx/session.hpp include/tessera/tessera_ep_api.h \
         include/onnxruntime/onnxruntime_c_api.h bin/tessera; do
  [ -f "$PREFIX/$f" ] || { echo "missing: $f"; layout_ok=0; }
done
for f in libtessera.so libtessera.so.0 libtessera.a tessera/providers/libtessera_sandbox_ep.so \
         cmake/Tessera/TesseraConfig.cmake cmake/Tessera/TesseraConfigVersion.cmake \
         cmake/Tessera/TesseraTargets.cmake pkgconfig/tessera.pc pkgconfig/tessera-static.pc; do
  [ -e "$LIBDIR/$f" ] || { echo "missing: lib/$f"; layout_ok=0; }
done
[ "$(readlink "$LIBDIR/libtessera.so")" = libtessera.so.0 ] || { echo "libtessera.so is not a link to libtessera.so.0"; layout_ok=0; }
[ "$(readlink "$LIBDIR/tessera/compat/libonnxruntime.so.1")" = ../../libtessera.so.0 ] ||
  { echo "compat/libonnxruntime.so.1 is not a link to ../../libtessera.so.0"; layout_ok=0; }
[ -f "$LIBDIR/tessera/compat/libonnxruntime.so.1" ] || { echo "compat/libonnxruntime.so.1 dangles"; layout_ok=0; }
[ -e "$LIBDIR/libtessera_core.so.0" ] || { echo "missing: lib/libtessera_core.so.0"; layout_ok=0; }
# Every library libtessera.so needs resolves from the prefix alone, and none
# of them is a provider's (CUDA, oneDNN): those are the modules' business.
if ldd "$LIBDIR/libtessera.so" | grep -q "not found"; then echo "libtessera.so: a library is not found"; layout_ok=0; fi
if ldd "$LIBDIR/libtessera.so" | grep -qE "cudart|cudnn|dnnl|gomp"; then echo "libtessera.so needs a provider's library"; layout_ok=0; fi
[ "$layout_ok" = 1 ] && ok "installed layout" || bad "installed layout"
runpath="$(readelf -d "$PREFIX/bin/tessera" | sed -n 's/.*R\(UN\)\?PATH.*\[\(.*\)\]/\2/p')"
[ "$runpath" = '$ORIGIN/../lib' ] && ok "bin/tessera has RUNPATH \$ORIGIN/../lib" ||
  bad "bin/tessera RUNPATH is '$runpath', not \$ORIGIN/../lib"
if grep -rq "$SRC\|$BUILD_DIR" "$LIBDIR/cmake/Tessera" "$LIBDIR/pkgconfig"; then
  bad "the installed packages name the source or build tree:"; grep -rn "$SRC\|$BUILD_DIR" "$LIBDIR/cmake/Tessera" "$LIBDIR/pkgconfig" | head -n 5
else
  ok "the installed packages name nothing of the source or build tree"
fi

# A staged install (DESTDIR) puts everything, the compatibility link too,
# under the stage (the prefix named is one that does not exist here).
STAGED_PREFIX="/nonexistent-tessera-prefix-$$"
if DESTDIR="$WORK/stage" cmake --install "$BUILD_DIR" --prefix "$STAGED_PREFIX" >"$WORK/stage.txt" 2>&1 &&
   [ "$(readlink "$WORK/stage$STAGED_PREFIX/${LIBDIR#"$PREFIX"/}/tessera/compat/libonnxruntime.so.1")" = ../../libtessera.so.0 ] &&
   [ ! -e "$STAGED_PREFIX" ]; then
  ok "DESTDIR=STAGE cmake --install keeps everything under STAGE"
else
  bad "DESTDIR=STAGE cmake --install"; tail -n 20 "$WORK/stage.txt"
fi
rm -rf "$WORK/stage"

# 2. The examples against the prefix alone.
EX="$WORK/examples-build"
if cmake -S "$SRC/examples" -B "$EX" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$WORK/ex.txt" 2>&1 &&
   cmake --build "$EX" >>"$WORK/ex.txt" 2>&1; then
  ok "examples/ configured and built with find_package(Tessera) from the prefix"
  found="$(sed -n 's/^Tessera_DIR:PATH=//p' "$EX/CMakeCache.txt")"
  [ "$found" = "$LIBDIR/cmake/Tessera" ] && ok "find_package(Tessera) found the prefix's package" ||
    bad "find_package(Tessera) found '$found', not $LIBDIR/cmake/Tessera"
  if grep -q "$SRC/include\|$SRC/src\|$BUILD_DIR" "$EX/compile_commands.json"; then
    bad "the examples' compile commands name the source or build tree"
  else
    ok "the examples' compile commands name only the prefix"
  fi
  check "the examples run and check their results (ctest)" ctest --test-dir "$EX" --output-on-failure
  cat "$WORK/out.txt" | grep -E "^ *[0-9]+/[0-9]+ Test|tests passed" || true
  check "installed examples find libtessera.so through their RUNPATH" sh -c \
    "cmake --install '$EX' --prefix '$WORK/examples-installed' >/dev/null &&
     env -u LD_LIBRARY_PATH '$WORK/examples-installed/bin/c_device_io' \
       '$PREFIX/share/tessera/models/demo_cnn/model.onnx' \
       '$LIBDIR/tessera/providers/libtessera_sandbox_ep.so' 2"
else
  bad "examples/ against the prefix"; tail -n 40 "$WORK/ex.txt"
fi

# 3. pkg-config, and ONNX Runtime's include layout.
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
  check "pkg-config tessera: compile and link a C program" \
    cc -std=c99 -Wall -Werror -o "$WORK/pc_c_providers" "$SRC/examples/c_providers/main.c" \
    $(pkg-config --cflags --libs tessera) -lm
  check "the pkg-config-built program runs (LD_LIBRARY_PATH=<prefix>/lib)" env \
    LD_LIBRARY_PATH="$LIBDIR" "$WORK/pc_c_providers" "$PREFIX/share/tessera/models/demo_cnn/model.onnx"
  check "pkg-config tessera-static: link the archive into a C++ program" \
    c++ -std=c++17 -o "$WORK/pc_cxx_static" "$SRC/examples/cxx_providers/main.cpp" \
    $(pkg-config --cflags --libs tessera-static)
  check "the statically linked program runs without libtessera.so" \
    "$WORK/pc_cxx_static" "$PREFIX/share/tessera/models/demo_transformer/model.onnx" \
    "$LIBDIR/tessera/providers/libtessera_sandbox_ep.so" 3
  ldd "$WORK/pc_cxx_static" 2>/dev/null | grep -q libtessera && bad "pc_cxx_static needs libtessera.so" || true
else
  echo "pkg-config is not installed (scripts/install_deps.sh installs it); its checks skipped"
fi
# A program built the way it would be against ONNX Runtime: its header by
# -I<prefix>/include/onnxruntime alone, linked against a stand-in
# libonnxruntime.so.1 (SONAME libonnxruntime.so.1, OrtGetApiBase@VERS_1.30.0,
# returning NULL), then run on the compatibility folder.
mkdir -p "$WORK/ort"
cat >"$WORK/ort/ort_style.c" <<'C'
#include <onnxruntime_c_api.h>
#include <stdio.h>
int main(void) {
  const OrtApiBase* base = OrtGetApiBase();
  const OrtApi* api = base ? base->GetApi(ORT_API_VERSION) : NULL;
  if (api == NULL) return 1;
  printf("%s\n", base->GetVersionString());
  OrtEnv* env = NULL;
  OrtStatus* s = api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "ort_style", &env);
  if (s != NULL) return 1;
  api->ReleaseEnv(env);
  return 0;
}
C
printf 'void* OrtGetApiBase(void) { return 0; }\n' >"$WORK/ort/stand_in.c"
printf 'VERS_1.30.0 { global: OrtGetApiBase; local: *; };\n' >"$WORK/ort/stand_in.map"
check "#include <onnxruntime_c_api.h> with -I<prefix>/include/onnxruntime alone, linked as for ONNX Runtime" \
  sh -c "cc -shared -fPIC -o '$WORK/ort/libonnxruntime.so.1' -Wl,-soname,libonnxruntime.so.1 \
           -Wl,--version-script='$WORK/ort/stand_in.map' '$WORK/ort/stand_in.c' &&
         ln -sf libonnxruntime.so.1 '$WORK/ort/libonnxruntime.so' &&
         cc -std=c99 -Wall -Werror -I'$PREFIX/include/onnxruntime' -o '$WORK/ort/ort_style' \
           '$WORK/ort/ort_style.c' -L'$WORK/ort' -lonnxruntime &&
         readelf -d '$WORK/ort/ort_style' | grep -q 'NEEDED.*libonnxruntime.so.1'"
check "that program runs on Tessera through <prefix>/lib/tessera/compat" \
  sh -c "LD_LIBRARY_PATH='$LIBDIR/tessera/compat' '$WORK/ort/ort_style' | grep -q '^0\\.'"

# 4. The installed command.
check "the installed tessera command runs a shipped model" \
  "$PREFIX/bin/tessera" run "$PREFIX/share/tessera/models/demo_cnn/model.onnx" --output-dir "$WORK/run"

finish
