// ThreadPool: every index exactly once, exceptions from any thread, nested and
// concurrent callers, workers that take part and then go to sleep, threads
// started through an application's hooks and the work callbacks.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/thread_pool.hpp"

namespace tessera {
namespace {

// Runs parallel_for over n items and checks each index was visited once.
void expect_each_once(ThreadPool& pool, int64_t n) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  pool.parallel_for(n, 1e6, [&](int64_t b, int64_t e) {
    ASSERT_LE(0, b);
    ASSERT_LT(b, e);
    ASSERT_LE(e, n);
    for (int64_t i = b; i < e; ++i) hits[size_t(i)].fetch_add(1);
  });
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(hits[size_t(i)].load(), 1) << "index " << i << " of " << n;
}

class ThreadPoolSizes : public ::testing::TestWithParam<int> {};

TEST_P(ThreadPoolSizes, CoversEveryIndexExactlyOnce) {
  ThreadPool pool(GetParam());
  EXPECT_EQ(pool.num_threads(), GetParam());
  for (int64_t n : {1, 2, 3, 7, 64, 1000, 100003, 300000}) expect_each_once(pool, n);
  // Back to back, as kernels run in a model.
  for (int rep = 0; rep < 200; ++rep) expect_each_once(pool, 37);
}

TEST_P(ThreadPoolSizes, ExceptionFromAnyChunkReachesTheCaller) {
  ThreadPool pool(GetParam());
  for (int64_t bad : {int64_t(0), int64_t(63), int64_t(999)}) {
    std::atomic<int64_t> ran{0};
    EXPECT_THROW(pool.parallel_for(1000, 1e6,
                                   [&](int64_t b, int64_t e) {
                                     ran.fetch_add(e - b);
                                     if (b <= bad && bad < e)
                                       throw std::runtime_error("chunk failed");
                                   }),
                 std::runtime_error);
    EXPECT_GT(ran.load(), 0);
  }
  // The pool is usable afterwards and the old error does not come back.
  expect_each_once(pool, 1000);
}

TEST_P(ThreadPoolSizes, NestedCallsRunInlineAndCoverEverything) {
  ThreadPool pool(GetParam());
  constexpr int64_t kOuter = 16, kInner = 50;
  std::vector<std::atomic<int>> hits(size_t(kOuter * kInner));
  pool.parallel_for(kOuter, 1e6, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o)
      pool.parallel_for(kInner, 1e6, [&](int64_t ib, int64_t ie) {
        for (int64_t i = ib; i < ie; ++i) hits[size_t(o * kInner + i)].fetch_add(1);
      });
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolSizes, ::testing::Values(1, 2, 4));

TEST(ThreadPool, ConcurrentCallersEachGetTheirOwnWork) {
  ThreadPool pool(2);
  constexpr int kCallers = 4, kRounds = 300;
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRounds; ++r) {
        const int64_t n = 10 + (c * 7 + r) % 90;
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        // Some rounds nest, some throw: the mix a busy server would see.
        try {
          pool.parallel_for(n, 1e6, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
              if (r % 3 == 0) pool.parallel_for(2, 1e6, [&](int64_t, int64_t) {});
              hits[size_t(i)].fetch_add(1);
            }
            if (r % 17 == 5 && b == 0) throw std::runtime_error("expected");
          });
          if (r % 17 == 5) failures.fetch_add(1);  // the throw was lost
        } catch (const std::runtime_error&) {
          if (r % 17 != 5) failures.fetch_add(1);
          continue;  // chunks after the throw may have been skipped
        }
        for (auto& h : hits)
          if (h.load() != 1) failures.fetch_add(1);
      }
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ThreadPool, WorkersTakePartInBackToBackRegions) {
  // Two chunks of 500 us per region: an awake worker takes one while the
  // caller runs the other. A lost wake-up or a worker that never claims would
  // leave the caller running everything. Bounded by time, not by a count, so
  // a loaded machine (the worker not scheduled for a while) only slows it.
  ThreadPool pool(2);
  const auto busy = [](int64_t b, int64_t e) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(500 * (e - b));
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pool.chunks_run_by_workers() < 10 && std::chrono::steady_clock::now() < deadline) {
    pool.parallel_for(2, 1e6, busy);
    // Now and then let the worker fall asleep, so the wake-up path is used too.
    if (pool.chunks_run_by_workers() % 3 == 2)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(pool.chunks_run_by_workers(), 10);
}

TEST(ThreadPool, IdleWorkersStopSpinning) {
  // After a region, workers poll for kSpinMicros and then block: over a
  // quiet 200 ms the process should use far less than one core.
  ThreadPool pool(4);
  for (int r = 0; r < 50; ++r) expect_each_once(pool, 64);
  const std::clock_t c0 = std::clock();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double cpu_s = double(std::clock() - c0) / CLOCKS_PER_SEC;
  EXPECT_LT(cpu_s, 0.1) << "idle workers burned " << cpu_s << " s of CPU in 0.2 s";
}

// Waits up to two seconds (a loaded machine may not schedule the worker at
// once) for the pool's count of sleeping workers to reach `n`.
bool sleepers_reach(const ThreadPool& pool, int n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (pool.sleeping_workers() != n && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  return pool.sleeping_workers() == n;
}

TEST(ThreadPool, AnOpenRunKeepsWorkersPollingAndWakesSleepers) {
  ThreadPool pool(2);
  expect_each_once(pool, 64);
  ASSERT_TRUE(sleepers_reach(pool, 1)) << "the worker never slept after its budget";
  {
    // No region is published: only the scope can wake the sleeping worker,
    // which then polls, and cannot fall asleep, for as long as the run lasts.
    const ThreadPool::RunScope run(&pool);
    EXPECT_TRUE(sleepers_reach(pool, 0)) << "opening a run did not wake the worker";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // 400x the spin budget
    EXPECT_EQ(pool.sleeping_workers(), 0) << "the worker slept during an open run";
    expect_each_once(pool, 64);
    EXPECT_EQ(pool.sleeping_workers(), 0);
  }
  EXPECT_TRUE(sleepers_reach(pool, 1)) << "the worker kept polling after the run closed";
}

TEST(ThreadPool, WithoutSpinningWorkersSleepAtOnce) {
  ThreadPool pool(2, /*spin=*/false);
  expect_each_once(pool, 64);
  ASSERT_TRUE(sleepers_reach(pool, 1));
  const ThreadPool::RunScope run(&pool);  // ignored: the pool does not spin
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(pool.sleeping_workers(), 1);
  for (int r = 0; r < 20; ++r) expect_each_once(pool, 64);
  ThreadPool one(1);  // no workers: a scope is a no-op
  const ThreadPool::RunScope none(&one), null(nullptr);
  expect_each_once(one, 8);
}

// Threads an application starts for the pool: each worker runs on one, and
// the pool waits for each through the join function.
struct AppThreads {
  std::mutex mu;
  std::vector<std::unique_ptr<std::thread>> threads;
  std::atomic<int> created{0}, joined{0};
  ThreadHooks hooks() {
    ThreadHooks h;
    h.create = [this](ThreadHooks::WorkerFn fn, void* arg) -> const void* {
      std::lock_guard<std::mutex> lock(mu);
      threads.push_back(std::make_unique<std::thread>(fn, arg));
      created.fetch_add(1);
      return threads.back().get();
    };
    h.join = [this](const void* handle) {
      auto* t = const_cast<std::thread*>(static_cast<const std::thread*>(handle));
      t->join();
      joined.fetch_add(1);
    };
    return h;
  }
};

TEST(ThreadPool, WorkersRunOnTheApplicationsThreadsAndAreJoinedThroughIt) {
  AppThreads app;
  {
    ThreadPool pool(3, true, app.hooks());
    EXPECT_EQ(app.created.load(), 2);
    for (int r = 0; r < 20; ++r) expect_each_once(pool, 1 << 14);
    EXPECT_EQ(app.joined.load(), 0);
  }
  EXPECT_EQ(app.joined.load(), 2);
}

TEST(ThreadPool, AFailedThreadCreationJoinsTheStartedOnesAndThrows) {
  AppThreads app;
  ThreadHooks h = app.hooks();
  auto create = h.create;
  h.create = [&, create](ThreadHooks::WorkerFn fn, void* arg) -> const void* {
    return app.created.load() == 2 ? nullptr : create(fn, arg);
  };
  try {
    ThreadPool pool(4, true, h);
    FAIL() << "the pool was created without its third worker";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("returned no thread handle for worker 3 of 3"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(app.joined.load(), 2);
  ThreadHooks no_join;
  no_join.create = h.create;
  EXPECT_THROW(ThreadPool(2, true, no_join), Error);
}

TEST(ThreadPool, EveryEnqueuedItemIsStartedAndStoppedOrAbandoned) {
  std::atomic<int> enqueued{0}, started{0}, stopped{0}, abandoned{0}, bad_data{0};
  ThreadHooks h;
  static int token;
  h.on_enqueue = [&]() -> void* {
    enqueued.fetch_add(1);
    return &token;
  };
  h.on_start = [&](void* d) {
    if (d != &token) bad_data.fetch_add(1);
    started.fetch_add(1);
  };
  h.on_stop = [&](void* d) {
    if (d != &token) bad_data.fetch_add(1);
    stopped.fetch_add(1);
  };
  h.on_abandon = [&](void* d) {
    if (d != &token) bad_data.fetch_add(1);
    abandoned.fetch_add(1);
  };
  ThreadPool pool(4, true, h);
  // At least 200 regions, and more until a worker has taken an item (a loaded
  // machine may schedule the workers late), for at most 2 s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  int regions = 0;
  while (regions < 200 || (started.load() == 0 && std::chrono::steady_clock::now() < deadline)) {
    expect_each_once(pool, 1 << 12);
    ++regions;
    // Settled before parallel_for returns: the counts balance at every step.
    ASSERT_EQ(started.load(), stopped.load());
    ASSERT_EQ(enqueued.load(), started.load() + abandoned.load());
  }
  EXPECT_EQ(enqueued.load(), regions * 3);  // one item per worker per region
  EXPECT_GT(started.load(), 0) << "no worker ever took its item";
  EXPECT_EQ(bad_data.load(), 0) << "a callback was handed data on_enqueue did not return";
  // Regions run inline (too small to split) enqueue nothing.
  pool.parallel_for(4, 1.0, [](int64_t, int64_t) {});
  EXPECT_EQ(enqueued.load(), regions * 3);
}

TEST(ThreadPool, TheSpinPolicyChangesWhileThePoolRuns) {
  ThreadPool pool(2);
  const ThreadPool::RunScope run(&pool);
  expect_each_once(pool, 64);
  EXPECT_EQ(pool.sleeping_workers(), 0);
  pool.set_spin(false);
  EXPECT_FALSE(pool.spins());
  EXPECT_TRUE(sleepers_reach(pool, 1)) << "the worker kept polling after spinning was turned off";
  expect_each_once(pool, 1 << 14);
  pool.set_spin(true);
  EXPECT_TRUE(pool.spins());
  expect_each_once(pool, 1 << 14);
}

}  // namespace
}  // namespace tessera
