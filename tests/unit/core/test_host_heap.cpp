#include <gtest/gtest.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "core/allocator.hpp"
#include "core/error.hpp"
#include "core/host_heap.hpp"

using namespace tessera;

namespace {
constexpr size_t kMiB = size_t(1) << 20;
uintptr_t addr(void* p) { return reinterpret_cast<uintptr_t>(p); }

// How many of the pages of [p, p + n) are in memory.
size_t resident_pages(void* p, size_t n) {
  std::vector<unsigned char> vec(n / HostHeap::kPage);
  if (::mincore(p, n, vec.data()) != 0) return 0;
  size_t k = 0;
  for (unsigned char v : vec) k += v & 1;
  return k;
}
}  // namespace

TEST(CoreHostHeap, ReusesAFreedBlockInsteadOfMappingAgain) {
  HostHeap heap(8 * kMiB);
  void* a = heap.alloc(3 * kMiB);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(addr(a) % HostHeap::kPage, 0u);
  std::memset(a, 1, 3 * kMiB);
  heap.free(a);
  void* b = heap.alloc(2 * kMiB);
  EXPECT_EQ(a, b);  // best fit from the start of the coalesced region
  EXPECT_EQ(heap.stats().maps, 1u);
  EXPECT_EQ(heap.stats().in_use, 2 * kMiB);
  heap.free(b);
  EXPECT_EQ(heap.stats().in_use, 0u);
}

TEST(CoreHostHeap, SplitsAndCoalescesNeighbours) {
  HostHeap heap(4 * kMiB);
  void* a = heap.alloc(kMiB);
  void* b = heap.alloc(kMiB);
  void* c = heap.alloc(kMiB);
  EXPECT_EQ(addr(b), addr(a) + kMiB);
  EXPECT_EQ(addr(c), addr(b) + kMiB);
  heap.free(a);
  heap.free(c);
  // 4 MiB fits only once b's free merges it with both neighbours (c's
  // already joined the region's free tail).
  heap.free(b);
  void* d = heap.alloc(4 * kMiB);
  EXPECT_EQ(d, a);
  EXPECT_EQ(heap.stats().maps, 1u);
  heap.free(d);
}

TEST(CoreHostHeap, PicksTheSmallestHoleThatFits) {
  HostHeap heap(16 * kMiB);
  void* big = heap.alloc(4 * kMiB);
  void* sep1 = heap.alloc(HostHeap::kPage);
  void* small = heap.alloc(kMiB);
  void* sep2 = heap.alloc(HostHeap::kPage);
  heap.free(big);
  heap.free(small);
  EXPECT_EQ(heap.alloc(kMiB), small);
  EXPECT_EQ(heap.alloc(3 * kMiB), big);
  heap.free(sep1);
  heap.free(sep2);
}

TEST(CoreHostHeap, BlocksLargerThanARegionGetTheirOwn) {
  HostHeap heap(kMiB);
  void* a = heap.alloc(5 * kMiB + 1);
  ASSERT_NE(a, nullptr);
  EXPECT_GE(heap.stats().mapped, 5 * kMiB + 1);
  static_cast<char*>(a)[5 * kMiB] = 7;  // the last byte asked for is writable
  heap.free(a);
}

TEST(CoreHostHeap, UnmapsIdleRegionsBeyondWhatItKeeps) {
  HostHeap heap(HostHeap::kKeepFree);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(heap.alloc(HostHeap::kKeepFree));
  EXPECT_EQ(heap.stats().regions, 4u);
  for (void* p : blocks) heap.free(p);
  // With nothing in use it keeps kKeepFree bytes mapped, not all four regions.
  EXPECT_EQ(heap.stats().regions, 1u);
  EXPECT_EQ(heap.stats().mapped, HostHeap::kKeepFree);
  EXPECT_EQ(heap.trim(), HostHeap::kKeepFree);
  EXPECT_EQ(heap.stats().mapped, 0u);
}

TEST(CoreHostHeap, RefusesAPointerItDidNotHandOut) {
  HostHeap heap(kMiB);
  void* a = heap.alloc(HostHeap::kPage * 2);
  EXPECT_THROW(heap.free(static_cast<char*>(a) + HostHeap::kPage), Error);
  heap.free(a);
  EXPECT_THROW(heap.free(a), Error);  // a double free is caught too
}

TEST(CoreHostHeap, CpuAllocatorTakesLargeBlocksFromTheProcessHeap) {
  if (!host_heap_enabled())
    GTEST_SKIP() << "host heap off (sanitizer build or TESSERA_HOST_HEAP=0)";
  CpuAllocator cpu;
  const size_t before = process_host_heap().stats().in_use;
  void* p = cpu.alloc(kHostHeapMinBlock * 4);
  EXPECT_EQ(addr(p) % 64, 0u);
  EXPECT_GT(process_host_heap().stats().in_use, before);
  EXPECT_EQ(cpu.stats().in_use, kHostHeapMinBlock * 4);
  cpu.free(p);
  EXPECT_EQ(process_host_heap().stats().in_use, before);
  void* small = cpu.alloc(100);  // small blocks stay with the C allocator
  EXPECT_EQ(process_host_heap().stats().in_use, before);
  cpu.free(small);
}

TEST(CoreHostHeap, ABufferMadePerCallReusesItsPages) {
  // A packed operand of ~100 KiB made and freed on every call (an 8-bit
  // convolution's image) comes from the heap, so later calls populate no
  // new pages; from the C allocator, a trimmed heap top faulted them in
  // again on each call.
  if (!host_heap_enabled())
    GTEST_SKIP() << "host heap off (sanitizer build or TESSERA_HOST_HEAP=0)";
  static_assert(kHostHeapMinBlock <= (size_t(96) << 10));
  const size_t bytes = size_t(98) << 10;
  host_free(host_alloc(bytes), bytes);
  const size_t populated = process_host_heap().stats().populated;
  for (int call = 0; call < 50; ++call) {
    void* p = host_alloc(bytes);
    static_cast<char*>(p)[bytes - 1] = 1;
    host_free(p, bytes);
  }
  EXPECT_EQ(process_host_heap().stats().populated, populated);
}

TEST(CoreHostHeap, PopulatesPagesABlockIsTheFirstToUse) {
  HostHeap heap(16 * kMiB);
  void* a = heap.alloc(2 * kMiB);
  const size_t pages = 2 * kMiB / HostHeap::kPage;
  if (heap.stats().populated == 0) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE";
  EXPECT_EQ(heap.stats().populated, 2 * kMiB);
  EXPECT_EQ(resident_pages(a, 2 * kMiB), pages);  // in memory before any write
  // The rest of the region is not populated ahead of use.
  EXPECT_EQ(resident_pages(static_cast<char*>(a) + 2 * kMiB, 2 * kMiB), 0u);
  heap.free(a);
  // Reusing the same pages populates nothing new; going past them does.
  void* b = heap.alloc(kMiB);
  EXPECT_EQ(heap.stats().populated, 2 * kMiB);
  void* c = heap.alloc(2 * kMiB);
  EXPECT_EQ(heap.stats().populated, 3 * kMiB);
  EXPECT_EQ(resident_pages(c, 2 * kMiB), pages);
  heap.free(b);
  heap.free(c);
}

TEST(CoreHostHeap, ManyThreadsAllocateAndFreeAtOnce) {
  HostHeap heap(4 * kMiB);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&heap, &bad, t] {
      std::vector<std::pair<unsigned char*, size_t>> live;
      for (int i = 0; i < 200; ++i) {
        const size_t n = HostHeap::kPage * size_t(1 + (i * 7 + t) % 40);
        auto* p = static_cast<unsigned char*>(heap.alloc(n));
        std::memset(p, t + 1, n);
        live.emplace_back(p, n);
        if (i % 3 == 2) {  // free an older block after checking no one wrote over it
          auto [q, m] = live[live.size() / 2];
          if (q[0] != t + 1 || q[m - 1] != t + 1) ++bad;
          heap.free(q);
          live.erase(live.begin() + std::ptrdiff_t(live.size() / 2));
        }
      }
      for (auto [q, m] : live) {
        if (q[0] != t + 1 || q[m - 1] != t + 1) ++bad;
        heap.free(q);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(heap.stats().in_use, 0u);
}
