// Pad(x) with zeros, on the spatial axes only, read by a Conv alone -> the
// Conv with those pads added to its own: the convolution reads zeros past
// its input's edges anyway, so the padded copy of the whole input (a causal
// 1-D convolution's left pad, TensorFlow exports' explicit pads) goes away.
#include <optional>
#include <vector>

#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// Integers of a constant int32 or int64 tensor.
std::optional<std::vector<int64_t>> const_ints(const Tensor* t) {
  if (!t) return std::nullopt;
  std::vector<int64_t> v(size_t(t->num_elements()));
  if (t->dtype() == DataType::kInt64)
    for (size_t k = 0; k < v.size(); ++k) v[k] = t->data<int64_t>()[k];
  else if (t->dtype() == DataType::kInt32)
    for (size_t k = 0; k < v.size(); ++k) v[k] = t->data<int32_t>()[k];
  else
    return std::nullopt;
  return v;
}

// The pads a zero-valued constant-mode Pad adds, begins then ends, per axis
// of a rank-`rank` input; nullopt when they are not constant, negative
// (a crop), or the fill is not a constant zero.
std::optional<std::vector<int64_t>> zero_pads(const DefUse& v, const ir::Node& pad, int64_t opset,
                                              size_t rank) {
  const ir::Attribute* mode = pad.attr("mode");
  if (mode && mode->s != "constant") return std::nullopt;
  std::optional<std::vector<int64_t>> pads;
  if (opset < 11) {
    const ir::Attribute* p = pad.attr(opset < 2 ? "paddings" : "pads");
    const ir::Attribute* value = pad.attr("value");
    if (!p || (value && value->f != 0.f)) return std::nullopt;
    pads = p->ints;
  } else {
    if (pad.inputs.size() < 2) return std::nullopt;
    pads = const_ints(v.constant(pad.inputs[1]));
    if (pad.inputs.size() > 2 && !pad.inputs[2].empty()) {
      const Tensor* cv = v.constant(pad.inputs[2]);
      if (!cv || cv->num_elements() > 1) return std::nullopt;
      if (cv->num_elements() == 1 && scalar_value(cv) != 0.0) return std::nullopt;
    }
  }
  if (!pads) return std::nullopt;
  std::vector<int64_t> axes;
  if (pad.inputs.size() > 3 && !pad.inputs[3].empty()) {
    auto a = const_ints(v.constant(pad.inputs[3]));
    if (!a) return std::nullopt;
    axes = *a;
  } else {
    for (size_t k = 0; k < rank; ++k) axes.push_back(int64_t(k));
  }
  const size_t na = axes.size();
  if (pads->size() != 2 * na) return std::nullopt;
  std::vector<int64_t> full(2 * rank, 0);
  for (size_t i = 0; i < na; ++i) {
    int64_t a = axes[i] < 0 ? axes[i] + int64_t(rank) : axes[i];
    if (a < 0 || a >= int64_t(rank)) return std::nullopt;
    const int64_t b = (*pads)[i], e = (*pads)[i + na];
    if (b < 0 || e < 0) return std::nullopt;
    full[size_t(a)] += b;
    full[rank + size_t(a)] += e;
  }
  return full;
}

// The Conv's spatial rank, from its constant weights or kernel_shape.
std::optional<size_t> conv_spatial_rank(const DefUse& v, const ir::Node& conv) {
  if (conv.inputs.size() > 1)
    if (const Tensor* w = v.constant(conv.inputs[1]))
      if (w->rank() >= 3) return w->rank() - 2;
  if (const ir::Attribute* ks = conv.attr("kernel_shape"))
    if (!ks->ints.empty()) return ks->ints.size();
  return std::nullopt;
}

}  // namespace

size_t fuse_pad_conv(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  const int64_t opset = model.opset("");
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& pad = g.nodes[size_t(i)];
    if (dead[size_t(i)] || !ir::is_onnx_domain(pad.domain) || pad.op_type != "Pad" ||
        pad.inputs.empty() || pad.outputs.size() != 1)
      continue;
    const int j = sole_consumer(v, g, pad.outputs[0], "Conv");
    if (j < 0 || dead[size_t(j)]) continue;
    ir::Node& conv = g.nodes[size_t(j)];
    if (conv.inputs.empty() || conv.inputs[0] != pad.outputs[0]) continue;
    const ir::Attribute* auto_pad = conv.attr("auto_pad");
    if (auto_pad && auto_pad->s != "NOTSET" && !auto_pad->s.empty()) continue;
    const auto spatial = conv_spatial_rank(v, conv);
    if (!spatial) continue;
    const size_t rank = *spatial + 2;
    const auto pads = zero_pads(v, pad, opset, rank);
    // Batch and channel axes must stay as they are.
    if (!pads || (*pads)[0] || (*pads)[1] || (*pads)[rank] || (*pads)[rank + 1]) continue;
    std::vector<int64_t> conv_pads(2 * *spatial, 0);
    if (const ir::Attribute* p = conv.attr("pads")) {
      if (p->ints.size() != conv_pads.size()) continue;
      conv_pads = p->ints;
    }
    for (size_t k = 0; k < *spatial; ++k) {
      conv_pads[k] += (*pads)[2 + k];
      conv_pads[*spatial + k] += (*pads)[rank + 2 + k];
    }
    bool set = false;
    for (auto& a : conv.attributes)
      if (a.name == "pads") {
        a.ints = conv_pads;
        set = true;
      }
    if (!set) {
      ir::Attribute a;
      a.name = "pads";
      a.type = ir::AttrType::kInts;
      a.ints = conv_pads;
      conv.attributes.push_back(std::move(a));
    }
    conv.inputs[0] = pad.inputs[0];
    dead[size_t(i)] = true;
    ++fused;
  }
  if (fused) erase_nodes(g, dead);
  return fused;
}

}  // namespace tessera::optimizer
