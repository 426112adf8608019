#include "core/memory_info.hpp"

#include <cstdio>

#include "core/error.hpp"

namespace tessera {

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::kCPU:
      return "CPU";
    case DeviceType::kGPU:
      return "GPU";
    case DeviceType::kNPU:
      return "NPU";
    case DeviceType::kFPGA:
      return "FPGA";
  }
  return "?";
}

std::string MemoryInfo::to_string() const {
  // The vendor id tells apart two devices of one type and id (an error
  // naming "GPU:0" alone would not say which vendor's).
  char vendor[24] = "";
  if (vendor_id != 0) std::snprintf(vendor, sizeof vendor, ",vendor 0x%x", unsigned(vendor_id));
  return str_cat(name, "(", device_type_name(device_type), ":", device_id, vendor,
                 mem_type == MemoryType::kHostAccessible ? ",host-accessible" : "", ")");
}

MemoryInfo cpu_memory_info() { return MemoryInfo{}; }

}  // namespace tessera
