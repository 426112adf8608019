// GELU as torch exports it, element-wise nodes around an Erf or a Tanh,
// becomes one Gelu node (ai.onnx Gelu from opset 20, else the internal
// com.tessera Gelu with the same semantics):
//   exact: x * 0.5 * (1 + erf(x / sqrt(2)))
//   tanh:  x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))),
//          x^3 as Pow(x, 3) or x * x * x; Gelu approximate="tanh".
// Every constant may be either operand, and the 0.5 may multiply x, the sum
// or the product.
#include <cmath>
#include <optional>

#include "optimizer/def_use.hpp"
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

// True when `value` is a float scalar constant near `want`.
bool is_const(const DefUse& v, const std::string& value, double want) {
  const Tensor* c = v.constant(value);
  return is_float_tensor(c) && near(c, want);
}

// The operand of binary `n` beside a float constant near `want` (either
// order), or "".
std::string beside_const(const DefUse& v, const ir::Node& n, double want) {
  if (n.inputs.size() != 2) return "";
  for (int k = 0; k < 2; ++k)
    if (is_const(v, n.inputs[size_t(k)], want)) return n.inputs[size_t(1 - k)];
  return "";
}

// A node of the pattern: ai.onnx `op_type` producing `value`, read only by
// node `reader`. Its index, or -1.
int inner_node(const DefUse& v, const ir::Graph& g, const std::string& value, int reader,
               const char* op_type) {
  const int p = producer_of(v, g, value, op_type);
  return p >= 0 && v.only_consumer(value, reader) ? p : -1;
}

// x of the Erf's argument x / sqrt(2) or x * (1 / sqrt(2)); the nodes in `nodes`.
std::string erf_argument(const DefUse& v, const ir::Graph& g, int erf, std::vector<int>& nodes) {
  const std::string& arg = g.nodes[size_t(erf)].inputs[0];
  int d = inner_node(v, g, arg, erf, "Div");
  if (d >= 0) {
    const ir::Node& div = g.nodes[size_t(d)];
    if (div.inputs.size() != 2 || !is_const(v, div.inputs[1], std::sqrt(2.0))) return "";
    nodes.push_back(d);
    return div.inputs[0];
  }
  d = inner_node(v, g, arg, erf, "Mul");
  if (d < 0) return "";
  std::string x = beside_const(v, g.nodes[size_t(d)], 1 / std::sqrt(2.0));
  if (!x.empty()) nodes.push_back(d);
  return x;
}

// A scalar constant 3 of a float or integer type (Pow's exponent).
bool is_cube_exponent(const Tensor* e) {
  if (!e || e->num_elements() != 1) return false;
  if (is_float_tensor(e)) return near(e, 3.0);
  if (e->dtype() == DataType::kInt64) return e->data<int64_t>()[0] == 3;
  return e->dtype() == DataType::kInt32 && e->data<int32_t>()[0] == 3;
}

// x when `value` is x^3 as Pow(x, 3), (x * x) * x or x * (x * x), produced
// for node `reader` only; the nodes in `nodes`.
std::string cube_of(const DefUse& v, const ir::Graph& g, const std::string& value, int reader,
                    std::vector<int>& nodes) {
  int p = inner_node(v, g, value, reader, "Pow");
  if (p >= 0) {
    const ir::Node& pow = g.nodes[size_t(p)];
    const Tensor* e = pow.inputs.size() == 2 ? v.constant(pow.inputs[1]) : nullptr;
    if (!is_cube_exponent(e)) return "";
    nodes.push_back(p);
    return pow.inputs[0];
  }
  p = inner_node(v, g, value, reader, "Mul");
  if (p < 0) return "";
  const ir::Node& outer = g.nodes[size_t(p)];
  for (int k = 0; k < 2 && outer.inputs.size() == 2; ++k) {
    const std::string& sq = outer.inputs[size_t(k)];
    const std::string& x = outer.inputs[size_t(1 - k)];
    const int s = inner_node(v, g, sq, p, "Mul");
    if (s < 0) continue;
    const ir::Node& sqn = g.nodes[size_t(s)];
    if (sqn.inputs.size() == 2 && sqn.inputs[0] == x && sqn.inputs[1] == x) {
      nodes.insert(nodes.end(), {p, s});
      return x;
    }
  }
  return "";
}

// x of the Tanh's argument sqrt(2/pi) * (x + 0.044715 * x^3); the nodes in `nodes`.
std::string tanh_argument(const DefUse& v, const ir::Graph& g, int tanh, std::vector<int>& nodes) {
  const int s = inner_node(v, g, g.nodes[size_t(tanh)].inputs[0], tanh, "Mul");
  if (s < 0) return "";
  const std::string sum = beside_const(v, g.nodes[size_t(s)], 0.7978845608028654);  // sqrt(2/pi)
  const int a = sum.empty() ? -1 : inner_node(v, g, sum, s, "Add");
  if (a < 0) return "";
  const ir::Node& add = g.nodes[size_t(a)];
  if (add.inputs.size() != 2) return "";
  for (int k = 0; k < 2; ++k) {
    const std::string& term = add.inputs[size_t(k)];
    const std::string& x = add.inputs[size_t(1 - k)];
    const int m = inner_node(v, g, term, a, "Mul");
    if (m < 0) continue;
    const std::string cube = beside_const(v, g.nodes[size_t(m)], 0.044715);
    std::vector<int> cube_nodes;
    if (cube.empty() || cube_of(v, g, cube, m, cube_nodes) != x) continue;
    nodes.insert(nodes.end(), {s, a, m});
    nodes.insert(nodes.end(), cube_nodes.begin(), cube_nodes.end());
    return x;
  }
  return "";
}

// The outer 0.5 * x * (1 + act) after activation node `act`: (x * 0.5) * s,
// (x * s) * 0.5 or (s * 0.5) * x with s = 1 + act. Appends the nodes to
// `nodes`; returns the last one (whose output the Gelu takes), or -1.
int outer_product(const DefUse& v, const ir::Graph& g, int act, const std::string& x,
                  std::vector<int>& nodes) {
  const std::string& y = g.nodes[size_t(act)].outputs[0];
  const int a = sole_consumer(v, g, y, "Add");
  if (a < 0 || !is_const(v, other_operand(g.nodes[size_t(a)], y), 1.0)) return -1;
  const std::string& sum = g.nodes[size_t(a)].outputs[0];
  const int m1 = sole_consumer(v, g, sum, "Mul");
  if (m1 < 0) return -1;
  const std::string partner = other_operand(g.nodes[size_t(m1)], sum);
  if (partner.empty()) return -1;
  nodes.insert(nodes.end(), {a, m1});
  if (partner == x || is_const(v, partner, 0.5)) {
    // (x * s) * 0.5 or (s * 0.5) * x: the second Mul takes what is missing.
    const std::string& prod = g.nodes[size_t(m1)].outputs[0];
    const int m2 = sole_consumer(v, g, prod, "Mul");
    if (m2 < 0) return -1;
    const std::string rest = other_operand(g.nodes[size_t(m2)], prod);
    if (partner == x ? !is_const(v, rest, 0.5) : rest != x) return -1;
    nodes.push_back(m2);
    return m2;
  }
  // (x * 0.5) * s
  const int h = inner_node(v, g, partner, m1, "Mul");
  if (h < 0 || other_operand(g.nodes[size_t(h)], x).empty() ||
      !is_const(v, other_operand(g.nodes[size_t(h)], x), 0.5))
    return -1;
  nodes.push_back(h);
  return m1;
}

}  // namespace

size_t fuse_gelu(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  const bool native = model.opset("") >= 20;
  size_t fused = 0;
  for (int e = 0; e < int(g.nodes.size()); ++e) {
    const ir::Node& act = g.nodes[size_t(e)];
    if (!ir::is_onnx_domain(act.domain) || act.inputs.size() != 1) continue;
    const bool tanh = act.op_type == "Tanh";
    if (!tanh && act.op_type != "Erf") continue;
    std::vector<int> pattern = {e};
    const std::string x = tanh ? tanh_argument(v, g, e, pattern) : erf_argument(v, g, e, pattern);
    if (x.empty()) continue;
    const int last = outer_product(v, g, e, x, pattern);
    if (last < 0) continue;
    bool taken = false;
    for (int k : pattern) taken |= dead[size_t(k)];
    if (taken) continue;
    ir::Node gelu;
    gelu.name = act.name + "_gelu";
    gelu.op_type = "Gelu";
    gelu.domain = native ? "" : kTesseraDomain;
    gelu.inputs = {x};
    gelu.outputs = g.nodes[size_t(last)].outputs;
    if (tanh) {
      ir::Attribute approx;
      approx.name = "approximate";
      approx.type = ir::AttrType::kString;
      approx.s = "tanh";
      gelu.attributes = {approx};
    }
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
