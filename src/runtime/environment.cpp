#include "runtime/environment.hpp"

#include "core/arena_allocator.hpp"
#include "core/thread_pool.hpp"
#include "ep/provider_registry.hpp"

namespace tessera {

Environment& Environment::global() {
  static Environment env;
  return env;
}

Environment::Environment() {
  // The registry is created first, so it outlives the environment.
  ep::ProviderRegistry::instance().on_factory_removed(
      [this](const std::string& name) { forget_provider(name); });
}

void Environment::create_global_thread_pools(int intra_op_threads, int inter_op_threads, bool spin,
                                             std::shared_ptr<const ThreadHooks> hooks) {
  check(intra_op_threads >= 0 && inter_op_threads >= 0,
        "global thread pool sizes must be >= 0 (0: one thread per core), got intra-op ",
        intra_op_threads, ", inter-op ", inter_op_threads);
  ThreadPools pools;
  const ThreadHooks none;
  const ThreadHooks& h = hooks ? *hooks : none;
  pools.intra = std::make_shared<ThreadPool>(intra_op_threads, spin, h);
  pools.inter = std::make_shared<ThreadPool>(inter_op_threads, spin, h);
  pools.intra_op_threads = intra_op_threads;
  pools.inter_op_threads = inter_op_threads;
  std::lock_guard<std::mutex> lock(mu_);
  pools_ = std::move(pools);
}

Environment::ThreadPools Environment::global_thread_pools() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pools_;
}

void Environment::forget_provider(const std::string& name) {
  std::shared_ptr<ep::ExecutionProvider> gone;  // released after the lock
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = instances_.find(name); it != instances_.end()) {
    gone = std::move(it->second);
    instances_.erase(it);
  }
}

void Environment::register_provider(ProviderSpec spec) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& p : providers_)
    if (p.name == spec.name) {
      p = std::move(spec);
      return;
    }
  providers_.push_back(std::move(spec));
}

void Environment::clear_providers() {
  std::lock_guard<std::mutex> lock(mu_);
  providers_.clear();
}

std::vector<ProviderSpec> Environment::providers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return providers_;
}

std::vector<EpDevice> Environment::ep_devices() const {
  auto& registry = ep::ProviderRegistry::instance();
  auto instances = provider_instances();
  std::vector<EpDevice> out;
  for (const auto& name : registry.available_names()) {
    for (const auto& d : registry.find(name)->devices()) {
      // The memory its default instance allocates on that device, when it has one.
      MemoryInfo memory = make_memory_info(d.name, d.type, d.vendor_id, d.device_id);
      if (d.type == DeviceType::kCPU) memory = cpu_memory_info();
      for (const auto& p : instances)
        if (p->name() == name && d.owns(p->memory_info())) memory = p->memory_info();
      out.push_back({name, d, memory});
    }
  }
  return out;
}

std::vector<HardwareDevice> Environment::devices() const {
  std::vector<HardwareDevice> out;
  for (const auto& e : ep_devices()) {
    bool seen = false;
    for (const auto& d : out) seen |= d.same_device(e.device);
    if (!seen) out.push_back(e.device);
  }
  return out;
}

std::vector<std::shared_ptr<ep::ExecutionProvider>> Environment::provider_instances() const {
  auto& registry = ep::ProviderRegistry::instance();
  std::vector<std::shared_ptr<ep::ExecutionProvider>> out;
  for (const auto& name : registry.available_names()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = instances_.find(name);
    if (it == instances_.end()) {
      std::shared_ptr<ep::ExecutionProvider> p;
      try {
        p = registry.find(name)->create({});
      } catch (const Error&) {
        // Needs options to be created; it cannot serve copies made outside a session.
      }
      it = instances_.emplace(name, std::move(p)).first;
    }
    if (it->second) out.push_back(it->second);
  }
  return out;
}

std::shared_ptr<ep::ExecutionProvider> Environment::provider_for(const MemoryInfo& memory) const {
  for (const auto& p : provider_instances())
    if (p->memory_info().same_space(memory)) return p;
  return nullptr;
}

std::shared_ptr<Allocator> Environment::create_and_register_allocator(const MemoryInfo& memory,
                                                                      const ArenaConfig& config) {
  auto p = provider_for(memory);
  check_code(p != nullptr, ErrorCode::kEPFail, "create_and_register_allocator: no provider serves ",
             memory.to_string());
  // Over the provider's device allocator, not over an arena it may bring.
  std::shared_ptr<Allocator> device = p->allocator();
  if (auto under = device->backing()) device = std::move(under);
  auto arena = std::make_shared<ArenaAllocator>(device, config);
  register_allocator(arena);
  return arena;
}

void Environment::register_allocator(std::shared_ptr<Allocator> allocator) {
  check(allocator != nullptr, "register_allocator: the allocator is null");
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& a : allocators_)
    if (a->info().same_space(allocator->info())) {
      a = std::move(allocator);
      return;
    }
  allocators_.push_back(std::move(allocator));
}

void Environment::unregister_allocator(const MemoryInfo& memory) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(allocators_, [&](const auto& a) { return a->info().same_space(memory); });
}

std::shared_ptr<Allocator> Environment::shared_allocator(const MemoryInfo& memory) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& a : allocators_)
    if (a->info().same_space(memory)) return a;
  return nullptr;
}

std::shared_ptr<Allocator> Environment::allocator(const MemoryInfo& memory) const {
  if (auto a = shared_allocator(memory)) return a;
  if (memory.device_type == DeviceType::kCPU && memory.mem_type == MemoryType::kDefault)
    return default_cpu_allocator();
  auto p = provider_for(memory);
  if (!p) {
    std::string known;
    for (const auto& q : provider_instances())
      known += str_cat(known.empty() ? "" : ", ", q->memory_info().to_string());
    fail(ErrorCode::kEPFail, "no registered provider serves memory ", memory.to_string(),
         "; the providers here serve: ", known);
  }
  return p->allocator();
}

MemoryInfo Environment::device_memory(DeviceType type, int32_t device_id) const {
  if (type == DeviceType::kCPU && device_id == 0) return cpu_memory_info();
  for (const auto& p : provider_instances()) {
    const MemoryInfo& m = p->memory_info();
    if (m.device_type == type && m.device_id == device_id) return m;
  }
  fail(ErrorCode::kEPFail, "no registered provider serves device ", device_type_name(type), ":",
       device_id);
}

std::vector<std::string> all_providers() { return ep::ProviderRegistry::instance().names(); }
std::vector<std::string> available_providers() {
  return ep::ProviderRegistry::instance().available_names();
}

bool is_provider_available(const std::string& name, std::string* why_not) {
  const ep::ProviderFactory* f = ep::ProviderRegistry::instance().find(name);
  if (!f) {
    if (why_not) *why_not = "this build has no provider named '" + name + "'";
    return false;
  }
  return f->is_available(why_not);
}

}  // namespace tessera
