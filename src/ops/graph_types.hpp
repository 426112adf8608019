// The static type of every value of one graph: from outer-scope values,
// initializers (sparse ones typed sparse_tensor), declared inputs, then node by node through type
// inference (falling back to what the model declares where inference cannot tell).
#pragma once
#include <string>
#include <unordered_map>

#include "ir/graph.hpp"

namespace tessera::ops {

using ValueTypes = std::unordered_map<std::string, ir::TypeInfo>;

// Adds the types of `graph`'s values to `types` (which may hold outer values).
void infer_graph_types(const ir::Model& model, const ir::Graph& graph, ValueTypes& types);

}  // namespace tessera::ops
