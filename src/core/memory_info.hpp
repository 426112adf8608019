// Where a buffer lives. Two tensors need a copy between them exactly when
// their MemoryInfos differ in device (type, vendor, id) or memory type.
#pragma once
#include <cstdint>
#include <string>

namespace tessera {

enum class DeviceType { kCPU, kGPU, kNPU, kFPGA };
enum class MemoryType { kDefault, kHostAccessible };
enum class AllocatorType { kDevice, kArena };

const char* device_type_name(DeviceType t);

struct MemoryInfo {
  std::string name = "Cpu";
  DeviceType device_type = DeviceType::kCPU;
  uint32_t vendor_id = 0;
  int32_t device_id = 0;
  MemoryType mem_type = MemoryType::kDefault;
  size_t alignment = 64;
  AllocatorType allocator_type = AllocatorType::kArena;

  // Same physical memory space (name and allocator kind do not matter).
  bool same_space(const MemoryInfo& o) const {
    return device_type == o.device_type && vendor_id == o.vendor_id &&
           device_id == o.device_id && mem_type == o.mem_type;
  }
  // Host code can read and write this memory directly.
  bool host_accessible() const {
    return device_type == DeviceType::kCPU || mem_type == MemoryType::kHostAccessible;
  }
  std::string to_string() const;
};

MemoryInfo cpu_memory_info();

}  // namespace tessera
