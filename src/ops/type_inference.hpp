// Static type inference: the element type (and kind: tensor, sequence,
// optional, map) of every node output, from the input types and attributes,
// as the op's schema entry (schema.hpp) states it: its type rule where it has
// one, otherwise the type variables (TypeParam) its outputs belong to. Shapes
// are resolved at run time by the kernels.
#pragma once
#include <vector>

#include "ir/graph.hpp"

namespace tessera::ops {

// Output types of one node. An entry of kind kUnknown means "not inferable
// here" (an op without a schema entry, a type no input settles); the caller
// then falls back to the type the model declares.
std::vector<ir::TypeInfo> infer_output_types(const ir::Node& node, int64_t opset,
                                             const std::vector<ir::TypeInfo>& inputs);

}  // namespace tessera::ops
