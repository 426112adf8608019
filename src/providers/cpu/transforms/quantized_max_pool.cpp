// MaxPool(Relu(DequantizeLinear(q))) -> Relu(DequantizeLinear(MaxPool(q))):
// the pool runs on the bytes (a quarter of the memory, a vector byte max),
// and the DequantizeLinear -> Relu -> QuantizeLinear left after it becomes
// a lookup or a clamp (fuse_quantize_pairs / fuse_quantize_lookups). A
// quantized ResNet's stem has this chain.
//
// Exact: DequantizeLinear with a positive scale is non-decreasing (x - z is
// exact in float, and rounding its product with s > 0 keeps the order), as
// is Relu, so the largest of the dequantized values is the dequantized
// largest byte, provided every window holds at least one element of the
// image (a window only of padding would be the lowest float in one order
// and the lowest byte, dequantized, in the other): pads smaller than the
// kernel, dilation 1 and ceil_mode 0 guarantee that.
#include <optional>

#include "ops/schema.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"
#include "providers/cpu/transforms/quant_match.hpp"

namespace tessera::cpu {

using namespace tessera::optimizer;

namespace {

// A MaxPool whose every window holds an element of the image, without the
// Indices output.
bool windows_hold_the_image(const ir::Node& mp) {
  if (mp.outputs.size() > 1 && !mp.outputs[1].empty()) return false;
  if (!ops::attr_is_default(mp, "ceil_mode") || !ints_all_or_absent(mp, "dilations", 1))
    return false;
  const ir::Attribute* k = mp.attr("kernel_shape");
  if (!k || k->ints.empty()) return false;
  const std::string pad_mode = mp.attr("auto_pad") ? mp.attr("auto_pad")->s : "NOTSET";
  if (pad_mode == "VALID") return true;
  if (pad_mode != "NOTSET") return false;
  if (const ir::Attribute* pads = mp.attr("pads")) {
    if (pads->ints.size() != 2 * k->ints.size()) return false;
    for (size_t i = 0; i < pads->ints.size(); ++i)
      if (pads->ints[i] < 0 || pads->ints[i] >= k->ints[i % k->ints.size()]) return false;
  }
  return true;
}

}  // namespace

size_t pool_quantized_values(ir::Model& model, ir::Graph& g) {
  if (model.opset("") < 12) return 0;            // MaxPool on 8-bit tensors
  std::optional<DefUse> view(std::in_place, g);  // rebuilt after each rewrite
  size_t moved = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const DefUse& v = *view;
    ir::Node& mp = g.nodes[size_t(i)];
    if (!ir::is_onnx_domain(mp.domain) || mp.op_type != "MaxPool" || mp.inputs.empty() ||
        !windows_hold_the_image(mp))
      continue;
    std::string in = mp.inputs[0];
    const int relu = producer_of(v, g, in, "Relu");
    if (relu >= 0) {
      if (!v.only_consumer(in, i)) continue;
      in = g.nodes[size_t(relu)].inputs[0];
    }
    const int dq = producer_of(v, g, in, "DequantizeLinear");
    const Tensor *s = nullptr, *z = nullptr;
    if (dq < 0 || !plain_dequantize(v, g.nodes[size_t(dq)], &s, &z) ||
        !v.only_consumer(in, relu >= 0 ? relu : i))
      continue;
    // Rewire: q -> MaxPool -> pooled -> DequantizeLinear [-> Relu] -> the
    // MaxPool's old output; the nodes swap places so the order stays
    // topological (the pool first, in the DequantizeLinear's slot).
    ir::Node& d = g.nodes[size_t(dq)];
    const std::string pooled = fresh_name(g, mp.outputs[0] + "_quantized");
    const std::string out = mp.outputs[0];
    ir::Node pool = mp, deq = d;
    pool.inputs[0] = d.inputs[0];
    pool.outputs = {pooled};
    deq.inputs[0] = pooled;
    if (relu >= 0) {
      ir::Node act = g.nodes[size_t(relu)];
      deq.outputs = {act.inputs[0]};
      act.outputs = {out};
      g.nodes[size_t(dq)] = std::move(pool);
      g.nodes[size_t(relu)] = std::move(deq);
      g.nodes[size_t(i)] = std::move(act);
    } else {
      deq.outputs = {out};
      g.nodes[size_t(dq)] = std::move(pool);
      g.nodes[size_t(i)] = std::move(deq);
    }
    ++moved;
    view.emplace(g);
  }
  return moved;
}

}  // namespace tessera::cpu
