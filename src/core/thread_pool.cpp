#include "core/thread_pool.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tessera {

namespace {

// The job word packs epoch (32 bits), chunk count (16) and next chunk (16):
// a claim checks all three in one compare-exchange.
constexpr int64_t kMaxChunks = 0xffff;
uint32_t epoch_of(uint64_t w) { return uint32_t(w >> 32); }
int64_t count_of(uint64_t w) { return int64_t((w >> 16) & 0xffff); }
int64_t next_of(uint64_t w) { return int64_t(w & 0xffff); }

// Tells a hyper-threaded core (and the VM host) that we are polling.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// The pool whose region this thread is running in: a nested parallel_for on
// the same pool runs inline (the workers are busy with the outer one).
thread_local const ThreadPool* tls_region_pool = nullptr;

}  // namespace

namespace {
// A worker's work item for one region: (epoch << 2) | state.
constexpr uint64_t kItemEnqueued = 1, kItemTaken = 2, kItemAbandoned = 3;
uint64_t item_word(uint32_t epoch, uint64_t state) { return (uint64_t(epoch) << 2) | state; }
}  // namespace

struct ThreadPool::Worker {
  ThreadPool* pool = nullptr;
  std::thread thread;            // started by the pool itself
  const void* handle = nullptr;  // started through hooks_.create
  std::atomic<uint64_t> item{0};
  void* item_data = nullptr;  // on_enqueue's answer for the current item
};

ThreadPool::ThreadPool(int num_threads, bool spin, ThreadHooks hooks)
    : hooks_(std::move(hooks)), spin_(spin) {
  check(!hooks_.create || hooks_.join,
        "thread pool: a custom create-thread function needs a join-thread function too, "
        "to wait for the threads it starts");
  callbacks_ = hooks_.has_work_callbacks();
  if (num_threads <= 0) num_threads = int(std::max(1u, std::thread::hardware_concurrency()));
  num_threads_ = num_threads;
  workers_.reserve(size_t(num_threads_ - 1));
  try {
    for (int i = 1; i < num_threads_; ++i) {
      auto worker = std::make_unique<Worker>();
      worker->pool = this;
      if (hooks_.create) {
        worker->handle = hooks_.create(&ThreadPool::worker_entry, worker.get());
        if (!worker->handle)
          fail(ErrorCode::kFail,
               "thread pool: the custom create-thread function returned no thread "
               "handle for worker ",
               i, " of ", num_threads_ - 1);
      } else {
        Worker* self = worker.get();
        worker->thread = std::thread([this, self] { worker_loop(self); });
      }
      workers_.push_back(std::move(worker));
    }
  } catch (...) {
    stop_workers();
    throw;
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  stop_.store(true);
  { std::lock_guard<std::mutex> lock(sleep_mu_); }
  sleep_cv_.notify_all();
  for (auto& w : workers_) {
    if (w->handle)
      hooks_.join(w->handle);
    else if (w->thread.joinable())
      w->thread.join();
  }
}

void ThreadPool::worker_entry(void* worker) {
  auto* self = static_cast<Worker*>(worker);
  self->pool->worker_loop(self);
}

bool ThreadPool::wait_for_job(uint32_t seen) {
  auto changed = [&] { return epoch_of(work_.load(std::memory_order_acquire)) != seen; };
  auto run_open = [&] { return spin_ && open_runs_.load() > 0; };
  for (;;) {
    // Spin first: the next kernel of a run usually starts within
    // microseconds. With a run open, keep spinning until it closes.
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
    for (int i = 0; spin_; ++i) {
      if (stop_.load(std::memory_order_relaxed)) return false;
      if (changed()) return true;
      if ((i & 31) == 31) {
        if (open_runs_.load(std::memory_order_relaxed) == 0 &&
            std::chrono::steady_clock::now() >= until)
          break;
        // Give the core away if another thread wants it: with more threads
        // than free cores, a spinning worker would delay the caller itself.
        std::this_thread::yield();
      }
      cpu_relax();
    }
    // Then sleep until a region is published or a run opens. sleepers_ is
    // raised before the epoch and the open runs are read again under the
    // lock, and parallel_for and RunScope publish theirs before they read
    // sleepers_ (all sequentially consistent), so a wake-up is never lost.
    std::unique_lock<std::mutex> lock(sleep_mu_);
    sleepers_.fetch_add(1);
    sleep_cv_.wait(lock, [&] { return stop_.load() || changed() || run_open(); });
    sleepers_.fetch_sub(1);
    if (stop_.load()) return false;
    if (changed()) return true;
    // A run opened: poll for its length.
  }
}

ThreadPool::RunScope::RunScope(ThreadPool* pool) : pool_(pool && pool->spin_ ? pool : nullptr) {
  if (!pool_ || pool_->workers_.empty()) return;
  pool_->open_runs_.fetch_add(1);  // seq_cst: read by sleepers under sleep_mu_
  if (pool_->sleepers_.load() > 0) {
    { std::lock_guard<std::mutex> lock(pool_->sleep_mu_); }
    pool_->sleep_cv_.notify_all();
  }
}

ThreadPool::RunScope::~RunScope() {
  if (pool_ && !pool_->workers_.empty()) pool_->open_runs_.fetch_sub(1);
}

void ThreadPool::worker_loop(Worker* self) {
  tls_region_pool = this;
  uint32_t seen = 0;
  while (wait_for_job(seen)) {
    seen = epoch_of(work_.load(std::memory_order_acquire));
    if (!callbacks_) {
      run_chunks(seen, true);
      continue;
    }
    // Counted before the claim, so settle_items (which reads the count after
    // failing to abandon a taken item) waits for this on_stop.
    items_running_.fetch_add(1);
    uint64_t expected = item_word(seen, kItemEnqueued);
    if (self->item.compare_exchange_strong(expected, item_word(seen, kItemTaken))) {
      if (hooks_.on_start) hooks_.on_start(self->item_data);
      run_chunks(seen, true);
      if (hooks_.on_stop) hooks_.on_stop(self->item_data);
    }
    items_running_.fetch_sub(1);
  }
}

void ThreadPool::enqueue_items(uint32_t epoch) {
  for (auto& w : workers_) {
    w->item_data = hooks_.on_enqueue ? hooks_.on_enqueue() : nullptr;
    w->item.store(item_word(epoch, kItemEnqueued));
  }
}

void ThreadPool::settle_items(uint32_t epoch) {
  for (auto& w : workers_) {
    uint64_t expected = item_word(epoch, kItemEnqueued);
    if (w->item.compare_exchange_strong(expected, item_word(epoch, kItemAbandoned)) &&
        hooks_.on_abandon)
      hooks_.on_abandon(w->item_data);
  }
  while (items_running_.load() > 0) std::this_thread::yield();
}

void ThreadPool::run_chunks(uint32_t epoch, bool is_worker) {
  uint64_t w = work_.load(std::memory_order_acquire);
  for (;;) {
    if (epoch_of(w) != epoch || next_of(w) >= count_of(w)) return;
    if (!work_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire))
      continue;
    // Claimed chunk next_of(w) of this epoch: the job stays alive until it is
    // counted in done_chunks_, so its fields are safe to read.
    const int64_t b = next_of(w) * chunk_, e = std::min(job_n_, b + chunk_);
    if (!failed_.load(std::memory_order_relaxed)) {
      try {
        (*job_)(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu_);
        if (!error_) error_ = std::current_exception();
        failed_.store(true, std::memory_order_relaxed);
      }
    }
    if (is_worker) worker_chunks_.fetch_add(1, std::memory_order_relaxed);
    done_chunks_.fetch_add(1, std::memory_order_release);
    w = work_.load(std::memory_order_acquire);
  }
}

void ThreadPool::parallel_for(int64_t n, double cost_per_item,
                              const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  // Below ~20k operations the hand-off costs more than it saves.
  if (num_threads_ == 1 || n == 1 || double(n) * cost_per_item < 20000.0 ||
      tls_region_pool == this) {
    fn(0, n);
    return;
  }
  // Concurrent calls (another session thread holds the workers) run inline.
  std::unique_lock<std::mutex> run_lock(run_mu_, std::try_to_lock);
  if (!run_lock.owns_lock()) {
    fn(0, n);
    return;
  }
  // About four chunks per thread: claimed dynamically, so a late or slower
  // thread takes fewer of them.
  int64_t chunk = std::max<int64_t>(1, n / (int64_t(num_threads_) * 4));
  chunk = std::max(chunk, (n + kMaxChunks - 1) / kMaxChunks);
  const int64_t chunks = (n + chunk - 1) / chunk;
  job_ = &fn;
  job_n_ = n;
  chunk_ = chunk;
  error_ = nullptr;
  failed_.store(false, std::memory_order_relaxed);
  done_chunks_.store(0, std::memory_order_relaxed);
  const uint32_t epoch = epoch_of(work_.load(std::memory_order_relaxed)) + 1;
  if (callbacks_) enqueue_items(epoch);
  work_.store((uint64_t(epoch) << 32) | uint64_t(chunks << 16));  // seq_cst: see wait_for_job
  if (sleepers_.load() > 0) {
    { std::lock_guard<std::mutex> lock(sleep_mu_); }
    sleep_cv_.notify_all();
  }
  const ThreadPool* outer = tls_region_pool;
  tls_region_pool = this;
  run_chunks(epoch, false);
  tls_region_pool = outer;
  // Chunks still running belong to awake workers: a short wait.
  for (int i = 0; done_chunks_.load(std::memory_order_acquire) < chunks; ++i) {
    if (i < 4096)
      cpu_relax();
    else
      std::this_thread::yield();
  }
  if (callbacks_) settle_items(epoch);
  job_ = nullptr;
  if (std::exception_ptr error = std::exchange(error_, nullptr)) std::rethrow_exception(error);
}

}  // namespace tessera
