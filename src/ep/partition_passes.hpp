// The partitioner's passes after claiming (see partitioner.cpp): split-cycles
// and the run order over nodes and fused groups. partition_graph() runs
// split-cycles itself; the runtime's plan calls schedule() for the order.
#pragma once
#include <vector>

#include "ep/partitioner.hpp"

namespace tessera::ep {

// One step of the run order: a node bound to a kernel, or a fused group.
struct PartitionStep {
  bool fused = false;
  size_t index = 0;  // fused: index into PartitionResult::groups; else a node index
};

// Cuts every fused group that would form a cycle with the rest of the graph
// (a path leaving the group and coming back) into parts that do not.
void split_cycles(const ir::Graph& graph, PartitionResult& r);

// Every node outside fused groups and every fused group, each once,
// topologically (file order where free). Throws kInvalidGraph if the fused
// groups form a cycle, which split_cycles() rules out.
std::vector<PartitionStep> schedule(const ir::Graph& graph, const PartitionResult& r);

}  // namespace tessera::ep
