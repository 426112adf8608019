#include "core/host_heap.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace tessera {

namespace {

constexpr size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Big regions are mapped in 2 MiB steps, the unit the kernel can back with
// one huge page.
constexpr size_t kRegionStep = size_t(2) << 20;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it (EINVAL)
#endif

// Best effort: where the kernel refuses, the pages fault in on first write.
void populate(uintptr_t at, size_t n) {
  static std::atomic<bool> refused{false};
  if (refused.load(std::memory_order_relaxed)) return;
  if (::madvise(reinterpret_cast<void*>(at), n, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
    refused.store(true, std::memory_order_relaxed);
}

// A region of `size` bytes (a multiple of kRegionStep) starting on a 2 MiB
// boundary, with the kernel asked to back it with huge pages: products that
// stream large weights (a vocabulary projection reads 150 MB per token) spend
// less time on TLB misses. Where transparent huge pages are off the advice
// does nothing; the region is the same memory either way.
void* map_region(size_t size) {
  const size_t padded = size + kRegionStep;
  if (padded < size) return nullptr;
  void* raw = ::mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto lo = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t at = round_up(lo, kRegionStep);
  // Give back the unaligned head and the tail past the region.
  if (at > lo) ::munmap(raw, at - lo);
  if (lo + padded > at + size)
    ::munmap(reinterpret_cast<void*>(at + size), lo + padded - at - size);
#ifdef MADV_HUGEPAGE
  ::madvise(reinterpret_cast<void*>(at), size, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(at);
}

}  // namespace

HostHeap::HostHeap(size_t region_bytes)
    : region_bytes_(round_up(std::max(region_bytes, kPage), kPage)) {}

HostHeap::~HostHeap() {
  for (auto& [base, r] : regions_) ::munmap(reinterpret_cast<void*>(base), r.size);
}

void HostHeap::insert_free(uintptr_t at, size_t size, uintptr_t region) {
  blocks_[at] = Block{size, region, true};
  free_.emplace(size, at);
}

void HostHeap::erase_free(BlockMap::iterator it) {
  free_.erase({it->second.size, it->first});
  blocks_.erase(it);
}

void* HostHeap::alloc(size_t bytes) {
  const size_t n = round_up(std::max<size_t>(bytes, 1), kPage);
  if (n < bytes) return nullptr;  // overflow
  std::unique_lock<std::mutex> lock(mu_);
  auto fit = free_.lower_bound({n, 0});
  if (fit == free_.end()) {
    const size_t size = std::max(region_bytes_, round_up(n, kRegionStep));
    if (size < n) return nullptr;
    void* base = map_region(size);
    if (base == nullptr) return nullptr;
    const auto at = reinterpret_cast<uintptr_t>(base);
    regions_[at] = Region{size, 0};
    mapped_ += size;
    ++maps_;
    insert_free(at, size, at);
    fit = free_.find({size, at});
  }
  const uintptr_t at = fit->second;
  free_.erase(fit);
  Block& b = blocks_.at(at);
  if (b.size > n) {  // the rest stays free, after this block
    insert_free(at + n, b.size - n, b.region);
    b.size = n;
  }
  b.free = false;
  in_use_ += n;
  // Pages past the region's mark have never been used: populate them now.
  Region& r = regions_.at(b.region);
  const uintptr_t lo = std::max(at, b.region + r.populated), hi = at + n;
  if (hi > lo) {
    r.populated = hi - b.region;
    populated_ += hi - lo;
    lock.unlock();  // the block is the caller's now
    populate(lo, hi - lo);
  }
  return reinterpret_cast<void*>(at);
}

void HostHeap::free(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(p));
  check(it != blocks_.end() && !it->second.free,
        "host heap: free of a pointer it did not hand out");
  in_use_ -= it->second.size;
  uintptr_t at = it->first;
  size_t size = it->second.size;
  const uintptr_t region = it->second.region;
  // Merge with free neighbours of the same region.
  auto next = std::next(it);
  if (next != blocks_.end() && next->second.free && next->second.region == region &&
      next->first == at + size) {
    size += next->second.size;
    erase_free(next);
  }
  it = blocks_.find(at);
  if (it != blocks_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.free && prev->second.region == region &&
        prev->first + prev->second.size == at) {
      at = prev->first;
      size += prev->second.size;
      erase_free(prev);
    }
  }
  blocks_.erase(reinterpret_cast<uintptr_t>(p));
  insert_free(at, size, region);
  const size_t keep = std::max(in_use_, kKeepFree);
  if (mapped_ - in_use_ > keep) trim_locked(keep);
}

size_t HostHeap::trim_locked(size_t keep) {
  size_t unmapped = 0;
  for (auto r = regions_.begin(); r != regions_.end() && mapped_ - in_use_ > keep;) {
    auto b = blocks_.find(r->first);
    if (b != blocks_.end() && b->second.free && b->second.size == r->second.size) {
      erase_free(b);
      ::munmap(reinterpret_cast<void*>(r->first), r->second.size);
      mapped_ -= r->second.size;
      unmapped += r->second.size;
      r = regions_.erase(r);
    } else {
      ++r;
    }
  }
  return unmapped;
}

size_t HostHeap::trim() {
  std::lock_guard<std::mutex> lock(mu_);
  return trim_locked(0);
}

HostHeap::Stats HostHeap::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Stats{mapped_, in_use_, regions_.size(), maps_, populated_};
}

HostHeap& process_host_heap() {
  // Never destroyed: blocks may be freed by static destructors of other
  // translation units after this one's would have run.
  static HostHeap* heap = new HostHeap();
  return *heap;
}

bool host_heap_enabled() {
  static const bool enabled = [] {
    if (kSanitized) return false;
    const char* env = std::getenv("TESSERA_HOST_HEAP");
    if (!env || !*env || std::strcmp(env, "1") == 0) return true;
    if (std::strcmp(env, "0") == 0) return false;
    // Not an exception: the first block may be allocated during static
    // initialisation, where throwing would end the process.
    std::fprintf(
        stderr, "tessera: ignoring TESSERA_HOST_HEAP=\"%s\" (expected 0 or 1); the heap stays on\n",
        env);
    return true;
  }();
  return enabled;
}

const char* host_heap_status() {
  if (kSanitized) return "off (sanitizer build)";
  return host_heap_enabled() ? "on" : "off (TESSERA_HOST_HEAP=0)";
}

void* host_alloc(size_t bytes) {
  if (bytes >= kHostHeapMinBlock && host_heap_enabled()) return process_host_heap().alloc(bytes);
  const size_t n = round_up(std::max<size_t>(bytes, 1), 64);
  return n < bytes ? nullptr : std::aligned_alloc(64, n);
}

void host_free(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (bytes >= kHostHeapMinBlock && host_heap_enabled())
    process_host_heap().free(p);
  else
    std::free(p);
}

void host_alloc_failed(size_t bytes) {
  fail(ErrorCode::kOutOfMemory, "host allocation of ", bytes, " bytes failed");
}

}  // namespace tessera
