// Tessera's public C++ API.
#pragma once
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
}
