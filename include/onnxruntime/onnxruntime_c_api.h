/* ONNX Runtime's C API header, as Tessera provides it: programs written
 * `#include <onnxruntime_c_api.h>` compile with -I<prefix>/include/onnxruntime
 * (ONNX Runtime's own layout) and link libtessera.so, or run on Tessera
 * unchanged through <prefix>/lib/tessera/compat/libonnxruntime.so.1. */
#pragma once
#include "../tessera/onnxruntime_c_api.h"
