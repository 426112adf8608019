// MatMulInteger -> Cast(float) -> Mul(scale) (-> Add(bias)) -> com.tessera
// MatMulIntegerToFloat: the graph a dynamically quantized MatMul becomes
// (ONNX Runtime's quantize_dynamic writes it), run as one packed integer GEMM
// whose tiles are scaled (and biased) on their way out, instead of an int32
// product and three passes over it.
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"

namespace tessera::cpu {

using namespace tessera::optimizer;

namespace {

// Whether `value` is a float32 of rank 0 or 1 whatever the inputs: a
// constant, DynamicQuantizeLinear's scale (output 1), or a Mul of two such.
// (Mul's broadcast of rank-0/1 operands stays rank 0/1, so the fused op's
// output keeps the product's shape.)
bool small_float(const DefUse& v, const ir::Graph& g, const std::string& value, int depth = 0) {
  if (const Tensor* t = v.constant(value)) return t->dtype() == DataType::kFloat && t->rank() <= 1;
  const int p = v.producer(value);
  if (p < 0 || depth > 4) return false;
  const ir::Node& n = g.nodes[size_t(p)];
  if (!ir::is_onnx_domain(n.domain)) return false;
  if (n.op_type == "DynamicQuantizeLinear") return n.outputs.size() > 1 && n.outputs[1] == value;
  if (n.op_type == "Mul" && n.inputs.size() == 2)
    return small_float(v, g, n.inputs[0], depth + 1) && small_float(v, g, n.inputs[1], depth + 1);
  return false;
}

// Whether MatMulInteger's zero point (input i) is one the packed GEMM takes
// whatever the run: absent, a constant of rank 0 or 1, or
// DynamicQuantizeLinear's zero point (output 2, a scalar).
bool simple_zero_point(const DefUse& v, const ir::Graph& g, const ir::Node& n, size_t i) {
  if (n.inputs.size() <= i || n.inputs[i].empty()) return true;
  const std::string& z = n.inputs[i];
  if (const Tensor* t = v.constant(z)) return t->rank() <= 1;
  const int p = v.producer(z);
  if (p < 0) return false;
  const ir::Node& q = g.nodes[size_t(p)];
  return ir::is_onnx_domain(q.domain) && q.op_type == "DynamicQuantizeLinear" &&
         q.outputs.size() > 2 && q.outputs[2] == z;
}

// The other input of a two-input node besides `mine`; "" when both are it.
std::string other_input(const ir::Node& n, const std::string& mine) {
  if (n.inputs.size() != 2) return "";
  if (n.inputs[0] == mine) return n.inputs[1] == mine ? "" : n.inputs[1];
  return n.inputs[1] == mine ? n.inputs[0] : "";
}

}  // namespace

size_t fuse_matmul_integer_to_float(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& mi = g.nodes[size_t(i)];
    if (dead[size_t(i)] || !ir::is_onnx_domain(mi.domain) || mi.op_type != "MatMulInteger" ||
        mi.inputs.size() < 2 || mi.outputs.size() != 1 || !simple_zero_point(v, g, mi, 2) ||
        !simple_zero_point(v, g, mi, 3))
      continue;
    const int c = sole_consumer(v, g, mi.outputs[0], "Cast");
    if (c < 0 || dead[size_t(c)] ||
        attr_int(g.nodes[size_t(c)], "to", 0) != int64_t(DataType::kFloat))
      continue;
    const ir::Node& cast = g.nodes[size_t(c)];
    const int m = sole_consumer(v, g, cast.outputs[0], "Mul");
    if (m < 0 || dead[size_t(m)]) continue;
    const ir::Node& mul = g.nodes[size_t(m)];
    const std::string scale = other_input(mul, cast.outputs[0]);
    if (scale.empty() || !small_float(v, g, scale)) continue;
    // The bias, when the product's only reader adds a constant float vector
    // of the product's width (known from a constant B).
    std::string bias;
    int last = m;
    const Tensor* b = v.constant(mi.inputs[1]);
    if (const int a = sole_consumer(v, g, mul.outputs[0], "Add");
        a >= 0 && !dead[size_t(a)] && b && b->rank() == 2) {
      const std::string other = other_input(g.nodes[size_t(a)], mul.outputs[0]);
      const Tensor* t = other.empty() ? nullptr : v.constant(other);
      if (t && t->dtype() == DataType::kFloat && t->rank() == 1 && t->shape()[0] == b->shape()[1]) {
        bias = other;
        last = a;
      }
    }
    ir::Node f;
    f.name = mi.name + "_to_float";
    f.domain = kTesseraDomain;
    f.op_type = "MatMulIntegerToFloat";
    f.inputs = {mi.inputs[0], mi.inputs[1], mi.inputs.size() > 2 ? mi.inputs[2] : "",
                mi.inputs.size() > 3 ? mi.inputs[3] : "", scale};
    if (!bias.empty()) f.inputs.push_back(bias);
    f.outputs = g.nodes[size_t(last)].outputs;
    // At the last node's position: the scale (and everything else) exists by then.
    g.nodes[size_t(last)] = std::move(f);
    for (int d : {i, c, m})
      if (d != last) dead[size_t(d)] = true;
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::cpu
