#include "runtime/provider_transforms.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "ir/graph_algorithms.hpp"

namespace tessera::runtime {

namespace {

using NameSet = std::unordered_set<std::string>;

std::vector<char> membership(size_t n, const std::vector<size_t>& nodes) {
  std::vector<char> in(n, 0);
  for (size_t i : nodes) {
    check(i < n, "provider transform: node index ", i, " is outside the graph of ", n, " nodes");
    in[i] = 1;
  }
  return in;
}

// A ValueInfo for `name`: the graph's declaration, else the inferred type.
ir::ValueInfo info_for(const ir::Graph& g, const std::string& name, const ops::ValueTypes* types) {
  if (const ir::ValueInfo* v = g.find_value_info(name)) return *v;
  ir::ValueInfo v;
  v.name = name;
  if (types) {
    auto it = types->find(name);
    if (it != types->end()) v.type = it->second;
  }
  return v;
}

// Names used outside the part: by other nodes, the graph's own inputs,
// outputs and the initializers the part does not hold.
NameSet names_outside(const ir::Graph& g, const std::vector<char>& in_part, const ir::Graph& part) {
  NameSet out;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (in_part[i]) continue;
    for (const auto& o : g.nodes[i].outputs) out.insert(o);
    for (auto& r : ir::node_reads(g.nodes[i])) out.insert(std::move(r));
  }
  for (const auto& v : g.inputs) out.insert(v.name);
  for (const auto& v : g.outputs) out.insert(v.name);
  for (const auto& [name, t] : g.initializers)
    if (!part.initializers.count(name)) out.insert(name);
  return out;
}

void rename_in_part(ir::Graph& part, const std::unordered_map<std::string, std::string>& to) {
  auto fix = [&](std::string& s) {
    auto it = to.find(s);
    if (it != to.end()) s = it->second;
  };
  for (auto& n : part.nodes) {
    for (auto& s : n.inputs) fix(s);
    for (auto& s : n.outputs) fix(s);
  }
  for (auto& v : part.value_info) fix(v.name);
  std::map<std::string, Tensor> inits;
  for (auto& [name, t] : part.initializers) {
    auto it = to.find(name);
    inits.emplace(it == to.end() ? name : it->second, std::move(t));
  }
  part.initializers = std::move(inits);
}

// Gives the names the transform made that clash with names outside the part
// a fresh suffix (a fusion's fresh_name only sees the part).
void rename_clashes(ir::Graph& part, const NameSet& before, const NameSet& outside) {
  NameSet taken = outside;
  std::vector<std::string> made;
  for (const auto& n : part.nodes)
    for (const auto& o : n.outputs) {
      if (!o.empty()) taken.insert(o);
      if (!o.empty() && !before.count(o)) made.push_back(o);
    }
  for (const auto& [name, t] : part.initializers) {
    taken.insert(name);
    if (!before.count(name)) made.push_back(name);
  }
  std::unordered_map<std::string, std::string> to;
  for (const auto& name : made) {
    if (!outside.count(name) || to.count(name)) continue;
    std::string fresh;
    for (int k = 1;; ++k) {
      fresh = str_cat(name, "_part", k);
      if (!taken.count(fresh)) break;
    }
    taken.insert(fresh);
    to.emplace(name, fresh);
  }
  if (!to.empty()) rename_in_part(part, to);
}

// Drops initializers that no node, subgraph or graph output reads (and that
// are not graph inputs: those the caller may feed).
void drop_unread_initializers(ir::Graph& g) {
  NameSet read;
  for (const auto& n : g.nodes)
    for (auto& r : ir::node_reads(n)) read.insert(std::move(r));
  for (const auto& v : g.outputs) read.insert(v.name);
  for (const auto& v : g.inputs) read.insert(v.name);
  std::erase_if(g.initializers, [&](const auto& kv) { return !read.count(kv.first); });
}

}  // namespace

ir::Model extract_part(const ir::Model& model, const std::vector<size_t>& nodes,
                       const ops::ValueTypes* types) {
  const ir::Graph& g = model.graph;
  const std::vector<char> in_part = membership(g.nodes.size(), nodes);
  ir::Model part;
  part.ir_version = model.ir_version;
  part.opset_imports = model.opset_imports;
  part.functions = model.functions;
  part.path = model.path;
  ir::Graph& pg = part.graph;
  pg.name = g.name;

  NameSet made, listed;
  for (size_t i : nodes)
    for (const auto& o : g.nodes[i].outputs)
      if (!o.empty()) made.insert(o);
  NameSet graph_inputs;
  for (const auto& v : g.inputs) graph_inputs.insert(v.name);
  for (size_t i : nodes) {
    pg.nodes.push_back(g.nodes[i]);
    for (const auto& r : ir::node_reads(g.nodes[i])) {
      if (made.count(r) || !listed.insert(r).second) continue;
      auto init = g.initializers.find(r);
      if (init != g.initializers.end()) pg.initializers.emplace(r, init->second);
      if (init == g.initializers.end() || graph_inputs.count(r))
        pg.inputs.push_back(info_for(g, r, types));
    }
  }
  // Outputs: read outside the part or by the caller.
  NameSet wanted;
  for (const auto& v : g.outputs) wanted.insert(v.name);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!in_part[i])
      for (auto& r : ir::node_reads(g.nodes[i])) wanted.insert(std::move(r));
  for (size_t i : nodes)
    for (const auto& o : g.nodes[i].outputs)
      if (!o.empty() && wanted.count(o)) pg.outputs.push_back(info_for(g, o, types));
  for (const auto& v : g.value_info)
    if (made.count(v.name)) pg.value_info.push_back(v);
  return part;
}

std::vector<std::string> splice_part(ir::Model& model, const std::vector<size_t>& nodes,
                                     ir::Model part) {
  ir::Graph& g = model.graph;
  const std::vector<char> in_part = membership(g.nodes.size(), nodes);
  NameSet before;
  for (size_t i : nodes)
    for (const auto& o : g.nodes[i].outputs) before.insert(o);
  for (size_t i : nodes)
    for (auto& r : ir::node_reads(g.nodes[i])) before.insert(std::move(r));
  rename_clashes(part.graph, before, names_outside(g, in_part, part.graph));

  // Node names unique in the graph: the plan pins the part's nodes by name.
  NameSet node_names;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!in_part[i]) node_names.insert(g.nodes[i].name);
  std::vector<std::string> names;
  for (auto& n : part.graph.nodes) {
    std::string base = n.name.empty() ? n.op_type : n.name;
    std::string name = base;
    for (int k = 1; node_names.count(name); ++k) name = str_cat(base, "_", k);
    node_names.insert(name);
    n.name = name;
    names.push_back(name);
  }

  std::vector<ir::Node> merged;
  merged.reserve(g.nodes.size() - nodes.size() + part.graph.nodes.size());
  bool placed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!in_part[i]) {
      merged.push_back(std::move(g.nodes[i]));
      continue;
    }
    if (placed) continue;
    placed = true;
    for (auto& n : part.graph.nodes) merged.push_back(std::move(n));
  }
  g.nodes = std::move(merged);
  for (auto& [name, t] : part.graph.initializers) g.initializers[name] = std::move(t);
  NameSet declared;
  for (const auto& v : g.value_info) declared.insert(v.name);
  for (auto& v : part.graph.value_info)
    if (!declared.count(v.name)) g.value_info.push_back(std::move(v));
  for (const auto& imp : part.opset_imports)
    if (model.opset(imp.domain) == 0) model.opset_imports.push_back(imp);
  drop_unread_initializers(g);
  ir::topological_sort(g);
  return names;
}

namespace {

ep::PartitionResult partition(const ir::Model& model, const Providers& providers,
                              const std::vector<ep::PlacementRule>& rules, ops::ValueTypes& types,
                              const std::map<std::string, std::string>* config) {
  types.clear();
  ops::infer_graph_types(model, model.graph, types);
  ep::GraphView view;
  view.model = &model;
  view.graph = &model.graph;
  view.value_types = &types;
  view.config = config;
  return ep::partition_graph(view, providers, rules);
}

// What identifies a node across a transform: a node with the same
// signature after it is one the transform left as it was.
std::string signature(const ir::Node& n) {
  std::string s = str_cat(n.name, '\n', n.domain, '\n', n.op_type);
  for (const auto& v : n.inputs) s += str_cat("\ni ", v);
  for (const auto& v : n.outputs) s += str_cat("\no ", v);
  for (const auto& a : n.attributes) {
    s += str_cat("\na ", a.name, ' ', a.i, ' ', a.f, ' ', a.s);
    for (int64_t v : a.ints) s += str_cat(' ', v);
  }
  return s;
}

NameSet signatures(const ir::Graph& g, const std::vector<size_t>& nodes) {
  NameSet out;
  for (size_t i : nodes) out.insert(signature(g.nodes[i]));
  return out;
}

// Pins the nodes a transform made or changed to its provider. Those it left
// as they were are partitioned again like any other, so the report keeps
// every provider's own reason for declining them.
void pin(std::vector<ep::PlacementRule>& rules, const ir::Graph& g,
         const std::vector<std::string>& names, const NameSet& unchanged,
         const std::string& provider) {
  const NameSet wanted(names.begin(), names.end());
  for (const auto& n : g.nodes) {
    if (!wanted.count(n.name) || unchanged.count(signature(n))) continue;
    ep::PlacementRule r;
    r.match = ep::PlacementRule::Match::kTransformed;
    r.value = n.name;
    r.provider = provider;
    rules.push_back(std::move(r));
  }
}

}  // namespace

std::vector<ep::PlacementRule> apply_provider_transforms(
    ir::Model& model, const Providers& providers, const std::vector<ep::PlacementRule>& rules,
    const ep::TransformOptions& options, std::vector<PhaseTiming>* timings) {
  std::vector<ep::PlacementRule> pins;
  bool any = false;
  for (const auto& p : providers)
    any |= dynamic_cast<const ep::GraphTransformer*>(p.get()) != nullptr;
  if (!any || model.graph.nodes.empty()) return pins;
  PhaseTimer timer(timings);
  // Named first, so a node the transform leaves keeps its name.
  ir::name_unnamed_nodes(model.graph);
  std::vector<ep::PlacementRule> all = rules;
  ep::PartitionResult assigned;
  ops::ValueTypes types;
  try {
    assigned = timer.time("provider transforms: partition",
                          [&] { return partition(model, providers, all, types, options.config); });
  } catch (const Error&) {
    // Some node has no provider: the plan's partition says which, with its
    // context; transforming around it would only hide the error.
    return pins;
  }
  for (size_t p = 0; p < providers.size(); ++p) {
    const auto* transformer = dynamic_cast<const ep::GraphTransformer*>(providers[p].get());
    if (!transformer) continue;
    std::vector<size_t> nodes;
    for (size_t i = 0; i < assigned.node_provider.size(); ++i)
      if (assigned.node_provider[i] == int(p)) nodes.push_back(i);
    if (nodes.empty()) continue;
    const std::string& name = providers[p]->name();
    const NameSet before = signatures(model.graph, nodes);
    if (nodes.size() == model.graph.nodes.size()) {
      // The whole graph: transformed in place, nothing to cut or splice.
      transformer->transform(model, options, timings);
      ir::name_unnamed_nodes(model.graph);  // the nodes it made
      std::vector<std::string> names;
      for (const auto& n : model.graph.nodes) names.push_back(n.name);
      pin(pins, model.graph, names, before, name);
      return pins;
    }
    ir::Model part = extract_part(model, nodes, &types);
    transformer->transform(part, options, timings);
    auto names = timer.time("provider transforms: splice",
                            [&] { return splice_part(model, nodes, std::move(part)); });
    pin(pins, model.graph, names, before, name);
    if (p + 1 == providers.size()) break;
    // Node indices moved: later providers' parts come from a new partition,
    // in which the nodes just transformed keep their provider.
    all = rules;
    all.insert(all.end(), pins.begin(), pins.end());
    try {
      assigned = timer.time("provider transforms: partition", [&] {
        return partition(model, providers, all, types, options.config);
      });
    } catch (const Error&) {
      return pins;  // as above: the plan's partition names the node, with context
    }
  }
  return pins;
}

}  // namespace tessera::runtime
