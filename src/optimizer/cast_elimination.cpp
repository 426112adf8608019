// Casts that cannot change a value: a Cast to the type its input already has,
// and the second Cast of a round trip A -> B -> A where B holds every value
// of A exactly (float -> double -> float, int8 -> int32 -> int8, ...). A pair
// through a type that rounds or wraps (double -> int32 -> double, float ->
// float16 -> float, int64 -> double -> int64) changes values and stays.
#include "optimizer/cast_elimination.hpp"

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ir/graph_algorithms.hpp"
#include "ops/type_inference.hpp"

namespace tessera::optimizer {

namespace {

using DT = DataType;

// Whether every value of `from` converts to `to` and back unchanged.
bool widens_exactly(DT from, DT to) {
  switch (from) {
    case DT::kBool:
      return to == DT::kUInt8 || to == DT::kInt8 || to == DT::kUInt16 || to == DT::kInt16 ||
             to == DT::kUInt32 || to == DT::kInt32 || to == DT::kUInt64 || to == DT::kInt64 ||
             to == DT::kFloat16 || to == DT::kBFloat16 || to == DT::kFloat || to == DT::kDouble;
    case DT::kInt8:
      // 8 significant bits fit float16's 11 and bfloat16's 8.
      return to == DT::kInt16 || to == DT::kInt32 || to == DT::kInt64 || to == DT::kFloat16 ||
             to == DT::kBFloat16 || to == DT::kFloat || to == DT::kDouble;
    case DT::kUInt8:
      return to == DT::kUInt16 || to == DT::kInt16 || to == DT::kUInt32 || to == DT::kInt32 ||
             to == DT::kUInt64 || to == DT::kInt64 || to == DT::kFloat16 || to == DT::kBFloat16 ||
             to == DT::kFloat || to == DT::kDouble;
    case DT::kInt16:
      return to == DT::kInt32 || to == DT::kInt64 || to == DT::kFloat || to == DT::kDouble;
    case DT::kUInt16:
      return to == DT::kUInt32 || to == DT::kInt32 || to == DT::kUInt64 || to == DT::kInt64 ||
             to == DT::kFloat || to == DT::kDouble;
    case DT::kInt32:
      return to == DT::kInt64 || to == DT::kDouble;
    case DT::kUInt32:
      return to == DT::kUInt64 || to == DT::kInt64 || to == DT::kDouble;
    case DT::kFloat16:
    case DT::kBFloat16:
      return to == DT::kFloat || to == DT::kDouble;
    case DT::kFloat:
      return to == DT::kDouble;
    default:
      return false;
  }
}

bool is_cast(const ir::Node& n) {
  return ir::is_onnx_domain(n.domain) && n.op_type == "Cast" && n.inputs.size() == 1 &&
         n.outputs.size() == 1 && !n.inputs[0].empty() && n.attr("to");
}

}  // namespace

size_t eliminate_redundant_casts(const ir::Model& model, ir::Graph& graph) {
  // Element types that hold whatever the model declares elsewhere: graph
  // inputs (feeds are checked against them) and initializers, and from them
  // every node output type inference types (a Cast's is its `to`). value_info
  // is a hint a model may get wrong, so it is not used; a value inference
  // leaves untyped (an op without an entry, a subgraph's outer value) keeps
  // its Casts.
  std::unordered_map<std::string, DT> type;
  for (const auto& v : graph.inputs)
    if (v.type.kind == ir::TypeInfo::Kind::kTensor && v.type.elem_type != DT::kUndefined)
      type[v.name] = v.type.elem_type;
  for (const auto& [name, t] : graph.initializers) type[name] = t.dtype();
  std::unordered_map<std::string, const ir::Node*> cast_of;  // output -> the Cast making it
  for (const auto& n : graph.nodes) {
    std::vector<ir::TypeInfo> in;
    for (const auto& v : n.inputs) {
      auto it = v.empty() ? type.end() : type.find(v);
      in.push_back(it == type.end() ? ir::TypeInfo() : ir::TypeInfo::tensor(it->second));
    }
    const auto out = ops::infer_output_types(n, model.opset(n.domain), in);
    for (size_t k = 0; k < n.outputs.size() && k < out.size(); ++k)
      if (!n.outputs[k].empty() && out[k].is_tensor() && out[k].elem_type != DT::kUndefined)
        type[n.outputs[k]] = out[k].elem_type;
    if (is_cast(n)) cast_of[n.outputs[0]] = &n;
  }
  auto type_of = [&](const std::string& v) {
    auto it = type.find(v);
    return it == type.end() ? DT::kUndefined : it->second;
  };

  // Values that cannot be renamed away: graph outputs and subgraphs' reads.
  std::unordered_set<std::string> pinned;
  for (const auto& o : graph.outputs) pinned.insert(o.name);
  for (const auto& n : graph.nodes)
    for (const auto& a : n.attributes) {
      if (a.g)
        for (auto& r : ir::outer_scope_reads(*a.g)) pinned.insert(r);
      for (const auto& sub : a.graphs)
        for (auto& r : ir::outer_scope_reads(*sub)) pinned.insert(r);
    }

  // Which value each removable Cast's output equals.
  std::unordered_map<std::string, std::string> rename;
  for (const auto& n : graph.nodes) {
    if (!is_cast(n) || pinned.count(n.outputs[0])) continue;
    const DT to = type_of(n.outputs[0]);
    const DT in = type_of(n.inputs[0]);
    if (in == DT::kUndefined) continue;
    if (in == to) {
      rename[n.outputs[0]] = n.inputs[0];
      continue;
    }
    auto first = cast_of.find(n.inputs[0]);
    if (first == cast_of.end()) continue;
    const std::string& origin = first->second->inputs[0];
    if (type_of(origin) == to && widens_exactly(to, in)) rename[n.outputs[0]] = origin;
  }
  if (rename.empty()) return 0;
  // Chains resolve to their first value (rename targets are never renamed
  // themselves after this).
  auto resolve = [&](std::string v) {
    for (auto it = rename.find(v); it != rename.end(); it = rename.find(v)) v = it->second;
    return v;
  };
  std::vector<ir::Node> kept;
  for (auto& n : graph.nodes) {
    if (is_cast(n) && rename.count(n.outputs[0])) continue;
    for (auto& in : n.inputs)
      if (!in.empty()) in = resolve(in);
    kept.push_back(std::move(n));
  }
  const size_t removed = graph.nodes.size() - kept.size();
  graph.nodes = std::move(kept);
  return removed;
}

}  // namespace tessera::optimizer
