// A piece of hardware a provider can run on, as the environment lists it.
// Devices are described without naming any provider: the same GPU may be
// served by several providers, and the selection policy chooses among them.
#pragma once
#include <cstdint>
#include <string>

#include "core/memory_info.hpp"

namespace tessera {

// "cpu", "gpu" (also "cuda"), "npu", "fpga", any case; kInvalidArgument otherwise.
DeviceType parse_device_type(const std::string& name);
// A description of memory on a device, made without naming any provider.
MemoryInfo make_memory_info(std::string name, DeviceType device_type, uint32_t vendor_id = 0,
                            int32_t device_id = 0, MemoryType mem_type = MemoryType::kDefault,
                            size_t alignment = 64,
                            AllocatorType allocator_type = AllocatorType::kArena);

struct HardwareDevice {
  DeviceType type = DeviceType::kCPU;
  uint32_t vendor_id = 0;
  int32_t device_id = 0;
  std::string name = "CPU";

  // Same physical device (the name is only a label).
  bool same_device(const HardwareDevice& o) const {
    return type == o.type && vendor_id == o.vendor_id && device_id == o.device_id;
  }
  // Whether `memory` is this device's (default or host-accessible) memory.
  bool owns(const MemoryInfo& memory) const {
    return memory.device_type == type && memory.vendor_id == vendor_id &&
           memory.device_id == device_id;
  }
  std::string to_string() const {
    return name + "(" + device_type_name(type) + ":" + std::to_string(device_id) + ")";
  }
};

// The device a memory space belongs to.
inline HardwareDevice device_of(const MemoryInfo& m) {
  return {m.device_type, m.vendor_id, m.device_id, m.name};
}

}  // namespace tessera
