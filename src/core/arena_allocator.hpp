// A caching arena over a device allocator. Freed blocks are kept in size
// classes and handed out again, so the buffers of values whose lifetime has
// ended are reused by later values and later runs; a steady-state run does not
// go back to the system. shrink() gives the cached memory back.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/allocator.hpp"

namespace tessera {

enum class ArenaExtendStrategy { kNextPowerOfTwo, kSameAsRequested };

struct ArenaConfig {
  ArenaExtendStrategy extend = ArenaExtendStrategy::kNextPowerOfTwo;
  size_t memory_limit = 0;  // bytes reserved (in use + cached); 0: no limit
};

class ArenaAllocator : public Allocator {
 public:
  ArenaAllocator(std::shared_ptr<Allocator> device, ArenaConfig config = {});
  ~ArenaAllocator() override;
  void* alloc(size_t bytes) override;
  void free(void* p) override;
  const MemoryInfo& info() const override { return info_; }
  AllocatorStats stats() const override;
  // Returns every cached (free) block to the device allocator.
  void shrink();
  void release_cached() override { shrink(); }
  const ArenaConfig& config() const { return config_; }
  // The allocator the arena takes its blocks from.
  const std::shared_ptr<Allocator>& device() const { return device_; }
  std::shared_ptr<Allocator> backing() const override { return device_; }

 private:
  size_t size_class(size_t bytes) const;

  std::shared_ptr<Allocator> device_;
  ArenaConfig config_;
  MemoryInfo info_;
  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;  // size class -> cached blocks
  std::unordered_map<void*, size_t> live_;     // block -> size class
  // Nodes of live_ kept from freed blocks for the next allocations, so a
  // steady run allocates no map nodes (a step of a small node would
  // otherwise pay a malloc and a free for its bookkeeping alone).
  std::vector<std::unordered_map<void*, size_t>::node_type> spare_nodes_;
  size_t in_use_ = 0, cached_ = 0, peak_ = 0, num_allocs_ = 0;
};

}  // namespace tessera
