// Helpers over a graph's data dependencies for providers and the partitioner:
// who feeds whom, maximal connected groups from an is_supported(node)
// predicate (for compiling providers), and the boundary of a fused group.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ep/execution_provider.hpp"

namespace tessera::ep {

// preds[i]: indices of the nodes whose outputs node i reads, directly or
// through a subgraph's outer-scope reads (If/Loop/Scan bodies). Deduplicated.
std::vector<std::vector<size_t>> node_predecessors(const ir::Graph& graph);

// Groups the candidates for which `supported` is true into maximal groups
// connected by data edges (fused = true). Groups may still be non-convex (a
// path leaves and re-enters them); the partitioner's split-cycles pass cuts
// such a group into parts that can each run as one step.
std::vector<NodeGroup> group_supported_nodes(const GraphView& view,
                                             const std::function<bool(size_t)>& supported);

// The values that cross a fused group's boundary, in first-use order:
// `inputs` are read by the group but produced outside it (graph inputs,
// initializers, other nodes, enclosing scopes); `outputs` are produced inside
// and read outside (by other nodes, subgraphs, or as graph outputs).
struct GroupBoundary {
  std::vector<std::string> inputs, outputs;
};
GroupBoundary group_boundary(const ir::Graph& graph, const std::vector<size_t>& nodes);

}  // namespace tessera::ep
