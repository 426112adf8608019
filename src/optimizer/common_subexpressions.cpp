// Common subexpression elimination: a node computing what an earlier node
// already computed (same op, same inputs, same attributes) is dropped and its
// readers read the earlier node's outputs. Exporters leave such duplicates
// (a quantized model quantizes one activation once per MatMul reading it;
// torch repeats Shape/Gather chains), and each costs a kernel call and a
// buffer per run.
#include <algorithm>
#include <bit>
#include <unordered_map>
#include <unordered_set>

#include "ir/graph_algorithms.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// Ops whose two calls on the same inputs may differ.
bool nondeterministic(const std::string& op) {
  static const std::unordered_set<std::string> ops = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
      "Multinomial",  "Bernoulli",     "Dropout"};
  return ops.count(op) > 0;
}

// The node's identity as a string: op, inputs, output arity (which outputs
// are present) and attributes. Empty when the node is not to be merged:
// outside the ONNX domains, random, or with tensor, graph or reference
// attributes (compared by value they would cost more than they save).
std::string key_of(const ir::Node& n) {
  if ((!ir::is_onnx_domain(n.domain) && n.domain != "ai.onnx.ml") || nondeterministic(n.op_type) ||
      n.outputs.empty())
    return "";
  std::string k = n.domain + '\x1f' + n.op_type + '\x1f' + n.overload;
  for (const auto& in : n.inputs) k += '\x1e' + in;
  k += '\x1f';
  for (const auto& out : n.outputs) k += out.empty() ? '0' : '1';
  // Attributes in name order, so their listed order does not matter.
  std::vector<const ir::Attribute*> attrs;
  for (const auto& a : n.attributes) attrs.push_back(&a);
  std::sort(attrs.begin(), attrs.end(),
            [](const ir::Attribute* x, const ir::Attribute* y) { return x->name < y->name; });
  for (const ir::Attribute* a : attrs) {
    if (a->t.defined() || a->g || !a->tensors.empty() || !a->graphs.empty() ||
        !a->ref_attr_name.empty() || !a->type_protos.empty() || a->tp.kind != ir::TypeInfo().kind)
      return "";
    k += '\x1f' + a->name + '=' + std::to_string(int(a->type)) + ':' + std::to_string(a->i) + ':' +
         std::to_string(std::bit_cast<uint32_t>(a->f)) + ':' + a->s;
    for (int64_t v : a->ints) k += ',' + std::to_string(v);
    k += ';';
    for (float v : a->floats) k += ',' + std::to_string(std::bit_cast<uint32_t>(v));
    k += ';';
    for (const auto& s : a->strings) k += '\x1e' + s;
  }
  return k;
}

}  // namespace

size_t eliminate_common_subexpressions(ir::Graph& graph) {
  std::unordered_set<std::string> pinned;  // graph outputs and names subgraphs read
  for (const auto& o : graph.outputs) pinned.insert(o.name);
  for (const auto& n : graph.nodes)
    for (const auto& a : n.attributes) {
      if (a.g)
        for (auto& r : ir::outer_scope_reads(*a.g)) pinned.insert(r);
      for (const auto& sub : a.graphs)
        for (auto& r : ir::outer_scope_reads(*sub)) pinned.insert(r);
    }
  std::unordered_map<std::string, size_t> seen;  // key -> index in `kept`
  std::unordered_map<std::string, std::string> rename;
  std::vector<ir::Node> kept;
  size_t removed = 0;
  for (auto& n : graph.nodes) {
    for (auto& in : n.inputs)
      if (auto it = rename.find(in); it != rename.end()) in = it->second;
    const std::string k = key_of(n);
    bool free = !k.empty();
    for (const auto& o : n.outputs) free = free && !pinned.count(o);
    if (free)
      if (auto it = seen.find(k); it != seen.end()) {
        const ir::Node& first = kept[it->second];
        for (size_t i = 0; i < n.outputs.size(); ++i)
          if (!n.outputs[i].empty()) rename[n.outputs[i]] = first.outputs[i];
        ++removed;
        continue;
      }
    if (!k.empty()) seen.emplace(k, kept.size());
    kept.push_back(std::move(n));
  }
  graph.nodes = std::move(kept);
  return removed;
}

}  // namespace tessera::optimizer
