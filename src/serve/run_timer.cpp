#include "serve/run_timer.hpp"

namespace tessera::serve {

RunTimer& RunTimer::instance() {
  static RunTimer timer;
  return timer;
}

RunTimer::~RunTimer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

uint64_t RunTimer::arm(std::chrono::steady_clock::time_point deadline, api::RunOptions* options) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!worker_.joinable()) worker_ = std::thread([this] { loop(); });
  const uint64_t id = next_id_++;
  armed_[id] = {deadline, options};
  wake_.notify_all();
  return id;
}

void RunTimer::disarm(uint64_t id) {
  // terminate() is called under the lock, so once the entry is gone here
  // the worker cannot be inside it.
  std::lock_guard<std::mutex> lock(mutex_);
  armed_.erase(id);
}

void RunTimer::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    auto earliest = std::chrono::steady_clock::time_point::max();
    const auto now = std::chrono::steady_clock::now();
    for (auto it = armed_.begin(); it != armed_.end();) {
      if (it->second.first <= now) {
        try {
          it->second.second->terminate();
        } catch (const std::exception&) {
          // The run then goes on to its end; its request is still answered
          // with the deadline error.
        }
        it = armed_.erase(it);
      } else {
        earliest = std::min(earliest, it->second.first);
        ++it;
      }
    }
    if (earliest == std::chrono::steady_clock::time_point::max())
      wake_.wait(lock);
    else
      wake_.wait_until(lock, earliest);
  }
}

}  // namespace tessera::serve
