// Counters of the inference requests, served in Prometheus' text format on
// the metrics port (GET /metrics): requests by model, version and outcome;
// histograms of their queue, compute and total times; the rows of each
// session run of the models with dynamic batching; requests in flight; each
// model version's readiness; and the process's memory.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tessera::serve {

class ModelRepository;
struct RequestRecord;

class Metrics {
 public:
  // One inference request that reached a loaded model version, answered
  // after `total`.
  void record(const RequestRecord& request, std::chrono::steady_clock::duration total);
  // Everything, in Prometheus' text exposition format.
  std::string prometheus_text(const ModelRepository& repository) const;

 private:
  struct Histogram {
    std::vector<uint64_t> buckets;  // counts per upper bound in kBounds, then +Inf
    double seconds = 0;
    void add(double s);
  };
  struct Stats {
    uint64_t success = 0;
    uint64_t failure = 0;
    Histogram total, queue, compute;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Stats> stats_;
};

}  // namespace tessera::serve
