// `tessera._C`: the thin extension under the pure-Python `tessera` package.
// Module-level functions live here; classes are bound in their own files.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "core/arena_allocator.hpp"
#include "core/logging.hpp"
#include "dlpack.hpp"
#include "ep/provider_registry.hpp"
#include "runtime/environment.hpp"
#include "runtime/runtime_api.hpp"

#ifndef TESSERA_PY_BUILD_TYPE
#define TESSERA_PY_BUILD_TYPE ""
#endif

namespace tessera::python {
namespace {

int g_logger_verbosity = 0;  // kept for onnxruntime compatibility; the logger has no verbosity

void bind_module_functions(py::module_& m) {
  m.def(
      "get_available_providers", [] { return ep::ProviderRegistry::instance().available_names(); },
      "Providers this build can create on this machine, in priority order.");
  m.def(
      "get_registered_providers", [] { return ep::ProviderRegistry::instance().names(); },
      "Every provider this build knows, available here or not.");
  m.def("register_execution_provider_library", &register_execution_provider_library,
        py::arg("registration_name"), py::arg("path"),
        "Loads a provider plugin (a shared library) and returns its provider's name.");
  m.def("unregister_execution_provider_library", &unregister_execution_provider_library,
        py::arg("registration_name"));
  m.def("is_dlpack_uint8_tensor", &is_dlpack_uint8_tensor, py::arg("dlp"),
        "Whether a 'dltensor' capsule holds a uint8 tensor (bool tensors exported as uint8 "
        "look the same).");
  // The native half of create_and_register_allocator (the Python layer
  // unpacks OrtMemoryInfo and OrtArenaCfg): an arena shared by every session
  // whose provider allocates in that memory space.
  m.def(
      "_create_and_register_allocator",
      [](int device_type, uint32_t vendor_id, int32_t device_id, bool host_accessible,
         int64_t max_mem, int extend_strategy) {
        check(device_type >= 0 && device_type <= 3, "device type ", device_type,
              " is not one of CPU (0), GPU (1), FPGA (2), NPU (3)");
        // onnxruntime numbers FPGA 2 and NPU 3; Tessera's DeviceType the other way round.
        constexpr DeviceType kTypes[] = {DeviceType::kCPU, DeviceType::kGPU, DeviceType::kFPGA,
                                         DeviceType::kNPU};
        check(extend_strategy >= -1 && extend_strategy <= 1, "arena_extend_strategy ",
              extend_strategy,
              " is not -1 (default), 0 (next power of two) or 1 (same as requested)");
        MemoryInfo memory;
        memory.device_type = kTypes[device_type];
        memory.vendor_id = vendor_id;
        memory.device_id = device_id;
        memory.mem_type = host_accessible ? MemoryType::kHostAccessible : MemoryType::kDefault;
        if (memory.device_type != DeviceType::kCPU) {
          memory = Environment::global().device_memory(memory.device_type, device_id);
          memory.mem_type = host_accessible ? MemoryType::kHostAccessible : MemoryType::kDefault;
        }
        ArenaConfig config;
        if (max_mem > 0) config.memory_limit = size_t(max_mem);
        if (extend_strategy == 1) config.extend = ArenaExtendStrategy::kSameAsRequested;
        Environment::global().create_and_register_allocator(memory, config);
      },
      py::arg("device_type"), py::arg("vendor_id"), py::arg("device_id"),
      py::arg("host_accessible"), py::arg("max_mem"), py::arg("extend_strategy"));
  m.def(
      "_create_global_thread_pools",
      [](int intra, int inter, bool spin) {
        Environment::global().create_global_thread_pools(intra, inter, spin);
      },
      py::arg("intra_op_num_threads"), py::arg("inter_op_num_threads"), py::arg("spin") = true);
  m.def("get_device", [] { return std::string("CPU"); });
  m.def("get_version_string", [] { return std::string(version_string()); });
  m.def("set_default_logger_severity", [](int severity) {
    check(severity >= 0 && severity <= 4, "logger severity must be 0 (verbose) to 4 (fatal), got ",
          severity);
    set_log_severity(static_cast<Severity>(severity));
  });
  m.def("get_default_logger_severity", [] { return static_cast<int>(log_severity()); });
  m.def("set_default_logger_verbosity", [](int verbosity) { g_logger_verbosity = verbosity; });
  m.def("get_default_logger_verbosity", [] { return g_logger_verbosity; });
}

}  // namespace
}  // namespace tessera::python

PYBIND11_MODULE(_C, m) {
  m.doc() = "Tessera ONNX runtime: native bindings (use the `tessera` package instead)";
  tessera::python::bind_errors(m);
  tessera::python::bind_module_functions(m);
  tessera::python::bind_logger_callback(m);
  tessera::python::bind_ortvalue(m);
  tessera::python::bind_lora(m);
  tessera::python::bind_options(m);
  tessera::python::bind_session(m);
  tessera::python::bind_devices(m);
  tessera::python::bind_io_binding(m);
  m.attr("__version__") = tessera::version_string();
  m.attr("__build_type__") = TESSERA_PY_BUILD_TYPE;
}
