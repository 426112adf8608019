// The environment, memory descriptions and execution-provider devices.
#pragma once
#include <string>
#include <vector>

#include "tessera/cxx/base.hpp"

namespace tessera::api {

// Where a tensor lives. `MemoryInfo::cpu()` is host memory.
class MemoryInfo {
 public:
  static MemoryInfo cpu() {
    OrtMemoryInfo* m = nullptr;
    check(c_api().CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &m));
    return MemoryInfo(m);
  }
  // A device's memory by name ("Cpu", "Cuda", "CudaPinned", a plugin's name).
  MemoryInfo(const std::string& name, int device_id, OrtMemType type = OrtMemTypeDefault) {
    OrtMemoryInfo* m = nullptr;
    check(c_api().CreateMemoryInfo(name.c_str(), OrtArenaAllocator, device_id, type, &m));
    h_.reset(m);
  }
  explicit MemoryInfo(OrtMemoryInfo* owned) : h_(owned) {}

  std::string name() const {
    const char* n = nullptr;
    check(c_api().MemoryInfoGetName(h_.get(), &n));
    return n;
  }
  int device_id() const {
    int id = 0;
    check(c_api().MemoryInfoGetId(h_.get(), &id));
    return id;
  }
  OrtMemoryInfoDeviceType device_type() const {
    OrtMemoryInfoDeviceType t = OrtMemoryInfoDeviceType_CPU;
    c_api().MemoryInfoGetDeviceType(h_.get(), &t);
    return t;
  }
  const OrtMemoryInfo* get() const noexcept { return h_.get(); }

 private:
  Owned<OrtMemoryInfo> h_;
};

// A provider that can run on a piece of hardware. Owned by the runtime.
class EpDevice {
 public:
  explicit EpDevice(const OrtEpDevice* d) : d_(d) {}
  std::string provider() const { return c_api().EpDevice_EpName(d_); }
  OrtHardwareDeviceType hardware_type() const {
    return c_api().HardwareDevice_Type(c_api().EpDevice_Device(d_));
  }
  uint32_t vendor_id() const {
    return c_api().HardwareDevice_VendorId(c_api().EpDevice_Device(d_));
  }
  uint32_t device_id() const {
    return c_api().HardwareDevice_DeviceId(c_api().EpDevice_Device(d_));
  }
  // The runtime's description of this provider's memory on the device (not owned).
  const OrtMemoryInfo* memory(OrtDeviceMemoryType type = OrtDeviceMemoryType_DEFAULT) const {
    return c_api().EpDevice_MemoryInfo(d_, type);
  }
  const OrtEpDevice* get() const noexcept { return d_; }

 private:
  const OrtEpDevice* d_;
};

// The process's environment: logging, provider libraries, devices and the
// allocators shared by sessions. Every Env shares the one environment.
class Env {
 public:
  explicit Env(OrtLoggingLevel level = ORT_LOGGING_LEVEL_WARNING,
               const std::string& log_id = "tessera") {
    OrtEnv* e = nullptr;
    check(c_api().CreateEnv(level, log_id.c_str(), &e));
    h_.reset(e);
  }
  // The environment with process-wide thread pools (0 threads: one per
  // core), which sessions whose options call disable_per_session_threads()
  // share. The first creator of the process's environment sets them.
  static Env with_global_thread_pools(int intra_op_threads, int inter_op_threads,
                                      bool allow_spinning = true,
                                      OrtLoggingLevel level = ORT_LOGGING_LEVEL_WARNING,
                                      const std::string& log_id = "tessera") {
    OrtThreadingOptions* t = nullptr;
    check(c_api().CreateThreadingOptions(&t));
    Owned<OrtThreadingOptions> threads(t);
    check(c_api().SetGlobalIntraOpNumThreads(t, intra_op_threads));
    check(c_api().SetGlobalInterOpNumThreads(t, inter_op_threads));
    check(c_api().SetGlobalSpinControl(t, allow_spinning ? 1 : 0));
    OrtEnv* e = nullptr;
    check(c_api().CreateEnvWithGlobalThreadPools(level, log_id.c_str(), t, &e));
    return Env(e);
  }
  OrtEnv* get() const noexcept { return h_.get(); }

  std::vector<EpDevice> ep_devices() const {
    const OrtEpDevice* const* list = nullptr;
    size_t n = 0;
    check(c_api().GetEpDevices(h_.get(), &list, &n));
    std::vector<EpDevice> out;
    for (size_t i = 0; i < n; ++i) out.emplace_back(list[i]);
    return out;
  }
  // Loads a provider plugin library; its provider then serves sessions.
  void register_provider_library(const std::string& name, const std::string& path) {
    check(c_api().RegisterExecutionProviderLibrary(h_.get(), name.c_str(), path.c_str()));
  }
  void unregister_provider_library(const std::string& name) {
    check(c_api().UnregisterExecutionProviderLibrary(h_.get(), name.c_str()));
  }
  // The allocator sessions share for `memory` (owned by the runtime).
  OrtAllocator* shared_allocator(const OrtMemoryInfo* memory) const {
    OrtAllocator* a = nullptr;
    check(c_api().GetSharedAllocator(h_.get(), memory, &a));
    return a;
  }

 private:
  explicit Env(OrtEnv* e) { h_.reset(e); }
  Owned<OrtEnv> h_;
};

}  // namespace tessera::api
