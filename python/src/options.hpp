// SessionOptions and RunOptions as onnxruntime's Python API has them: the
// runtime's structs plus the few knobs it does not act on (kept so scripts
// that set them run unchanged).
#pragma once
#include <map>
#include <string>

#include "core/value.hpp"
#include "runtime/session_options.hpp"

namespace tessera::python {

struct PySessionOptions {
  SessionOptions options;
  // Accepted, stored and shown by get_session_options(); the runtime plans
  // memory its own way and its kernels give the same results run to run.
  bool enable_mem_pattern = true;
  bool enable_mem_reuse = true;
  bool use_deterministic_compute = false;
  // Whether the application chose log_severity_level. A session whose
  // options leave it unset has a logger that follows the default logger's
  // severity (set_default_logger_severity, set_default_logger_callback), as
  // in onnxruntime.
  bool log_severity_level_set = false;
  // Tensors that replace graph initializers of the same name at load.
  std::map<std::string, Value> initializers;
};

struct PyRunOptions {
  RunOptions options;
  bool only_execute_path_to_fetches = false;
};

}  // namespace tessera::python
