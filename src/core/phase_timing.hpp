// Wall-clock time of named phases (session creation reports where its time
// goes: parse, each optimization pass, partition, kernels, memory planning).
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

struct PhaseTiming {
  std::string name;
  double ms = 0;
};

// Appends phases in the order they first run; a phase that runs again (a pass
// repeated until nothing changes) adds to its existing entry.
class PhaseTimer {
 public:
  explicit PhaseTimer(std::vector<PhaseTiming>* out) : out_(out) {}

  template <typename Fn>
  auto time(const std::string& name, Fn&& fn) {
    auto start = std::chrono::steady_clock::now();
    struct Record {  // records on every exit, a throwing phase included
      PhaseTimer* self;
      const std::string& name;
      std::chrono::steady_clock::time_point start;
      ~Record() {
        std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - start;
        self->add(name, d.count());
      }
    } record{this, name, start};
    return fn();
  }

  void add(const std::string& name, double ms) {
    if (!out_) return;
    for (auto& p : *out_)
      if (p.name == name) {
        p.ms += ms;
        return;
      }
    out_->push_back({name, ms});
  }

 private:
  std::vector<PhaseTiming>* out_;
};

}  // namespace tessera
