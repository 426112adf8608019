#include "options.hpp"

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "custom_op_library.hpp"
#include "lora.hpp"

namespace tessera::python {
namespace {

// onnxruntime raises RuntimeError("SessionOptions does not have configuration
// with key: KEY"); InvalidArgument is a RuntimeError.
template <typename Map>
std::string config_entry(const Map& entries, const std::string& key, const char* owner) {
  auto it = entries.find(key);
  check(it != entries.end(), owner, " does not have configuration with key: ", key);
  return it->second;
}

void bind_enums(py::module_& m) {
  py::enum_<GraphOptimizationLevel>(m, "GraphOptimizationLevel")
      .value("ORT_DISABLE_ALL", GraphOptimizationLevel::kDisableAll)
      .value("ORT_ENABLE_BASIC", GraphOptimizationLevel::kBasic)
      .value("ORT_ENABLE_EXTENDED", GraphOptimizationLevel::kExtended)
      .value("ORT_ENABLE_ALL", GraphOptimizationLevel::kAll);
  py::enum_<ExecutionMode>(m, "ExecutionMode")
      .value("ORT_SEQUENTIAL", ExecutionMode::kSequential)
      .value("ORT_PARALLEL", ExecutionMode::kParallel);
}

// A SessionOptions attribute that the runtime's struct holds.
template <typename T>
void option(py::class_<PySessionOptions>& c, const char* name, T SessionOptions::*member) {
  c.def_property(
      name, [member](const PySessionOptions& o) { return o.options.*member; },
      [member](PySessionOptions& o, T v) { o.options.*member = std::move(v); });
}

void bind_session_options(py::module_& m) {
  using O = PySessionOptions;
  py::class_<O> c(m, "SessionOptions");
  c.def(py::init<>());
  // InferenceSession keeps a copy, so get_session_options() shows the options
  // the session was made with even if the caller's object changes later.
  c.def("__copy__", [](const O& o) { return O(o); });
  c.def("__deepcopy__", [](const O& o, const py::dict&) { return O(o); });
  option(c, "graph_optimization_level", &SessionOptions::graph_optimization_level);
  option(c, "intra_op_num_threads", &SessionOptions::intra_op_num_threads);
  option(c, "inter_op_num_threads", &SessionOptions::inter_op_num_threads);
  option(c, "execution_mode", &SessionOptions::execution_mode);
  option(c, "enable_profiling", &SessionOptions::enable_profiling);
  option(c, "profile_file_prefix", &SessionOptions::profile_file_prefix);
  option(c, "optimized_model_filepath", &SessionOptions::optimized_model_filepath);
  c.def_property(
      "log_severity_level",
      // Unset, the session follows the default logger's severity; the field
      // reads as onnxruntime's documented default.
      [](const O& o) { return o.log_severity_level_set ? o.options.log_severity_level : 2; },
      [](O& o, int v) {
        o.options.log_severity_level = v;
        o.log_severity_level_set = true;
      });
  option(c, "logid", &SessionOptions::log_id);
  option(c, "enable_cpu_mem_arena", &SessionOptions::enable_cpu_mem_arena);
  option(c, "log_verbosity_level", &SessionOptions::log_verbosity_level);
  c.def_readwrite("enable_mem_pattern", &O::enable_mem_pattern);
  c.def_readwrite("enable_mem_reuse", &O::enable_mem_reuse);
  c.def_readwrite("use_deterministic_compute", &O::use_deterministic_compute);
  option(c, "use_per_session_threads", &SessionOptions::use_per_session_threads);
  c.def(
      "register_custom_ops_library",
      [](O& o, const std::string& path) { register_custom_ops_library(o.options, path); },
      py::arg("library_path"));
  c.def("add_session_config_entry", [](O& o, const std::string& key, const std::string& value) {
    o.options.config_entries[key] = value;
  });
  c.def("get_session_config_entry", [](const O& o, const std::string& key) {
    return config_entry(o.options.config_entries, key, "SessionOptions");
  });
  c.def("add_free_dimension_override_by_name", [](O& o, const std::string& name, int64_t v) {
    check(v >= 0, "free dimension '", name, "' cannot be overridden with ", v);
    o.options.free_dimension_overrides[name] = v;
  });
  c.def("add_free_dimension_override_by_denotation", [](O& o, const std::string& denotation,
                                                        int64_t v) {
    check(v >= 0, "free dimension denotation '", denotation, "' cannot be overridden with ", v);
    o.options.free_dimension_overrides_by_denotation[denotation] = v;
  });
  c.def("set_provider_selection_policy",
        [](O& o, ProviderSelectionPolicy p) { o.options.provider_selection_policy = p; });
  c.def("get_provider_selection_policy",
        [](const O& o) { return o.options.provider_selection_policy; });
  c.def("add_initializer", [](O& o, const std::string& name, const Value& v) {
    check(v.is_tensor(), "add_initializer('", name, "') needs an OrtValue holding a tensor, not a ",
          v.kind_name());
    o.initializers[name] = v;
  });
  c.def("add_external_initializers",
        [](O& o, const std::vector<std::string>& names, const std::vector<Value>& values) {
          check(names.size() == values.size(), "add_external_initializers: ", names.size(),
                " names but ", values.size(), " OrtValues");
          for (size_t i = 0; i < names.size(); ++i) {
            check(values[i].is_tensor(), "add_external_initializers: '", names[i],
                  "' needs an OrtValue holding a tensor, not a ", values[i].kind_name());
            o.initializers[names[i]] = values[i];
          }
        });
  // The model names its data files; the application hands their bytes in
  // (copied here, so the buffers need not outlive the call).
  c.def(
      "add_external_initializers_from_files_in_memory",
      [](O& o, const std::vector<std::string>& names, const std::vector<py::buffer>& buffers,
         const std::vector<size_t>& lengths) {
        check(names.size() == buffers.size() && names.size() == lengths.size(),
              "add_external_initializers_from_files_in_memory: ", names.size(), " names, ",
              buffers.size(), " buffers and ", lengths.size(), " lengths; they must match");
        for (size_t i = 0; i < names.size(); ++i) {
          py::buffer_info info = buffers[i].request();
          const size_t size = size_t(info.size) * size_t(info.itemsize);
          check(lengths[i] <= size, "add_external_initializers_from_files_in_memory: '", names[i],
                "' is given length ", lengths[i], " but its buffer holds ", size, " bytes");
          o.options.add_external_file_in_memory(
              names[i], std::string(static_cast<const char*>(info.ptr), lengths[i]));
        }
      },
      py::arg("names"), py::arg("buffers"), py::arg("lengths"));
  c.def("get_free_dimension_overrides",
        [](const O& o) { return o.options.free_dimension_overrides; });
  c.def("get_free_dimension_overrides_by_denotation",
        [](const O& o) { return o.options.free_dimension_overrides_by_denotation; });
}

void bind_run_options(py::module_& m) {
  using R = PyRunOptions;
  py::class_<R> c(m, "RunOptions");
  c.def(py::init<>());
  c.def_property(
      "log_severity_level", [](const R& r) { return r.options.log_severity_level; },
      [](R& r, int v) { r.options.log_severity_level = v; });
  c.def_property(
      "log_verbosity_level", [](const R& r) { return r.options.log_verbosity_level; },
      [](R& r, int v) { r.options.log_verbosity_level = v; });
  c.def_property(
      "logid", [](const R& r) { return r.options.log_tag; },
      [](R& r, const std::string& v) { r.options.log_tag = v; });
  // Setting it from another thread stops a run in progress between nodes.
  c.def_property(
      "terminate", [](const R& r) { return r.options.terminate->load(); },
      [](R& r, bool v) { r.options.terminate->store(v); });
  c.def_property(
      "only_execute_path_to_fetches", [](const R& r) { return r.only_execute_path_to_fetches; },
      [](R& r, bool v) { r.only_execute_path_to_fetches = v; });
  c.def("add_run_config_entry", [](R& r, const std::string& key, const std::string& value) {
    r.options.config_entries[key] = value;
  });
  c.def("get_run_config_entry", [](const R& r, const std::string& key) {
    return config_entry(r.options.config_entries, key, "RunOptions");
  });
  // The adapter's parameters feed the inputs of their names in runs with
  // these options; several may be active (their parameters must differ).
  c.def("add_active_adapter", [](R& r, const PyLoraAdapter& adapter) {
    check_code(adapter.adapter != nullptr, ErrorCode::kInvalidArgument,
               "add_active_adapter: the LoraAdapter has not been loaded");
    r.options.active_adapters.push_back(adapter.adapter);
  });
}

}  // namespace

void bind_options(py::module_& m) {
  bind_enums(m);
  bind_session_options(m);
  bind_run_options(m);
}

}  // namespace tessera::python
