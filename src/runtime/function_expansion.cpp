#include "runtime/function_expansion.hpp"

#include "core/logging.hpp"
#include "onnx/function_inliner.hpp"
#include "ops/function_bodies.hpp"
#include "ops/graph_types.hpp"

namespace tessera::runtime {

namespace {

// CastLike(x, like) with like's element type known is Cast(x, to = that
// type): the bodies' CastLike of a constant then folds away in the optimizer
// instead of running on every call (MobileNetV2 as ONNX Runtime saves it had
// 70 of them around its Clip bodies).
void cast_like_to_cast(ir::Graph& g, const ops::ValueTypes& types) {
  for (auto& n : g.nodes) {
    if (!ir::is_onnx_domain(n.domain) || n.op_type != "CastLike" || n.inputs.size() != 2) continue;
    auto it = types.find(n.inputs[1]);
    if (it == types.end() || !it->second.is_tensor() ||
        it->second.elem_type == DataType::kUndefined)
      continue;
    ir::Attribute to;
    to.name = "to";
    to.type = ir::AttrType::kInt;
    to.i = int64_t(it->second.elem_type);
    n.op_type = "Cast";
    n.inputs.pop_back();
    n.attributes.push_back(std::move(to));
  }
}

class Expander {
 public:
  Expander(ir::Model& model, const Providers& providers, const BodyLookup& find_body)
      : model_(model), providers_(providers), find_body_(find_body) {}

  void graph(ir::Graph& g, const ops::ValueTypes& outer) {
    ops::ValueTypes types;
    for (int depth = 0;; ++depth) {
      types = outer;
      ops::infer_graph_types(model_, g, types);
      cast_like_to_cast(g, types);
      std::vector<std::string> bodies;  // per expanded node, in order
      auto body_for = [&](const ir::Node& n) -> const ir::Function* {
        const ops::FunctionBody* b = body_without_kernel(n, types);
        if (!b) return nullptr;
        if (depth >= kMaxFunctionExpansionDepth)
          fail(ErrorCode::kInvalidGraph, "expanding ", n.describe(), " into its function body ",
               b->describe(), ": function bodies nest deeper than ", kMaxFunctionExpansionDepth,
               " levels");
        bodies.push_back(b->describe());
        return &b->function;
      };
      auto done = onnx::expand_nodes(model_, g, body_for);
      if (done.empty()) break;
      for (size_t i = 0; i < done.size(); ++i) {
        log(Severity::kInfo, "session", "no provider has a kernel for ", done[i].op_type,
            " (node '", done[i].node_name, "'): running its function body ", bodies[i]);
        out.push_back(
            {done[i].node_name, done[i].op_type, bodies[i], depth, std::move(done[i].body_nodes)});
      }
    }
    for (auto& n : g.nodes)
      for (auto& a : n.attributes) {
        if (a.g) graph(*a.g, types);
        for (auto& sg : a.graphs)
          if (sg) graph(*sg, types);
      }
  }

  std::vector<FunctionExpansion> out;

 private:
  const ops::FunctionBody* body_without_kernel(const ir::Node& n, const ops::ValueTypes& types) {
    int64_t opset = model_.opset(n.domain);
    const ops::FunctionBody* b = find_body_(n, opset);
    if (!b) return nullptr;
    ep::GraphView view;
    view.model = &model_;
    view.graph = nullptr;
    view.value_types = &types;
    for (const auto& p : providers_)
      if (ep::lookup_kernel(*p, view, n).entry) return nullptr;
    return b;
  }

  ir::Model& model_;
  const Providers& providers_;
  const BodyLookup& find_body_;
};

}  // namespace

std::vector<FunctionExpansion> expand_ops_without_kernels(ir::Model& model,
                                                          const Providers& providers,
                                                          const BodyLookup& find_body) {
  Expander e(model, providers, find_body);
  e.graph(model.graph, {});
  return std::move(e.out);
}

}  // namespace tessera::runtime
