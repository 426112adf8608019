#include "ep/node_groups.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "ir/graph_algorithms.hpp"

namespace tessera::ep {

namespace {

size_t find_root(std::vector<size_t>& parent, size_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

std::vector<std::vector<size_t>> node_predecessors(const ir::Graph& graph) {
  const size_t n = graph.nodes.size();
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < n; ++i)
    for (const auto& o : graph.nodes[i].outputs)
      if (!o.empty()) producer.emplace(o, i);
  std::vector<std::vector<size_t>> preds(n);
  for (size_t i = 0; i < n; ++i) {
    for (const auto& r : ir::node_reads(graph.nodes[i])) {
      auto it = producer.find(r);
      if (it != producer.end() && it->second != i) preds[i].push_back(it->second);
    }
    std::sort(preds[i].begin(), preds[i].end());
    preds[i].erase(std::unique(preds[i].begin(), preds[i].end()), preds[i].end());
  }
  return preds;
}

std::vector<NodeGroup> group_supported_nodes(const GraphView& view,
                                             const std::function<bool(size_t)>& supported) {
  const size_t n = view.graph->nodes.size();
  std::vector<char> in(n, 0);
  for (size_t idx : view.candidates)
    if (idx < n && supported(idx)) in[idx] = 1;
  std::vector<size_t> parent(n);
  std::iota(parent.begin(), parent.end(), size_t(0));
  auto preds = node_predecessors(*view.graph);
  for (size_t i = 0; i < n; ++i) {
    if (!in[i]) continue;
    for (size_t p : preds[i])
      if (in[p]) parent[find_root(parent, i)] = find_root(parent, p);
  }
  // One group per connected component, in the order of each one's first node.
  std::unordered_map<size_t, size_t> group_of_root;
  std::vector<NodeGroup> groups;
  for (size_t i = 0; i < n; ++i) {
    if (!in[i]) continue;
    size_t root = find_root(parent, i);
    auto [it, added] = group_of_root.emplace(root, groups.size());
    if (added) groups.push_back({{}, true});
    groups[it->second].nodes.push_back(i);
  }
  return groups;
}

GroupBoundary group_boundary(const ir::Graph& graph, const std::vector<size_t>& nodes) {
  std::unordered_set<size_t> member(nodes.begin(), nodes.end());
  std::unordered_set<std::string> produced_inside;
  for (size_t i : nodes)
    for (const auto& o : graph.nodes[i].outputs)
      if (!o.empty()) produced_inside.insert(o);
  GroupBoundary b;
  std::unordered_set<std::string> seen_in;
  std::vector<size_t> sorted(nodes.begin(), nodes.end());
  std::sort(sorted.begin(), sorted.end());
  for (size_t i : sorted)
    for (const auto& r : ir::node_reads(graph.nodes[i]))
      if (!produced_inside.count(r) && seen_in.insert(r).second) b.inputs.push_back(r);
  // Values read outside the group, then the graph's outputs.
  std::unordered_set<std::string> read_outside;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (!member.count(i))
      for (auto& r : ir::node_reads(graph.nodes[i])) read_outside.insert(std::move(r));
  for (const auto& o : graph.outputs) read_outside.insert(o.name);
  for (size_t i : sorted)
    for (const auto& o : graph.nodes[i].outputs)
      if (!o.empty() && read_outside.count(o)) b.outputs.push_back(o);
  return b;
}

}  // namespace tessera::ep
