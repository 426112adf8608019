// The sandbox plugin's test hook (plugins/sandbox/sandbox_ep.cpp): counters
// by name ("live_providers", "live_arenas", "live_streams", "stream_copies").
// Holds its own reference to the library, so the counters stay readable while
// the runtime loads and unloads it.
#pragma once
#include <dlfcn.h>

#include <cstdint>

namespace tessera::test {

class SandboxCounters {
 public:
  explicit SandboxCounters(const char* library) : lib_(dlopen(library, RTLD_NOW | RTLD_LOCAL)) {
    if (lib_)
      fn_ = reinterpret_cast<uint64_t (*)(const char*)>(dlsym(lib_, "tessera_sandbox_counter"));
  }
  ~SandboxCounters() {
    if (lib_) dlclose(lib_);
  }
  SandboxCounters(const SandboxCounters&) = delete;
  SandboxCounters& operator=(const SandboxCounters&) = delete;
  bool ok() const { return fn_ != nullptr; }
  uint64_t operator()(const char* name) const { return fn_(name); }

 private:
  void* lib_;
  uint64_t (*fn_)(const char*) = nullptr;
};

}  // namespace tessera::test
