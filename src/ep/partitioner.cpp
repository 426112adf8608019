#include "ep/partitioner.hpp"

#include "core/logging.hpp"

namespace tessera::ep {

namespace {

std::string describe_inputs(const GraphView& view, const ir::Node& node) {
  std::string s;
  auto types = view.input_types(node);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (i) s += ", ";
    if (node.inputs[i].empty()) {
      s += "<omitted>";
      continue;
    }
    const ir::TypeInfo* t = view.type_of(node.inputs[i]);
    s += str_cat("'", node.inputs[i], "': ", t ? t->to_string() : std::string("unknown"));
  }
  return s;
}

}  // namespace

PartitionResult partition_graph(const GraphView& base,
                                const std::vector<std::shared_ptr<ExecutionProvider>>& providers) {
  const size_t n = base.graph->nodes.size();
  PartitionResult r;
  r.node_provider.assign(n, -1);
  r.declined.assign(n, {});
  for (size_t p = 0; p < providers.size(); ++p) {
    GraphView view = base;
    view.candidates.clear();
    for (size_t i = 0; i < n; ++i)
      if (r.node_provider[i] < 0) view.candidates.push_back(i);
    if (view.candidates.empty()) break;
    Capability cap = providers[p]->get_capability(view);
    for (auto& group : cap.groups) {
      NodeGroup kept;
      kept.fused = group.fused;
      for (size_t idx : group.nodes)
        if (idx < n && r.node_provider[idx] < 0) {
          r.node_provider[idx] = int(p);
          kept.nodes.push_back(idx);
        }
      if (!kept.nodes.empty()) {
        r.groups.push_back(std::move(kept));
        r.group_provider.push_back(int(p));
      }
    }
    for (const auto& d : cap.declined)
      if (d.node < n) {
        r.declined[d.node].emplace_back(providers[p]->name(), d.reason);
        log(Severity::kVerbose, "partition", providers[p]->name(), " declined ",
            base.graph->nodes[d.node].describe(), ": ", d.reason);
      }
  }
  std::string missing;
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (r.node_provider[i] >= 0) continue;
    const ir::Node& node = base.graph->nodes[i];
    ++count;
    missing += str_cat("\n  ", node.describe(), " (opset ", base.opset(node), ", inputs ",
                       describe_inputs(base, node), ")");
    for (const auto& [prov, reason] : r.declined[i]) missing += str_cat(": ", prov, ": ", reason);
  }
  if (count)
    fail(ErrorCode::kNotImplemented, count, " node(s) cannot be run by any chosen provider",
         providers.empty() ? " (no providers)" : "", ":", missing);
  return r;
}

}  // namespace tessera::ep
