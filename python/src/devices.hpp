// Devices as the Python API names them ("cpu", "cuda"/"gpu", "npu", "fpga"
// plus a device id), mapped to the memory of a provider that serves them.
#pragma once
#include <string>

#include "core/value.hpp"

namespace tessera::python {

// The memory of (device_type, device_id); kEPFail naming the device when no
// registered provider serves it.
MemoryInfo memory_for_device(const std::string& device_type, int device_id);
// "cpu", "gpu", "npu" or "fpga": where a tensor lives.
std::string device_name(const MemoryInfo& memory);
// The value itself when it is in host memory, else a host copy.
Value to_host(const Value& v);

}  // namespace tessera::python
