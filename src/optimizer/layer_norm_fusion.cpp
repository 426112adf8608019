// The layer norm that older exporters spell out,
//   m = ReduceMean(x, [-1]); d = x - m; v = ReduceMean(d ^ 2, [-1]);
// (the axes [r - 1] where x's rank r is known)
//   y = d / Sqrt(v + eps) * gamma + beta
// becomes one LayerNormalization over the last axis (ai.onnx from opset 17,
// else the internal com.tessera op with opset-17 semantics).
#include "ops/schema.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// True when the ReduceMean reduces exactly the last axis and keeps dims:
// axes [-1], or [r - 1] where its input's rank r is known (a static shape,
// full or partial: a dynamic batch keeps the rank).
bool reduces_last_axis(const DefUse& v, const ir::Graph& g, const ir::Node& n, int64_t opset) {
  if (ops::schema_of(n, opset).attr_int(n, "keepdims") != 1) return false;
  std::vector<int64_t> axes;
  if (const ir::Attribute* a = n.attr("axes")) {
    axes = a->ints;
  } else if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const Tensor* t = v.constant(n.inputs[1]);
    if (!t) return false;
    axes = t->to_int64_vector();
  }
  if (axes == std::vector<int64_t>{-1}) return true;
  const ir::ValueInfo* vi = n.inputs.empty() ? nullptr : g.find_value_info(n.inputs[0]);
  return axes.size() == 1 && vi && vi->type.is_tensor() && vi->type.shape &&
         axes[0] + 1 == int64_t(vi->type.shape->size());
}

std::string other_operand(const ir::Node& n, const std::string& value) {
  if (n.inputs.size() != 2 || n.inputs[0] == n.inputs[1]) return "";
  if (n.inputs[0] == value) return n.inputs[1];
  if (n.inputs[1] == value) return n.inputs[0];
  return "";
}

bool is_float_const(const Tensor* t) {
  return t && (t->dtype() == DataType::kFloat || t->dtype() == DataType::kDouble);
}

// A 1-D affine parameter of length > 1: a length-1 one could broadcast over a
// last axis of any size, which LayerNormalization's Scale cannot.
// Float only: LayerNormalization computes its statistics in float (stash_type).
bool is_affine_param(const Tensor* t) {
  return t && t->dtype() == DataType::kFloat && t->rank() == 1 && t->shape()[0] > 1;
}

}  // namespace

size_t fuse_layer_norm(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  const int64_t opset = model.opset("");
  const bool native = opset >= 17;
  size_t fused = 0;
  auto is = [&](int i, const char* op) {
    return i >= 0 && !dead[size_t(i)] && ir::is_onnx_domain(g.nodes[size_t(i)].domain) &&
           g.nodes[size_t(i)].op_type == op;
  };
  for (int r1 = 0; r1 < int(g.nodes.size()); ++r1) {
    if (!is(r1, "ReduceMean") || !reduces_last_axis(v, g, g.nodes[size_t(r1)], opset)) continue;
    const std::string x = g.nodes[size_t(r1)].inputs[0];
    const std::string mean = g.nodes[size_t(r1)].outputs[0];
    int sub = sole_consumer(v, g, mean, "Sub");
    if (sub < 0 || g.nodes[size_t(sub)].inputs.size() != 2 || g.nodes[size_t(sub)].inputs[0] != x ||
        g.nodes[size_t(sub)].inputs[1] != mean)
      continue;
    // d feeds exactly a Pow (squared) and the Div.
    const std::string d = g.nodes[size_t(sub)].outputs[0];
    const auto& readers = v.consumers(d);
    if (readers.size() != 2) continue;
    int pow = -1, div = -1;
    for (int c : readers) {
      if (is(c, "Pow")) pow = c;
      if (is(c, "Div")) div = c;
    }
    if (pow < 0 || div < 0) continue;
    {
      // Each reads d once, and nothing else (outputs, subgraphs) does.
      bool ok = g.nodes[size_t(pow)].inputs.size() == 2 && g.nodes[size_t(pow)].inputs[0] == d &&
                g.nodes[size_t(div)].inputs.size() == 2 && g.nodes[size_t(div)].inputs[0] == d &&
                g.nodes[size_t(div)].inputs[1] != d;
      for (const auto& o : g.outputs) ok &= o.name != d;
      if (!ok) continue;
    }
    const Tensor* two = v.constant(g.nodes[size_t(pow)].inputs[1]);
    if (!two || two->num_elements() != 1 || two->element_as_double(0) != 2.0) continue;
    int r2 = sole_consumer(v, g, g.nodes[size_t(pow)].outputs[0], "ReduceMean");
    if (r2 < 0 || !reduces_last_axis(v, g, g.nodes[size_t(r2)], opset)) continue;
    const std::string var = g.nodes[size_t(r2)].outputs[0];
    int add_eps = sole_consumer(v, g, var, "Add");
    if (add_eps < 0) continue;
    const Tensor* eps = v.constant(other_operand(g.nodes[size_t(add_eps)], var));
    if (!is_float_const(eps) || eps->num_elements() != 1) continue;
    int sqrt = sole_consumer(v, g, g.nodes[size_t(add_eps)].outputs[0], "Sqrt");
    if (sqrt < 0 || g.nodes[size_t(div)].inputs[1] != g.nodes[size_t(sqrt)].outputs[0] ||
        !v.only_consumer(g.nodes[size_t(sqrt)].outputs[0], div))
      continue;
    const std::string normed = g.nodes[size_t(div)].outputs[0];
    int mul = sole_consumer(v, g, normed, "Mul");
    if (mul < 0) continue;
    const std::string gamma = other_operand(g.nodes[size_t(mul)], normed);
    if (!is_affine_param(v.constant(gamma))) continue;
    const std::string scaled = g.nodes[size_t(mul)].outputs[0];
    int add_beta = sole_consumer(v, g, scaled, "Add");
    if (add_beta < 0) continue;
    const std::string beta = other_operand(g.nodes[size_t(add_beta)], scaled);
    const Tensor* gt = v.constant(gamma);
    const Tensor* bt = v.constant(beta);
    if (!is_affine_param(bt) || bt->shape() != gt->shape() || bt->dtype() != gt->dtype()) continue;

    ir::Node ln;
    ln.name = g.nodes[size_t(r1)].name + "_layernorm";
    ln.op_type = "LayerNormalization";
    ln.domain = native ? "" : kTesseraDomain;
    ln.inputs = {x, gamma, beta};
    ln.outputs = g.nodes[size_t(add_beta)].outputs;
    ir::Attribute axis;
    axis.name = "axis";
    axis.type = ir::AttrType::kInt;
    axis.i = -1;
    ir::Attribute epsilon;
    epsilon.name = "epsilon";
    epsilon.type = ir::AttrType::kFloat;
    epsilon.f = float(eps->element_as_double(0));
    ln.attributes = {axis, epsilon};
    for (int k : {r1, sub, pow, r2, add_eps, sqrt, div, mul}) dead[size_t(k)] = true;
    g.nodes[size_t(add_beta)] = std::move(ln);
    ++fused;
  }
  if (fused) {
    erase_nodes(g, dead);
    if (!native) import_tessera_domain(model);
  }
  return fused;
}

}  // namespace tessera::optimizer
