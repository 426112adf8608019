// One pool of worker threads per session (intra-op). parallel_for splits
// [0, n) into chunks; the calling thread works too, so a pool of size 1 has no
// worker threads at all and never oversubscribes.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);  // <= 0: one per core
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }
  // Calls fn(begin, end) over disjoint ranges covering [0, n). `cost_per_item`
  // is a rough count of operations per item, to avoid splitting tiny loops.
  void parallel_for(int64_t n, double cost_per_item,
                    const std::function<void(int64_t, int64_t)>& fn);

 private:
  void worker_loop();

  int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::mutex run_mu_;  // one parallel_for at a time uses the workers
  std::condition_variable cv_, done_cv_;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0, next_ = 0, chunk_ = 1;
  int active_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace tessera
