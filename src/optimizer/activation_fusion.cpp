// Conv or Gemm followed by Relu, LeakyRelu or Clip with constant bounds (e.g.
// Relu6) becomes the internal com.tessera FusedConv / FusedGemm, which
// applies the activation to the output while it is in cache; for the CPU
// provider's own fusions also Sigmoid, Tanh, HardSigmoid, HardSwish and SiLU
// (x * Sigmoid(x)), which would otherwise each cost a pass over memory (and,
// in the blocked layout, a reorder there and back).
#include <limits>

#include "ops/schema.hpp"
#include "optimizer/activation_match.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// [min, max] of a Clip node when both are fixed; nullopt otherwise.
std::optional<std::pair<float, float>> clip_bounds(const DefUse& v, const ir::Node& clip,
                                                   int64_t opset) {
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (opset < 11) {  // bounds are attributes
    const ops::OpSchema& s = ops::schema_of(clip, opset);
    return std::make_pair(s.attr_float(clip, "min"), s.attr_float(clip, "max"));
  }
  for (size_t k = 1; k < clip.inputs.size() && k < 3; ++k) {
    if (clip.inputs[k].empty()) continue;
    auto s = scalar_value(v.constant(clip.inputs[k]));  // half types too (a half ReLU6)
    if (!s) return std::nullopt;
    (k == 1 ? lo : hi) = float(*s);
  }
  return std::make_pair(lo, hi);
}

// The `activation` (and, with params, `activation_params`) attributes.
std::vector<ir::Attribute> activation_attrs(const std::string& kind,
                                            std::vector<float> params = {}) {
  std::vector<ir::Attribute> out(1);
  out[0].name = "activation";
  out[0].type = ir::AttrType::kString;
  out[0].s = kind;
  if (!params.empty()) {
    out.emplace_back();
    out[1].name = "activation_params";
    out[1].type = ir::AttrType::kFloats;
    out[1].floats = std::move(params);
  }
  return out;
}

// The one of `readers` that is an ai.onnx `op`, or -1 (none, or both).
int sole_reader_of(const ir::Graph& g, const std::vector<int>& readers, const char* op) {
  int found = -1;
  for (int r : readers) {
    const ir::Node& n = g.nodes[size_t(r)];
    if (!ir::is_onnx_domain(n.domain) || n.op_type != op) continue;
    if (found >= 0) return -1;
    found = r;
  }
  return found;
}

}  // namespace

std::optional<std::vector<ir::Attribute>> activation_attributes(const DefUse& v,
                                                                const ir::Node& act, int64_t opset,
                                                                bool extended) {
  if (!ir::is_onnx_domain(act.domain) || act.inputs.empty() || act.outputs.size() != 1)
    return std::nullopt;
  if (act.op_type == "Relu") return activation_attrs("Relu");
  if (act.op_type == "LeakyRelu")
    return activation_attrs("LeakyRelu", {ops::schema_of(act, opset).attr_float(act, "alpha")});
  if (act.op_type == "Clip") {
    auto bounds = clip_bounds(v, act, opset);
    if (!bounds) return std::nullopt;
    return activation_attrs("Clip", {bounds->first, bounds->second});
  }
  if (!extended || act.inputs.size() != 1) return std::nullopt;
  if (act.op_type == "Sigmoid" || act.op_type == "HardSwish" || act.op_type == "Tanh")
    return activation_attrs(act.op_type);
  if (act.op_type == "HardSigmoid") {
    const ops::OpSchema& s = ops::schema_of(act, opset);
    return activation_attrs("HardSigmoid", {s.attr_float(act, "alpha"), s.attr_float(act, "beta")});
  }
  return std::nullopt;
}

std::optional<ActivationMatch> match_activation(const DefUse& v, const ir::Graph& g,
                                                const std::string& y, int64_t opset,
                                                bool extended) {
  const auto& readers = v.consumers(y);
  if (readers.size() == 1 && v.only_consumer(y, readers[0])) {
    const ir::Node& act = g.nodes[size_t(readers[0])];
    if (act.inputs.empty() || act.inputs[0] != y) return std::nullopt;
    auto attrs = activation_attributes(v, act, opset, extended);
    if (!attrs) return std::nullopt;
    return ActivationMatch{std::move(*attrs), {readers[0]}};
  }
  // SiLU: y read by exactly Sigmoid(y) and Mul(y, s) / Mul(s, y), s read by the Mul only.
  if (!extended || readers.size() != 2 || v.pinned(y)) return std::nullopt;
  const int s = sole_reader_of(g, readers, "Sigmoid"), m = sole_reader_of(g, readers, "Mul");
  if (s < 0 || m < 0) return std::nullopt;
  const ir::Node& sig = g.nodes[size_t(s)];
  const ir::Node& mul = g.nodes[size_t(m)];
  if (sig.inputs.size() != 1 || sig.outputs.size() != 1 || mul.inputs.size() != 2 ||
      mul.outputs.size() != 1 || !v.only_consumer(sig.outputs[0], m))
    return std::nullopt;
  const std::string& so = sig.outputs[0];
  if (!((mul.inputs[0] == y && mul.inputs[1] == so) || (mul.inputs[0] == so && mul.inputs[1] == y)))
    return std::nullopt;
  return ActivationMatch{activation_attrs("Swish", {1.0f}), {s, m}};
}

size_t fuse_activations(ir::Model& model, ir::Graph& g, bool gemm, bool extended) {
  DefUse v(g);
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
    auto match = match_activation(v, g, n.outputs[0], opset, extended);
    if (!match) continue;
    const int last = match->nodes.back();
    ir::Node f = n;
    f.op_type = n.op_type == "Conv" ? "FusedConv" : "FusedGemm";
    f.domain = kTesseraDomain;
    f.outputs = g.nodes[size_t(last)].outputs;
    f.attributes.insert(f.attributes.end(), match->attrs.begin(), match->attrs.end());
    for (int k : match->nodes)
      if (k != last) dead[size_t(k)] = true;
    g.nodes[size_t(last)] = std::move(f);
    dead[size_t(i)] = true;
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::optimizer
