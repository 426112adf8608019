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

// The weight types com.tessera FusedConv is made for: those every provider
// that runs it takes (the CPU provider's kernel, the fallback, computes the
// half types in float).
inline bool is_fused_conv_type(DataType t) { return t == DataType::kDouble || is_fusable_float(t); }

}  // namespace tessera::optimizer
