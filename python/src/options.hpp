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
  // Accepted and stored; the runtime plans memory its own way.
  bool enable_mem_pattern = true;
  bool enable_mem_reuse = true;
  bool enable_cpu_mem_arena = true;
  bool use_deterministic_compute = false;
  int log_verbosity_level = 0;
  // Tensors that replace graph initializers of the same name at load.
  std::map<std::string, Value> initializers;
};

struct PyRunOptions {
  RunOptions options;
  int log_verbosity_level = 0;
  bool only_execute_path_to_fetches = false;
};

}  // namespace tessera::python
