// The exact GELU as torch exports it, x * 0.5 * (1 + erf(x / sqrt(2))) in
// five element-wise nodes, becomes one Gelu node (ai.onnx Gelu from opset 20,
// else the internal com.tessera Gelu with the same semantics).
#include <cmath>

#include "optimizer/graph_view.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// The operand of binary node `n` other than `value`, or "" when `value` is
// not an operand (or is both).
std::string other_operand(const ir::Node& n, const std::string& value) {
  if (n.inputs.size() != 2 || n.inputs[0] == n.inputs[1]) return "";
  if (n.inputs[0] == value) return n.inputs[1];
  if (n.inputs[1] == value) return n.inputs[0];
  return "";
}

// Gelu (native, or com.tessera's) takes every float type.
bool is_float_tensor(const Tensor* t) { return t && is_float_or_double(t->dtype()); }

}  // namespace

size_t fuse_gelu(ir::Model& model, ir::Graph& g) {
  GraphView v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  const bool native = model.opset("") >= 20;
  const double kSqrt2 = std::sqrt(2.0);
  size_t fused = 0;
  for (int e = 0; e < int(g.nodes.size()); ++e) {
    const ir::Node& erf = g.nodes[size_t(e)];
    if (!ir::is_onnx_domain(erf.domain) || erf.op_type != "Erf" || erf.inputs.size() != 1) continue;
    // x / sqrt(2) or x * (1 / sqrt(2)), feeding only the Erf.
    int d = v.producer(erf.inputs[0]);
    if (d < 0 || dead[size_t(d)] || !v.only_consumer(erf.inputs[0], e)) continue;
    const ir::Node& scale = g.nodes[size_t(d)];
    if (!ir::is_onnx_domain(scale.domain) || scale.inputs.size() != 2) continue;
    std::string x;
    if (scale.op_type == "Div") {
      const Tensor* c = v.constant(scale.inputs[1]);
      if (!is_float_tensor(c) || !near(c, kSqrt2)) continue;
      x = scale.inputs[0];
    } else if (scale.op_type == "Mul") {
      for (int k = 0; k < 2 && x.empty(); ++k) {
        const Tensor* c = v.constant(scale.inputs[size_t(k)]);
        if (is_float_tensor(c) && near(c, 1.0 / kSqrt2)) x = scale.inputs[size_t(1 - k)];
      }
    }
    if (x.empty()) continue;
    // 1 + erf(...)
    int a = sole_consumer(v, g, erf.outputs[0], "Add");
    if (a < 0) continue;
    const Tensor* one = v.constant(other_operand(g.nodes[size_t(a)], erf.outputs[0]));
    if (!is_float_tensor(one) || !near(one, 1.0)) continue;
    const std::string& sum = g.nodes[size_t(a)].outputs[0];
    int m1 = sole_consumer(v, g, sum, "Mul");
    if (m1 < 0) continue;
    std::string partner = other_operand(g.nodes[size_t(m1)], sum);
    if (partner.empty()) continue;
    std::vector<int> pattern = {d, e, a, m1};
    int last = -1;
    if (partner == x) {
      // (x * (1 + erf)) * 0.5
      const std::string& prod = g.nodes[size_t(m1)].outputs[0];
      int m2 = sole_consumer(v, g, prod, "Mul");
      if (m2 < 0) continue;
      const Tensor* half = v.constant(other_operand(g.nodes[size_t(m2)], prod));
      if (!is_float_tensor(half) || !near(half, 0.5)) continue;
      pattern.push_back(m2);
      last = m2;
    } else {
      // (x * 0.5) * (1 + erf)
      int h = producer_of(v, g, partner, "Mul");
      if (h < 0 || !v.only_consumer(partner, m1)) continue;
      const ir::Node& hn = g.nodes[size_t(h)];
      if (other_operand(hn, x).empty()) continue;
      const Tensor* half = v.constant(other_operand(hn, x));
      if (!is_float_tensor(half) || !near(half, 0.5)) continue;
      pattern.push_back(h);
      last = m1;
    }
    bool taken = false;
    for (int k : pattern) taken |= dead[size_t(k)];
    if (taken || last < 0) continue;
    ir::Node gelu;
    gelu.name = erf.name + "_gelu";
    gelu.op_type = "Gelu";
    gelu.domain = native ? "" : kTesseraDomain;
    gelu.inputs = {x};
    gelu.outputs = g.nodes[size_t(last)].outputs;
    for (int k : pattern)
      if (k != last) dead[size_t(k)] = true;
    g.nodes[size_t(last)] = std::move(gelu);
    ++fused;
  }
  if (fused) {
    erase_nodes(g, dead);
    if (!native) import_tessera_domain(model);
  }
  return fused;
}

}  // namespace tessera::optimizer
