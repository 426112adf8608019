// MatMul(A, B) + C -> Gemm(A, B, C) for 2-D A and a constant 2-D B: one
// kernel call instead of two passes over the product. For the CPU alone, the
// same with A of any rank and a bias [N] -> com.tessera MatMulBias, which
// adds the bias (and an activation after it) to each GEMM tile in cache:
// transformers' projections take [batch, tokens, K] activations.
#include <functional>
#include <set>

#include "optimizer/activation_match.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// The rank of a value when it is known without running the graph.
std::optional<size_t> known_rank(const DefUse& v, const ir::Graph& g, const std::string& name,
                                 int depth = 0) {
  if (const Tensor* t = v.constant(name)) return t->rank();
  if (const ir::ValueInfo* vi = g.find_value_info(name))
    if (vi->type.is_tensor() && vi->type.shape) return vi->type.shape->size();
  int p = v.producer(name);
  if (p < 0 || depth > 32) return std::nullopt;
  const ir::Node& n = g.nodes[size_t(p)];
  if (!ir::is_onnx_domain(n.domain) || n.inputs.empty()) return std::nullopt;
  if (n.op_type == "Gemm" || n.op_type == "Flatten") return 2;
  if (n.op_type == "MatMul" && n.inputs.size() == 2) {
    auto a = known_rank(v, g, n.inputs[0], depth + 1), b = known_rank(v, g, n.inputs[1], depth + 1);
    if (a == 2u && b == 2u) return 2;
    return std::nullopt;
  }
  static const std::set<std::string> kSameShape = {
      "Relu", "Sigmoid", "Tanh", "Gelu", "Erf", "LeakyRelu", "Clip", "Softmax", "Identity"};
  if (kSameShape.count(n.op_type)) return known_rank(v, g, n.inputs[0], depth + 1);
  return std::nullopt;
}

// Node i when it is a live ai.onnx MatMul by a constant 2-D B whose only
// reader is a two-input Add of it and a constant: B, the Add's index, and
// the constant's name and value.
struct BiasedMatMul {
  const Tensor* b;
  int add;
  std::string bias_name;
  const Tensor* bias;
};
std::optional<BiasedMatMul> biased_matmul(const DefUse& v, const ir::Graph& g, int i,
                                          const std::vector<bool>& dead) {
  const ir::Node& mm = g.nodes[size_t(i)];
  if (dead[size_t(i)] || !ir::is_onnx_domain(mm.domain) || mm.op_type != "MatMul" ||
      mm.inputs.size() != 2 || mm.outputs.size() != 1)
    return std::nullopt;
  const Tensor* b = v.constant(mm.inputs[1]);
  if (!b || b->rank() != 2) return std::nullopt;
  const int j = sole_consumer(v, g, mm.outputs[0], "Add");
  if (j < 0 || dead[size_t(j)]) return std::nullopt;
  const ir::Node& add = g.nodes[size_t(j)];
  if (add.inputs.size() != 2 || add.outputs.size() != 1) return std::nullopt;
  const std::string& other = add.inputs[0] == mm.outputs[0] ? add.inputs[1] : add.inputs[0];
  const Tensor* c = v.constant(other);
  if (!c) return std::nullopt;
  return BiasedMatMul{b, j, other, c};
}

}  // namespace

size_t fuse_matmul_add(ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    auto m = biased_matmul(v, g, i, dead);
    if (!m || (m->b->dtype() != DataType::kFloat && m->b->dtype() != DataType::kDouble)) continue;
    const ir::Node& mm = g.nodes[size_t(i)];
    if (known_rank(v, g, mm.inputs[0]) != 2u) continue;
    ir::Node& add = g.nodes[size_t(m->add)];
    const Tensor* b = m->b;
    const Tensor* c = m->bias;
    const std::string other = m->bias_name;
    // The bias must broadcast only along M: [N] or [1, N] (Gemm's C is
    // unidirectional, and M is not known here).
    const int64_t n_dim = b->shape()[1];
    if (c->dtype() != b->dtype() ||
        !((c->rank() == 1 && c->shape()[0] == n_dim) ||
          (c->rank() == 2 && c->shape()[0] == 1 && c->shape()[1] == n_dim)))
      continue;
    ir::Node gemm;
    gemm.name = mm.name + "_gemm";
    gemm.op_type = "Gemm";
    gemm.inputs = {mm.inputs[0], mm.inputs[1], other};
    gemm.outputs = add.outputs;
    add = std::move(gemm);  // at the Add's position: all its inputs exist by then
    dead[size_t(i)] = true;
    ++fused;
  }
  if (fused) erase_nodes(g, dead);
  return fused;
}

size_t fuse_matmul_bias(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  const int64_t opset = model.opset("");
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    auto m = biased_matmul(v, g, i, dead);
    // Only a float bias [N]: it broadcasts along every leading axis of the
    // product without changing its shape.
    if (!m || m->b->dtype() != DataType::kFloat || m->bias->dtype() != DataType::kFloat ||
        m->bias->rank() != 1 || m->bias->shape()[0] != m->b->shape()[1])
      continue;
    const ir::Node& mm = g.nodes[size_t(i)];
    const int j = m->add;
    const ir::Node& add = g.nodes[size_t(j)];
    const std::string& other = m->bias_name;
    ir::Node f;
    f.name = mm.name + "_bias";
    f.op_type = "MatMulBias";
    f.domain = kTesseraDomain;
    f.inputs = {mm.inputs[0], mm.inputs[1], other};
    f.outputs = add.outputs;
    int last = j;
    if (auto act = match_activation(v, g, add.outputs[0], opset, /*extended=*/true)) {
      last = act->nodes.back();
      f.outputs = g.nodes[size_t(last)].outputs;
      f.attributes = act->attrs;
      for (int k : act->nodes)
        if (k != last) dead[size_t(k)] = true;
    }
    if (last != j) dead[size_t(j)] = true;
    g.nodes[size_t(last)] = std::move(f);  // at the last replaced node: every input exists by then
    dead[size_t(i)] = true;
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::optimizer
