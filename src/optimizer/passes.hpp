// The individual graph passes. Each returns how many nodes it changed.
#pragma once
#include "ir/graph.hpp"

namespace tessera::optimizer {

// Removes Identity nodes (and inference-mode Dropout without a mask output)
// whose output is not a graph output, rewiring their consumers to the input.
size_t eliminate_identities(ir::Graph& graph);
// Removes nodes none of whose outputs is used by another node, a subgraph or
// the graph outputs.
size_t eliminate_dead_nodes(ir::Graph& graph);

}  // namespace tessera::optimizer
