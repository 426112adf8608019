// Where a run finds an active LoRA adapter's parameters. An adapter is read
// into host memory; a parameter whose first consumer runs on a provider with
// device memory is copied there at its first use in a session and kept for
// as long as the adapter lives, so runs that keep an adapter active do not
// copy its parameters again (with IO binding as without).
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/value.hpp"
#include "onnx/adapter_format.hpp"

namespace tessera::runtime {

class AdapterPlacement {
 public:
  // Copies a host tensor into `memory` (the session's allocator and transfer).
  using CopyTo = std::function<Tensor(const Tensor&, const MemoryInfo&)>;

  // Parameter `k` of `adapter` in `memory`: the adapter's own tensor when
  // `memory` is host accessible or holds it already, else the copy made at
  // the first call.
  Value parameter(const std::shared_ptr<const onnx::Adapter>& adapter, size_t k,
                  const MemoryInfo& memory, const CopyTo& copy_to);

 private:
  struct Entry {
    std::weak_ptr<const onnx::Adapter> adapter;
    const onnx::Adapter* key;
    size_t k;
    MemoryInfo memory;
    Value value;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;  // few: one per device parameter of the adapters in use
};

}  // namespace tessera::runtime
