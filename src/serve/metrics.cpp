#include "serve/metrics.hpp"

#include <unistd.h>

#include <array>
#include <fstream>
#include <sstream>

#include "serve/batcher.hpp"
#include "serve/repository.hpp"
#include "serve/request_record.hpp"

namespace tessera::serve {
namespace {

// From 100 µs (a queue without batching, a small model's run) to 10 s.
constexpr std::array<double, 16> kBounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                            0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                            1.0,    2.5,     5.0,    10.0};

std::string labels(const std::string& model, const std::string& version) {
  // Model names are letters, digits, '_', '-', '.'; versions are digits:
  // nothing to escape.
  return "model=\"" + model + "\",version=\"" + version + "\"";
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

void write_histogram_head(std::ostringstream& out, const std::string& name,
                          const std::string& help) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " histogram\n";
}

// One labelled histogram's buckets (cumulative), sum and count.
template <typename Bound>
void write_histogram(std::ostringstream& out, const std::string& name, const std::string& l,
                     const std::vector<uint64_t>& buckets, const Bound& bounds, double sum) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    cumulative += buckets[i];
    out << name << "_bucket{" << l << ",le=\"";
    if (i < bounds.size())
      out << bounds[i];
    else
      out << "+Inf";
    out << "\"} " << cumulative << "\n";
  }
  out << name << "_sum{" << l << "} " << sum << "\n";
  out << name << "_count{" << l << "} " << cumulative << "\n";
}

// Resident and virtual bytes of this process (/proc/self/statm, in pages);
// zeros where it cannot be read.
std::pair<uint64_t, uint64_t> process_memory() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return {0, 0};
  const long page = sysconf(_SC_PAGESIZE);
  const uint64_t bytes = page > 0 ? static_cast<uint64_t>(page) : 4096;
  return {resident_pages * bytes, size_pages * bytes};
}

}  // namespace

void Metrics::Histogram::add(double s) {
  if (buckets.empty()) buckets.assign(kBounds.size() + 1, 0);
  size_t i = 0;
  while (i < kBounds.size() && s > kBounds[i]) ++i;
  buckets[i] += 1;
  seconds += s;
}

void Metrics::record(const RequestRecord& request, std::chrono::steady_clock::duration total) {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats& s = stats_[{request.model, request.version}];
  (request.error.empty() ? s.success : s.failure) += 1;
  s.total.add(seconds(total));
  // Queue and compute times exist only for requests that reached a run.
  if (request.trace.run_rows > 0) {
    s.queue.add(seconds(request.trace.queue));
    s.compute.add(seconds(request.trace.compute));
  }
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
    const std::pair<const char*, Histogram Stats::*> histograms[] = {
        {"tessera_inference_request_duration_seconds", &Stats::total},
        {"tessera_inference_queue_duration_seconds", &Stats::queue},
        {"tessera_inference_compute_duration_seconds", &Stats::compute}};
    const char* helps[] = {
        "Time from a request's arrival to its answer (parsing, conversion, queue, run).",
        "Time from a request's admission to its model to the start of the session run that "
        "computed it (waiting for its batch).",
        "Time of the session run that computed a request (a batch's run for each of its "
        "requests)."};
    for (size_t h = 0; h < 3; ++h) {
      write_histogram_head(out, histograms[h].first, helps[h]);
      for (const auto& [key, s] : stats_) {
        const Histogram& hist = s.*histograms[h].second;
        if (hist.buckets.empty()) continue;
        write_histogram(out, histograms[h].first, labels(key.first, key.second), hist.buckets,
                        kBounds, hist.seconds);
      }
    }
  }
  const auto loaded = repository.loaded();
  out << "# HELP tessera_inference_batch_executions_total Session runs of the models with "
         "dynamic batching (a batch of requests counts once).\n"
         "# TYPE tessera_inference_batch_executions_total counter\n";
  for (const auto& m : loaded)
    if (m->batcher)
      out << "tessera_inference_batch_executions_total{" << labels(m->name, m->version) << "} "
          << m->batcher->executions() << "\n";
  write_histogram_head(out, "tessera_inference_batch_size",
                       "Rows of each session run of the models with dynamic batching.");
  for (const auto& m : loaded)
    if (m->batcher)
      write_histogram(out, "tessera_inference_batch_size", labels(m->name, m->version),
                      m->batcher->rows_histogram(), Batcher::kRowBounds,
                      static_cast<double>(m->batcher->rows_total()));
  out << "# HELP tessera_inference_requests_in_flight Requests a model version holds now "
         "(waiting for a batch or running; max_queue_size bounds it).\n"
         "# TYPE tessera_inference_requests_in_flight gauge\n";
  for (const auto& m : loaded)
    out << "tessera_inference_requests_in_flight{" << labels(m->name, m->version) << "} "
        << m->in_flight.load() << "\n";
  out << "# HELP tessera_model_ready Whether each model version is loaded (1) or not (0).\n"
         "# TYPE tessera_model_ready gauge\n";
  for (const auto& e : repository.index())
    out << "tessera_model_ready{" << labels(e.name, e.version) << "} "
        << (e.state == "READY" ? 1 : 0) << "\n";
  const auto [resident, virt] = process_memory();
  out << "# HELP process_resident_memory_bytes Resident memory of the server process.\n"
         "# TYPE process_resident_memory_bytes gauge\n"
         "process_resident_memory_bytes "
      << resident
      << "\n# HELP process_virtual_memory_bytes Virtual memory of the server process.\n"
         "# TYPE process_virtual_memory_bytes gauge\n"
         "process_virtual_memory_bytes "
      << virt << "\n";
  return out.str();
}

}  // namespace tessera::serve
