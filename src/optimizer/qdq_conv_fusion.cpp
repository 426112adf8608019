// DequantizeLinear -> Conv -> QuantizeLinear, the QDQ form of a statically
// quantized convolution (what ONNX Runtime's quantize_static writes by
// default), -> QLinearConv on the original 8-bit tensors:
//
//   x = DQ(xq, xs, xzp), w = DQ(wq, ws, wzp) (constants), b = DQ(bq, xs * ws)
//   (int32 constant), yq = Q(Conv(x, w, b), ys, yzp)
//   ==> yq = QLinearConv(xq, xs, xzp, wq, ws, wzp, ys, yzp, bq)
//
// The same product in integers, then one requantization, where the QDQ form
// computes it in float from the dequantized values: results agree up to float
// rounding at the requantization (an output may differ by one step where the
// float sum lands on a rounding boundary), as every runtime that runs QDQ
// models in integers accepts. Runs before constant folding, which would turn
// the weights' DequantizeLinear into float weights.
#include <cmath>

#include "core/quant_types.hpp"
#include "optimizer/graph_view.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// The DequantizeLinear producing `value` (ai.onnx, opset < 21 semantics:
// no block_size), or null.
const ir::Node* dequantize_of(const GraphView& v, const ir::Graph& g, const std::string& value) {
  const int p = producer_of(v, g, value, "DequantizeLinear");
  if (p < 0) return nullptr;
  const ir::Node& n = g.nodes[size_t(p)];
  if (n.inputs.size() < 2 || n.outputs.size() != 1 || attr_int(n, "block_size", 0) != 0)
    return nullptr;
  return &n;
}

const Tensor* input_constant(const GraphView& v, const ir::Node& n, size_t i) {
  return n.inputs.size() > i && !n.inputs[i].empty() ? v.constant(n.inputs[i]) : nullptr;
}

bool is_scalar(const Tensor* t) { return t && t->num_elements() == 1; }

}  // namespace

size_t fuse_qdq_conv(ir::Graph& g) {
  GraphView v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& conv = g.nodes[size_t(i)];
    if (dead[size_t(i)] || !ir::is_onnx_domain(conv.domain) || conv.op_type != "Conv" ||
        conv.inputs.size() < 2 || conv.outputs.size() != 1)
      continue;
    // The activation: 8-bit with a constant scalar scale and zero point.
    const ir::Node* dx = dequantize_of(v, g, conv.inputs[0]);
    if (!dx || dx->inputs.size() < 3) continue;
    const Tensor *xs = input_constant(v, *dx, 1), *xzp = input_constant(v, *dx, 2);
    if (!is_scalar(xs) || !is_scalar(xzp) || xs->dtype() != DataType::kFloat ||
        !is_8bit_integer_type(xzp->dtype()))
      continue;
    // The weights: constant 8-bit, per tensor or per output channel (axis 0).
    const ir::Node* dw = dequantize_of(v, g, conv.inputs[1]);
    if (!dw) continue;
    const Tensor *wq = input_constant(v, *dw, 0), *ws = input_constant(v, *dw, 1),
                 *wzp = input_constant(v, *dw, 2);
    if (!wq || !is_8bit_integer_type(wq->dtype()) || wq->rank() < 3 || !ws ||
        ws->dtype() != DataType::kFloat)
      continue;
    const int64_t M = wq->shape()[0];
    const bool per_channel = !is_scalar(ws);
    if (per_channel && (ws->rank() != 1 || ws->shape()[0] != M || attr_int(*dw, "axis", 1) != 0))
      continue;
    if (wzp && (wzp->dtype() != wq->dtype() || wzp->num_elements() != ws->num_elements())) continue;
    // The bias: an int32 constant whose scale is xs * ws (zero point 0).
    std::string bq_name;
    if (conv.inputs.size() > 2 && !conv.inputs[2].empty()) {
      const ir::Node* db = dequantize_of(v, g, conv.inputs[2]);
      if (!db) continue;
      const Tensor *bq = input_constant(v, *db, 0), *bs = input_constant(v, *db, 1),
                   *bzp = input_constant(v, *db, 2);
      if (!bq || bq->dtype() != DataType::kInt32 || bq->num_elements() != M || !bs ||
          bs->dtype() != DataType::kFloat || (bzp && bzp->element_as_double(0) != 0) ||
          (db->inputs.size() > 2 && !db->inputs[2].empty() && !bzp))
        continue;
      bool matches = bs->num_elements() == M || bs->num_elements() == 1;
      const float x_scale = xs->data<float>()[0];
      for (int64_t m = 0; matches && m < M; ++m) {
        const float want = x_scale * ws->data<float>()[per_channel ? m : 0];
        const float have = bs->data<float>()[bs->num_elements() == 1 ? 0 : m];
        matches = std::fabs(have - want) <= 1e-6f * std::fabs(want);
      }
      if (!matches) continue;
      bq_name = db->inputs[0];
    }
    // The output: its only reader a QuantizeLinear to 8 bits, scalar scale.
    const int q = sole_consumer(v, g, conv.outputs[0], "QuantizeLinear");
    if (q < 0 || dead[size_t(q)]) continue;
    const ir::Node& quant = g.nodes[size_t(q)];
    const Tensor *ys = input_constant(v, quant, 1), *yzp = input_constant(v, quant, 2);
    if (quant.outputs.size() != 1 || !is_scalar(ys) || ys->dtype() != DataType::kFloat ||
        !is_scalar(yzp) || !is_8bit_integer_type(yzp->dtype()) ||
        attr_int(quant, "saturate", 1) != 1)
      continue;
    ir::Node f;
    f.name = conv.name + "_qlinear";
    f.op_type = "QLinearConv";
    f.inputs = {dx->inputs[0],   dx->inputs[1],  dx->inputs[2],
                dw->inputs[0],   dw->inputs[1],  wzp ? dw->inputs[2] : "",
                quant.inputs[1], quant.inputs[2]};
    if (!bq_name.empty()) f.inputs.push_back(bq_name);
    f.attributes = conv.attributes;
    f.outputs = quant.outputs;
    // At the QuantizeLinear's position: every input exists by then.
    g.nodes[size_t(q)] = std::move(f);
    dead[size_t(i)] = true;
    ++fused;
  }
  if (fused) erase_nodes(g, dead);
  return fused;
}

}  // namespace tessera::optimizer
