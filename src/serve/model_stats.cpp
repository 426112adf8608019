#include "serve/model_stats.hpp"

namespace tessera::serve {

void ModelStats::DurationStat::add(Duration d) {
  count += 1;
  const auto n = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  ns += n > 0 ? static_cast<uint64_t>(n) : 0;
}

void ModelStats::record_request(bool success, Duration total, int64_t rows, bool ran,
                                Duration queue, const RunStats& run) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.last_inference_ms = static_cast<uint64_t>(now.count());
  if (!success) {
    stats_.fail.add(total);
    return;
  }
  stats_.success.add(total);
  stats_.inference_count += rows > 0 ? static_cast<uint64_t>(rows) : 0;
  if (!ran) return;
  stats_.queue.add(queue);
  // Each part once per request, with the time of the run it was part of.
  stats_.requests.input.count += 1;
  stats_.requests.input.ns += run.input.ns;
  stats_.requests.infer.count += 1;
  stats_.requests.infer.ns += run.infer.ns;
  stats_.requests.output.count += 1;
  stats_.requests.output.ns += run.output.ns;
}

void ModelStats::record_execution(int64_t rows, Duration input, Duration infer, Duration output) {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.execution_count += 1;
  RunStats& b = stats_.per_batch[rows];
  b.input.add(input);
  b.infer.add(infer);
  b.output.add(output);
}

ModelStats::Snapshot ModelStats::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace tessera::serve
