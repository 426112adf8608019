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

// A user's placement override: pin matching nodes to a provider, or forbid a
// provider for them. Nodes match by exact name, by op type, or by a name
// pattern with * and ? wildcards.
struct PlacementRule {
  // kTransformed: by exact name, a node a provider's graph transform made
  // or kept (runtime/provider_transforms.hpp); it stays with that provider.
  enum class Match { kName, kOpType, kNamePattern, kTransformed };
  Match match = Match::kName;
  std::string value;
  std::string provider;
  bool forbid = false;  // false: only `provider` may run the node
  bool matches(const ir::Node& node) const;
  std::string describe() const;
};

struct PartitionResult {
  std::vector<int> node_provider;  // per node index: index into the provider list
  std::vector<std::vector<std::pair<std::string, std::string>>> declined;  // per node
  std::vector<NodeGroup> groups;           // claimed groups, in claim order
  std::vector<int> group_provider;         // provider index per group
  std::vector<std::string> override_rule;  // per node: the rule that constrained it, or ""
};

// Throws kNotImplemented naming every node that no provider can run, with its
// op type, opset, input types and each provider's reason.
PartitionResult partition_graph(const GraphView& view,
                                const std::vector<std::shared_ptr<ExecutionProvider>>& providers,
                                const std::vector<PlacementRule>& rules = {});

}  // namespace tessera::ep
