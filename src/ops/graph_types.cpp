#include "ops/graph_types.hpp"

#include "ops/type_inference.hpp"

namespace tessera::ops {

void infer_graph_types(const ir::Model& model, const ir::Graph& graph, ValueTypes& types) {
  for (const auto& [name, t] : graph.initializers) types[name] = ir::TypeInfo::tensor(t.dtype());
  for (const auto& [name, s] : graph.sparse_initializers) {
    ir::TypeInfo t = ir::TypeInfo::tensor(s.dtype());
    t.kind = ir::TypeInfo::Kind::kSparseTensor;
    t.shape.emplace();
    for (int64_t d : s.dense_shape.dims()) t.shape->push_back(ir::Dim{d, ""});
    types[name] = std::move(t);
  }
  for (const auto& in : graph.inputs)
    if (in.type.kind != ir::TypeInfo::Kind::kUnknown) types[in.name] = in.type;
  for (const auto& node : graph.nodes) {
    std::vector<ir::TypeInfo> in_types;
    for (const auto& in : node.inputs) {
      auto it = in.empty() ? types.end() : types.find(in);
      ir::TypeInfo t = it == types.end() ? ir::TypeInfo() : it->second;
      t.shape.reset();  // inference works on element types; shapes come at run time
      in_types.push_back(std::move(t));
    }
    auto out = infer_output_types(node, model.opset(node.domain), in_types);
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const std::string& name = node.outputs[k];
      if (name.empty()) continue;
      ir::TypeInfo t = k < out.size() ? out[k] : ir::TypeInfo();
      bool known = t.kind != ir::TypeInfo::Kind::kUnknown &&
                   !(t.kind == ir::TypeInfo::Kind::kTensor && t.elem_type == DataType::kUndefined);
      if (!known) {
        if (const ir::ValueInfo* vi = graph.find_value_info(name)) t = vi->type;
      }
      types[name] = t;
    }
  }
}

}  // namespace tessera::ops
