// Allocators hand out raw memory in one memory space. Buffers own a block and
// know where it lives (location lives with the memory).
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include "core/memory_info.hpp"

namespace tessera {

struct AllocatorStats {
  size_t in_use = 0;
  size_t peak = 0;
  size_t reserved = 0;
  size_t num_allocs = 0;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* alloc(size_t bytes) = 0;
  virtual void free(void* p) = 0;
  virtual const MemoryInfo& info() const = 0;
  virtual AllocatorStats stats() const { return {}; }
  // The allocator this one takes its memory from when it caches blocks (an
  // arena over a device allocator), else null: a session does not stack a
  // second arena on such an allocator, and an environment's shared arena is
  // built over what it caches from.
  virtual std::shared_ptr<Allocator> backing() const { return nullptr; }
  // Gives cached, unused memory back to the backing allocator; a no-op for
  // an allocator that caches none.
  virtual void release_cached() {}
};

// Plain aligned host allocator; counts what it hands out.
class CpuAllocator : public Allocator {
 public:
  explicit CpuAllocator(MemoryInfo info = cpu_memory_info());
  void* alloc(size_t bytes) override;
  void free(void* p) override;
  const MemoryInfo& info() const override { return info_; }
  AllocatorStats stats() const override;

 private:
  MemoryInfo info_;
  std::atomic<size_t> in_use_{0}, peak_{0}, num_allocs_{0};
};

// The process-wide host allocator used when no other is given.
std::shared_ptr<Allocator> default_cpu_allocator();

// A block of memory in one memory space. Either allocated (freed through the
// allocator) or borrowed (kept alive by `keepalive`, e.g. a mapped file).
class Buffer {
 public:
  Buffer(std::shared_ptr<Allocator> alloc, size_t bytes);
  Buffer(void* data, size_t bytes, MemoryInfo info, std::shared_ptr<void> keepalive);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  const MemoryInfo& info() const { return info_; }
  // Runs before the memory is released (used to destroy std::string elements).
  void set_destroy(std::function<void(void*)> fn) { destroy_ = std::move(fn); }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  MemoryInfo info_;
  std::shared_ptr<Allocator> alloc_;
  std::shared_ptr<void> keepalive_;
  std::function<void(void*)> destroy_;
};

}  // namespace tessera
