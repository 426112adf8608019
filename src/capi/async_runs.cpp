#include "capi/async_runs.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace tessera::capi {
namespace {

class AsyncRunQueue {
 public:
  AsyncRunQueue() {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    // Workers wait on the queue for the life of the process: the queue is
    // never destroyed, so no exit-time join can wait on a run in flight.
    for (unsigned i = 0; i < n; ++i) std::thread([this] { serve(); }).detach();
  }

  void post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

 private:
  void serve() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_.wait(lock, [this] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();  // tasks report their own errors through their callback
    }
  }

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
};

}  // namespace

void post_async_run(std::function<void()> task) {
  static AsyncRunQueue* queue = new AsyncRunQueue();  // never destroyed (see above)
  queue->post(std::move(task));
}

}  // namespace tessera::capi
