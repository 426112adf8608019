// Counters of the inference requests, served in Prometheus' text format on
// the metrics port (GET /metrics): requests by model, version and outcome,
// their duration as a histogram, and each model version's readiness.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tessera::serve {

class ModelRepository;

class Metrics {
 public:
  // One inference request of `model` (version "" when it failed before a
  // version was chosen), whether it succeeded, and how long it took.
  void record(const std::string& model, const std::string& version, bool success, double seconds);
  // Everything, in Prometheus' text exposition format.
  std::string prometheus_text(const ModelRepository& repository) const;

 private:
  struct Stats {
    uint64_t success = 0;
    uint64_t failure = 0;
    std::vector<uint64_t> buckets;  // counts per upper bound in kBounds, then +Inf
    double seconds = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Stats> stats_;
};

}  // namespace tessera::serve
