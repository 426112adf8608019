// Shared by the passes that fold an activation into a com.tessera fused op
// (activation_fusion.cpp, residual_fusion.cpp).
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.hpp"
#include "optimizer/graph_view.hpp"

namespace tessera::optimizer {

// The `activation` / `activation_params` attributes standing for `act`
// (Relu, LeakyRelu, or Clip with constant bounds, e.g. Relu6); nullopt when
// `act` is none of those.
std::optional<std::vector<ir::Attribute>> activation_attributes(const GraphView& v,
                                                                const ir::Node& act, int64_t opset);

}  // namespace tessera::optimizer
