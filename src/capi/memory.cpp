// Memory descriptions, allocators and arena configurations.
#include <cstring>

#include "capi/allocators.hpp"
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "core/device.hpp"

namespace tessera::capi {

namespace {

// `type` and `mem_type` are the caller's OrtAllocatorType and OrtMemType,
// checked by memory_from_ort before they are used as the enums.
void create_memory_info(const char* name, int type, int id, int mem_type, OrtMemoryInfo** out) {
  need(out, "out");
  auto m = std::make_unique<OrtMemoryInfo>();
  m->info = memory_from_ort(name, type, id, mem_type);
  m->id = id;
  m->mem_type = static_cast<OrtMemType>(mem_type);
  m->allocator_type = static_cast<OrtAllocatorType>(type);
  *out = m.release();
}

DeviceType device_type_from_ort(int t) {
  switch (t) {
    case OrtMemoryInfoDeviceType_CPU:
      return DeviceType::kCPU;
    case OrtMemoryInfoDeviceType_GPU:
      return DeviceType::kGPU;
    case OrtMemoryInfoDeviceType_FPGA:
      return DeviceType::kFPGA;
    case OrtMemoryInfoDeviceType_NPU:
      return DeviceType::kNPU;
    default:
      fail(ErrorCode::kInvalidArgument, "device type ", t, " is unknown");
  }
}

}  // namespace

OrtStatus* ORT_API_CALL CreateMemoryInfo(const char* name, enum OrtAllocatorType type, int id,
                                         enum OrtMemType mem_type, OrtMemoryInfo** out) noexcept {
  return guard("CreateMemoryInfo",
               [&] { create_memory_info(name, raw_enum(type), id, raw_enum(mem_type), out); });
}

OrtStatus* ORT_API_CALL CreateCpuMemoryInfo(enum OrtAllocatorType type, enum OrtMemType mem_type,
                                            OrtMemoryInfo** out) noexcept {
  return guard("CreateCpuMemoryInfo",
               [&] { create_memory_info("Cpu", raw_enum(type), 0, raw_enum(mem_type), out); });
}

OrtStatus* ORT_API_CALL CreateMemoryInfo_V2(const char* name,
                                            enum OrtMemoryInfoDeviceType device_type,
                                            uint32_t vendor_id, int32_t device_id,
                                            enum OrtDeviceMemoryType mem_type, size_t alignment,
                                            enum OrtAllocatorType allocator_type,
                                            OrtMemoryInfo** out) noexcept {
  return guard("CreateMemoryInfo_V2", [&] {
    need(name, "name");
    need(out, "out");
    const DeviceType type = device_type_from_ort(raw_enum(device_type));
    const int mem = raw_enum(mem_type);
    const int alloc = raw_enum(allocator_type);
    check(mem == OrtDeviceMemoryType_DEFAULT || mem == OrtDeviceMemoryType_HOST_ACCESSIBLE,
          "device memory type ", mem, " is unknown");
    check(
        alloc == OrtDeviceAllocator || alloc == OrtArenaAllocator || alloc == OrtReadOnlyAllocator,
        "allocator type ", alloc, " is unknown");
    check(alignment == 0 || (alignment & (alignment - 1)) == 0, "alignment ", alignment,
          " is not a power of two");
    const bool host_accessible = mem == OrtDeviceMemoryType_HOST_ACCESSIBLE;
    auto m = std::make_unique<OrtMemoryInfo>();
    m->info = make_memory_info(
        name, type, vendor_id, device_id,
        host_accessible ? MemoryType::kHostAccessible : MemoryType::kDefault,
        alignment == 0 ? 64 : alignment,
        alloc == OrtDeviceAllocator ? AllocatorType::kDevice : AllocatorType::kArena);
    m->id = device_id;
    m->allocator_type = static_cast<OrtAllocatorType>(alloc);
    m->mem_type =
        type != DeviceType::kCPU && host_accessible ? OrtMemTypeCPUOutput : OrtMemTypeDefault;
    *out = m.release();
  });
}

void ORT_API_CALL ReleaseMemoryInfo(OrtMemoryInfo* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL CompareMemoryInfo(const OrtMemoryInfo* info1, const OrtMemoryInfo* info2,
                                          int* out) noexcept {
  return guard("CompareMemoryInfo", [&] {
    need(info1, "info1");
    need(info2, "info2");
    need(out, "out");
    const bool same = info1->info.same_space(info2->info) && info1->info.name == info2->info.name &&
                      info1->allocator_type == info2->allocator_type;
    *out = same ? 0 : -1;
  });
}

OrtStatus* ORT_API_CALL MemoryInfoGetName(const OrtMemoryInfo* ptr, const char** out) noexcept {
  return guard("MemoryInfoGetName", [&] {
    need(ptr, "memory info");
    need(out, "out");
    *out = ptr->info.name.c_str();
  });
}

OrtStatus* ORT_API_CALL MemoryInfoGetId(const OrtMemoryInfo* ptr, int* out) noexcept {
  return guard("MemoryInfoGetId", [&] {
    need(ptr, "memory info");
    need(out, "out");
    *out = ptr->id;
  });
}

OrtStatus* ORT_API_CALL MemoryInfoGetMemType(const OrtMemoryInfo* ptr, OrtMemType* out) noexcept {
  return guard("MemoryInfoGetMemType", [&] {
    need(ptr, "memory info");
    need(out, "out");
    *out = ptr->mem_type;
  });
}

OrtStatus* ORT_API_CALL MemoryInfoGetType(const OrtMemoryInfo* ptr,
                                          OrtAllocatorType* out) noexcept {
  return guard("MemoryInfoGetType", [&] {
    need(ptr, "memory info");
    need(out, "out");
    *out = ptr->allocator_type;
  });
}

void ORT_API_CALL MemoryInfoGetDeviceType(const OrtMemoryInfo* ptr,
                                          OrtMemoryInfoDeviceType* out) noexcept {
  if (ptr == nullptr || out == nullptr) return;
  switch (ptr->info.device_type) {
    case DeviceType::kCPU:
      *out = OrtMemoryInfoDeviceType_CPU;
      break;
    case DeviceType::kGPU:
      *out = OrtMemoryInfoDeviceType_GPU;
      break;
    case DeviceType::kNPU:
      *out = OrtMemoryInfoDeviceType_NPU;
      break;
    case DeviceType::kFPGA:
      *out = OrtMemoryInfoDeviceType_FPGA;
      break;
  }
}

OrtDeviceMemoryType ORT_API_CALL MemoryInfoGetDeviceMemType(const OrtMemoryInfo* ptr) noexcept {
  return ptr != nullptr && ptr->info.mem_type == MemoryType::kHostAccessible
             ? OrtDeviceMemoryType_HOST_ACCESSIBLE
             : OrtDeviceMemoryType_DEFAULT;
}

uint32_t ORT_API_CALL MemoryInfoGetVendorId(const OrtMemoryInfo* ptr) noexcept {
  return ptr != nullptr ? ptr->info.vendor_id : 0;
}

OrtStatus* ORT_API_CALL AllocatorAlloc(OrtAllocator* ort_allocator, size_t size,
                                       void** out) noexcept {
  return guard("AllocatorAlloc", [&] {
    need(ort_allocator, "allocator");
    need(out, "out");
    check(ort_allocator->Alloc != nullptr, "the allocator has no Alloc function");
    *out = ort_allocator->Alloc(ort_allocator, size);
    check_code(*out != nullptr || size == 0, ErrorCode::kOutOfMemory,
               "the allocator could not give ", size, " bytes");
  });
}

OrtStatus* ORT_API_CALL AllocatorFree(OrtAllocator* ort_allocator, void* p) noexcept {
  return guard("AllocatorFree", [&] {
    need(ort_allocator, "allocator");
    check(ort_allocator->Free != nullptr, "the allocator has no Free function");
    ort_allocator->Free(ort_allocator, p);
  });
}

OrtStatus* ORT_API_CALL AllocatorGetInfo(const OrtAllocator* ort_allocator,
                                         const struct OrtMemoryInfo** out) noexcept {
  return guard("AllocatorGetInfo", [&] {
    need(ort_allocator, "allocator");
    need(out, "out");
    check(ort_allocator->Info != nullptr, "the allocator has no Info function");
    *out = ort_allocator->Info(ort_allocator);
  });
}

OrtStatus* ORT_API_CALL AllocatorGetStats(const OrtAllocator* ort_allocator,
                                          OrtKeyValuePairs** out) noexcept {
  return guard("AllocatorGetStats", [&] {
    need(ort_allocator, "allocator");
    need(out, "out");
    check(ort_allocator->version >= 23 && ort_allocator->GetStats != nullptr,
          "the allocator does not report statistics");
    OrtStatus* s = ort_allocator->GetStats(ort_allocator, out);
    if (s != nullptr) {
      const std::string msg = s->message;
      const OrtErrorCode code = s->code;
      delete s;
      fail(code == ORT_NOT_IMPLEMENTED ? ErrorCode::kNotImplemented : ErrorCode::kFail, msg);
    }
  });
}

OrtStatus* ORT_API_CALL GetAllocatorWithDefaultOptions(OrtAllocator** out) noexcept {
  return guard("GetAllocatorWithDefaultOptions", [&] {
    need(out, "out");
    *out = default_allocator();
  });
}

OrtStatus* ORT_API_CALL CreateAllocator(const OrtSession* session, const OrtMemoryInfo* mem_info,
                                        OrtAllocator** out) noexcept {
  return guard("CreateAllocator", [&] {
    need(session, "session");
    need(mem_info, "memory info");
    need(out, "out");
    auto a = session->get().allocator_for(mem_info->info);
    check_code(a != nullptr, ErrorCode::kEPFail, "no provider of the session allocates in ",
               mem_info->info.to_string());
    *out = new CApiAllocator(std::move(a));
  });
}

void ORT_API_CALL ReleaseAllocator(OrtAllocator* input) noexcept {
  // The default allocator is the process's; only allocators this API created
  // are freed (an application's own allocator is not ours to free).
  if (input == nullptr || is_default_allocator(input)) return;
  if (const CApiAllocator* ours = as_ours(input)) delete ours;
}

OrtStatus* ORT_API_CALL CreateArenaCfg(size_t max_mem, int arena_extend_strategy,
                                       int initial_chunk_size_bytes, int max_dead_bytes_per_chunk,
                                       OrtArenaCfg** out) noexcept {
  return guard("CreateArenaCfg", [&] {
    need(out, "out");
    check(arena_extend_strategy >= -1 && arena_extend_strategy <= 1, "arena_extend_strategy ",
          arena_extend_strategy, " is not -1 (default), 0 (next power of two) or 1 (as requested)");
    check(initial_chunk_size_bytes >= -1 && max_dead_bytes_per_chunk >= -1,
          "chunk sizes must be -1 (default) or positive");
    auto cfg = std::make_unique<OrtArenaCfg>();
    cfg->config.memory_limit = max_mem;
    if (arena_extend_strategy == 1) cfg->config.extend = ArenaExtendStrategy::kSameAsRequested;
    *out = cfg.release();
  });
}

OrtStatus* ORT_API_CALL CreateArenaCfgV2(const char* const* arena_config_keys,
                                         const size_t* arena_config_values, size_t num_keys,
                                         OrtArenaCfg** out) noexcept {
  return guard("CreateArenaCfgV2", [&] {
    need(out, "out");
    const auto keys = string_list(arena_config_keys, num_keys, "arena_config_keys");
    if (num_keys > 0) need(arena_config_values, "arena_config_values");
    auto cfg = std::make_unique<OrtArenaCfg>();
    for (size_t i = 0; i < num_keys; ++i) {
      const std::string& k = keys[i];
      const size_t v = arena_config_values[i];
      if (k == "max_mem") {
        cfg->config.memory_limit = v;
      } else if (k == "arena_extend_strategy") {
        check(v <= 1, "arena_extend_strategy ", v, " is not 0 or 1");
        cfg->config.extend =
            v == 1 ? ArenaExtendStrategy::kSameAsRequested : ArenaExtendStrategy::kNextPowerOfTwo;
      } else {
        // Chunking knobs of ONNX Runtime's arena; Tessera's arena sizes its
        // blocks itself, so they are accepted and have no effect.
        check(k == "initial_chunk_size_bytes" || k == "max_dead_bytes_per_chunk" ||
                  k == "initial_growth_chunk_size_bytes" || k == "max_power_of_two_extend_bytes",
              "arena configuration key '", k, "' is unknown");
      }
    }
    *out = cfg.release();
  });
}

void ORT_API_CALL ReleaseArenaCfg(OrtArenaCfg* input) noexcept { delete input; }

}  // namespace tessera::capi
