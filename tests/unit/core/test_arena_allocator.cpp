#include <gtest/gtest.h>

#include "core/arena_allocator.hpp"
#include "core/error.hpp"

using namespace tessera;

TEST(CoreArena, ReusesFreedBlocksOfTheSameClass) {
  auto device = std::make_shared<CpuAllocator>();
  ArenaAllocator arena(device);
  void* a = arena.alloc(1000);
  arena.free(a);
  void* b = arena.alloc(900);  // same power-of-two class (1024)
  EXPECT_EQ(a, b);
  EXPECT_EQ(device->stats().num_allocs, 1u);
  arena.free(b);
  EXPECT_EQ(arena.stats().in_use, 0u);
  EXPECT_EQ(arena.stats().reserved, 1024u);
  arena.shrink();
  EXPECT_EQ(arena.stats().reserved, 0u);
  EXPECT_EQ(device->stats().in_use, 0u);
}

TEST(CoreArena, SameAsRequestedKeepsSizesTight) {
  ArenaConfig cfg;
  cfg.extend = ArenaExtendStrategy::kSameAsRequested;
  ArenaAllocator arena(std::make_shared<CpuAllocator>(), cfg);
  void* a = arena.alloc(1000);
  EXPECT_EQ(arena.stats().in_use, 1024u);  // rounded to 256 bytes, not to 1024 by doubling
  void* b = arena.alloc(1300);
  EXPECT_EQ(arena.stats().in_use, 1024u + 1536u);
  arena.free(a);
  arena.free(b);
}

TEST(CoreArena, MemoryLimitErrorStatesTheNumbersAndArenaStaysUsable) {
  ArenaConfig cfg;
  cfg.memory_limit = 4096;
  ArenaAllocator arena(std::make_shared<CpuAllocator>(), cfg);
  void* a = arena.alloc(2048);
  try {
    arena.alloc(4000);
    FAIL() << "expected an out-of-memory error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfMemory);
    std::string m = e.what();
    EXPECT_NE(m.find("4000 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("2048 bytes in use"), std::string::npos) << m;
    EXPECT_NE(m.find("limit 4096"), std::string::npos) << m;
  }
  void* b = arena.alloc(1024);  // still usable
  arena.free(a);
  arena.free(b);
  EXPECT_EQ(arena.stats().in_use, 0u);
}

// A model whose shapes keep changing: each "run" allocates an input-sized
// and an output-sized block and frees them. The cache must stay within a
// small multiple of one run's need, not grow with every new shape; and a
// repeated shape must not go back to the device.
TEST(CoreArena, ChangingShapesKeepTheCacheBounded) {
  for (auto strategy :
       {ArenaExtendStrategy::kSameAsRequested, ArenaExtendStrategy::kNextPowerOfTwo}) {
    ArenaConfig cfg;
    cfg.extend = strategy;
    auto device = std::make_shared<CpuAllocator>();
    ArenaAllocator arena(device, cfg);
    size_t largest_run = 0;
    for (int i = 0; i < 300; ++i) {
      const size_t n = 4000 + size_t((i * 7919) % 300) * 997;  // 300 sizes, shuffled
      void* in = arena.alloc(n);
      void* out = arena.alloc(n);
      largest_run = std::max(largest_run, 2 * n);
      arena.free(in);
      arena.free(out);
    }
    EXPECT_LE(arena.stats().reserved, 16 * largest_run)
        << "strategy " << int(strategy) << ": the cache grew with the number of shapes";
    const size_t device_allocs = device->stats().num_allocs;
    for (int r = 0; r < 3; ++r) {
      void* a = arena.alloc(123456);
      void* b = arena.alloc(123456);
      arena.free(a);
      arena.free(b);
    }
    EXPECT_LE(device->stats().num_allocs, device_allocs + 2) << "a repeated shape allocates once";
  }
}
