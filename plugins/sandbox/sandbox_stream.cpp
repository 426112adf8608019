#include "sandbox_stream.hpp"

#include <cstdio>
#include <cstring>
#include <utility>

namespace sandbox {

namespace {

std::string describe(const char* side, const void* p, size_t bytes) {
  char ptr[32];
  std::snprintf(ptr, sizeof ptr, "%p", p);
  return std::string("the ") + side + " at " + ptr + " (" + std::to_string(bytes) +
         " bytes) is not sandbox device memory";
}

}  // namespace

bool is_device(const TsrEpMemory& m) {
  return m.device_type == TSR_EP_DEVICE_GPU && m.vendor_id == kVendor && m.device_id == 0;
}

std::string copy_checked(const Arena& arena, const TsrEpCopy& c) {
  if (is_device(c.src_memory) && !arena.owns(c.src, c.bytes))
    return describe("source", c.src, c.bytes);
  if (is_device(c.dst_memory) && !arena.owns(c.dst, c.bytes))
    return describe("destination", c.dst, c.bytes);
  std::memcpy(c.dst, c.src, c.bytes);
  return "";
}

Stream::Stream(const Arena& arena, std::chrono::milliseconds delay)
    : arena_(arena), delay_(delay), worker_([this] { run(); }) {}

Stream::~Stream() { finish(); }

void Stream::enqueue(const TsrEpCopy* copies, size_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back({++batches_, std::vector<TsrEpCopy>(copies, copies + count)});
  ++pending_;
  work_.notify_one();
}

std::string Stream::synchronize() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return pending_ == 0; });
  batches_ = 0;
  return std::exchange(error_, std::string());
}

std::string Stream::finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    work_.notify_one();
  }
  if (worker_.joinable()) worker_.join();  // the worker drains the queue before it stops
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(error_, std::string());
}

// Takes batches in order. After a failure the rest of the work queued before
// the next synchronize() is skipped: it was queued after work that did not
// happen, as on a device whose stream faulted.
void Stream::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to run
    Batch batch = std::move(queue_.front());
    queue_.pop_front();
    bool skip = !error_.empty();
    lock.unlock();
    std::string failure;
    if (!skip) {
      if (delay_.count()) std::this_thread::sleep_for(delay_);
      for (size_t k = 0; k < batch.copies.size() && failure.empty(); ++k) {
        failure = copy_checked(arena_, batch.copies[k]);
        if (!failure.empty())
          failure = "asynchronous copy " + std::to_string(k) + " of batch " +
                    std::to_string(batch.number) + " on the stream: " + failure;
        else
          counters().stream_copies.fetch_add(1, std::memory_order_relaxed);
      }
    }
    lock.lock();
    if (error_.empty()) error_ = std::move(failure);
    if (--pending_ == 0) idle_.notify_all();
  }
}

}  // namespace sandbox
