#include "ep/partitioner.hpp"

#include <algorithm>

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

bool glob_match(const char* pat, const char* s) {
  if (*pat == '\0') return *s == '\0';
  if (*pat == '*') return glob_match(pat + 1, s) || (*s && glob_match(pat, s + 1));
  if (*s && (*pat == '?' || *pat == *s)) return glob_match(pat + 1, s + 1);
  return false;
}

}  // namespace

bool PlacementRule::matches(const ir::Node& node) const {
  switch (match) {
    case Match::kName: return node.name == value;
    case Match::kOpType: return node.op_type == value;
    case Match::kNamePattern: return glob_match(value.c_str(), node.name.c_str());
  }
  return false;
}

std::string PlacementRule::describe() const {
  const char* kind = match == Match::kName ? "name" : match == Match::kOpType ? "op type" : "name pattern";
  return str_cat(forbid ? "forbid " : "pin to ", provider, " (", kind, " '", value, "')");
}

PartitionResult partition_graph(const GraphView& base,
                                const std::vector<std::shared_ptr<ExecutionProvider>>& providers,
                                const std::vector<PlacementRule>& rules) {
  const size_t n = base.graph->nodes.size();
  PartitionResult r;
  r.node_provider.assign(n, -1);
  r.declined.assign(n, {});
  r.override_rule.assign(n, "");
  // Per node: the provider it is pinned to (or ""), and providers forbidden for it.
  std::vector<std::string> pinned(n);
  std::vector<std::vector<std::string>> forbidden(n);
  for (size_t i = 0; i < n; ++i)
    for (const auto& rule : rules) {
      if (!rule.matches(base.graph->nodes[i])) continue;
      if (rule.forbid) {
        forbidden[i].push_back(rule.provider);
      } else {
        pinned[i] = rule.provider;
      }
      r.override_rule[i] += str_cat(r.override_rule[i].empty() ? "" : "; ", rule.describe());
    }
  for (size_t p = 0; p < providers.size(); ++p) {
    GraphView view = base;
    view.candidates.clear();
    const std::string& pname = providers[p]->name();
    for (size_t i = 0; i < n; ++i) {
      if (r.node_provider[i] >= 0) continue;
      bool excluded = (!pinned[i].empty() && pinned[i] != pname) ||
                      std::find(forbidden[i].begin(), forbidden[i].end(), pname) != forbidden[i].end();
      if (excluded)
        r.declined[i].emplace_back(pname, str_cat("excluded by placement override: ", r.override_rule[i]));
      else
        view.candidates.push_back(i);
    }
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
