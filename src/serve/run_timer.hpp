// Stops session runs that pass their request's deadline: a run armed here
// has its RunOptions terminated when the deadline comes (the runtime then
// stops between nodes), unless it was disarmed first. One thread serves
// every run; it sleeps while nothing is armed.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

#include "tessera/tessera.hpp"

namespace tessera::serve {

class RunTimer {
 public:
  static RunTimer& instance();
  ~RunTimer();

  // `options` is terminated at `deadline` unless disarm(id) comes first.
  uint64_t arm(std::chrono::steady_clock::time_point deadline, api::RunOptions* options);
  // After this returns, the options are not touched again.
  void disarm(uint64_t id);

 private:
  RunTimer() = default;
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<uint64_t, std::pair<std::chrono::steady_clock::time_point, api::RunOptions*>> armed_;
  uint64_t next_id_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace tessera::serve
