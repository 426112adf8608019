// A blocked 1x1 NchwcConv (stride 1, no pads, no residual) whose only reader
// is a depthwise 3x3 NchwcConv becomes one com.tessera NchwcExpandDepthwise
// (linalg/nchwc_fused.hpp): the expansion's output, the widest tensor of a
// MobileNetV2 block, then stays in L2 band by band instead of going to
// memory and back. Runs after choose_conv_layout, on its nodes; the fused
// node takes the depthwise's place and is named "<expand>+<depthwise>".
#include <algorithm>

#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"

namespace tessera::cpu {

using namespace tessera::optimizer;

namespace {

bool is_nchwc_conv(const ir::Node& n) {
  return n.domain == kTesseraDomain && n.op_type == "NchwcConv" && n.outputs.size() == 1 &&
         n.inputs.size() >= 2 && n.inputs.size() <= 3 && attr_int(n, "input_layout", 1) == 1 &&
         !n.attr("algorithm");
}

bool explicit_pads(const ir::Node& n) {
  const ir::Attribute* a = n.attr("auto_pad");
  return !a || a->s.empty() || a->s == "NOTSET";
}

// `n`'s attribute `name` renamed to `prefix` + name, when present.
void copy_attr(const ir::Node& n, const char* name, const std::string& as, ir::Node& to) {
  if (const ir::Attribute* a = n.attr(name)) {
    ir::Attribute c = *a;
    c.name = as;
    to.attributes.push_back(c);
  }
}

}  // namespace

size_t fuse_expand_depthwise(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& e = g.nodes[size_t(i)];
    if (dead[size_t(i)] || !is_nchwc_conv(e) || attr_int(e, "group", 1) != 1) continue;
    const Tensor* we = v.constant(e.inputs[1]);
    if (!we || we->dtype() != DataType::kFloat || we->rank() != 4 || we->shape()[2] != 1 ||
        we->shape()[3] != 1)
      continue;
    if (!ints_all_or_absent(e, "strides", 1) || !ints_all_or_absent(e, "pads", 0) ||
        !ints_all_or_absent(e, "dilations", 1) || !explicit_pads(e))
      continue;
    const std::vector<int>& readers = v.consumers(e.outputs[0]);
    if (readers.size() != 1 || !v.only_consumer(e.outputs[0], readers[0])) continue;
    const int j = readers[0];
    const ir::Node& d = g.nodes[size_t(j)];
    const int64_t E = we->shape()[0];
    if (dead[size_t(j)] || !is_nchwc_conv(d) || d.inputs[0] != e.outputs[0] ||
        attr_int(d, "group", 1) != E)
      continue;
    const Tensor* wd = v.constant(d.inputs[1]);
    if (!wd || wd->dtype() != DataType::kFloat || wd->shape() != Shape{E, 1, 3, 3}) continue;
    if (!ints_all_or_absent(d, "dilations", 1) || !explicit_pads(d)) continue;
    if (const ir::Attribute* p = d.attr("pads");
        p && std::any_of(p->ints.begin(), p->ints.end(), [](int64_t x) { return x > 2; }))
      continue;  // (the fused kernel takes pads up to 2)
    ir::Node f;
    f.name = e.name + "+" + d.name;
    f.op_type = "NchwcExpandDepthwise";
    f.domain = kTesseraDomain;
    f.inputs = {e.inputs[0], e.inputs[1], e.inputs.size() > 2 ? e.inputs[2] : std::string(),
                d.inputs[1], d.inputs.size() > 2 ? d.inputs[2] : std::string()};
    f.outputs = d.outputs;
    copy_attr(e, "activation", "activation", f);
    copy_attr(e, "activation_params", "activation_params", f);
    copy_attr(d, "activation", "dw_activation", f);
    copy_attr(d, "activation_params", "dw_activation_params", f);
    for (const char* a : {"strides", "pads", "kernel_shape"}) copy_attr(d, a, a, f);
    g.nodes[size_t(j)] = f;
    dead[size_t(i)] = true;
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::cpu
