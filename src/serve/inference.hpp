// One inference request of the protocol, independent of its transport: the
// HTTP routes (infer_json.hpp) and the gRPC service (grpc_service.cpp) turn
// their requests into an InferRequest, with each input already converted
// against the model's declaration (input_spec), and turn the InferOutputs
// back into their own form.
//
// run_inference checks what no single tensor shows (repeated or missing
// inputs, the batch limit, requested outputs), admits the request against
// the model's queue limit, and runs it (in a batch, with dynamic batching)
// within its deadline. Every failure is a ServeError naming the model, the
// tensor and what is wrong.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "serve/repository.hpp"
#include "tessera/tessera.hpp"

namespace tessera::serve {

using Clock = std::chrono::steady_clock;

// What became of one request, filled in as far as it got; the metrics and
// the access log read it once the request is answered.
struct RequestTrace {
  std::string id;
  // Rows the request carries: the first dimension of its first input when
  // the model has max_batch_size above 0, else 1 (0 before inputs were read).
  int64_t batch_size = 0;
  // Rows of the session run that computed it (above batch_size when dynamic
  // batching joined it with others); 0 when no run began.
  int64_t run_rows = 0;
  Clock::duration queue{};    // from admission to the start of its session run
  Clock::duration compute{};  // its session run
  // Joining its batch's inputs and splitting the outputs (dynamic batching).
  Clock::duration input{}, output{};
};

struct RequestedOutput {
  std::string name;
  bool binary = false;  // HTTP: return as binary data; gRPC: as raw contents
};

struct InferRequest {
  std::string id;
  std::vector<std::string> input_names;
  std::vector<api::Value> inputs;        // converted, in the order of input_names
  std::vector<RequestedOutput> outputs;  // empty: every output of the model...
  bool all_binary = false;               // ...each binary when this is set
  Clock::time_point arrival = Clock::now();
  // The request's own deadline (its "timeout" parameter, a gRPC deadline);
  // the model's request_timeout_microseconds may set an earlier one.
  Clock::time_point deadline = Clock::time_point::max();
  RequestTrace* trace = nullptr;  // filled by run_inference when set
};

struct InferOutput {
  std::string name;
  bool binary = false;
  api::Value value;
};

// The declaration of input `name`; ServeError 400 listing the model's inputs
// when it has none of that name.
const TensorSpec& input_spec(const LoadedModel& model, const std::string& name);

// The deadline of a "timeout" parameter of `microseconds` (negative: an
// error naming the model).
Clock::time_point timeout_deadline(const LoadedModel& model, Clock::time_point arrival,
                                   int64_t microseconds);

// Runs `request`; returns the outputs asked for, in the order asked (the
// model's order when none were named). ServeError 400 for a request the model
// cannot take, 503 (kResourceExhausted) when the model's queue is full, 504
// (kDeadlineExceeded) past the deadline, 500 for a failure of the run itself.
std::vector<InferOutput> run_inference(const LoadedModel& model, InferRequest request);

}  // namespace tessera::serve
