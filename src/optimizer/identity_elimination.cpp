#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/graph_algorithms.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// Names read by subgraphs of any node: renaming those would need to reach into
// the bodies, so such values are left alone.
std::unordered_set<std::string> names_read_by_subgraphs(const ir::Graph& g) {
  std::unordered_set<std::string> names;
  for (const auto& n : g.nodes)
    for (const auto& a : n.attributes) {
      if (a.g)
        for (auto& r : ir::outer_scope_reads(*a.g)) names.insert(r);
      for (const auto& sub : a.graphs)
        for (auto& r : ir::outer_scope_reads(*sub)) names.insert(r);
    }
  return names;
}

// The initializer behind `value` when a caller cannot override it (it is
// not also a graph input); null otherwise.
const Tensor* fixed_initializer(const ir::Graph& g,
                                const std::unordered_set<std::string>& graph_inputs,
                                const std::string& value) {
  auto it = g.initializers.find(value);
  return it == g.initializers.end() || graph_inputs.count(value) ? nullptr : &it->second;
}

// True when `t` holds int64 zeros only (a Pad's pads).
bool all_zero_ints(const Tensor* t) {
  if (!t || t->dtype() != DataType::kInt64) return false;
  for (int64_t i = 0; i < t->num_elements(); ++i)
    if (t->data<int64_t>()[i] != 0) return false;
  return true;
}

// True when `t` is one bool false (a training_mode input as torch exports it).
bool is_false(const Tensor* t) {
  return t && t->dtype() == DataType::kBool && t->num_elements() == 1 && !t->data<bool>()[0];
}

// `read`: every value some node, subgraph or the graph's outputs read.
bool is_passthrough(const ir::Graph& g, const std::unordered_set<std::string>& graph_inputs,
                    const std::unordered_set<std::string>& read, const ir::Node& n) {
  if (!ir::is_onnx_domain(n.domain) || n.inputs.empty() || n.inputs[0].empty()) return false;
  if (n.op_type == "Identity") return n.outputs.size() == 1;
  // A Pad of nothing (torch exports one before each AveragePool of
  // DenseNet's transitions): the output is the input, whatever the mode.
  if (n.op_type == "Pad" && n.outputs.size() == 1) {
    if (n.inputs.size() >= 2) return all_zero_ints(fixed_initializer(g, graph_inputs, n.inputs[1]));
    const ir::Attribute* pads = n.attr("pads");  // opsets before 11
    return pads &&
           std::all_of(pads->ints.begin(), pads->ints.end(), [](int64_t p) { return p == 0; });
  }
  if (n.op_type == "Dropout") {
    // Only when nothing reads a mask output and training_mode is absent or
    // a constant false (torch exports Dropout with both: Swin-T's 24).
    bool mask = n.outputs.size() > 1 && !n.outputs[1].empty() && read.count(n.outputs[1]);
    bool training = n.inputs.size() > 2 && !n.inputs[2].empty() &&
                    !is_false(fixed_initializer(g, graph_inputs, n.inputs[2]));
    // Training with a constant ratio of 0 drops nothing and scales by 1
    // (Swin-T's exported attention dropouts).
    if (training && n.inputs.size() > 1 &&
        scalar_value(fixed_initializer(g, graph_inputs, n.inputs[1])) == 0.0)
      training = false;
    const ir::Attribute* is_test = n.attr("is_test");
    bool old_training = is_test && is_test->i == 0;
    return !mask && !training && !old_training;
  }
  return false;
}

}  // namespace

size_t eliminate_identities(ir::Graph& graph) {
  std::unordered_set<std::string> graph_outputs;
  for (const auto& o : graph.outputs) graph_outputs.insert(o.name);
  auto sub_reads = names_read_by_subgraphs(graph);
  std::unordered_set<std::string> graph_inputs;
  for (const auto& in : graph.inputs) graph_inputs.insert(in.name);
  std::unordered_set<std::string> read(sub_reads.begin(), sub_reads.end());
  read.insert(graph_outputs.begin(), graph_outputs.end());
  for (const auto& n : graph.nodes) read.insert(n.inputs.begin(), n.inputs.end());
  std::unordered_map<std::string, std::string> rename;
  std::vector<ir::Node> kept;
  size_t removed = 0;
  for (auto& n : graph.nodes) {
    for (auto& in : n.inputs) {
      auto it = rename.find(in);
      if (it != rename.end()) in = it->second;
    }
    if (is_passthrough(graph, graph_inputs, read, n) && !graph_outputs.count(n.outputs[0]) &&
        !sub_reads.count(n.outputs[0]) && n.inputs[0] != n.outputs[0]) {
      rename[n.outputs[0]] = n.inputs[0];
      ++removed;
      continue;
    }
    kept.push_back(std::move(n));
  }
  graph.nodes = std::move(kept);
  return removed;
}

size_t eliminate_dead_nodes(ir::Graph& graph) {
  std::unordered_set<std::string> used;
  for (const auto& o : graph.outputs) used.insert(o.name);
  size_t removed = 0;
  std::vector<bool> keep(graph.nodes.size(), false);
  // Walk backwards: a node is live when one of its outputs is used.
  for (size_t i = graph.nodes.size(); i-- > 0;) {
    const auto& n = graph.nodes[i];
    bool live = false;
    for (const auto& o : n.outputs)
      if (!o.empty() && used.count(o)) live = true;
    if (!live) {
      ++removed;
      continue;
    }
    keep[i] = true;
    for (const auto& in : n.inputs) used.insert(in);
    for (const auto& a : n.attributes) {
      if (a.g)
        for (auto& r : ir::outer_scope_reads(*a.g)) used.insert(r);
      for (const auto& sub : a.graphs)
        for (auto& r : ir::outer_scope_reads(*sub)) used.insert(r);
    }
  }
  std::vector<ir::Node> kept;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (keep[i]) kept.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(kept);
  // Initializers nobody reads any more are dropped too (not graph inputs).
  std::unordered_set<std::string> inputs;
  for (const auto& in : graph.inputs) inputs.insert(in.name);
  for (auto it = graph.initializers.begin(); it != graph.initializers.end();)
    it = (!used.count(it->first) && !inputs.count(it->first)) ? graph.initializers.erase(it)
                                                              : std::next(it);
  return removed;
}

}  // namespace tessera::optimizer
