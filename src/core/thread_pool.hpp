// One pool of worker threads per session (intra-op). parallel_for splits
// [0, n) into chunks claimed through one atomic counter; the calling thread
// works too, so a pool of size 1 has no worker threads at all and never
// oversubscribes.
//
// Latency: a worker woken through a condition variable joins a region tens of
// microseconds late (more in a VM), by which time the caller has taken most
// chunks. So after each region a worker spins on the job word for a bounded
// time (kSpinMicros) before it blocks; back-to-back kernels in a model run find
// it awake, and an idle pool burns no CPU once the budget is spent.
//
// Inside a model run, gaps between parallel regions (a small serial kernel,
// the executor's bookkeeping, a run of cheap nodes) often outlast that
// budget, and each late join costs a region most of its second thread. So a
// session holds a RunScope for the length of each run: while one is open the
// workers poll without a time limit (yielding the core to any thread that
// wants it), and opening it wakes sleeping workers, so their wake-up overlaps
// the run's first serial steps instead of its first region.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera {

// What an application may put between a pool and its threads (the C API's
// custom thread hooks and per-session work callbacks). Every member is
// optional; a default ThreadHooks gives plain std::threads and no callbacks.
struct ThreadHooks {
  using WorkerFn = void (*)(void* arg);
  // Starts a thread that calls worker(arg) once and returns a handle for
  // `join`, or null when it cannot. Given create, join must be given too: the
  // pool waits for each of its threads through it on destruction.
  std::function<const void*(WorkerFn worker, void* arg)> create;
  std::function<void(const void* handle)> join;

  // Work callbacks. A region handed to the workers is enqueued once per
  // worker (on_enqueue runs on the caller; its answer is handed to the
  // others). A worker that takes its item reports on_start and on_stop
  // around its share of the region; an item no worker took before the region
  // finished is reported through on_abandon. So enqueues == starts +
  // abandons, and starts == stops, once parallel_for returns.
  std::function<void*()> on_enqueue;
  std::function<void(void*data)> on_start, on_stop, on_abandon;

  bool has_work_callbacks() const { return on_enqueue || on_start || on_stop || on_abandon; }
};

class ThreadPool {
 public:
  // How long an idle worker polls for the next region before it sleeps.
  static constexpr int kSpinMicros = 50;

  // spin false: workers never poll; they sleep as soon as a region ends and
  // RunScope keeps nothing awake (the session option
  // "session.intra_op.allow_spinning" = "0", for machines shared with other
  // busy processes).
  //
  // hooks: how the workers are started and joined, and what is reported
  // around the work they take (see ThreadHooks). Throws tessera::Error when
  // hooks.create cannot start a thread or is given without hooks.join.
  explicit ThreadPool(int num_threads, bool spin = true,
                      ThreadHooks hooks = {});  // <= 0: one per core
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }
  // Changes the spin policy of a running pool (a session's workload type):
  // with false, polling workers go to sleep and later regions wake them.
  void set_spin(bool spin) { spin_.store(spin); }
  bool spins() const { return spin_.load(); }

  // Keeps the workers polling while it lives (see the header comment).
  // Scopes nest and may overlap across threads.
  class RunScope {
   public:
    explicit RunScope(ThreadPool* pool);
    ~RunScope();
    RunScope(const RunScope&) = delete;
    RunScope& operator=(const RunScope&) = delete;

   private:
    ThreadPool* pool_;
  };
  // Calls fn(begin, end) over disjoint ranges covering [0, n). `cost_per_item`
  // is a rough count of operations per item, to avoid splitting tiny loops.
  // An exception thrown by fn (on any thread) is rethrown here after every
  // claimed chunk has finished; chunks not yet started are skipped. Nested
  // calls (from inside fn) and calls made while another thread holds the
  // workers run inline on the calling thread.
  void parallel_for(int64_t n, double cost_per_item,
                    const std::function<void(int64_t, int64_t)>& fn);

  // Chunks run by worker threads (not by callers) since creation: lets tests
  // and benchmarks see whether the workers take part.
  int64_t chunks_run_by_workers() const { return worker_chunks_.load(std::memory_order_relaxed); }
  // Workers blocked (not polling) right now: lets tests see the spin policy.
  int sleeping_workers() const { return sleepers_.load(); }

 private:
  struct Worker;  // one worker thread's state (thread_pool.cpp)
  static void worker_entry(void* worker);
  void stop_workers();  // wakes, stops and joins every started worker
  void worker_loop(Worker* self);
  // With work callbacks: enqueue one item per worker before a region is
  // published, and settle the ones no worker took once it is done.
  void enqueue_items(uint32_t epoch);
  void settle_items(uint32_t epoch);
  bool wait_for_job(uint32_t seen);  // false: stopping
  // Claims and runs chunks of job `epoch` until none are left.
  void run_chunks(uint32_t epoch, bool is_worker);

  int num_threads_;
  std::vector<std::unique_ptr<Worker>> workers_;
  ThreadHooks hooks_;
  bool callbacks_ = false;             // hooks_ has work callbacks
  std::atomic<int> items_running_{0};  // taken items whose on_stop has not returned
  std::mutex run_mu_;                  // one parallel_for at a time uses the workers

  // The job word: epoch (high 32 bits) | next chunk index (low 32 bits). A
  // claim is a compare-exchange that checks the epoch, so a late worker can
  // never take a chunk of a later job.
  std::atomic<uint64_t> work_{0};
  std::atomic<int64_t> done_chunks_{0};
  std::atomic<bool> failed_{false};
  std::atomic<int64_t> worker_chunks_{0};
  // The current job; written before the epoch is published, read after a claim.
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0, chunk_ = 1, num_chunks_ = 0;
  std::exception_ptr error_;
  std::mutex error_mu_;

  // Sleeping workers block here once their spin budget is spent.
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;
  std::atomic<int> sleepers_{0};
  std::atomic<int> open_runs_{0};  // RunScopes alive
  std::atomic<bool> spin_{true};
  std::atomic<bool> stop_{false};
};

}  // namespace tessera
