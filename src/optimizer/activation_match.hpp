// Shared by the passes that fold an activation into a com.tessera fused op
// (activation_fusion.cpp, residual_fusion.cpp).
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.hpp"
#include "optimizer/def_use.hpp"

namespace tessera::optimizer {

// The `activation` / `activation_params` attributes standing for `act`
// (Relu, LeakyRelu, or Clip with constant bounds, e.g. Relu6; with
// `extended`, also Sigmoid, Tanh, HardSigmoid and HardSwish, which only the CPU
// provider's fused kernels run); nullopt when `act` is none of those.
std::optional<std::vector<ir::Attribute>> activation_attributes(const DefUse& v,
                                                                const ir::Node& act, int64_t opset,
                                                                bool extended = false);

// An activation applied to `y` that a fused op producing y can take over:
// y's only reader is an activation of activation_attributes, or (extended)
// y is read only by Sigmoid(y) and Mul(y, that sigmoid), the SiLU of
// EfficientNet-style models (activation Swish, alpha 1). `nodes` are the
// nodes it replaces, in graph order; the last one's outputs become the fused
// op's.
struct ActivationMatch {
  std::vector<ir::Attribute> attrs;
  std::vector<int> nodes;
};
std::optional<ActivationMatch> match_activation(const DefUse& v, const ir::Graph& g,
                                                const std::string& y, int64_t opset, bool extended);

}  // namespace tessera::optimizer
