#include "runtime/custom_ops.hpp"

#include "ops/graph_types.hpp"

namespace tessera::runtime {

void attach_custom_ops(const Providers& providers, const ep::CustomOps& ops,
                       const std::map<std::string, std::string>& session_config) {
  if (ops.empty()) return;
  auto config = std::make_shared<const std::map<std::string, std::string>>(session_config);
  for (const auto& p : providers) {
    auto registry = std::make_shared<ep::KernelRegistry>();
    for (const auto& op : ops)
      if (op->provider == p->name())
        registry->add(op->def, [op, config](const ep::KernelInfo& info) {
          return op->factory(info, *config);
        });
    if (!registry->entries().empty()) p->set_session_kernels(std::move(registry));
  }
}

namespace {

bool same_type(const ir::TypeInfo& a, const ir::TypeInfo& b) {
  return a.kind == b.kind && a.elem_type == b.elem_type;
}

// Declares `name`'s type (and its shape, when `t` has one); a graph output
// the model declares keeps its declaration, gaining only a missing shape.
void declare(ir::Graph& g, const std::string& name, const ir::TypeInfo& t) {
  auto set = [&t](ir::TypeInfo& v) {
    v.kind = t.kind;
    v.elem_type = t.elem_type;
    v.inner = t.inner;
    if (t.shape) v.shape = t.shape;
  };
  for (auto& v : g.value_info)
    if (v.name == name) {
      set(v.type);
      return;
    }
  for (auto& v : g.outputs)
    if (v.name == name) {
      if (v.type.kind == ir::TypeInfo::Kind::kUnknown ||
          (v.type.is_tensor() && v.type.elem_type == DataType::kUndefined))
        set(v.type);
      else if (!v.type.shape && t.shape)
        v.type.shape = t.shape;
      return;
    }
  ir::ValueInfo v;
  v.name = name;
  v.type = t;
  g.value_info.push_back(std::move(v));
}

}  // namespace

void declare_custom_op_types(ir::Model& model, const ep::CustomOps& ops) {
  if (ops.empty()) return;
  ir::Graph& g = model.graph;
  // A custom node's types can depend on an earlier custom node's: each pass
  // declares what the types known so far allow, until nothing changes.
  for (size_t pass = 0; pass <= g.nodes.size(); ++pass) {
    ops::ValueTypes types;
    ops::infer_graph_types(model, g, types);
    bool changed = false;
    for (const auto& node : g.nodes) {
      const ep::CustomOp* op =
          ep::find_custom_op(ops, node.domain, node.op_type, model.opset(node.domain));
      if (!op || !op->output_types) continue;
      std::vector<ir::TypeInfo> in;
      for (const auto& name : node.inputs) {
        auto it = name.empty() ? types.end() : types.find(name);
        in.push_back(it == types.end() ? ir::TypeInfo() : it->second);
      }
      auto out = op->output_types(node, in);
      for (size_t k = 0; k < node.outputs.size() && k < out.size(); ++k) {
        if (node.outputs[k].empty() || out[k].kind == ir::TypeInfo::Kind::kUnknown) continue;
        auto it = types.find(node.outputs[k]);
        if (it != types.end() && same_type(it->second, out[k])) continue;
        declare(g, node.outputs[k], out[k]);
        changed = true;
      }
    }
    if (!changed) return;
  }
}

}  // namespace tessera::runtime
