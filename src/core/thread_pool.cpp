#include "core/thread_pool.hpp"

#include <algorithm>

namespace tessera {

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) num_threads = int(std::max(1u, std::thread::hardware_concurrency()));
  num_threads_ = num_threads;
  for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    const auto* job = job_;
    ++active_;
    while (job && next_ < job_n_) {
      int64_t b = next_;
      int64_t e = std::min(job_n_, b + chunk_);
      next_ = e;
      lock.unlock();
      (*job)(b, e);
      lock.lock();
    }
    if (--active_ == 0) done_cv_.notify_all();
  }
}

void ThreadPool::parallel_for(int64_t n, double cost_per_item,
                              const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  // Below ~20k operations the hand-off costs more than it saves.
  if (num_threads_ == 1 || n == 1 || double(n) * cost_per_item < 20000.0) {
    fn(0, n);
    return;
  }
  // Nested or concurrent calls (another session thread inside the pool) run inline.
  std::unique_lock<std::mutex> run_lock(run_mu_, std::try_to_lock);
  if (!run_lock.owns_lock()) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  job_ = &fn;
  job_n_ = n;
  next_ = 0;
  chunk_ = std::max<int64_t>(1, n / (int64_t(num_threads_) * 4));
  ++generation_;
  cv_.notify_all();
  ++active_;
  while (next_ < job_n_) {
    int64_t b = next_;
    int64_t e = std::min(job_n_, b + chunk_);
    next_ = e;
    lock.unlock();
    fn(b, e);
    lock.lock();
  }
  --active_;
  done_cv_.wait(lock, [&] { return active_ == 0; });
  job_ = nullptr;
}

}  // namespace tessera
