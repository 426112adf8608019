// Process-wide state shared by sessions: providers registered for every
// session, the hardware devices and the (provider, device) pairs that serve
// them, allocators shared by every session on a device, and the initializers
// sessions share.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/device.hpp"
#include "ep/execution_provider.hpp"
#include "ep/prepack_cache.hpp"
#include "runtime/session_options.hpp"
#include "runtime/shared_initializers.hpp"

namespace tessera {
class ThreadPool;
struct ThreadHooks;
}  // namespace tessera

namespace tessera {

// A provider that can serve a device, and the memory it allocates there.
struct EpDevice {
  std::string provider;
  HardwareDevice device;
  MemoryInfo memory;
};

class Environment {
 public:
  static Environment& global();
  // Providers appended to every session created afterwards (after the
  // session's own providers, which take precedence).
  void register_provider(ProviderSpec spec);
  void clear_providers();
  std::vector<ProviderSpec> providers() const;

  // Hardware this process can use (each once), and every (provider, device)
  // pair that serves it, in provider registration order.
  std::vector<HardwareDevice> devices() const;
  std::vector<EpDevice> ep_devices() const;

  // Shared allocators: an arena over the device allocator of the provider
  // that serves `memory`, used by every session whose provider allocates in
  // that memory space (unless the session sets "session.use_env_allocators"
  // to "0"). Registering again for the same space replaces it.
  std::shared_ptr<Allocator> create_and_register_allocator(const MemoryInfo& memory,
                                                           const ArenaConfig& config = {});
  void register_allocator(std::shared_ptr<Allocator> allocator);
  void unregister_allocator(const MemoryInfo& memory);
  // The shared allocator for `memory`'s space, or null.
  std::shared_ptr<Allocator> shared_allocator(const MemoryInfo& memory) const;
  // An allocator for `memory`: the shared one if registered, else the device
  // allocator of a provider that serves it. kEPFail when no provider does.
  std::shared_ptr<Allocator> allocator(const MemoryInfo& memory) const;
  // The memory of the first provider that serves (type, id); kEPFail if none.
  MemoryInfo device_memory(DeviceType type, int32_t device_id) const;

  // A provider instance (default options) whose memory is `memory`'s space,
  // or null. Kept for copies, streams and allocations made outside any
  // session, until its factory leaves the registry (a plugin library is
  // unregistered): then the environment lets it go, so the library can
  // unload once nothing else uses it.
  std::shared_ptr<ep::ExecutionProvider> provider_for(const MemoryInfo& memory) const;
  // Every provider instance the environment has made, one per available factory.
  std::vector<std::shared_ptr<ep::ExecutionProvider>> provider_instances() const;

  // Initializers shared by the sessions of this environment.
  runtime::SharedInitializers& shared_initializers() { return initializers_; }
  // Prepacked forms of those initializers, shared by the kernels of the
  // sessions that share initializers (size(): how many are alive).
  ep::PrepackCache& prepacked_weights() { return prepacked_; }

  // Process-wide thread pools for sessions that give up their own
  // (SessionOptions::use_per_session_threads = false): one intra-op and one
  // inter-op pool every such session shares, so N sessions in a process run
  // on one set of threads instead of N. Creating them again replaces them for
  // sessions created afterwards; sessions already using the old ones keep
  // them alive.
  // `hooks` (may be null): how both pools start and join their threads.
  void create_global_thread_pools(int intra_op_threads, int inter_op_threads, bool spin,
                                  std::shared_ptr<const ThreadHooks> hooks = nullptr);
  struct ThreadPools {
    std::shared_ptr<ThreadPool> intra, inter;
    int intra_op_threads = 0, inter_op_threads = 0;
  };
  // The pools, or empty pointers when none were created.
  ThreadPools global_thread_pools() const;

 private:
  Environment();  // global() is the only one: the registry calls back into it
  void forget_provider(const std::string& name);
  mutable std::mutex mu_;
  std::vector<ProviderSpec> providers_;
  std::vector<std::shared_ptr<Allocator>> allocators_;
  mutable std::unordered_map<std::string, std::shared_ptr<ep::ExecutionProvider>> instances_;
  runtime::SharedInitializers initializers_;
  ep::PrepackCache prepacked_;
  ThreadPools pools_;
};

// Every provider this build knows, and those it can create on this machine.
std::vector<std::string> all_providers();
std::vector<std::string> available_providers();
// Whether `name` can be created here; `why_not` says why when it cannot.
bool is_provider_available(const std::string& name, std::string* why_not = nullptr);

}  // namespace tessera
