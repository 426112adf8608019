// Initializers shared between the sessions of one environment: sessions made
// from the same model (or with initializers equal by name and content) keep
// one host copy of each, and one copy per device they are placed on. Entries
// hold weak references, so the memory goes when the last session using it does.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.hpp"

namespace tessera::runtime {

class SharedInitializers {
 public:
  // A tensor equal to `t` (same name, type, shape and bytes) that an earlier
  // caller registered, else `t` itself, now registered. String tensors are not shared.
  Tensor share_host(const std::string& name, const Tensor& t);
  // The copy of `host` in memory `dst`: made by `make` the first time, then
  // shared with every later caller that places the same host tensor there.
  Tensor share_placed(const Tensor& host, const MemoryInfo& dst,
                      const std::function<Tensor()>& make);
  // How many tensors are shared now (for tests and reports).
  size_t size() const;

 private:
  struct Entry {
    std::weak_ptr<Buffer> buffer;
    size_t offset = 0;
    DataType dtype = DataType::kUndefined;
    Shape shape;
    Tensor get() const;  // undefined when the memory is gone
  };
  struct Placed {
    std::weak_ptr<Buffer> host;
    MemoryInfo dst;
    Entry copy;
  };
  // Drops entries whose memory is gone once the tables have doubled since
  // the last time: pruning on every call made a model of N initializers cost
  // N^2 (20,000 of them took seconds).
  void prune_when_grown();

  mutable std::mutex mu_;
  std::unordered_multimap<uint64_t, std::pair<std::string, Entry>> host_;  // content hash
  std::unordered_multimap<const void*, Placed> placed_;  // by the host tensor's data
  size_t entries_after_prune_ = 0;
};

}  // namespace tessera::runtime
