#include "core/memory_info.hpp"

#include "core/error.hpp"

namespace tessera {

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::kCPU: return "CPU";
    case DeviceType::kGPU: return "GPU";
    case DeviceType::kNPU: return "NPU";
    case DeviceType::kFPGA: return "FPGA";
  }
  return "?";
}

std::string MemoryInfo::to_string() const {
  return str_cat(name, "(", device_type_name(device_type), ":", device_id,
                 mem_type == MemoryType::kHostAccessible ? ",host-accessible" : "", ")");
}

MemoryInfo cpu_memory_info() { return MemoryInfo{}; }

}  // namespace tessera
