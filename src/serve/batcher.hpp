// Dynamic batching: requests for one model version that arrive within a
// short delay run as one batch, their inputs joined along the first (batch)
// dimension and the outputs split back. Enabled by config.json's
// "dynamic_batching" (with "max_batch_size" above 0).
//
// Requests join a batch only when every input has the same dimensions after
// the first; the batch never exceeds max_batch_size. With preferred batch
// sizes, a batch runs as soon as the largest of them is queued, and takes
// the largest preferred size the queued rows reach (all of them when they
// reach none, once the delay has passed). `instances` workers form and run
// batches, so that many run at once on the session. A batch that fails is
// run again one request at a time, so a request the model rejects fails
// alone.
//
// A request whose deadline passes while it waits is left out of every later
// batch, and run() returns without its outputs (a batch already running
// with it finishes for the others).
#pragma once
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "serve/model_stats.hpp"
#include "serve/repository.hpp"
#include "tessera/tessera.hpp"

namespace tessera::serve {

// When a request's session run began and ended, and how many rows it held;
// and how long joining the batch's inputs before it and splitting its
// outputs after it took (0 for a run of one request).
struct RunTiming {
  std::chrono::steady_clock::time_point start{}, end{};
  int64_t rows = 0;
  std::chrono::steady_clock::duration input{}, output{};
};

class Batcher {
 public:
  // Upper bounds of the batch-size histogram's buckets (rows per session
  // run); a last bucket takes the rest.
  static constexpr std::array<int64_t, 8> kRowBounds = {1, 2, 4, 8, 16, 32, 64, 128};

  // Each session run that succeeds is noted in `stats`, which outlives the
  // batcher.
  Batcher(api::Session& session, const std::vector<TensorSpec>& inputs,
          const std::vector<TensorSpec>& outputs, int64_t max_batch_size,
          std::chrono::microseconds max_delay, ModelStats& stats,
          std::vector<int64_t> preferred_batch_sizes = {}, int64_t instances = 1);
  ~Batcher();  // runs what is queued, then stops
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Runs one request: `inputs` holds every model input, in the model's
  // order. Returns every model output, in the model's order, or nothing
  // when `deadline` came first. `timing` (when given) gets the session run
  // that computed the request, when one did (also when it failed).
  std::optional<std::vector<api::Value>> run(std::vector<api::Value> inputs,
                                             std::chrono::steady_clock::time_point deadline,
                                             RunTiming* timing = nullptr);
  // How many times the session ran (batches and single requests).
  uint64_t executions() const { return executions_; }
  // Session runs by rows, one count per bucket of kRowBounds and a last for
  // larger runs; and the rows of all runs together.
  std::vector<uint64_t> rows_histogram() const;
  uint64_t rows_total() const { return rows_total_; }

 private:
  struct Pending {
    std::vector<api::Value> inputs;
    std::vector<std::vector<int64_t>> shapes;
    int64_t batch = 0;
    std::chrono::steady_clock::time_point arrival;
    std::chrono::steady_clock::time_point deadline;
    std::atomic<bool> abandoned{false};  // its requester stopped waiting
    RunTiming timing;                    // written before `done` is set
    std::promise<std::vector<api::Value>> done;
  };
  using PendingPtr = std::shared_ptr<Pending>;

  void loop();
  // The rows of the batch to take now from the requests that fit beside the
  // first, `available` rows in all (at most max_batch_size).
  int64_t batch_limit(int64_t available) const;
  void execute(std::vector<PendingPtr>& group);
  void drop_abandoned();  // caller holds mutex_
  // Runs the session on `inputs` of `rows` rows, noting the run in `timing`
  // and in the histogram.
  std::vector<api::Value> run_session(const std::vector<api::Value>& inputs, int64_t rows,
                                      RunTiming& timing);

  api::Session& session_;
  ModelStats& stats_;
  std::vector<std::string> input_names_, output_names_;
  std::vector<ONNXTensorElementDataType> input_types_;
  int64_t max_batch_;
  std::chrono::microseconds max_delay_;
  std::vector<int64_t> preferred_;  // ascending
  int64_t ready_rows_;              // queued rows that start a batch at once
  std::atomic<uint64_t> executions_{0};
  std::array<std::atomic<uint64_t>, kRowBounds.size() + 1> rows_counts_{};
  std::atomic<uint64_t> rows_total_{0};

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<PendingPtr> queue_;
  int64_t queued_rows_ = 0;  // the rows of queue_'s requests
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace tessera::serve
