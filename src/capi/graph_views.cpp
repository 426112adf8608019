// The handles a graph hands out, and the name lookups the introspection
// entries share.
#include "capi/graph_views.hpp"

#include <set>

const tessera::ir::Node& OrtNode::node() const { return graph ? graph->graph->nodes[index] : own; }

namespace tessera::capi {

const OrtGraph& graph_of(const OrtGraph* g) {
  need(g, "graph");
  return *g;
}

const OrtNode& node_of(const OrtNode* n) {
  need(n, "node");
  return *n;
}

const OrtValueInfo& value_info_of(const OrtValueInfo* v) {
  need(v, "value_info");
  return *v;
}

namespace {

// Makes the node handles still missing; `g.mu` is held.
void make_nodes(const OrtGraph& g) {
  for (size_t i = g.nodes.size(); i < g.graph->nodes.size(); ++i) {
    auto n = std::make_unique<OrtNode>();
    n->graph = &g;
    n->index = i;
    g.nodes.push_back(std::move(n));
  }
}

ir::TypeInfo type_in(const OrtGraph& g, const std::string& name) {
  const ir::Graph& ir = *g.graph;
  if (const ir::ValueInfo* v = ir.find_value_info(name)) return v->type;
  auto it = ir.initializers.find(name);
  if (it != ir.initializers.end()) {
    std::vector<ir::Dim> dims;
    for (int64_t d : it->second.shape().dims()) dims.push_back(ir::Dim{d, ""});
    return ir::TypeInfo::tensor(it->second.dtype(), std::move(dims));
  }
  if (!defines(ir, name) && g.outer != nullptr) return type_in(*g.outer, name);
  return {};
}

void collect_outer(const ir::Graph& g, std::set<std::string>& seen, std::vector<std::string>& out) {
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defines(g, name) && seen.insert(name).second) out.push_back(name);
  };
  for (const ir::Node& n : g.nodes) {
    for (const auto& in : n.inputs) use(in);
    for (const auto& name : implicit_inputs(n)) use(name);
  }
}

}  // namespace

const std::vector<std::unique_ptr<OrtNode>>& graph_nodes(const OrtGraph& g) {
  std::lock_guard<std::mutex> lock(g.mu);
  make_nodes(g);
  return g.nodes;
}

const OrtValueInfo* graph_value(const OrtGraph& g, const std::string& name) {
  std::lock_guard<std::mutex> lock(g.mu);
  auto& slot = g.values[name];
  if (!slot) {
    slot = std::make_unique<OrtValueInfo>();
    slot->name = name;
    slot->graph = &g;
  }
  // The type can change while an editor graph grows (an input declared after
  // a node read it), so it is looked up again, before any OrtTypeInfo exists.
  if (!slot->type_info) slot->type = type_in(g, name);
  return slot.get();
}

const OrtModel* model_of(const OrtGraph& g) {
  for (const OrtGraph* p = &g; p != nullptr; p = p->outer ? p->outer : p->view_of)
    if (p->model != nullptr) return p->model;
  return nullptr;
}

bool defines(const ir::Graph& g, const std::string& name) {
  if (g.find_input(name) != nullptr || g.initializers.count(name) != 0) return true;
  for (const ir::Node& n : g.nodes)
    for (const auto& out : n.outputs)
      if (out == name) return true;
  return false;
}

std::vector<std::string> outer_names(const ir::Graph& g) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  collect_outer(g, seen, out);
  return out;
}

std::vector<std::string> implicit_inputs(const ir::Node& n) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const ir::Attribute& a : n.attributes) {
    if (a.type == ir::AttrType::kGraph && a.g) collect_outer(*a.g, seen, out);
    if (a.type == ir::AttrType::kGraphs)
      for (const auto& sub : a.graphs)
        if (sub) collect_outer(*sub, seen, out);
  }
  return out;
}

}  // namespace tessera::capi
