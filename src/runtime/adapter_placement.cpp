#include "runtime/adapter_placement.hpp"

#include <algorithm>

namespace tessera::runtime {

Value AdapterPlacement::parameter(const std::shared_ptr<const onnx::Adapter>& adapter, size_t k,
                                  const MemoryInfo& memory, const CopyTo& copy_to) {
  const Tensor& host = adapter->parameters.at(k).second;
  // Already there (an adapter created in that memory), or read on the host
  // (where the run's input copies bring a parameter kept on a device).
  if (memory.host_accessible() || host.memory_info().same_space(memory)) return Value(host);
  std::lock_guard<std::mutex> lock(mutex_);
  // An adapter released by its owner frees its device copies here; its
  // address may then be reused by another, which the expiry check tells apart.
  std::erase_if(entries_, [](const Entry& e) { return e.adapter.expired(); });
  for (const Entry& e : entries_)
    if (e.key == adapter.get() && e.k == k && e.memory.same_space(memory)) return e.value;
  Value copy(copy_to(host, memory));
  entries_.push_back({adapter, adapter.get(), k, memory, copy});
  return copy;
}

}  // namespace tessera::runtime
