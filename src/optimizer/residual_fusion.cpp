// Conv + Add (the residual connection of ResNet-style blocks), optionally
// followed by an activation, becomes one com.tessera FusedConv whose fourth
// input is the residual: the Conv kernel adds it to each output tile while the
// tile is in cache, instead of an Add node reading two tensors and writing a
// third. The fused node takes the place of the last node it replaces, so every
// input it reads is already computed there.
#include <algorithm>

#include "optimizer/activation_match.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

size_t fuse_conv_residual(ir::Model& model, ir::Graph& g, bool extended) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  const int64_t opset = model.opset("");
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& conv = g.nodes[size_t(i)];
    if (dead[size_t(i)] || !ir::is_onnx_domain(conv.domain) || conv.op_type != "Conv" ||
        conv.outputs.size() != 1 || conv.inputs.size() < 2)
      continue;
    // The fused kernel's types (X and Z follow the weights' by the ops' constraints).
    const Tensor* w = v.constant(conv.inputs[1]);
    if (!w || !is_float_or_double(w->dtype())) continue;
    const std::string& y = conv.outputs[0];
    const int a = sole_consumer(v, g, y, "Add");
    if (a < 0 || dead[size_t(a)]) continue;
    const ir::Node& add = g.nodes[size_t(a)];
    if (add.inputs.size() != 2 || add.outputs.size() != 1 || add.inputs[0] == add.inputs[1])
      continue;
    const std::string& z = add.inputs[0] == y ? add.inputs[1] : add.inputs[0];
    ir::Node f = conv;
    f.op_type = "FusedConv";
    f.domain = kTesseraDomain;
    f.inputs.resize(3);  // an absent bias stays an empty (omitted) input
    f.inputs.push_back(z);
    f.outputs = add.outputs;
    int last = a;
    auto match = match_activation(v, g, add.outputs[0], opset, extended);
    if (match && std::none_of(match->nodes.begin(), match->nodes.end(),
                              [&](int k) { return bool(dead[size_t(k)]); })) {
      f.attributes.insert(f.attributes.end(), match->attrs.begin(), match->attrs.end());
      last = match->nodes.back();
      f.outputs = g.nodes[size_t(last)].outputs;
      dead[size_t(a)] = true;
      for (int k : match->nodes)
        if (k != last) dead[size_t(k)] = true;
    }
    g.nodes[size_t(last)] = std::move(f);
    dead[size_t(i)] = true;
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::optimizer
