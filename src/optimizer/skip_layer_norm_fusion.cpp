// Residual Add + LayerNormalization over the last axis -> com.tessera
// SkipLayerNormalization, and bias Add + exact Gelu -> com.tessera BiasGelu.
// Where one side of the residual Add is itself `bias + MatMul(x, W)` with a
// constant 1-D bias as wide as W, that bias Add is folded in as well, so a
// transformer block's projections feed the norm with no separate pass.
#include "ops/schema.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

bool is_float_vector(const Tensor* t) {
  return t && is_fusable_float(t->dtype()) && t->rank() == 1 && t->num_elements() > 0;
}

// For `value` = Add(bias, MatMul(x, W)) (either operand order) read only by
// `reader`, with W a constant 2-D float matrix and bias a constant [W.cols]:
// the Add's node index, the MatMul output and the bias; else nullopt.
struct BiasAdd {
  int node;
  std::string product, bias;
};
std::optional<BiasAdd> bias_add(const DefUse& v, const ir::Graph& g, const std::string& value,
                                int reader) {
  int a = producer_of(v, g, value, "Add");
  if (a < 0 || !v.only_consumer(value, reader) || g.nodes[size_t(a)].inputs.size() != 2)
    return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    const std::string& b = g.nodes[size_t(a)].inputs[size_t(k)];
    const std::string& p = g.nodes[size_t(a)].inputs[size_t(1 - k)];
    const Tensor* bt = v.constant(b);
    int mm = producer_of(v, g, p, "MatMul");
    if (!is_float_vector(bt) || mm < 0 || g.nodes[size_t(mm)].inputs.size() != 2) continue;
    const Tensor* w = v.constant(g.nodes[size_t(mm)].inputs[1]);
    if (w && w->dtype() == bt->dtype() && w->rank() == 2 && w->shape()[1] == bt->num_elements())
      return BiasAdd{a, p, b};
  }
  return std::nullopt;
}

bool is_layer_norm(const ir::Model& model, const ir::Node& n) {
  if (n.op_type != "LayerNormalization") return false;
  if (ir::is_onnx_domain(n.domain)) return model.opset("") >= 17;
  return n.domain == kTesseraDomain;
}

bool is_exact_gelu(const ir::Model& model, const ir::Node& n) {
  if (n.op_type != "Gelu" || n.inputs.size() != 1) return false;
  if (n.domain == kTesseraDomain) return n.attr("approximate") == nullptr;
  if (!ir::is_onnx_domain(n.domain) || model.opset("") < 20) return false;
  const ir::Attribute* a = n.attr("approximate");
  return !a || a->s == "none";
}

}  // namespace

size_t fuse_skip_layer_norm(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int ln = 0; ln < int(g.nodes.size()); ++ln) {
    const ir::Node& norm = g.nodes[size_t(ln)];
    if (!is_layer_norm(model, norm) || norm.inputs.size() < 2 || norm.outputs.empty()) continue;
    // com.tessera's LayerNormalization takes the standard op's attributes.
    const ops::OpSchema& ln_schema = *ops::find_schema("", "LayerNormalization", 17);
    if (ln_schema.attr_int(norm, "axis") != -1 || ln_schema.attr_int(norm, "stash_type") != 1)
      continue;
    // Mean / InvStdDev outputs must be absent or unread.
    bool extra = false;
    for (size_t i = 1; i < norm.outputs.size(); ++i)
      extra |= !norm.outputs[i].empty() &&
               (!v.consumers(norm.outputs[i]).empty() || v.pinned(norm.outputs[i]));
    if (extra) continue;
    const Tensor* gamma = v.constant(norm.inputs[1]);
    if (!is_float_vector(gamma)) continue;
    const std::string beta = norm.inputs.size() > 2 ? norm.inputs[2] : "";
    if (!beta.empty()) {
      const Tensor* bt = v.constant(beta);
      if (!is_float_vector(bt) || bt->num_elements() != gamma->num_elements() ||
          bt->dtype() != gamma->dtype())
        continue;
    }
    int add = producer_of(v, g, norm.inputs[0], "Add");
    if (add < 0 || dead[size_t(add)] || !v.only_consumer(norm.inputs[0], ln) ||
        g.nodes[size_t(add)].inputs.size() != 2)
      continue;
    std::string x = g.nodes[size_t(add)].inputs[0], skip = g.nodes[size_t(add)].inputs[1], bias;
    int bias_node = -1;
    for (int k = 0; k < 2 && bias_node < 0 && x != skip; ++k) {
      const std::string& side = k == 0 ? skip : x;
      auto ba = bias_add(v, g, side, add);
      if (!ba || dead[size_t(ba->node)] ||
          v.constant(ba->bias)->num_elements() != gamma->num_elements() ||
          v.constant(ba->bias)->dtype() != gamma->dtype())
        continue;
      bias_node = ba->node;
      bias = ba->bias;
      if (k == 0)
        skip = ba->product;
      else
        x = ba->product;
    }
    ir::Node sln;
    sln.name = norm.name + "_skip";
    sln.op_type = "SkipLayerNormalization";
    sln.domain = kTesseraDomain;
    sln.inputs = {x, skip, norm.inputs[1], beta};
    if (!bias.empty()) sln.inputs.push_back(bias);
    sln.outputs = {norm.outputs[0]};
    ir::Attribute eps;
    eps.name = "epsilon";
    eps.type = ir::AttrType::kFloat;
    eps.f = ln_schema.attr_float(norm, "epsilon");
    sln.attributes = {eps};
    dead[size_t(add)] = true;
    if (bias_node >= 0) dead[size_t(bias_node)] = true;
    g.nodes[size_t(ln)] = std::move(sln);
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

size_t fuse_bias_gelu(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& gelu = g.nodes[size_t(i)];
    if (!is_exact_gelu(model, gelu)) continue;
    auto ba = bias_add(v, g, gelu.inputs[0], i);
    if (!ba || dead[size_t(ba->node)]) continue;
    ir::Node bg;
    bg.name = gelu.name + "_bias";
    bg.op_type = "BiasGelu";
    bg.domain = kTesseraDomain;
    bg.inputs = {ba->product, ba->bias};
    bg.outputs = gelu.outputs;
    dead[size_t(ba->node)] = true;
    g.nodes[size_t(i)] = std::move(bg);
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::optimizer
