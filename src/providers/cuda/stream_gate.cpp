#include "providers/cuda/stream_gate.hpp"

#include <condition_variable>
#include <mutex>
#include <set>
#include <utility>

namespace tessera::cuda {

namespace {

struct Gates {
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::pair<int, uintptr_t>> held;
};

Gates& gates() {
  static Gates* g = new Gates;  // outlives tokens released at process exit
  return *g;
}

}  // namespace

std::shared_ptr<void> enter_stream_gate(int device, uintptr_t stream) {
  Gates& g = gates();
  const std::pair<int, uintptr_t> key{device, stream};
  {
    std::unique_lock<std::mutex> lock(g.mu);
    g.cv.wait(lock, [&] { return g.held.count(key) == 0; });
    g.held.insert(key);
  }
  // A token, not a lock: it may be released on another thread than this one.
  return std::shared_ptr<void>(nullptr, [key](void*) {
    Gates& g = gates();
    {
      std::lock_guard<std::mutex> lock(g.mu);
      g.held.erase(key);
    }
    g.cv.notify_all();
  });
}

}  // namespace tessera::cuda
