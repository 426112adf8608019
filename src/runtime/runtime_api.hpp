// The runtime as the command-line tool, the Python package and the C ABI's
// implementation use it: sessions, values, the environment and provider
// libraries. Applications use the C ABI (include/tessera/onnxruntime_c_api.h)
// or the C++ API over it (include/tessera/tessera.hpp) instead.
#pragma once
#include <string>

#include "core/device.hpp"
#include "core/error.hpp"
#include "core/tensor.hpp"
#include "core/value.hpp"
#include "runtime/copy_tensors.hpp"
#include "runtime/environment.hpp"
#include "runtime/io_binding.hpp"
#include "runtime/session.hpp"
#include "runtime/session_options.hpp"

namespace tessera {
const char* version_string();

// Loads an execution-provider plugin (a shared library built against
// include/tessera/tessera_ep_api.h) and makes its provider available to
// sessions by the name it reports, which is returned. `name` is the handle
// for unregistering. Errors name the path: it does not exist, it lacks the
// entry points, or it was built against another plugin ABI version.
std::string register_execution_provider_library(const std::string& name, const std::string& path);
// Sessions already using the provider keep it until they end.
void unregister_execution_provider_library(const std::string& name);
}  // namespace tessera
