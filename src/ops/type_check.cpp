#include "ops/type_check.hpp"

#include <algorithm>

#include "ops/graph_types.hpp"
#include "ops/schema.hpp"

namespace tessera::ops {

namespace {

std::string type_list(const std::vector<DataType>& types) {
  std::string s;
  for (DataType t : types) s += str_cat(s.empty() ? "" : ", ", data_type_name(t));
  return s;
}

// The element type of a tensor value, or kUndefined (unknown, or not a tensor).
DataType elem_type_of(const ValueTypes& types, const std::string& name) {
  auto it = name.empty() ? types.end() : types.find(name);
  if (it == types.end() || it->second.kind != ir::TypeInfo::Kind::kTensor)
    return DataType::kUndefined;
  return it->second.elem_type;
}

void check_node(const ir::Node& n, const OpSchema& s, const ValueTypes& types,
                const std::string& where) {
  for (const TypeParam& p : s.types) {
    if (p.inputs.empty() || p.allowed.empty()) continue;
    std::vector<size_t> at(p.inputs.begin(), p.inputs.end());
    if (p.variadic)
      for (size_t i = at.back() + 1; i < n.inputs.size(); ++i) at.push_back(i);
    size_t first = 0;
    DataType first_type = DataType::kUndefined;
    for (size_t i : at) {
      if (i >= n.inputs.size()) continue;
      const DataType t = elem_type_of(types, n.inputs[i]);
      if (t == DataType::kUndefined) continue;
      if (std::find(p.allowed.begin(), p.allowed.end(), t) == p.allowed.end())
        fail(ErrorCode::kInvalidGraph, where, ": ", n.describe(), ": input ", i, " '", n.inputs[i],
             "' is ", data_type_name(t), ", but its type ", p.name, " allows ",
             type_list(p.allowed));
      if (first_type == DataType::kUndefined) {
        first = i, first_type = t;
      } else if (t != first_type) {
        fail(ErrorCode::kInvalidGraph, where, ": ", n.describe(), ": input ", i, " '", n.inputs[i],
             "' is ", data_type_name(t), " but input ", first, " '", n.inputs[first], "' is ",
             data_type_name(first_type), "; both are of type ", p.name, ", which must be one type");
      }
    }
  }
}

// `types` holds the outer scopes' values; the graph's own are added.
void check_graph(const ir::Model& model, const ir::Graph& graph, ValueTypes types,
                 const std::string& where) {
  infer_graph_types(model, graph, types);
  for (const ir::Node& n : graph.nodes) {
    if (const OpSchema* s = find_schema(n, model.opset(n.domain))) check_node(n, *s, types, where);
    for (const ir::Attribute& a : n.attributes) {
      if (a.g) check_graph(model, *a.g, types, where);
      for (const auto& g : a.graphs)
        if (g) check_graph(model, *g, types, where);
    }
  }
}

}  // namespace

void check_input_types(const ir::Model& model, const std::string& where) {
  check_graph(model, model.graph, {}, where);
}

}  // namespace tessera::ops
