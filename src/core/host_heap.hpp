// Large host blocks from memory the process keeps mapped.
//
// Why: the C allocator serves each large block (128 KiB and up) with a fresh
// mmap and gives it back with munmap when freed, so every later large block
// starts on pages the kernel has never mapped, and the first write to each
// page faults. On virtual machines a fault costs far more than the write
// (12.5 us per 4 KiB page measured on the project's VM, where writing the page
// takes 0.04 us): creating a ResNet-50 session copies 97 MB of weights, packs
// them into new buffers and frees the copies, and its first run then faults
// on every activation buffer. A heap that keeps freed blocks mapped lets the
// packed weights and the first run's buffers reuse pages already faulted in.
//
// Pages a block is the first to use are populated when it is handed out
// (madvise MADV_POPULATE_WRITE): one call maps them all, about a quarter of
// what faulting them in one by one costs there (64 MiB: 40 against 175 ms).
//
// HostHeap is a best-fit allocator with coalescing over large mapped regions.
// Its bookkeeping lives outside the blocks, so a write past a block's end
// cannot corrupt it. It keeps at most as many free bytes as it has in use (or
// kKeepFree, whichever is larger): a region with no live block is unmapped
// when the free memory is over that bound, so the memory of a destroyed
// session goes back to the system.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace tessera {

class HostHeap {
 public:
  static constexpr size_t kPage = 4096;  // block granularity and alignment
  static constexpr size_t kKeepFree = size_t(64) << 20;

  explicit HostHeap(size_t region_bytes = size_t(64) << 20);
  ~HostHeap();  // unmaps every region; blocks still live are lost with it
  HostHeap(const HostHeap&) = delete;
  HostHeap& operator=(const HostHeap&) = delete;

  // A page-aligned block of at least `bytes` (0 counts as 1), or nullptr when
  // the system refuses the memory.
  void* alloc(size_t bytes);
  // Frees a block from alloc(); throws on a pointer it did not hand out.
  void free(void* p);
  // Unmaps every region with no live block; returns the bytes unmapped.
  size_t trim();

  struct Stats {
    size_t mapped = 0;     // bytes of all regions
    size_t in_use = 0;     // bytes of live blocks (rounded to pages)
    size_t regions = 0;    // regions mapped
    size_t maps = 0;       // regions ever mapped (a steady workload stops adding)
    size_t populated = 0;  // bytes populated ahead of their first write, ever
  };
  Stats stats() const;

 private:
  struct Block {
    size_t size;
    uintptr_t region;
    bool free;
  };
  using BlockMap = std::map<uintptr_t, Block>;

  void insert_free(uintptr_t at, size_t size, uintptr_t region);
  void erase_free(BlockMap::iterator it);
  size_t trim_locked(size_t keep);

  size_t region_bytes_;
  mutable std::mutex mu_;
  BlockMap blocks_;                              // every block, by address
  std::set<std::pair<size_t, uintptr_t>> free_;  // free blocks by (size, address)
  struct Region {
    size_t size;
    size_t populated;  // bytes from the base that blocks have used (so are mapped in)
  };
  std::map<uintptr_t, Region> regions_;  // by base
  size_t mapped_ = 0, in_use_ = 0, maps_ = 0, populated_ = 0;
};

// Blocks of at least this size come from the process's HostHeap. Not only
// the C allocator's mmap'd blocks (128 KiB and up) return to the system when
// freed: its heap top is trimmed back too, so a 100 KiB buffer made and freed
// per call (a convolution's packed image) could fault its pages in on every
// call (12.5 us a page here). 16 KiB keeps page rounding under a quarter.
constexpr size_t kHostHeapMinBlock = size_t(16) << 10;

// 64-byte aligned host memory: blocks of kHostHeapMinBlock bytes or more from
// the process's HostHeap, smaller ones from the C allocator. The heap is left
// out (everything from the C allocator) in AddressSanitizer and
// ThreadSanitizer builds, so their checks see every block, and when the
// environment sets TESSERA_HOST_HEAP=0. nullptr when out of memory.
void* host_alloc(size_t bytes);
// Frees a block from host_alloc; `bytes` must be the size it was asked for. A
// pointer the heap did not hand out is a bug in Tessera, not bad input: it
// ends the process (std::terminate) with the heap's message.
void host_free(void* p, size_t bytes) noexcept;
// The process's heap, for statistics and tests (whether or not it is in use).
HostHeap& process_host_heap();
bool host_heap_enabled();
// "on", or "off (why)": for `tessera doctor`.
const char* host_heap_status();

// A std allocator over host_alloc: packed weights and kernel scratch buffers
// that outlive their first use reuse pages the process already faulted in.
template <typename T>
struct HostAllocator {
  using value_type = T;
  HostAllocator() = default;
  template <typename U>
  HostAllocator(const HostAllocator<U>&) noexcept {}
  T* allocate(size_t n);
  void deallocate(T* p, size_t n) noexcept { host_free(p, n * sizeof(T)); }
  friend bool operator==(const HostAllocator&, const HostAllocator&) { return true; }
};

// Large, long-lived float buffers (packed weights) live in the host heap.
template <typename T>
using HostVector = std::vector<T, HostAllocator<T>>;

[[noreturn]] void host_alloc_failed(size_t bytes);

// An array of n uninitialised T (trivial types) in the host heap: for
// buffers every byte of which is written before it is read (packed
// operands made per call), where a vector's zero fill is a wasted pass.
template <typename T>
class HostBuffer {
 public:
  HostBuffer() = default;
  explicit HostBuffer(size_t n) : n_(n), p_(n ? HostAllocator<T>().allocate(n) : nullptr) {}
  ~HostBuffer() {
    if (p_) HostAllocator<T>().deallocate(p_, n_);
  }
  HostBuffer(HostBuffer&& o) noexcept : n_(o.n_), p_(o.p_) { o.n_ = 0, o.p_ = nullptr; }
  HostBuffer& operator=(HostBuffer&& o) noexcept {
    std::swap(n_, o.n_);
    std::swap(p_, o.p_);
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  T* data() { return p_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  size_t n_ = 0;
  T* p_ = nullptr;
};

template <typename T>
T* HostAllocator<T>::allocate(size_t n) {
  void* p = host_alloc(n * sizeof(T));
  if (!p) host_alloc_failed(n * sizeof(T));
  return static_cast<T*>(p);
}

}  // namespace tessera
