// Execution-provider devices and hardware devices, shared allocators,
// copies between memory spaces and sync streams, provider libraries, and
// where a session reads its inputs and writes its outputs.
#include <mutex>

#include "capi/allocators.hpp"
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "runtime/copy_tensors.hpp"
#include "runtime/runtime_api.hpp"

namespace tessera::capi {
namespace {

const char* vendor_name(uint32_t vendor_id, DeviceType type) {
  switch (vendor_id) {
    case 0x10DE:
      return "NVIDIA";
    case 0x1002:
      return "AMD";
    case 0x8086:
      return "Intel";
    default:
      return type == DeviceType::kCPU ? "CPU" : "unknown";
  }
}

// Devices handed to the application stay valid for the life of the process:
// an entry is made once per (provider, device) and kept.
struct DeviceCache {
  std::mutex mu;
  std::vector<std::unique_ptr<OrtHardwareDevice>> hardware;
  std::vector<std::unique_ptr<OrtEpDevice>> ep_devices;
  std::vector<const OrtEpDevice*> current;  // what GetEpDevices lists now
  std::vector<const OrtHardwareDevice*> current_hardware;
  std::vector<std::pair<std::string, std::unique_ptr<CApiAllocator>>> shared;  // by memory

  const OrtHardwareDevice* hardware_for(const HardwareDevice& d) {
    for (const auto& h : hardware)
      if (h->device.same_device(d)) return h.get();
    auto h = std::make_unique<OrtHardwareDevice>();
    h->device = d;
    h->vendor = vendor_name(d.vendor_id, d.type);
    h->metadata.set("name", d.name);
    hardware.push_back(std::move(h));
    return hardware.back().get();
  }

  const OrtEpDevice* ep_device_for(const EpDevice& d) {
    for (const auto& e : ep_devices)
      if (e->ep_name == d.provider && e->device->device.same_device(d.device)) return e.get();
    auto e = std::make_unique<OrtEpDevice>();
    e->ep_name = d.provider;
    e->ep_vendor = "Tessera";
    e->device = hardware_for(d.device);
    e->memory = to_ort_memory(d.memory);
    MemoryInfo host = d.memory;
    if (d.memory.device_type != DeviceType::kCPU) host.mem_type = MemoryType::kHostAccessible;
    e->host_memory = to_ort_memory(host);
    e->metadata.set("version", version_string());
    ep_devices.push_back(std::move(e));
    return ep_devices.back().get();
  }

  void refresh() {
    current.clear();
    current_hardware.clear();
    for (const EpDevice& d : Environment::global().ep_devices())
      current.push_back(ep_device_for(d));
    for (const HardwareDevice& d : Environment::global().devices())
      current_hardware.push_back(hardware_for(d));
  }

  OrtAllocator* shared_allocator(const MemoryInfo& memory, std::shared_ptr<Allocator> a) {
    const std::string key = memory.to_string();
    for (auto& [k, w] : shared)
      if (k == key && w->impl == a) return w.get();
    shared.emplace_back(key, std::make_unique<CApiAllocator>(std::move(a)));
    return shared.back().second.get();
  }
};

DeviceCache& cache() {
  static DeviceCache* c = new DeviceCache();  // lives as long as the process
  return *c;
}

const MemoryInfo& device_memory(const OrtEpDevice* d, int mem_type) {
  need(d, "ep_device");
  check(mem_type == OrtDeviceMemoryType_DEFAULT || mem_type == OrtDeviceMemoryType_HOST_ACCESSIBLE,
        "device memory type ", mem_type, " is unknown");
  return mem_type == OrtDeviceMemoryType_DEFAULT ? d->memory.info : d->host_memory.info;
}

// The provider a session runs a value's first reader or its producer on,
// as an OrtEpDevice (null when no node touches the value).
const OrtEpDevice* ep_device_of(const std::string& provider, const MemoryInfo& memory) {
  if (provider.empty()) return nullptr;
  DeviceCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.refresh();
  for (const OrtEpDevice* d : c.current)
    if (d->ep_name == provider && d->device->device.owns(memory)) return d;
  for (const OrtEpDevice* d : c.current)
    if (d->ep_name == provider) return d;
  return nullptr;
}

}  // namespace

std::vector<const OrtEpDevice*> current_ep_devices() {
  DeviceCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.refresh();
  return c.current;
}

OrtStatus* ORT_API_CALL GetEpDevices(const OrtEnv* env, const OrtEpDevice* const** ep_devices,
                                     size_t* num_ep_devices) noexcept {
  return guard("GetEpDevices", [&] {
    need(env, "env");
    need(ep_devices, "ep_devices");
    need(num_ep_devices, "num_ep_devices");
    DeviceCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    c.refresh();
    *ep_devices = c.current.data();
    *num_ep_devices = c.current.size();
  });
}

OrtStatus* ORT_API_CALL GetNumHardwareDevices(const OrtEnv* env, size_t* num_devices) noexcept {
  return guard("GetNumHardwareDevices", [&] {
    need(env, "env");
    need(num_devices, "num_devices");
    DeviceCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    c.refresh();
    *num_devices = c.current_hardware.size();
  });
}

OrtStatus* ORT_API_CALL GetHardwareDevices(const OrtEnv* env, const OrtHardwareDevice** devices,
                                           size_t num_devices) noexcept {
  return guard("GetHardwareDevices", [&] {
    need(env, "env");
    DeviceCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    c.refresh();
    check(num_devices == c.current_hardware.size(), "num_devices is ", num_devices,
          " but there are ", c.current_hardware.size(), " hardware devices");
    if (num_devices > 0) need(devices, "devices");
    for (size_t i = 0; i < num_devices; ++i) devices[i] = c.current_hardware[i];
  });
}

OrtHardwareDeviceType ORT_API_CALL HardwareDevice_Type(const OrtHardwareDevice* device) noexcept {
  if (device == nullptr) return OrtHardwareDeviceType_CPU;
  switch (device->device.type) {
    case DeviceType::kGPU:
      return OrtHardwareDeviceType_GPU;
    case DeviceType::kNPU:
      return OrtHardwareDeviceType_NPU;
    default:
      return OrtHardwareDeviceType_CPU;
  }
}

uint32_t ORT_API_CALL HardwareDevice_VendorId(const OrtHardwareDevice* device) noexcept {
  return device != nullptr ? device->device.vendor_id : 0;
}

const char* ORT_API_CALL HardwareDevice_Vendor(const OrtHardwareDevice* device) noexcept {
  return device != nullptr ? device->vendor.c_str() : nullptr;
}

uint32_t ORT_API_CALL HardwareDevice_DeviceId(const OrtHardwareDevice* device) noexcept {
  return device != nullptr ? static_cast<uint32_t>(device->device.device_id) : 0;
}

const OrtKeyValuePairs* ORT_API_CALL
HardwareDevice_Metadata(const OrtHardwareDevice* device) noexcept {
  return device != nullptr ? &device->metadata : nullptr;
}

const char* ORT_API_CALL EpDevice_EpName(const OrtEpDevice* ep_device) noexcept {
  return ep_device != nullptr ? ep_device->ep_name.c_str() : nullptr;
}

const char* ORT_API_CALL EpDevice_EpVendor(const OrtEpDevice* ep_device) noexcept {
  return ep_device != nullptr ? ep_device->ep_vendor.c_str() : nullptr;
}

const OrtKeyValuePairs* ORT_API_CALL EpDevice_EpMetadata(const OrtEpDevice* ep_device) noexcept {
  return ep_device != nullptr ? &ep_device->metadata : nullptr;
}

const OrtKeyValuePairs* ORT_API_CALL EpDevice_EpOptions(const OrtEpDevice* ep_device) noexcept {
  return ep_device != nullptr ? &ep_device->options : nullptr;
}

const OrtHardwareDevice* ORT_API_CALL EpDevice_Device(const OrtEpDevice* ep_device) noexcept {
  return ep_device != nullptr ? ep_device->device : nullptr;
}

const OrtMemoryInfo* ORT_API_CALL EpDevice_MemoryInfo(const OrtEpDevice* ep_device,
                                                      OrtDeviceMemoryType memory_type) noexcept {
  if (ep_device == nullptr) return nullptr;
  return raw_enum(memory_type) == OrtDeviceMemoryType_HOST_ACCESSIBLE ? &ep_device->host_memory
                                                                      : &ep_device->memory;
}

OrtStatus* ORT_API_CALL SessionOptionsAppendExecutionProvider_V2(
    OrtSessionOptions* session_options, OrtEnv* env, const OrtEpDevice* const* ep_devices,
    size_t num_ep_devices, const char* const* ep_option_keys, const char* const* ep_option_vals,
    size_t num_ep_options) noexcept {
  return guard("SessionOptionsAppendExecutionProvider_V2", [&] {
    need(session_options, "session options");
    need(env, "env");
    check(num_ep_devices > 0, "no ep_devices were given");
    need(ep_devices, "ep_devices");
    for (size_t i = 0; i < num_ep_devices; ++i) {
      check(ep_devices[i] != nullptr, "ep_devices[", i, "] is null");
      check(ep_devices[i]->ep_name == ep_devices[0]->ep_name, "ep_devices[", i, "] is for ",
            ep_devices[i]->ep_name, " but ep_devices[0] is for ", ep_devices[0]->ep_name,
            ": devices appended together must share a provider");
    }
    const auto keys = string_list(ep_option_keys, num_ep_options, "ep_option_keys");
    const auto vals = string_list(ep_option_vals, num_ep_options, "ep_option_vals");
    ProviderSpec spec{ep_devices[0]->ep_name, {}};
    for (size_t i = 0; i < keys.size(); ++i) spec.options[keys[i]] = vals[i];
    // The CUDA provider runs on one device, chosen by option.
    if (spec.name == "CUDAExecutionProvider" && !spec.options.count("device_id"))
      spec.options["device_id"] = std::to_string(ep_devices[0]->device->device.device_id);
    session_options->providers.push_back(std::move(spec));
  });
}

OrtStatus* ORT_API_CALL CreateSharedAllocator(OrtEnv* env, const OrtEpDevice* ep_device,
                                              OrtDeviceMemoryType mem_type,
                                              OrtAllocatorType allocator_type,
                                              const OrtKeyValuePairs* allocator_options,
                                              OrtAllocator** allocator) noexcept {
  return guard("CreateSharedAllocator", [&] {
    need(env, "env");
    const MemoryInfo& memory = device_memory(ep_device, raw_enum(mem_type));
    const int alloc = raw_enum(allocator_type);
    check(alloc == OrtDeviceAllocator || alloc == OrtArenaAllocator, "allocator type ", alloc,
          " cannot be shared");
    ArenaConfig cfg;
    if (allocator_options != nullptr) {
      if (const char* limit = allocator_options->get("arena.max_mem"))
        cfg.memory_limit = std::stoull(limit);
    }
    auto a = Environment::global().create_and_register_allocator(memory, cfg);
    DeviceCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    OrtAllocator* wrapped = c.shared_allocator(memory, std::move(a));
    if (allocator != nullptr) *allocator = wrapped;
  });
}

OrtStatus* ORT_API_CALL GetSharedAllocator(OrtEnv* env, const OrtMemoryInfo* mem_info,
                                           OrtAllocator** allocator) noexcept {
  return guard("GetSharedAllocator", [&] {
    need(env, "env");
    need(mem_info, "memory info");
    need(allocator, "allocator");
    // The registered shared allocator, else the device allocator of the
    // provider that serves this memory.
    auto a = Environment::global().allocator(mem_info->info);
    DeviceCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    *allocator = c.shared_allocator(mem_info->info, std::move(a));
  });
}

OrtStatus* ORT_API_CALL ReleaseSharedAllocator(OrtEnv* env, const OrtEpDevice* ep_device,
                                               OrtDeviceMemoryType mem_type) noexcept {
  return guard("ReleaseSharedAllocator", [&] {
    need(env, "env");
    // The wrapper stays (the application may still hold it until its
    // allocations are freed); sessions made from now on use their own.
    Environment::global().unregister_allocator(device_memory(ep_device, raw_enum(mem_type)));
  });
}

OrtStatus* ORT_API_CALL CreateAndRegisterAllocator(OrtEnv* env, const OrtMemoryInfo* mem_info,
                                                   const OrtArenaCfg* arena_cfg) noexcept {
  return guard("CreateAndRegisterAllocator", [&] {
    need(env, "env");
    need(mem_info, "memory info");
    Environment::global().create_and_register_allocator(
        mem_info->info, arena_cfg != nullptr ? arena_cfg->config : ArenaConfig{});
  });
}

OrtStatus* ORT_API_CALL CreateAndRegisterAllocatorV2(OrtEnv* env, const char* provider_type,
                                                     const OrtMemoryInfo* mem_info,
                                                     const OrtArenaCfg* arena_cfg,
                                                     const char* const* provider_options_keys,
                                                     const char* const* provider_options_values,
                                                     size_t num_keys) noexcept {
  return guard("CreateAndRegisterAllocatorV2", [&] {
    need(env, "env");
    need(provider_type, "provider_type");
    need(mem_info, "memory info");
    string_list(provider_options_keys, num_keys, "provider_options_keys");
    string_list(provider_options_values, num_keys, "provider_options_values");
    auto p = Environment::global().provider_for(mem_info->info);
    check_code(p != nullptr, ErrorCode::kEPFail, "no provider serves ", mem_info->info.to_string());
    Environment::global().create_and_register_allocator(
        mem_info->info, arena_cfg != nullptr ? arena_cfg->config : ArenaConfig{});
  });
}

OrtStatus* ORT_API_CALL RegisterAllocator(OrtEnv* env, OrtAllocator* allocator) noexcept {
  return guard("RegisterAllocator", [&] {
    need(env, "env");
    Environment::global().register_allocator(tessera_allocator(allocator));
  });
}

OrtStatus* ORT_API_CALL UnregisterAllocator(OrtEnv* env, const OrtMemoryInfo* mem_info) noexcept {
  return guard("UnregisterAllocator", [&] {
    need(env, "env");
    need(mem_info, "memory info");
    Environment::global().unregister_allocator(mem_info->info);
  });
}

OrtStatus* ORT_API_CALL CreateSyncStreamForEpDevice(const OrtEpDevice* ep_device,
                                                    const OrtKeyValuePairs* stream_options,
                                                    OrtSyncStream** stream) noexcept {
  return guard("CreateSyncStreamForEpDevice", [&] {
    need(ep_device, "ep_device");
    need(stream, "stream");
    (void)stream_options;  // no provider of Tessera's takes stream options
    *stream = new OrtSyncStream{create_stream(ep_device->memory.info), ep_device};
  });
}

void* ORT_API_CALL SyncStream_GetHandle(OrtSyncStream* stream) noexcept {
  // Tessera's streams are the provider's own objects; the handle the
  // application can pass back to Tessera is the stream itself.
  return stream != nullptr ? stream->stream.get() : nullptr;
}

void ORT_API_CALL ReleaseSyncStream(OrtSyncStream* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL CopyTensors(const OrtEnv* env, const OrtValue* const* src_tensors,
                                    OrtValue* const* dst_tensors, OrtSyncStream* stream,
                                    size_t num_tensors) noexcept {
  return guard("CopyTensors", [&] {
    need(env, "env");
    if (num_tensors == 0) return;
    need(src_tensors, "src_tensors");
    need(dst_tensors, "dst_tensors");
    std::vector<const Tensor*> src;
    std::vector<Tensor*> dst;
    for (size_t i = 0; i < num_tensors; ++i) {
      check(src_tensors[i] != nullptr && dst_tensors[i] != nullptr, "tensor pair ", i,
            " has a null value");
      check(src_tensors[i]->value.is_tensor() && dst_tensors[i]->value.is_tensor(), "pair ", i,
            " is not a pair of tensors");
      src.push_back(&src_tensors[i]->value.tensor());
      dst.push_back(&dst_tensors[i]->value.tensor());
    }
    copy_tensors(src, dst, stream != nullptr ? stream->stream.get() : nullptr);
  });
}

OrtStatus* ORT_API_CALL SessionGetMemoryInfoForInputs(const OrtSession* session,
                                                      const OrtMemoryInfo** inputs_memory_info,
                                                      size_t num_inputs) noexcept {
  return guard("SessionGetMemoryInfoForInputs", [&] {
    need(session, "session");
    const auto locations = session->get().input_locations();
    check(num_inputs == locations.size(), "num_inputs is ", num_inputs, " but the session has ",
          locations.size(), " inputs");
    if (num_inputs > 0) need(inputs_memory_info, "inputs_memory_info");
    std::lock_guard<std::mutex> lock(session->mu);
    if (session->input_memory.empty())
      for (const InputLocation& l : locations)
        session->input_memory.push_back(to_ort_memory(l.memory));
    for (size_t i = 0; i < num_inputs; ++i) inputs_memory_info[i] = &session->input_memory[i];
  });
}

OrtStatus* ORT_API_CALL SessionGetMemoryInfoForOutputs(const OrtSession* session,
                                                       const OrtMemoryInfo** outputs_memory_info,
                                                       size_t num_outputs) noexcept {
  return guard("SessionGetMemoryInfoForOutputs", [&] {
    need(session, "session");
    const auto locations = session->get().output_locations();
    check(num_outputs == locations.size(), "num_outputs is ", num_outputs, " but the session has ",
          locations.size(), " outputs");
    if (num_outputs > 0) need(outputs_memory_info, "outputs_memory_info");
    std::lock_guard<std::mutex> lock(session->mu);
    if (session->output_memory.empty())
      for (const auto& l : locations) session->output_memory.push_back(to_ort_memory(l.memory));
    for (size_t i = 0; i < num_outputs; ++i) outputs_memory_info[i] = &session->output_memory[i];
  });
}

OrtStatus* ORT_API_CALL SessionGetEpDeviceForInputs(const OrtSession* session,
                                                    const OrtEpDevice** inputs_ep_devices,
                                                    size_t num_inputs) noexcept {
  return guard("SessionGetEpDeviceForInputs", [&] {
    need(session, "session");
    const auto locations = session->get().input_locations();
    check(num_inputs == locations.size(), "num_inputs is ", num_inputs, " but the session has ",
          locations.size(), " inputs");
    if (num_inputs > 0) need(inputs_ep_devices, "inputs_ep_devices");
    for (size_t i = 0; i < num_inputs; ++i)
      inputs_ep_devices[i] = ep_device_of(locations[i].provider, locations[i].memory);
  });
}

OrtStatus* ORT_API_CALL SessionGetEpDeviceForOutputs(const OrtSession* session,
                                                     const OrtEpDevice** outputs_ep_devices,
                                                     size_t num_outputs) noexcept {
  return guard("SessionGetEpDeviceForOutputs", [&] {
    need(session, "session");
    const auto locations = session->get().output_locations();
    check(num_outputs == locations.size(), "num_outputs is ", num_outputs, " but the session has ",
          locations.size(), " outputs");
    if (num_outputs > 0) need(outputs_ep_devices, "outputs_ep_devices");
    for (size_t i = 0; i < num_outputs; ++i)
      outputs_ep_devices[i] = ep_device_of(locations[i].provider, locations[i].memory);
  });
}

OrtStatus* ORT_API_CALL RegisterExecutionProviderLibrary(OrtEnv* env, const char* registration_name,
                                                         const ORTCHAR_T* path) noexcept {
  return guard("RegisterExecutionProviderLibrary", [&] {
    need(env, "env");
    need(registration_name, "registration_name");
    need(path, "path");
    register_execution_provider_library(registration_name, path);
  });
}

OrtStatus* ORT_API_CALL UnregisterExecutionProviderLibrary(OrtEnv* env,
                                                           const char* registration_name) noexcept {
  return guard("UnregisterExecutionProviderLibrary", [&] {
    need(env, "env");
    need(registration_name, "registration_name");
    unregister_execution_provider_library(registration_name);
  });
}

}  // namespace tessera::capi
