#include "core/arena_allocator.hpp"

#include <bit>

#include "core/error.hpp"

namespace tessera {

ArenaAllocator::ArenaAllocator(std::shared_ptr<Allocator> device, ArenaConfig config)
    : device_(std::move(device)), config_(config), info_(device_->info()) {
  info_.allocator_type = AllocatorType::kArena;
}

ArenaAllocator::~ArenaAllocator() {
  shrink();
  // Blocks still live belong to tensors that outlive the arena's owner; those
  // tensors hold this allocator through their Buffer, so none can remain here.
}

size_t ArenaAllocator::size_class(size_t bytes) const {
  constexpr size_t kMin = 256;
  if (bytes <= kMin) return kMin;
  if (config_.extend == ArenaExtendStrategy::kNextPowerOfTwo) return std::bit_ceil(bytes);
  // Tight, but on a geometric ladder past 4 KiB (eight classes per power of
  // two, at most 12.5% rounding): a model whose shapes keep changing then
  // meets a bounded number of classes, so the cache cannot grow with every
  // new shape as it would with one class per 256 bytes.
  const size_t step = bytes <= 4096 ? kMin : std::bit_floor(bytes) / 8;
  return (bytes + step - 1) / step * step;
}

void* ArenaAllocator::alloc(size_t bytes) {
  size_t cls = size_class(bytes);
  std::unique_lock<std::mutex> lock(mu_);
  // Same-as-requested classes are close together: a cached block up to two
  // classes larger serves too (best fit), so shapes that shrink reuse memory.
  auto it = free_.lower_bound(cls);
  const size_t reach =
      config_.extend == ArenaExtendStrategy::kSameAsRequested ? size_class(cls + cls / 4) : cls;
  while (it != free_.end() && it->second.empty() && it->first <= reach) ++it;
  void* p = nullptr;
  if (it != free_.end() && !it->second.empty() && it->first <= reach) {
    cls = it->first;
    p = it->second.back();
    it->second.pop_back();
    cached_ -= cls;
  } else {
    if (config_.memory_limit && in_use_ + cached_ + cls > config_.memory_limit) {
      // Give back what is cached before refusing.
      for (auto& [c, blocks] : free_)
        for (void* b : blocks) device_->free(b);
      free_.clear();
      cached_ = 0;
      if (in_use_ + cls > config_.memory_limit)
        fail(ErrorCode::kOutOfMemory, info_.to_string(), " arena: allocation of ", bytes,
             " bytes (", cls, " with rounding) exceeds the memory limit: ", in_use_,
             " bytes in use, limit ", config_.memory_limit, " bytes");
    }
    lock.unlock();
    p = device_->alloc(cls);
    lock.lock();
  }
  if (!spare_nodes_.empty()) {
    auto node = std::move(spare_nodes_.back());
    spare_nodes_.pop_back();
    node.key() = p;
    node.mapped() = cls;
    live_.insert(std::move(node));
  } else {
    live_[p] = cls;
  }
  in_use_ += cls;
  peak_ = std::max(peak_, in_use_);
  ++num_allocs_;
  return p;
}

void ArenaAllocator::free(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(p);
  check(it != live_.end(), "arena free of a pointer it did not allocate");
  size_t cls = it->second;
  if (spare_nodes_.size() < 64)
    spare_nodes_.push_back(live_.extract(it));
  else
    live_.erase(it);
  in_use_ -= cls;
  free_[cls].push_back(p);
  cached_ += cls;
}

void ArenaAllocator::shrink() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [c, blocks] : free_)
    for (void* b : blocks) device_->free(b);
  free_.clear();
  cached_ = 0;
}

AllocatorStats ArenaAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  AllocatorStats s;
  s.in_use = in_use_;
  s.peak = peak_;
  s.reserved = in_use_ + cached_;
  s.num_allocs = num_allocs_;
  return s;
}

}  // namespace tessera
