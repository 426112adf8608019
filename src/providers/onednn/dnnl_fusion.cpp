#include "providers/onednn/dnnl_fusion.hpp"

#include <algorithm>
#include <set>

#include "ep/node_groups.hpp"

namespace tessera::onednn {

namespace {

// Activations whose oneDNN eltwise algorithm is also a valid post-op; the
// provider's own claim check still decides (e.g. Clip bounds must be constants).
const std::set<std::string> kFusableActivations = {"Relu", "LeakyRelu", "Elu",       "Sigmoid",
                                                   "Tanh", "Clip",      "HardSwish", "Softplus",
                                                   "Mish", "Gelu",      "Abs"};

// Type inference gives element types but rarely shapes of intermediate
// values, so the residual's shape is checked against what is known of the
// Conv output (batch from X, channels from W) and the rest at run time, where
// a side smaller than the output is broadcast (dnnl_conv.cpp). A side that is
// known to be larger, or to differ in a dim, is not fused.
// The value fixed for the session (an initializer that is not also a graph
// input), as KernelInfo::constant_input expects, or nullptr.
const Tensor* session_constant(const ir::Graph& g, const std::string& name) {
  if (name.empty()) return nullptr;
  auto it = g.initializers.find(name);
  if (it == g.initializers.end() || g.find_input(name)) return nullptr;
  return &it->second;
}

bool side_fits(const ep::GraphView& view, const ir::Node& conv, const ir::TypeInfo* side) {
  if (!side || !side->is_tensor() || side->elem_type != DataType::kFloat) return false;
  if (!side->shape) return true;
  const auto* x = view.type_of(conv.inputs[0]);
  const auto* w = view.type_of(conv.inputs[1]);
  size_t rank = x && x->shape ? x->shape->size() : w && w->shape ? w->shape->size() : 0;
  if (rank == 0) return true;
  if (side->shape->size() > rank) return false;
  std::vector<ir::Dim> out(rank);  // unknown unless set
  if (x && x->shape) out[0] = (*x->shape)[0];
  if (w && w->shape && !w->shape->empty()) out[1] = (*w->shape)[0];
  if (const Tensor* wc = session_constant(*view.graph, conv.inputs[1]); wc && wc->rank() > 0)
    out[1].value = wc->shape()[0];
  size_t off = rank - side->shape->size();  // right-aligned, as in broadcasting
  for (size_t i = 0; i < side->shape->size(); ++i) {
    const ir::Dim& s = (*side->shape)[i];
    const ir::Dim& o = out[off + i];
    if (s.value && *s.value != 1 && o.value && *s.value != *o.value) return false;
  }
  return true;
}

std::vector<const Tensor*> constants_of(const ir::Graph& g, const ir::Node& n) {
  std::vector<const Tensor*> out;
  for (const auto& in : n.inputs) out.push_back(session_constant(g, in));
  return out;
}

// Holds its own copies of the nodes it was made from, so the kernel does not
// depend on the graph's node storage.
class FusedConvKernel final : public ep::OpKernel {
 public:
  FusedConvKernel(ir::Node conv, int64_t opset, std::vector<const Tensor*> constants,
                  const EnvPtr& env, ConvFusion fusion)
      : conv_(std::move(conv)),
        inner_(make_conv_kernel(ep::KernelInfo(conv_, opset, {}, {}, std::move(constants)), env,
                                std::move(fusion))) {}
  void compute(ep::KernelContext& ctx) const override { inner_->compute(ctx); }

 private:
  ir::Node conv_;
  std::unique_ptr<ep::OpKernel> inner_;
};

[[noreturn]] void bad_group(const ep::FusedGroup& g, const std::string& why) {
  fail(ErrorCode::kEPFail, "DnnlExecutionProvider: fused group ", g.node.name,
       " is not a Conv chain it can compile: ", why);
}

int input_index(const ep::FusedGroup& g, const std::string& name) {
  auto it = std::find(g.node.inputs.begin(), g.node.inputs.end(), name);
  if (it == g.node.inputs.end()) bad_group(g, "value '" + name + "' is not among its inputs");
  return int(it - g.node.inputs.begin());
}

}  // namespace

bool is_fusable_activation(const ir::Node& node) {
  return (node.domain.empty() || node.domain == "ai.onnx") &&
         kFusableActivations.count(node.op_type) > 0 && node.outputs.size() == 1;
}

ConvChainFinder::ConvChainFinder(const ep::GraphView& view, std::function<bool(size_t)> claimable)
    : view_(view), claimable_(std::move(claimable)) {
  const ir::Graph& g = *view.graph;
  readers_.resize(g.nodes.size());
  auto preds = ep::node_predecessors(g);
  for (size_t i = 0; i < preds.size(); ++i)
    for (size_t p : preds[i]) readers_[p].push_back(i);
}

std::optional<size_t> ConvChainFinder::sole_reader(size_t node) const {
  const ir::Graph& g = *view_.graph;
  const ir::Node& n = g.nodes[node];
  if (n.outputs.size() != 1 || n.outputs[0].empty() || readers_[node].size() != 1)
    return std::nullopt;
  const std::string& out = n.outputs[0];
  for (const auto& o : g.outputs)
    if (o.name == out) return std::nullopt;
  size_t r = readers_[node][0];
  const auto& ins = g.nodes[r].inputs;
  // Read once, directly (a subgraph reader is no Add or activation anyway).
  if (std::count(ins.begin(), ins.end(), out) != 1) return std::nullopt;
  return r;
}

bool ConvChainFinder::add_fits(size_t conv, size_t prev, size_t add, std::string* side) const {
  const ir::Node& a = view_.graph->nodes[add];
  if (a.op_type != "Add" || !(a.domain.empty() || a.domain == "ai.onnx") || a.inputs.size() != 2 ||
      a.outputs.size() != 1 || view_.opset(a) < 7)
    return false;
  const std::string& mine = view_.graph->nodes[prev].outputs[0];
  const std::string& other = a.inputs[0] == mine ? a.inputs[1] : a.inputs[0];
  if (other.empty() || other == mine) return false;
  if (!side_fits(view_, view_.graph->nodes[conv], view_.type_of(other))) return false;
  *side = other;
  return true;
}

ConvChain ConvChainFinder::find(size_t conv) const {
  ConvChain chain{{conv}, ""};
  size_t cur = conv;
  auto next = sole_reader(cur);
  std::string side;
  if (next && claimable_(*next) && add_fits(conv, cur, *next, &side)) {
    chain.nodes.push_back(*next);
    chain.side = side;
    cur = *next;
    next = sole_reader(cur);
  }
  if (next && claimable_(*next)) {
    const ir::Node& act = view_.graph->nodes[*next];
    if (is_fusable_activation(act) && act.inputs[0] == view_.graph->nodes[cur].outputs[0])
      chain.nodes.push_back(*next);
  }
  return chain;
}

std::unique_ptr<ep::OpKernel> compile_conv_chain(const ep::GraphView& view,
                                                 const ep::FusedGroup& group, const EnvPtr& env) {
  const ir::Graph& g = *view.graph;
  if (group.nodes.empty()) bad_group(group, "it has no nodes");
  const ir::Node& conv = g.nodes[group.nodes[0]];
  if (conv.op_type != "Conv") bad_group(group, "it does not start with a Conv");
  ConvFusion f;
  f.x = input_index(group, conv.inputs.at(0));
  f.w = input_index(group, conv.inputs.at(1));
  f.b = conv.inputs.size() > 2 && !conv.inputs[2].empty() ? input_index(group, conv.inputs[2]) : -1;
  std::string prev = conv.outputs.at(0);
  for (size_t k = 1; k < group.nodes.size(); ++k) {
    const ir::Node& n = g.nodes[group.nodes[k]];
    if (n.inputs.empty() || n.outputs.size() != 1) bad_group(group, n.describe() + " is not unary");
    if (n.op_type == "Add" && f.side < 0 && f.post.empty()) {
      const std::string& other = n.inputs[0] == prev ? n.inputs.at(1) : n.inputs[0];
      f.side = input_index(group, other);
      f.post.push_back({true});
    } else if (is_fusable_activation(n) && n.inputs[0] == prev) {
      ep::KernelInfo info(n, view.opset(n), {}, {}, constants_of(g, n));
      f.post.push_back({false, eltwise_params(info)});
    } else {
      bad_group(group, n.describe() + " cannot follow the Conv here");
    }
    prev = n.outputs[0];
  }
  f.in_primitive = env->post_ops_in_conv;
  if (group.node.outputs != std::vector<std::string>{prev})
    bad_group(group, "its only output must be '" + prev + "'");
  return std::make_unique<FusedConvKernel>(conv, view.opset(conv), constants_of(g, conv), env,
                                           std::move(f));
}

}  // namespace tessera::onednn
