#include "core/device.hpp"

#include <cctype>

#include "core/error.hpp"

namespace tessera {

DeviceType parse_device_type(const std::string& name) {
  std::string n;
  for (char c : name) n += char(std::tolower(static_cast<unsigned char>(c)));
  if (n == "cpu") return DeviceType::kCPU;
  if (n == "gpu" || n == "cuda") return DeviceType::kGPU;
  if (n == "npu") return DeviceType::kNPU;
  if (n == "fpga") return DeviceType::kFPGA;
  fail(ErrorCode::kInvalidArgument, "unknown device type '", name,
       "'; valid types are: cpu, gpu (or cuda), npu, fpga");
}

MemoryInfo make_memory_info(std::string name, DeviceType device_type, uint32_t vendor_id,
                            int32_t device_id, MemoryType mem_type, size_t alignment,
                            AllocatorType allocator_type) {
  check(alignment > 0 && (alignment & (alignment - 1)) == 0, "memory '", name,
        "': alignment must be a power of two, got ", alignment);
  check(device_id >= 0, "memory '", name, "': device id must be >= 0, got ", device_id);
  return {std::move(name), device_type, vendor_id, device_id, mem_type, alignment, allocator_type};
}

}  // namespace tessera
