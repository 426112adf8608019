// Dynamic batching: requests for one model version that arrive within a
// short delay run as one batch, their inputs joined along the first (batch)
// dimension and the outputs split back. Enabled by config.json's
// "dynamic_batching" (with "max_batch_size" above 0).
//
// Requests join a batch only when every input has the same dimensions after
// the first; the batch never exceeds max_batch_size. A batch that fails is
// run again one request at a time, so a request the model rejects fails
// alone.
//
// A request whose deadline passes while it waits is left out of every later
// batch, and run() returns without its outputs (a batch already running
// with it finishes for the others).
#pragma once
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

#include "serve/repository.hpp"
#include "tessera/tessera.hpp"

namespace tessera::serve {

class Batcher {
 public:
  Batcher(api::Session& session, const std::vector<TensorSpec>& inputs,
          const std::vector<TensorSpec>& outputs, int64_t max_batch_size,
          std::chrono::microseconds max_delay);
  ~Batcher();  // runs what is queued, then stops
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Runs one request: `inputs` holds every model input, in the model's
  // order. Returns every model output, in the model's order, or nothing
  // when `deadline` came first.
  std::optional<std::vector<api::Value>> run(std::vector<api::Value> inputs,
                                             std::chrono::steady_clock::time_point deadline);
  // How many times the session ran (batches and single requests).
  uint64_t executions() const { return executions_; }

 private:
  struct Pending {
    std::vector<api::Value> inputs;
    std::vector<std::vector<int64_t>> shapes;
    int64_t batch = 0;
    std::chrono::steady_clock::time_point arrival;
    std::chrono::steady_clock::time_point deadline;
    std::atomic<bool> abandoned{false};  // its requester stopped waiting
    std::promise<std::vector<api::Value>> done;
  };
  using PendingPtr = std::shared_ptr<Pending>;

  void loop();
  void execute(std::vector<PendingPtr>& group);
  void drop_abandoned();  // caller holds mutex_
  std::vector<api::Value> run_session(const std::vector<api::Value>& inputs);

  api::Session& session_;
  std::vector<std::string> input_names_, output_names_;
  std::vector<ONNXTensorElementDataType> input_types_;
  int64_t max_batch_;
  std::chrono::microseconds max_delay_;
  std::atomic<uint64_t> executions_{0};

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<PendingPtr> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace tessera::serve
