// What the sandbox counts for its tests, read through the exported test hook
// tessera_sandbox_counter() (sandbox_ep.cpp), which is not part of the ABI.
#pragma once
#include <atomic>
#include <cstdint>

namespace sandbox {

struct Counters {
  std::atomic<uint64_t> live_providers{0};  // created and not yet released
  std::atomic<uint64_t> live_arenas{0};     // device memories (one while any provider lives)
  std::atomic<uint64_t> live_streams{0};    // created and not yet released
  std::atomic<uint64_t> stream_copies{0};   // copies made by stream worker threads
};

inline Counters& counters() {
  static Counters c;
  return c;
}

}  // namespace sandbox
