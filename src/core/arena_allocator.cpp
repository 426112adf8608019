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
  return (bytes + kMin - 1) / kMin * kMin;
}

void* ArenaAllocator::alloc(size_t bytes) {
  size_t cls = size_class(bytes);
  std::unique_lock<std::mutex> lock(mu_);
  auto it = free_.find(cls);
  void* p = nullptr;
  if (it != free_.end() && !it->second.empty()) {
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
  live_[p] = cls;
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
