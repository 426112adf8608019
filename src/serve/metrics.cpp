#include "serve/metrics.hpp"

#include <array>
#include <sstream>

#include "serve/batcher.hpp"
#include "serve/repository.hpp"

namespace tessera::serve {
namespace {

constexpr std::array<double, 10> kBounds = {0.001, 0.0025, 0.005, 0.01, 0.025,
                                            0.05,  0.1,    0.25,  1.0,  5.0};

std::string labels(const std::string& model, const std::string& version) {
  // Model names are letters, digits, '_', '-', '.'; versions are digits:
  // nothing to escape.
  return "model=\"" + model + "\",version=\"" + version + "\"";
}

}  // namespace

void Metrics::record(const std::string& model, const std::string& version, bool success,
                     double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats& s = stats_[{model, version}];
  if (s.buckets.empty()) s.buckets.assign(kBounds.size() + 1, 0);
  (success ? s.success : s.failure) += 1;
  size_t i = 0;
  while (i < kBounds.size() && seconds > kBounds[i]) ++i;
  s.buckets[i] += 1;
  s.seconds += seconds;
}

std::string Metrics::prometheus_text(const ModelRepository& repository) const {
  std::ostringstream out;
  out.precision(9);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    out << "# HELP tessera_inference_requests_total Inference requests by model, version and "
           "outcome.\n"
           "# TYPE tessera_inference_requests_total counter\n";
    for (const auto& [key, s] : stats_) {
      const std::string l = labels(key.first, key.second);
      out << "tessera_inference_requests_total{" << l << ",outcome=\"success\"} " << s.success
          << "\n";
      out << "tessera_inference_requests_total{" << l << ",outcome=\"failure\"} " << s.failure
          << "\n";
    }
    out << "# HELP tessera_inference_request_duration_seconds Time from a request's arrival at "
           "its model to its answer.\n"
           "# TYPE tessera_inference_request_duration_seconds histogram\n";
    for (const auto& [key, s] : stats_) {
      const std::string l = labels(key.first, key.second);
      uint64_t cumulative = 0;
      for (size_t i = 0; i < s.buckets.size(); ++i) {
        cumulative += s.buckets[i];
        out << "tessera_inference_request_duration_seconds_bucket{" << l << ",le=\"";
        if (i < kBounds.size())
          out << kBounds[i];
        else
          out << "+Inf";
        out << "\"} " << cumulative << "\n";
      }
      out << "tessera_inference_request_duration_seconds_sum{" << l << "} " << s.seconds << "\n";
      out << "tessera_inference_request_duration_seconds_count{" << l << "} " << cumulative << "\n";
    }
  }
  out << "# HELP tessera_inference_batch_executions_total Session runs of the models with "
         "dynamic batching (a batch of requests counts once).\n"
         "# TYPE tessera_inference_batch_executions_total counter\n";
  for (const auto& m : repository.loaded())
    if (m->batcher)
      out << "tessera_inference_batch_executions_total{" << labels(m->name, m->version) << "} "
          << m->batcher->executions() << "\n";
  out << "# HELP tessera_inference_requests_in_flight Requests a model version holds now "
         "(waiting for a batch or running; max_queue_size bounds it).\n"
         "# TYPE tessera_inference_requests_in_flight gauge\n";
  for (const auto& m : repository.loaded())
    out << "tessera_inference_requests_in_flight{" << labels(m->name, m->version) << "} "
        << m->in_flight.load() << "\n";
  out << "# HELP tessera_model_ready Whether each model version is loaded (1) or not (0).\n"
         "# TYPE tessera_model_ready gauge\n";
  for (const auto& e : repository.index())
    out << "tessera_model_ready{" << labels(e.name, e.version) << "} "
        << (e.state == "READY" ? 1 : 0) << "\n";
  return out.str();
}

}  // namespace tessera::serve
