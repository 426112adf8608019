// The attributes RNN, GRU and LSTM share (direction, hidden_size, layout,
// clip, the activation list and its alphas and betas), read from the node
// once by one rule: every provider's kernels and claim checks parse them here
// so they agree on what a node asks for.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.hpp"
#include "ir/graph.hpp"

namespace tessera::ops::rnn {

// The activation functions the ONNX spec lists for recurrent ops.
enum class ActKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus
};

struct Activation {
  ActKind kind = ActKind::kTanh;
  float alpha = 0.f, beta = 0.f;
};

struct RnnAttrs {
  int64_t num_directions = 1;
  bool bidirectional = false;
  bool reverse = false;      // direction == "reverse" (single direction)
  int64_t hidden_size = -1;  // -1: take it from R
  int64_t layout = 0;
  bool has_clip = false;
  float clip = 0.f;
  // The op's functions for direction 0, then for direction 1 (f for RNN;
  // f, g for GRU; f, g, h for LSTM), with their alpha and beta resolved.
  std::vector<Activation> acts;
};

// Parses the node's attributes for `opset`; a bad direction, hidden_size,
// layout, clip, activation name or activation count fails with
// kInvalidArgument naming the node. Activations default to the schema's (one
// direction's list); a one-direction list on a bidirectional node serves
// both directions; activation_alpha and activation_beta are taken in order by
// the functions that use them, each function's own default otherwise.
RnnAttrs parse_rnn_attrs(const ir::Node& node, int64_t opset);

// The sizes a run of a recurrent node works with.
struct RnnDims {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
};

// Checks a run's inputs against each other and the attributes: X, W and R
// (required), B, sequence_lens and initial_h, and for LSTM (gates == 4)
// initial_c and P. `inputs` holds the node's inputs by position, null where
// omitted (it may be shorter than the op's input list). Fails with
// kInvalidArgument naming the node and the input; every provider's kernels
// call it, so they refuse the same runs with the same words.
RnnDims check_rnn_inputs(const ir::Node& node, const RnnAttrs& a, int64_t gates,
                         const std::vector<const Tensor*>& inputs);

}  // namespace tessera::ops::rnn
