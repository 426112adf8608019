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
#include <mutex>
#include <thread>
#include <vector>

namespace tessera {

class ThreadPool {
 public:
  // How long an idle worker polls for the next region before it sleeps.
  static constexpr int kSpinMicros = 50;

  // spin false: workers never poll; they sleep as soon as a region ends and
  // RunScope keeps nothing awake (the session option
  // "session.intra_op.allow_spinning" = "0", for machines shared with other
  // busy processes).
  explicit ThreadPool(int num_threads, bool spin = true);  // <= 0: one per core
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

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
  void worker_loop();
  bool wait_for_job(uint32_t seen);  // false: stopping
  // Claims and runs chunks of job `epoch` until none are left.
  void run_chunks(uint32_t epoch, bool is_worker);

  int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex run_mu_;  // one parallel_for at a time uses the workers

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
  bool spin_ = true;
  std::atomic<bool> stop_{false};
};

}  // namespace tessera
