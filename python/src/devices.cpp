// Devices, (provider, device) pairs and the provider selection policy.
#include "devices.hpp"

#include <pybind11/stl.h>

#include <cctype>

#include "bindings.hpp"
#include "runtime/copy_tensors.hpp"
#include "runtime/environment.hpp"

namespace tessera::python {

namespace {

// The vendor's name as onnxruntime's OrtHardwareDevice.vendor gives it.
std::string vendor_name(const HardwareDevice& d) {
  switch (d.vendor_id) {
    case 0x10DE:
      return "NVIDIA";
    case 0x1002:
      return "AMD";
    case 0x8086:
      return "Intel";
    case 0x1414:
      return "Microsoft";
    case 0x5143:
      return "Qualcomm";
    default:
      return d.type == DeviceType::kCPU ? "CPU" : "unknown";
  }
}

}  // namespace

MemoryInfo memory_for_device(const std::string& device_type, int device_id) {
  DeviceType type = parse_device_type(device_type);
  if (type == DeviceType::kCPU) {
    check(device_id == 0, "device_id ", device_id, " does not exist; the CPU is device 0");
    return cpu_memory_info();
  }
  try {
    return Environment::global().device_memory(type, device_id);
  } catch (const Error& e) {
    fail(ErrorCode::kEPFail, "device '", device_type, "' is not available in this build (id ",
         device_id, "): ", e.what());
  }
}

std::string device_name(const MemoryInfo& memory) {
  std::string n = device_type_name(memory.device_type);
  for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
  return n;
}

Value to_host(const Value& v) {
  if (!v.is_tensor() || v.tensor().memory_info().host_accessible()) return v;
  return Value(copy_to(v.tensor(), cpu_memory_info()));
}

void bind_devices(py::module_& m) {
  py::enum_<ProviderSelectionPolicy>(m, "OrtExecutionProviderDevicePolicy")
      .value("DEFAULT", ProviderSelectionPolicy::kDefault)
      .value("PREFER_CPU", ProviderSelectionPolicy::kPreferCPU)
      .value("PREFER_NPU", ProviderSelectionPolicy::kPreferNPU)
      .value("PREFER_GPU", ProviderSelectionPolicy::kPreferGPU)
      .value("MAX_PERFORMANCE", ProviderSelectionPolicy::kMaxPerformance)
      .value("MAX_EFFICIENCY", ProviderSelectionPolicy::kMaxEfficiency)
      .value("MIN_OVERALL_POWER", ProviderSelectionPolicy::kMinOverallPower);
  py::enum_<DeviceType>(m, "OrtHardwareDeviceType")
      .value("CPU", DeviceType::kCPU)
      .value("GPU", DeviceType::kGPU)
      .value("NPU", DeviceType::kNPU)
      .value("FPGA", DeviceType::kFPGA);
  py::class_<HardwareDevice>(m, "OrtHardwareDevice")
      .def_readonly("type", &HardwareDevice::type)
      .def_readonly("vendor_id", &HardwareDevice::vendor_id)
      .def_readonly("device_id", &HardwareDevice::device_id)
      .def_readonly("name", &HardwareDevice::name)
      .def_property_readonly("vendor", &vendor_name)
      .def("__repr__",
           [](const HardwareDevice& d) { return "OrtHardwareDevice(" + d.to_string() + ")"; });
  py::class_<EpDevice>(m, "OrtEpDevice")
      .def_readonly("ep_name", &EpDevice::provider)
      .def_readonly("device", &EpDevice::device)
      .def_property_readonly("memory_info", [](const EpDevice& e) { return e.memory.to_string(); })
      .def("__repr__", [](const EpDevice& e) {
        return "OrtEpDevice(" + e.provider + ", " + e.device.to_string() + ")";
      });
  m.def(
      "get_ep_devices", [] { return Environment::global().ep_devices(); },
      "Every (provider, hardware device) pair this machine can use.");
  m.def(
      "get_hardware_devices", [] { return Environment::global().devices(); },
      "The hardware devices this process can use, each once.");
}

}  // namespace tessera::python
