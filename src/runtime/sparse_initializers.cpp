#include "runtime/sparse_initializers.hpp"

#include <unordered_set>

#include "core/error.hpp"
#include "ir/graph_algorithms.hpp"
#include "ops/sparse_inputs.hpp"

namespace tessera::runtime {

namespace {

// Names some reader of `graph` needs dense: inputs that take no sparse
// tensor, values its nodes' subgraphs read, the graph's inputs and outputs.
std::unordered_set<std::string> read_dense(const ir::Graph& graph) {
  std::unordered_set<std::string> dense;
  for (const auto& v : graph.inputs) dense.insert(v.name);
  for (const auto& v : graph.outputs) dense.insert(v.name);
  for (const auto& node : graph.nodes) {
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (!node.inputs[i].empty() && !ops::input_takes_sparse(node, i))
        dense.insert(node.inputs[i]);
    for (const auto& a : node.attributes) {
      if (a.g)
        for (auto& r : ir::outer_scope_reads(*a.g)) dense.insert(std::move(r));
      for (const auto& g : a.graphs)
        if (g)
          for (auto& r : ir::outer_scope_reads(*g)) dense.insert(std::move(r));
    }
  }
  return dense;
}

}  // namespace

void densify_sparse_initializers(ir::Graph& graph, const std::string& where) {
  for (auto& node : graph.nodes)
    for (auto& a : node.attributes) {
      if (a.g) densify_sparse_initializers(*a.g, where);
      for (auto& g : a.graphs)
        if (g) densify_sparse_initializers(*g, where);
    }
  if (graph.sparse_initializers.empty()) return;
  const std::unordered_set<std::string> dense = read_dense(graph);
  for (auto it = graph.sparse_initializers.begin(); it != graph.sparse_initializers.end();) {
    if (!dense.count(it->first)) {
      ++it;
      continue;
    }
    graph.initializers.emplace(
        it->first, it->second.to_dense(str_cat(where, ": sparse initializer '", it->first, "'")));
    it = graph.sparse_initializers.erase(it);
  }
}

}  // namespace tessera::runtime
