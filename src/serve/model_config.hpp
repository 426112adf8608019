// A model's optional DIR/<model>/config.json: the providers in priority order
// with their options, thread counts and the largest batch a request may
// carry. A model without the file is served with the defaults.
//
//   {"providers": [{"name": "CPUExecutionProvider", "options": {}}],
//    "intra_op_threads": 2, "inter_op_threads": 1, "max_batch_size": 8,
//    "dynamic_batching": {"max_queue_delay_microseconds": 2000}}
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

struct ModelConfig {
  std::vector<ProviderChoice> providers;  // empty: the runtime's default (CPU)
  int intra_op_threads = 0;               // 0: the runtime's default
  int inter_op_threads = 0;
  int64_t max_batch_size = 0;  // 0: no batch dimension is assumed or limited
  // How long a request may wait for others to join its batch; -1: no dynamic
  // batching (batcher.hpp). Needs max_batch_size above 0.
  int64_t max_queue_delay_us = -1;

  // The session options this configuration asks for.
  api::SessionOptions session_options() const;
};

// Reads `path`; throws std::runtime_error naming the file and the key that is
// wrong. A missing file gives the defaults.
ModelConfig read_model_config(const std::string& path);

}  // namespace tessera::serve
