// Conv or Gemm followed by Relu, LeakyRelu or Clip with constant bounds (e.g.
// Relu6) becomes the internal com.tessera FusedConv / FusedGemm, which
// applies the activation to the output while it is in cache.
#include <limits>

#include "optimizer/activation_match.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// [min, max] of a Clip node when both are fixed; nullopt otherwise.
std::optional<std::pair<float, float>> clip_bounds(const GraphView& v, const ir::Node& clip,
                                                   int64_t opset) {
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (opset < 11) {
    if (const ir::Attribute* a = clip.attr("min")) lo = a->f;
    if (const ir::Attribute* a = clip.attr("max")) hi = a->f;
    return std::make_pair(lo, hi);
  }
  for (size_t k = 1; k < clip.inputs.size() && k < 3; ++k) {
    if (clip.inputs[k].empty()) continue;
    auto s = scalar_value(v.constant(clip.inputs[k]));  // half types too (a half ReLU6)
    if (!s) return std::nullopt;
    (k == 1 ? lo : hi) = float(*s);
  }
  return std::make_pair(lo, hi);
}

}  // namespace

std::optional<std::vector<ir::Attribute>> activation_attributes(const GraphView& v,
                                                                const ir::Node& act,
                                                                int64_t opset) {
  if (!ir::is_onnx_domain(act.domain) || act.inputs.empty() || act.outputs.size() != 1)
    return std::nullopt;
  ir::Attribute kind;
  kind.name = "activation";
  kind.type = ir::AttrType::kString;
  ir::Attribute params;
  params.name = "activation_params";
  params.type = ir::AttrType::kFloats;
  if (act.op_type == "Relu") {
    kind.s = "Relu";
    return std::vector<ir::Attribute>{kind};
  }
  if (act.op_type == "LeakyRelu") {
    const ir::Attribute* a = act.attr("alpha");
    kind.s = "LeakyRelu";
    params.floats = {a ? a->f : 0.01f};
    return std::vector<ir::Attribute>{kind, params};
  }
  if (act.op_type == "Clip") {
    auto bounds = clip_bounds(v, act, opset);
    if (!bounds) return std::nullopt;
    kind.s = "Clip";
    params.floats = {bounds->first, bounds->second};
    return std::vector<ir::Attribute>{kind, params};
  }
  return std::nullopt;
}

size_t fuse_activations(ir::Model& model, ir::Graph& g, bool gemm) {
  GraphView v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  const int64_t opset = model.opset("");
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& n = g.nodes[size_t(i)];
    if (!ir::is_onnx_domain(n.domain) || (n.op_type != "Conv" && (n.op_type != "Gemm" || !gemm)) ||
        (n.op_type == "Gemm" && opset < 7) ||  // Gemm-6 and older: broadcast attribute
        n.outputs.size() != 1)
      continue;
    // Only the fused kernels' types: FusedConv's float, double, float16 and
    // bfloat16, FusedGemm's float and double. The data input has the
    // weights' type by the ops' constraints.
    const Tensor* w = v.constant(n.inputs.size() > 1 ? n.inputs[1] : "");
    if (!w ||
        !(n.op_type == "Conv" ? is_float_or_double(w->dtype())  // the CPU computes halves in float
                              : w->dtype() == DataType::kFloat || w->dtype() == DataType::kDouble))
      continue;
    const auto& readers = v.consumers(n.outputs[0]);
    if (readers.size() != 1 || !v.only_consumer(n.outputs[0], readers[0])) continue;
    const int j = readers[0];
    const ir::Node& act = g.nodes[size_t(j)];
    if (act.inputs.empty() || act.inputs[0] != n.outputs[0]) continue;
    auto attrs = activation_attributes(v, act, opset);
    if (!attrs) continue;
    ir::Node f = n;
    f.op_type = n.op_type == "Conv" ? "FusedConv" : "FusedGemm";
    f.domain = kTesseraDomain;
    f.outputs = act.outputs;
    f.attributes.insert(f.attributes.end(), attrs->begin(), attrs->end());
    g.nodes[size_t(j)] = std::move(f);
    dead[size_t(i)] = true;
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::optimizer
