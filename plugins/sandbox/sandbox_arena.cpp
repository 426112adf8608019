#include "sandbox_arena.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sandbox {

namespace {
constexpr size_t kAlign = 64;
constexpr size_t kQuarantineBytes = size_t(64) << 20;
}  // namespace

Arena::~Arena() {
  release_quarantine(0);
  for (auto& [p, n] : live_) std::free(reinterpret_cast<void*>(p));
}

void* Arena::alloc(size_t bytes) {
  size_t n = (bytes + kAlign - 1) / kAlign * kAlign;
  if (n == 0) n = kAlign;  // distinct, owned pointers even for empty tensors
  void* p = std::aligned_alloc(kAlign, n);
  if (!p) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  live_[reinterpret_cast<uintptr_t>(p)] = n;
  return p;
}

void Arena::free(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(reinterpret_cast<uintptr_t>(p));
  if (it == live_.end()) {
    // Not ours (or freed twice): a bug in the caller. Leave it alone, say so.
    std::fprintf(stderr, "sandbox: free(%p) of memory this device did not hand out\n", p);
    return;
  }
  std::memset(p, 0xFF, it->second);
  quarantine_.emplace_back(p, it->second);
  quarantined_ += it->second;
  live_.erase(it);
  release_quarantine(kQuarantineBytes);
}

void Arena::release_quarantine(size_t keep_bytes) {
  while (quarantined_ > keep_bytes && !quarantine_.empty()) {
    quarantined_ -= quarantine_.front().second;
    std::free(quarantine_.front().first);
    quarantine_.pop_front();
  }
}

bool Arena::owns(const void* p, size_t bytes) const {
  auto a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.upper_bound(a);
  if (it == live_.begin()) return false;
  --it;
  return a >= it->first && a + bytes <= it->first + it->second;
}

size_t Arena::live_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

}  // namespace sandbox
