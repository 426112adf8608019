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
#include "ops/schema.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"

namespace tessera::cpu {

using namespace tessera::optimizer;

namespace {

// The DequantizeLinear producing `value` (ai.onnx, opset < 21 semantics:
// no block_size), or null.
const ir::Node* dequantize_of(const DefUse& v, const ir::Graph& g, const std::string& value) {
  const int p = producer_of(v, g, value, "DequantizeLinear");
  if (p < 0) return nullptr;
  const ir::Node& n = g.nodes[size_t(p)];
  if (n.inputs.size() < 2 || n.outputs.size() != 1 || !ops::attr_is_default(n, "block_size"))
    return nullptr;
  return &n;
}

const Tensor* input_constant(const DefUse& v, const ir::Node& n, size_t i) {
  return n.inputs.size() > i && !n.inputs[i].empty() ? v.constant(n.inputs[i]) : nullptr;
}

bool is_scalar(const Tensor* t) { return t && t->num_elements() == 1; }

// The DequantizeLinear of an activation: 8-bit with a constant scalar float
// scale and a zero point.
const ir::Node* activation_dequantize(const DefUse& v, const ir::Graph& g,
                                      const std::string& value) {
  const ir::Node* dx = dequantize_of(v, g, value);
  if (!dx || dx->inputs.size() < 3) return nullptr;
  const Tensor *xs = input_constant(v, *dx, 1), *xzp = input_constant(v, *dx, 2);
  if (!is_scalar(xs) || !is_scalar(xzp) || xs->dtype() != DataType::kFloat ||
      !is_8bit_integer_type(xzp->dtype()))
    return nullptr;
  return dx;
}

// The QuantizeLinear that alone reads `value`, to 8 bits with a constant
// scalar scale and zero point: its index, or -1.
int output_quantize(const DefUse& v, const ir::Graph& g, const std::string& value,
                    const std::vector<bool>& dead) {
  const int q = sole_consumer(v, g, value, "QuantizeLinear");
  if (q < 0 || dead[size_t(q)]) return -1;
  const ir::Node& quant = g.nodes[size_t(q)];
  const Tensor *ys = input_constant(v, quant, 1), *yzp = input_constant(v, quant, 2);
  if (quant.outputs.size() != 1 || !is_scalar(ys) || ys->dtype() != DataType::kFloat ||
      !is_scalar(yzp) || !is_8bit_integer_type(yzp->dtype()) ||
      !ops::attr_is_default(quant, "saturate"))
    return -1;
  return q;
}

// Constant 8-bit weights of `rank`, per tensor or per `channels` along
// `axis` (the DequantizeLinear's axis attribute; negative counts from the end).
bool constant_weights(const DefUse& v, const ir::Node& dw, int64_t rank, int64_t axis) {
  const Tensor *wq = input_constant(v, dw, 0), *ws = input_constant(v, dw, 1),
               *wzp = input_constant(v, dw, 2);
  if (!wq || !is_8bit_integer_type(wq->dtype()) || int64_t(wq->rank()) != rank || !ws ||
      ws->dtype() != DataType::kFloat)
    return false;
  if (!is_scalar(ws)) {
    int64_t a = ops::attr_int_any_version(dw, "axis", 1);
    if (a < 0) a += rank;
    if (ws->rank() != 1 || a != axis || ws->shape()[0] != wq->shape()[size_t(axis)]) return false;
  }
  return !wzp || (wzp->dtype() == wq->dtype() && wzp->num_elements() == ws->num_elements());
}

}  // namespace

size_t fuse_qdq_conv(ir::Graph& g) {
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& conv = g.nodes[size_t(i)];
    if (dead[size_t(i)] || !ir::is_onnx_domain(conv.domain) || conv.op_type != "Conv" ||
        conv.inputs.size() < 2 || conv.outputs.size() != 1)
      continue;
    // The activation: 8-bit with a constant scalar scale and zero point.
    const ir::Node* dx = activation_dequantize(v, g, conv.inputs[0]);
    if (!dx) continue;
    const Tensor* xs = input_constant(v, *dx, 1);
    // The weights: constant 8-bit, per tensor or per output channel (axis 0).
    const ir::Node* dw = dequantize_of(v, g, conv.inputs[1]);
    const Tensor* wq = dw ? input_constant(v, *dw, 0) : nullptr;
    if (!wq || wq->rank() < 3 || !constant_weights(v, *dw, int64_t(wq->rank()), 0)) continue;
    const Tensor *ws = input_constant(v, *dw, 1), *wzp = input_constant(v, *dw, 2);
    const int64_t M = wq->shape()[0];
    const bool per_channel = !is_scalar(ws);
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
    const int q = output_quantize(v, g, conv.outputs[0], dead);
    if (q < 0) continue;
    const ir::Node& quant = g.nodes[size_t(q)];
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

// DequantizeLinear -> MatMul (constant 2-D weights) -> QuantizeLinear, the
// QDQ form of a statically quantized linear layer, -> QLinearMatMul on the
// 8-bit tensors (weights per tensor or per output column, axis 1). As for
// the convolutions, the product is exact in integers and requantized once,
// where the QDQ form rounds through float.
size_t fuse_qdq_matmul(ir::Graph& g) {
  DefUse v(g);
  FreshNames fresh(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& mm = g.nodes[size_t(i)];
    if (dead[size_t(i)] || !ir::is_onnx_domain(mm.domain) || mm.op_type != "MatMul" ||
        mm.inputs.size() != 2 || mm.outputs.size() != 1)
      continue;
    const ir::Node* dx = activation_dequantize(v, g, mm.inputs[0]);
    const ir::Node* dw = dequantize_of(v, g, mm.inputs[1]);
    if (!dx || !dw || !constant_weights(v, *dw, 2, 1)) continue;
    const int q = output_quantize(v, g, mm.outputs[0], dead);
    if (q < 0) continue;
    const ir::Node& quant = g.nodes[size_t(q)];
    // QLinearMatMul takes every zero point as an input: the weights' default
    // one is a zero of their type.
    std::string wzp = dw->inputs.size() > 2 ? dw->inputs[2] : "";
    if (wzp.empty()) {
      const Tensor* wq = input_constant(v, *dw, 0);
      wzp = fresh(mm.name + "_b_zero_point");
      Tensor zero(wq->dtype(), Shape{});
      static_cast<uint8_t*>(zero.mutable_raw_data())[0] = 0;
      g.initializers[wzp] = zero;
    }
    ir::Node f;
    f.name = mm.name + "_qlinear";
    f.op_type = "QLinearMatMul";
    f.inputs = {dx->inputs[0], dx->inputs[1], dx->inputs[2],   dw->inputs[0],
                dw->inputs[1], wzp,           quant.inputs[1], quant.inputs[2]};
    f.outputs = quant.outputs;
    g.nodes[size_t(q)] = std::move(f);
    dead[size_t(i)] = true;
    ++fused;
  }
  if (fused) erase_nodes(g, dead);
  return fused;
}

}  // namespace tessera::cpu
