// A model's optional DIR/<model>/config.json: the providers in priority order
// with their options, thread counts and the largest batch a request may
// carry, how many requests may wait at once and how long each may take. A
// model without the file is served with the defaults.
//
//   {"providers": [{"name": "CPUExecutionProvider", "options": {}}],
//    "intra_op_threads": 2, "inter_op_threads": 1, "max_batch_size": 8,
//    "dynamic_batching": {"max_queue_delay_microseconds": 2000,
//                         "preferred_batch_size": [4, 8]},
//    "instance_group": [{"count": 2}],
//    "max_queue_size": 64, "request_timeout_microseconds": 1000000}
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace tessera::serve {

struct ProviderChoice {
  std::string name;
  std::map<std::string, std::string> options;
};

// A config's "input" or "output" entry (Triton's form): the tensor's name,
// optionally its datatype ("FP32" or "TYPE_FP32"), which must be the
// model's, and its dims, which may fix the model's dynamic ones (-1 leaves
// one dynamic). With max_batch_size above 0, dims leave out the batch
// dimension, as Triton's do.
struct TensorOverride {
  std::string name;
  std::string datatype;  // the protocol's name; empty: not given
  bool has_dims = false;
  std::vector<int64_t> dims;
};

struct ModelConfig {
  std::vector<ProviderChoice> providers;  // empty: the runtime's default (CPU)
  int intra_op_threads = 0;               // 0: the runtime's default
  int inter_op_threads = 0;
  int64_t max_batch_size = 0;  // 0: no batch dimension is assumed or limited
  // How long a request may wait for others to join its batch; -1: no dynamic
  // batching (batcher.hpp). Needs max_batch_size above 0.
  int64_t max_queue_delay_us = -1;
  // Batch sizes the batcher runs as soon as it holds that many rows, in
  // ascending order, each at most max_batch_size; empty: max_batch_size
  // alone. With rows queued beyond the largest, a batch takes the largest
  // preferred size they reach.
  std::vector<int64_t> preferred_batch_sizes;
  // How many batches of this model version may run at once (Triton's
  // instance_group counts, summed): each has its own batcher worker, all
  // on the one session, which runs concurrent calls. Without dynamic
  // batching requests already run concurrently, one per serving thread.
  int64_t instance_count = 1;
  // Requests one model version holds at once (waiting for a batch or
  // running); one more is refused as overload. 0: no limit.
  int64_t max_queue_size = 0;
  // How long a request may take from its arrival to its answer; a request
  // past it is answered with the protocol's deadline error. 0: no limit
  // (a request may still set its own through the "timeout" parameter or,
  // on gRPC, the call's deadline).
  int64_t request_timeout_us = 0;
  // Session configuration entries ("session_config": {"key": "value"}), as
  // SessionOptions::config: e.g. session.intra_op.allow_spinning. A value the
  // runtime refuses fails the model's load with the runtime's message.
  std::map<std::string, std::string> session_config;
  // Declarations checked against the model's inputs and outputs; dims they
  // fix are reported in the model's metadata and required of requests
  // (as the model's own fixed dims are).
  std::vector<TensorOverride> input_overrides, output_overrides;

  // The session options this configuration asks for.
  api::SessionOptions session_options() const;
};

// Reads `path`; throws std::runtime_error naming the file and the key that is
// wrong. A missing file gives the defaults.
ModelConfig read_model_config(const std::string& path);

}  // namespace tessera::serve
