#include "ir/graph_algorithms.hpp"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"

namespace tessera::ir {

std::vector<std::string> outer_scope_reads(const Graph& sub) {
  std::unordered_set<std::string> defined;
  for (const auto& in : sub.inputs) defined.insert(in.name);
  for (const auto& [name, t] : sub.initializers) defined.insert(name);
  for (const auto& [name, s] : sub.sparse_initializers) defined.insert(name);
  for (const auto& n : sub.nodes)
    for (const auto& o : n.outputs) defined.insert(o);
  std::vector<std::string> reads;
  std::unordered_set<std::string> seen;
  auto note = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) reads.push_back(name);
  };
  for (const auto& n : sub.nodes)
    for (const auto& r : node_reads(n)) note(r);
  for (const auto& o : sub.outputs) note(o.name);
  return reads;
}

void topological_sort(Graph& graph, const std::set<std::string>& outer_scope) {
  const size_t n = graph.nodes.size();
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < n; ++i)
    for (const auto& o : graph.nodes[i].outputs)
      if (!o.empty()) producer.emplace(o, i);
  std::vector<std::vector<size_t>> consumers(n);
  std::vector<size_t> pending(n, 0);
  for (size_t i = 0; i < n; ++i) {
    std::unordered_set<size_t> deps;
    for (const auto& r : node_reads(graph.nodes[i])) {
      auto it = producer.find(r);
      if (it != producer.end()) {
        if (deps.insert(it->second).second) {
          consumers[it->second].push_back(i);
          ++pending[i];
        }
      }
    }
  }
  (void)outer_scope;
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  std::vector<size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t c : consumers[i])
      if (--pending[c] == 0) ready.push(c);
  }
  if (order.size() != n) {
    std::string names;
    int listed = 0;
    for (size_t i = 0; i < n && listed < 8; ++i)
      if (pending[i] != 0) {
        names += str_cat(listed ? ", " : "", graph.nodes[i].describe());
        ++listed;
      }
    fail(ErrorCode::kInvalidGraph, "graph '", graph.name, "' has a cycle through: ", names);
  }
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (size_t i : order) sorted.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(sorted);
}

void validate_graph(const Model& model, Graph& graph, const std::set<std::string>& outer_scope,
                    const std::string& where) {
  std::unordered_set<std::string> defined;
  auto define = [&](const std::string& name, const std::string& what) {
    if (name.empty()) return;
    if (!defined.insert(name).second)
      fail(ErrorCode::kInvalidGraph, where, ": value '", name, "' is defined more than once (",
           what, ")");
  };
  std::unordered_set<std::string> input_names;
  for (const auto& in : graph.inputs) {
    check_code(!in.name.empty(), ErrorCode::kInvalidGraph, where, ": a graph input has no name");
    check_code(input_names.insert(in.name).second, ErrorCode::kInvalidGraph, where,
               ": graph input '", in.name, "' is listed twice");
    define(in.name, "graph input");
  }
  for (const auto& [name, t] : graph.initializers)
    if (!input_names.count(name)) define(name, "initializer");
  for (const auto& [name, s] : graph.sparse_initializers)
    if (!input_names.count(name)) define(name, "sparse initializer");
  for (const auto& node : graph.nodes)
    for (const auto& o : node.outputs) define(o, node.describe());

  topological_sort(graph, outer_scope);

  std::set<std::string> visible = outer_scope;
  for (const auto& in : graph.inputs) visible.insert(in.name);
  for (const auto& [name, t] : graph.initializers) visible.insert(name);
  for (const auto& [name, s] : graph.sparse_initializers) visible.insert(name);
  for (const auto& node : graph.nodes) {
    if (model.opset(node.domain) == 0)
      fail(ErrorCode::kInvalidGraph, where, ": ", node.describe(), " uses domain '", node.domain,
           "', which the model does not import (opset_import)");
    for (const auto& in : node.inputs)
      if (!in.empty() && !visible.count(in))
        fail(ErrorCode::kInvalidGraph, where, ": ", node.describe(), " reads '", in,
             "', which is not a graph input, initializer or output of another node");
    for (const auto& a : node.attributes) {
      std::vector<Graph*> subs;
      if (a.g) subs.push_back(a.g.get());
      for (auto& g : a.graphs) subs.push_back(g.get());
      for (Graph* g : subs)
        validate_graph(model, *g, visible, str_cat(where, " / ", node.describe(), " ", a.name));
    }
    for (const auto& o : node.outputs)
      if (!o.empty()) visible.insert(o);
  }
  for (const auto& out : graph.outputs)
    if (!visible.count(out.name))
      fail(ErrorCode::kInvalidGraph, where, ": graph output '", out.name,
           "' is not produced by any node, input or initializer");
}

void name_unnamed_nodes(Graph& graph) {
  std::unordered_set<std::string> used;
  for (const auto& n : graph.nodes)
    if (!n.name.empty()) used.insert(n.name);
  size_t index = 0;
  for (auto& n : graph.nodes) {
    if (n.name.empty()) {
      std::string candidate;
      do {
        candidate = str_cat(n.op_type, "_", index++);
      } while (used.count(candidate));
      used.insert(candidate);
      n.name = candidate;
    }
    for (auto& a : n.attributes) {
      if (a.g) name_unnamed_nodes(*a.g);
      for (auto& g : a.graphs) name_unnamed_nodes(*g);
    }
  }
}

std::vector<std::string> node_reads(const Node& node) {
  std::vector<std::string> reads;
  for (const auto& in : node.inputs)
    if (!in.empty()) reads.push_back(in);
  for (const auto& a : node.attributes) {
    if (a.g)
      for (auto& r : outer_scope_reads(*a.g)) reads.push_back(std::move(r));
    for (const auto& g : a.graphs)
      if (g)
        for (auto& r : outer_scope_reads(*g)) reads.push_back(std::move(r));
  }
  return reads;
}

}  // namespace tessera::ir
