#include "providers/cuda/matmul_epilogue.hpp"

#include <algorithm>
#include <unordered_map>

#include "ep/node_groups.hpp"

namespace tessera::cuda {

namespace {

// An initializer that is not also a graph input (fixed for the session).
const Tensor* session_constant(const ir::Graph& g, const std::string& name) {
  auto it = g.initializers.find(name);
  if (it == g.initializers.end() || g.find_input(name)) return nullptr;
  return &it->second;
}

bool is_op(const ir::Node& n, const char* op) {
  return ir::is_onnx_domain(n.domain) && n.op_type == op;
}

// The one node reading `value`, or -1 (none, several, or one node twice).
int sole_reader(const std::unordered_map<std::string, std::vector<size_t>>& readers,
                const std::string& value) {
  auto it = readers.find(value);
  return it == readers.end() || it->second.size() != 1 ? -1 : int(it->second[0]);
}

// The match starting at MatMul `m`, or none (empty nodes).
MatMulEpilogue match_at(const ep::GraphView& view, size_t m,
                        const std::unordered_map<std::string, std::vector<size_t>>& readers,
                        const std::vector<bool>& claimed) {
  const ir::Graph& g = *view.graph;
  const ir::Node& mm = g.nodes[m];
  MatMulEpilogue e;
  if (!is_op(mm, "MatMul") || mm.inputs.size() != 2 || mm.outputs.size() != 1) return e;
  const Tensor* b = session_constant(g, mm.inputs[1]);
  const ir::TypeInfo* a = view.type_of(mm.inputs[0]);
  if (!b || b->rank() != 2 || b->shape()[0] == 0 || b->shape()[1] == 0) return e;
  // A's shape may be unknown (the output of a fused op, as the SkipLayerNorm
  // before a transformer's QKV projection): the kernel takes any rank >= 1
  // and checks A's type when it runs.
  if (!a || !a->is_tensor() || (a->shape && a->shape->empty()) ||
      (a->elem_type != DataType::kUndefined && a->elem_type != b->dtype()))
    return e;
  const int add = sole_reader(readers, mm.outputs[0]);
  if (add < 0 || !claimed[size_t(add)] || !is_op(g.nodes[size_t(add)], "Add")) return e;
  const ir::Node& ad = g.nodes[size_t(add)];
  if (ad.inputs.size() != 2 || ad.outputs.size() != 1) return e;
  const std::string& bias = ad.inputs[0] == mm.outputs[0] ? ad.inputs[1] : ad.inputs[0];
  const Tensor* bt = session_constant(g, bias);
  if (!bt || bt->rank() != 1 || bt->shape()[0] != b->shape()[1] || bt->dtype() != b->dtype())
    return e;
  e.nodes = {m, size_t(add)};
  e.a = mm.inputs[0];
  e.b = mm.inputs[1];
  e.bias = bias;
  const int relu = sole_reader(readers, ad.outputs[0]);
  if (relu >= 0 && claimed[size_t(relu)] && is_op(g.nodes[size_t(relu)], "Relu")) {
    e.nodes.push_back(size_t(relu));
    e.relu = true;
  }
  // Nothing else may read what the group keeps inside: one value leaves it,
  // and it reads exactly A, B and the bias.
  auto boundary = ep::group_boundary(g, e.nodes);
  auto ins = boundary.inputs;
  std::sort(ins.begin(), ins.end());
  std::vector<std::string> want = {e.a, e.b, e.bias};
  std::sort(want.begin(), want.end());
  if (boundary.outputs.size() != 1 || ins != want) return MatMulEpilogue();
  return e;
}

}  // namespace

std::vector<MatMulEpilogue> find_matmul_epilogues(const ep::GraphView& view,
                                                  const std::vector<bool>& claimed) {
  const ir::Graph& g = *view.graph;
  std::unordered_map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs)
      if (!in.empty()) readers[in].push_back(i);
  std::vector<MatMulEpilogue> out;
  std::vector<bool> used(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!claimed[i] || used[i]) continue;
    MatMulEpilogue e = match_at(view, i, readers, claimed);
    if (e.nodes.empty()) continue;
    bool free = true;
    for (size_t n : e.nodes) free &= !used[n];
    if (!free) continue;
    for (size_t n : e.nodes) used[n] = true;
    out.push_back(std::move(e));
  }
  return out;
}

MatMulEpilogue epilogue_of_group(const ep::GraphView& view, const std::vector<size_t>& nodes) {
  std::vector<bool> claimed(view.graph->nodes.size(), false);
  for (size_t n : nodes) claimed[n] = true;
  std::unordered_map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < view.graph->nodes.size(); ++i)
    for (const auto& in : view.graph->nodes[i].inputs)
      if (!in.empty()) readers[in].push_back(i);
  std::vector<size_t> want = nodes;
  std::sort(want.begin(), want.end());
  for (size_t n : nodes) {
    MatMulEpilogue e = match_at(view, n, readers, claimed);
    std::vector<size_t> got = e.nodes;
    std::sort(got.begin(), got.end());
    if (!got.empty() && got == want) return e;
  }
  fail(ErrorCode::kInvalidArgument, "CUDAExecutionProvider: internal: a fused group of ",
       nodes.size(), " nodes is not a MatMul + bias (+ Relu)");
}

}  // namespace tessera::cuda
