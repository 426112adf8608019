// Partitioning as named passes, in order: claim in priority order -> split
// cycles -> check that every node is assigned; then schedule() gives the run
// order (partition_passes.hpp). Initializer placement and copy insertion
// follow in the runtime's plan (runtime/graph_plan.cpp), which knows each
// provider's memory. Every decision is logged at verbose level.
#include "ep/partitioner.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

#include "core/logging.hpp"
#include "ep/node_groups.hpp"
#include "ep/partition_passes.hpp"

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

// One partition decision, for the verbose log (declines also reach the
// partition report through PartitionResult::declined).
void note(const std::string& line) { log(Severity::kVerbose, "partition", line); }

bool glob_match(const char* pat, const char* s) {
  if (*pat == '\0') return *s == '\0';
  if (*pat == '*') return glob_match(pat + 1, s) || (*s && glob_match(pat, s + 1));
  if (*s && (*pat == '?' || *pat == *s)) return glob_match(pat + 1, s + 1);
  return false;
}

}  // namespace

bool PlacementRule::matches(const ir::Node& node) const {
  switch (match) {
    case Match::kName:
    case Match::kTransformed:
      return node.name == value;
    case Match::kOpType:
      return node.op_type == value;
    case Match::kNamePattern:
      return glob_match(value.c_str(), node.name.c_str());
  }
  return false;
}

std::string PlacementRule::describe() const {
  if (match == Match::kTransformed) return str_cat("made by ", provider, "'s graph transform");
  const char* kind = match == Match::kName     ? "name"
                     : match == Match::kOpType ? "op type"
                                               : "name pattern";
  return str_cat(forbid ? "forbid " : "pin to ", provider, " (", kind, " '", value, "')");
}

namespace {

// Pass 1: each provider, in priority order, claims among the nodes no earlier
// provider took and that no placement override keeps from it.
void claim_in_priority_order(const GraphView& base,
                             const std::vector<std::shared_ptr<ExecutionProvider>>& providers,
                             const std::vector<PlacementRule>& rules, PartitionResult& r) {
  const size_t n = base.graph->nodes.size();
  // Per node: the provider it is pinned to (or ""), and providers forbidden for it.
  std::vector<std::string> pinned(n);
  std::vector<std::vector<std::string>> forbidden(n);
  // A transform pins every node of its part: found by name, not by trying
  // each of them on each node.
  std::unordered_map<std::string, const PlacementRule*> transformed;
  std::vector<const PlacementRule*> user;
  for (const auto& rule : rules) {
    if (rule.match == PlacementRule::Match::kTransformed)
      transformed[rule.value] = &rule;
    else
      user.push_back(&rule);
  }
  std::vector<char> transformed_pin(n, 0);
  for (size_t i = 0; i < n; ++i) {
    auto t = transformed.find(base.graph->nodes[i].name);
    if (t != transformed.end()) {
      transformed_pin[i] = 1;
      pinned[i] = t->second->provider;
      r.override_rule[i] = t->second->describe();
    }
    for (const PlacementRule* rp : user) {
      const PlacementRule& rule = *rp;
      if (!rule.matches(base.graph->nodes[i])) continue;
      if (rule.forbid) {
        forbidden[i].push_back(rule.provider);
      } else {
        pinned[i] = rule.provider;
      }
      r.override_rule[i] += str_cat(r.override_rule[i].empty() ? "" : "; ", rule.describe());
    }
  }
  for (size_t p = 0; p < providers.size(); ++p) {
    GraphView view = base;
    view.candidates.clear();
    const std::string& pname = providers[p]->name();
    for (size_t i = 0; i < n; ++i) {
      if (r.node_provider[i] >= 0) continue;
      bool excluded =
          (!pinned[i].empty() && pinned[i] != pname) ||
          std::find(forbidden[i].begin(), forbidden[i].end(), pname) != forbidden[i].end();
      if (excluded)
        r.declined[i].emplace_back(
            pname, transformed_pin[i]
                       ? r.override_rule[i]
                       : str_cat("excluded by placement override: ", r.override_rule[i]));
      else
        view.candidates.push_back(i);
    }
    // None left for this provider (all taken, or kept from it by
    // overrides): later providers may still have theirs.
    if (view.candidates.empty()) continue;
    std::vector<char> candidate(n, 0);
    for (size_t i : view.candidates) candidate[i] = 1;
    Capability cap = providers[p]->get_capability(view);
    for (auto& group : cap.groups) {
      NodeGroup kept;
      kept.fused = group.fused;
      std::string names;
      for (size_t idx : group.nodes)
        if (idx < n && candidate[idx] && r.node_provider[idx] < 0) {
          r.node_provider[idx] = int(p);
          kept.nodes.push_back(idx);
          names += str_cat(names.empty() ? "" : ", ", base.graph->nodes[idx].describe());
        }
      if (kept.nodes.empty()) continue;
      std::sort(kept.nodes.begin(), kept.nodes.end());
      note(str_cat(pname, " claims ", kept.fused ? "fused group " : "", "#", r.groups.size(), ": ",
                   names));
      r.groups.push_back(std::move(kept));
      r.group_provider.push_back(int(p));
    }
    for (const auto& d : cap.declined)
      if (d.node < n) {
        r.declined[d.node].emplace_back(pname, d.reason);
        note(str_cat(pname, " declined ", base.graph->nodes[d.node].describe(), ": ", d.reason));
      }
  }
}

// Units: a fused group is one unit, every other node its own. unit_of[node].
struct Units {
  std::vector<size_t> unit_of;
  size_t count = 0;
};

Units make_units(size_t n, const PartitionResult& r, size_t upto_group) {
  Units u;
  u.unit_of.assign(n, SIZE_MAX);
  for (size_t g = 0; g < upto_group && g < r.groups.size(); ++g) {
    if (!r.groups[g].fused) continue;
    for (size_t i : r.groups[g].nodes) u.unit_of[i] = u.count;
    ++u.count;
  }
  for (size_t i = 0; i < n; ++i)
    if (u.unit_of[i] == SIZE_MAX) u.unit_of[i] = u.count++;
  return u;
}

// Topological order of units (smallest first node first, for a stable order
// close to the file's). Throws kInvalidGraph if the units form a cycle.
std::vector<size_t> unit_order(const Units& u, const std::vector<std::vector<size_t>>& preds) {
  const size_t n = u.unit_of.size();
  std::vector<std::vector<size_t>> succ(u.count);
  std::vector<size_t> indegree(u.count, 0), first(u.count, SIZE_MAX);
  std::set<std::pair<size_t, size_t>> edges;
  for (size_t i = 0; i < n; ++i) {
    size_t ui = u.unit_of[i];
    first[ui] = std::min(first[ui], i);
    for (size_t p : preds[i]) {
      size_t up = u.unit_of[p];
      if (up != ui && edges.emplace(up, ui).second) {
        succ[up].push_back(ui);
        ++indegree[ui];
      }
    }
  }
  std::set<std::pair<size_t, size_t>> ready;  // (first node, unit)
  for (size_t k = 0; k < u.count; ++k)
    if (!indegree[k]) ready.emplace(first[k], k);
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t k = ready.begin()->second;
    ready.erase(ready.begin());
    order.push_back(k);
    for (size_t s : succ[k])
      if (--indegree[s] == 0) ready.emplace(first[s], s);
  }
  check_code(order.size() == u.count, ErrorCode::kInvalidGraph,
             "partition: fused groups form a cycle (internal error: split-cycles missed one)");
  return order;
}

}  // namespace

// Pass 2. A fused group runs as one step, so no path may leave it and come
// back in (the step would wait on itself). Groups are taken in claim order
// with the earlier ones already contracted; each node gets a level: the most
// times a path to it leaves the group and re-enters. Levels only grow along
// edges, so the nodes of one level form a group no path leaves and re-enters,
// and the levels together form no cycle.
void split_cycles(const ir::Graph& graph, PartitionResult& r) {
  const size_t n = graph.nodes.size();
  auto preds = node_predecessors(graph);
  for (size_t g = 0; g < r.groups.size(); ++g) {
    if (!r.groups[g].fused || r.groups[g].nodes.size() < 2) continue;
    Units u = make_units(n, r, g);
    std::vector<char> member(u.count, 0);
    for (size_t i : r.groups[g].nodes) member[u.unit_of[i]] = 1;
    std::vector<std::vector<size_t>> unit_preds(u.count);
    for (size_t i = 0; i < n; ++i)
      for (size_t p : preds[i])
        if (u.unit_of[p] != u.unit_of[i]) unit_preds[u.unit_of[i]].push_back(u.unit_of[p]);
    std::vector<size_t> level(u.count, 0);
    for (size_t k : unit_order(u, preds))
      for (size_t p : unit_preds[k])
        level[k] = std::max(level[k], level[p] + (member[p] && !member[k] ? 1 : 0));
    std::map<size_t, std::vector<size_t>> parts;
    for (size_t i : r.groups[g].nodes) parts[level[u.unit_of[i]]].push_back(i);
    if (parts.size() == 1) continue;
    note(str_cat("split-cycles: fused group #", g, " (", r.groups[g].nodes.size(),
                 " nodes) would wait on itself through other nodes; split into ", parts.size(),
                 " groups"));
    auto it = parts.begin();
    r.groups[g].nodes = std::move(it->second);
    const int provider = r.group_provider[g];
    for (++it; it != parts.end(); ++it) {
      r.groups.push_back({std::move(it->second), true});
      r.group_provider.push_back(provider);
    }
  }
}

namespace {

// Pass 3: every node has a provider, or an error names each one left over.
void check_all_assigned(const GraphView& base,
                        const std::vector<std::shared_ptr<ExecutionProvider>>& providers,
                        const PartitionResult& r) {
  std::string missing;
  size_t count = 0;
  for (size_t i = 0; i < r.node_provider.size(); ++i) {
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
}

}  // namespace

// Pass 4 (run by the runtime's plan): the order over nodes and fused groups.
std::vector<PartitionStep> schedule(const ir::Graph& graph, const PartitionResult& r) {
  std::vector<PartitionStep> order;
  const size_t n = graph.nodes.size();
  Units u = make_units(n, r, r.groups.size());
  std::vector<int> fused_index(u.count, -1);
  for (size_t g = 0, k = 0; g < r.groups.size(); ++g)
    if (r.groups[g].fused) fused_index[k++] = int(g);
  std::vector<size_t> node_of(u.count, 0);
  for (size_t i = 0; i < n; ++i) node_of[u.unit_of[i]] = i;
  for (size_t k : unit_order(u, node_predecessors(graph))) {
    if (fused_index[k] >= 0)
      order.push_back({true, size_t(fused_index[k])});
    else
      order.push_back({false, node_of[k]});
  }
  return order;
}

PartitionResult partition_graph(const GraphView& base,
                                const std::vector<std::shared_ptr<ExecutionProvider>>& providers,
                                const std::vector<PlacementRule>& rules) {
  const size_t n = base.graph->nodes.size();
  PartitionResult r;
  r.node_provider.assign(n, -1);
  r.declined.assign(n, {});
  r.override_rule.assign(n, "");
  claim_in_priority_order(base, providers, rules, r);
  split_cycles(*base.graph, r);
  check_all_assigned(base, providers, r);
  return r;
}

}  // namespace tessera::ep
