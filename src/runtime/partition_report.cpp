// Renderings of a PartitionReport: a table for people, JSON for tools, DOT
// for a picture.
#include <map>
#include <sstream>
#include <unordered_map>

#include "runtime/session.hpp"

namespace tessera {

namespace {

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      o += ' ';
    } else {
      o += c;
    }
  }
  return o + "\"";
}

std::string dot_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) o += (c == '"' ? std::string("\\\"") : std::string(1, c));
  return o + "\"";
}

const char* kColours[] = {"#8ecae6", "#ffb703", "#90be6d", "#f28482", "#cdb4db", "#bde0fe"};

}  // namespace

std::string PartitionReport::to_text() const {
  std::ostringstream os;
  size_t w_name = 4, w_op = 7;
  for (const auto& n : nodes) {
    w_name = std::max(w_name, n.node_name.size());
    w_op = std::max(w_op, n.op_type.size());
  }
  auto pad = [](const std::string& s, size_t w) { return s + std::string(w > s.size() ? w - s.size() : 0, ' '); };
  os << pad("node", w_name) << "  " << pad("op type", w_op) << "  provider  (why earlier providers declined)\n";
  for (const auto& n : nodes) {
    os << pad(n.node_name, w_name) << "  " << pad(n.op_type, w_op) << "  " << n.provider;
    std::string why;
    for (const auto& [p, reason] : n.declined) why += str_cat(why.empty() ? "" : "; ", p, ": ", reason);
    if (!why.empty()) os << "  (" << why << ")";
    if (!n.override_rule.empty()) os << "  [override: " << n.override_rule << "]";
    if (!n.fused_group.empty()) os << "  [fused: " << n.fused_group << "]";
    if (!n.expanded_from.empty()) os << "  [from " << n.expanded_from << "]";
    os << "\n";
  }
  std::map<std::string, std::pair<size_t, size_t>> per;  // provider -> (nodes, partitions)
  std::string prev;
  for (const auto& n : nodes) {
    auto& e = per[n.provider];
    ++e.first;
    if (n.provider != prev) ++e.second;
    prev = n.provider;
  }
  os << "\nsummary: requested [";
  for (size_t i = 0; i < requested.size(); ++i) os << (i ? ", " : "") << requested[i];
  os << "], in use [";
  for (size_t i = 0; i < in_use.size(); ++i) os << (i ? ", " : "") << in_use[i];
  os << "]\n";
  for (const auto& p : in_use) {
    auto it = per.find(p);
    size_t nn = it == per.end() ? 0 : it->second.first, np = it == per.end() ? 0 : it->second.second;
    os << "  " << p << ": " << nn << " nodes in " << np << " partitions\n";
  }
  std::map<std::string, size_t> fused;  // compiled partition -> nodes
  for (const auto& n : nodes)
    if (!n.fused_group.empty()) ++fused[n.fused_group];
  if (!fused.empty()) {
    os << "  compiled partitions (each runs as one step): " << fused.size() << "\n";
    for (const auto& [name, count] : fused) os << "    " << name << ": " << count << " nodes\n";
  }
  if (!expanded.empty()) {
    os << "  ops run through their function body (no provider has a kernel):\n";
    for (const auto& e : expanded)
      os << "    " << e.op_type << " (node '" << e.node_name << "'): body " << e.body << ", "
         << e.body_nodes.size() << " nodes" << (e.depth ? str_cat(", nested ", e.depth) : "")
         << "\n";
  }
  size_t per_run = 0;
  for (const auto& c : copies) per_run += c.at_creation ? 0 : 1;
  os << "  copies: " << per_run << " per run, " << copies.size() - per_run << " at creation\n";
  for (const auto& c : copies)
    os << "    " << c.value << ": " << c.from << " -> " << c.to
       << (c.at_creation ? " (once, initializer)" : "")
       << (c.forced_by_override ? " (forced by a placement override)" : "") << "\n";
  return os.str();
}

std::string PartitionReport::to_json() const {
  std::ostringstream os;
  auto list = [&](const std::vector<std::string>& v) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << json_str(v[i]);
    os << "]";
  };
  os << "{\"requested\":";
  list(requested);
  os << ",\"in_use\":";
  list(in_use);
  os << ",\"nodes\":[";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    os << (i ? "," : "") << "{\"name\":" << json_str(n.node_name) << ",\"op_type\":"
       << json_str(n.op_type) << ",\"domain\":" << json_str(n.domain)
       << ",\"provider\":" << json_str(n.provider) << ",\"override\":" << json_str(n.override_rule)
       << ",\"fused_group\":" << json_str(n.fused_group)
       << ",\"expanded_from\":" << json_str(n.expanded_from) << ",\"declined\":[";
    for (size_t k = 0; k < n.declined.size(); ++k)
      os << (k ? "," : "") << "{\"provider\":" << json_str(n.declined[k].first)
         << ",\"reason\":" << json_str(n.declined[k].second) << "}";
    os << "]}";
  }
  os << "],\"expanded\":[";
  for (size_t i = 0; i < expanded.size(); ++i) {
    const auto& e = expanded[i];
    os << (i ? "," : "") << "{\"node\":" << json_str(e.node_name)
       << ",\"op_type\":" << json_str(e.op_type) << ",\"body\":" << json_str(e.body)
       << ",\"depth\":" << e.depth << ",\"body_nodes\":";
    list(e.body_nodes);
    os << "}";
  }
  os << "],\"copies\":[";
  for (size_t i = 0; i < copies.size(); ++i) {
    const auto& c = copies[i];
    os << (i ? "," : "") << "{\"value\":" << json_str(c.value) << ",\"from\":" << json_str(c.from)
       << ",\"to\":" << json_str(c.to) << ",\"at_creation\":" << (c.at_creation ? "true" : "false")
       << ",\"forced_by_override\":" << (c.forced_by_override ? "true" : "false") << "}";
  }
  os << "]}\n";
  return os.str();
}

std::string PartitionReport::to_dot() const {
  std::ostringstream os;
  os << "digraph partition {\n  rankdir=TB;\n  node [shape=box, style=filled, "
        "fontname=Helvetica];\n";
  std::unordered_map<std::string, size_t> colour;
  for (size_t i = 0; i < in_use.size(); ++i) colour[in_use[i]] = i % 6;
  std::unordered_map<std::string, size_t> producer;
  std::unordered_map<std::string, bool> copied;
  for (const auto& c : copies)
    if (!c.at_creation) copied[c.value] = true;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    os << "  n" << i << " [label=" << dot_str(n.op_type + "\\n" + n.node_name) << ", fillcolor=\""
       << kColours[colour[n.provider]] << "\"];\n";
    if (graph && i < graph->nodes.size())
      for (const auto& o : graph->nodes[i].outputs) producer[o] = i;
  }
  if (graph)
    for (size_t i = 0; i < graph->nodes.size() && i < nodes.size(); ++i)
      for (const auto& in : graph->nodes[i].inputs) {
        auto it = producer.find(in);
        if (it == producer.end()) continue;
        bool cross = nodes[it->second].provider != nodes[i].provider && copied.count(in);
        os << "  n" << it->second << " -> n" << i << (cross ? " [color=red, style=dashed, label=\"copy\"]" : "")
           << ";\n";
      }
  os << "  subgraph cluster_legend {\n    label=\"providers\";\n";
  for (size_t i = 0; i < in_use.size(); ++i)
    os << "    legend" << i << " [label=" << dot_str(in_use[i]) << ", fillcolor=\"" << kColours[i % 6]
       << "\"];\n";
  os << "  }\n}\n";
  return os.str();
}

}  // namespace tessera
