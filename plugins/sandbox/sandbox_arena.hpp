// The sandbox device's memory: host memory kept apart from everything else
// and presented to the runtime as another device. Every block handed out is
// recorded, so a kernel can check that a pointer it receives is the device's
// own, and freed blocks are poisoned (all bits set: a float NaN) and held in
// quarantine a while, so a read after free shows up as NaNs, not stale data.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace sandbox {

class Arena {
 public:
  ~Arena();
  void* alloc(size_t bytes);
  void free(void* p);
  // Whether [p, p + bytes) lies inside one live block of this arena.
  bool owns(const void* p, size_t bytes) const;
  size_t live_blocks() const;

 private:
  void release_quarantine(size_t keep_bytes);
  mutable std::mutex mu_;
  std::map<uintptr_t, size_t> live_;  // block start -> size
  std::deque<std::pair<void*, size_t>> quarantine_;
  size_t quarantined_ = 0;
};

// Thrown by kernels; turned into the ABI's error string at the boundary.
struct SandboxError {
  std::string message;
};

}  // namespace sandbox
