#pragma once
#include <string>

#include "runtime/session_options.hpp"

namespace tessera::python {

// Loads a custom-op library (its RegisterCustomOps, as ONNX Runtime's C API
// defines it) and adds its ops to `options`; errors name the library.
void register_custom_ops_library(SessionOptions& options, const std::string& path);

}  // namespace tessera::python
