// Collects per-node timings during runs and writes them as a Chrome trace
// (chrome://tracing, Perfetto) JSON file.
#pragma once
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::runtime {

class Profiler {
 public:
  struct Event {
    std::string name, category, provider, op_type;
    int64_t start_ns, end_ns;
    uint64_t thread;
  };
  void start(std::string file_prefix);
  bool enabled() const { return enabled_; }
  void record(Event e);
  // An allocator's statistics at time t (a Chrome trace counter event).
  void record_memory(const std::string& provider, int64_t t, size_t in_use, size_t peak,
                     size_t reserved, size_t num_allocs);
  static int64_t now_ns();
  // Writes "<prefix>_<timestamp>.json"; returns its path.
  std::string finish();
  int64_t start_time_ns() const { return start_ns_; }

 private:
  bool enabled_ = false;
  std::string prefix_;
  int64_t start_ns_ = 0;
  std::mutex mu_;
  // Deques: a long profiled run adds events without ever moving the ones
  // recorded (a vector's regrowth copied them all, mid-run, into fresh pages).
  std::deque<Event> events_;
  struct Memory {
    std::string provider;
    int64_t t;
    size_t in_use, peak, reserved, num_allocs;
  };
  std::deque<Memory> memory_;
};

}  // namespace tessera::runtime
