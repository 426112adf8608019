// Assigns every node of one graph to a provider. Providers are asked in
// priority order; each claims groups among the nodes no earlier provider took.
// The last provider in the list is normally the CPU provider (the fallback).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ep/execution_provider.hpp"

namespace tessera::ep {

struct PartitionResult {
  std::vector<int> node_provider;  // per node index: index into the provider list
  std::vector<std::vector<std::pair<std::string, std::string>>> declined;  // per node
  std::vector<NodeGroup> groups;     // claimed groups, in claim order
  std::vector<int> group_provider;   // provider index per group
};

// Throws kNotImplemented naming every node that no provider can run, with its
// op type, opset, input types and each provider's reason.
PartitionResult partition_graph(const GraphView& view,
                                const std::vector<std::shared_ptr<ExecutionProvider>>& providers);

}  // namespace tessera::ep
