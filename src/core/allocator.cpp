#include "core/allocator.hpp"

#include <cstdlib>
#include <new>

#include "core/error.hpp"
#include "core/host_heap.hpp"

namespace tessera {

CpuAllocator::CpuAllocator(MemoryInfo info) : info_(std::move(info)) {}

void* CpuAllocator::alloc(size_t bytes) {
  size_t align = info_.alignment < sizeof(void*) ? sizeof(void*) : info_.alignment;
  if (bytes > SIZE_MAX - 2 * align)
    fail(ErrorCode::kOutOfMemory, "CPU allocation of ", bytes, " bytes is larger than memory");
  size_t rounded = (bytes + align - 1) / align * align;
  if (rounded == 0) rounded = align;
  // Header in front of the block records its size for the statistics. Large
  // blocks come from the process's host heap (core/host_heap.hpp: pages stay
  // mapped between blocks), which aligns to 64 bytes.
  void* p = align <= 64 ? host_alloc(rounded + align) : std::aligned_alloc(align, rounded + align);
  if (!p)
    fail(ErrorCode::kOutOfMemory, "CPU allocation of ", bytes, " bytes failed (in use ",
         in_use_.load(), " bytes)");
  *static_cast<size_t*>(p) = rounded;
  size_t now = in_use_.fetch_add(rounded) + rounded;
  size_t prev = peak_.load();
  while (now > prev && !peak_.compare_exchange_weak(prev, now)) {
  }
  num_allocs_.fetch_add(1);
  return static_cast<char*>(p) + align;
}

void CpuAllocator::free(void* p) {
  if (!p) return;
  size_t align = info_.alignment < sizeof(void*) ? sizeof(void*) : info_.alignment;
  void* base = static_cast<char*>(p) - align;
  const size_t rounded = *static_cast<size_t*>(base);
  in_use_.fetch_sub(rounded);
  if (align <= 64)
    host_free(base, rounded + align);
  else
    std::free(base);
}

AllocatorStats CpuAllocator::stats() const {
  AllocatorStats s;
  s.in_use = in_use_.load();
  s.peak = peak_.load();
  s.reserved = s.in_use;
  s.num_allocs = num_allocs_.load();
  return s;
}

std::shared_ptr<Allocator> default_cpu_allocator() {
  static std::shared_ptr<Allocator> a = std::make_shared<CpuAllocator>();
  return a;
}

Buffer::Buffer(std::shared_ptr<Allocator> alloc, size_t bytes)
    : size_(bytes), info_(alloc->info()), alloc_(std::move(alloc)) {
  data_ = alloc_->alloc(bytes);
}

Buffer::Buffer(void* data, size_t bytes, MemoryInfo info, std::shared_ptr<void> keepalive)
    : data_(data), size_(bytes), info_(std::move(info)), keepalive_(std::move(keepalive)) {}

Buffer::~Buffer() {
  if (destroy_) destroy_(data_);
  if (alloc_) alloc_->free(data_);
}

}  // namespace tessera
