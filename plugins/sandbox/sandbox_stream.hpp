// The sandbox's copies and streams. A copy is checked before it is made: its
// device side must lie in a block the device's arena handed out. A stream is
// an ordered queue of copies run by a worker thread of its own, as a real
// device runs them on its copy engine while the host goes on: copy_async()
// only queues, the worker copies, synchronize() waits for the queue to drain
// and reports the first failure.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sandbox_arena.hpp"
#include "sandbox_counters.hpp"
#include "tessera/tessera_ep_api.h"

namespace sandbox {

constexpr uint32_t kVendor = 0x5A0B;  // the sandbox's own vendor id

// Whether `m` is the sandbox device's memory.
bool is_device(const TsrEpMemory& m);

// Makes one copy after checking its device side(s) against `arena`. Empty on
// success, else why it was refused (nothing is copied then).
std::string copy_checked(const Arena& arena, const TsrEpCopy& c);

class Stream {
 public:
  // `delay`: how long the worker waits before each batch (the provider
  // option stream_delay_ms), so tests can release a stream with work queued.
  Stream(const Arena& arena, std::chrono::milliseconds delay);
  ~Stream();  // finish()es
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Queues a batch after the work already queued; returns at once.
  void enqueue(const TsrEpCopy* copies, size_t count);
  // Waits until the queue is drained; returns the first failure since the
  // last call (and forgets it), or "".
  std::string synchronize();
  // Runs what is still queued, stops the worker; returns the failure not yet
  // reported by synchronize(), or "". Idempotent.
  std::string finish();

 private:
  void run();  // the worker thread

  const Arena& arena_;
  const std::chrono::milliseconds delay_;
  std::mutex mu_;
  std::condition_variable work_;  // a batch was queued, or stop
  std::condition_variable idle_;  // pending_ reached 0
  struct Batch {
    size_t number = 0;  // 1-based, counted since the last synchronize(), for messages
    std::vector<TsrEpCopy> copies;
  };
  std::deque<Batch> queue_;
  size_t pending_ = 0;  // batches queued and not yet done
  size_t batches_ = 0;  // batches queued since the last synchronize()
  bool stopping_ = false;
  std::string error_;  // the first failure not yet reported
  std::thread worker_;
};

}  // namespace sandbox
