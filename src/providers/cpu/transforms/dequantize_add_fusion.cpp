// DequantizeLinear -> Add -> [Relu] -> [QuantizeLinear]: the residual join
// of 8-bit CNNs (a QOperator ResNet-50 has one per block: the last
// convolution's output dequantized, added to the block's float input, Relu,
// and quantized for the next convolution while the float value also feeds
// the next block's join). As com.tessera DequantizeAdd (CPU-only sessions)
// it is one pass over the elements, in the unfused kernels' own arithmetic.
#include <unordered_set>

#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"
#include "providers/cpu/transforms/quant_match.hpp"

namespace tessera::cpu {

using namespace tessera::optimizer;

namespace {

// The plain DequantizeLinear producing `value` for node `reader` alone, or -1.
int dequantize_into(const DefUse& v, const ir::Graph& g, const std::string& value, int reader,
                    const std::vector<bool>& dead) {
  const int dq = producer_of(v, g, value, "DequantizeLinear");
  const Tensor *s = nullptr, *z = nullptr;
  if (dq < 0 || dead[size_t(dq)] || !plain_dequantize(v, g.nodes[size_t(dq)], &s, &z) ||
      !v.only_consumer(value, reader))
    return -1;
  return dq;
}

}  // namespace

size_t fuse_dequantize_add(ir::Model& model, ir::Graph& g) {
  if (model.opset("") < 10) return 0;  // DequantizeLinear
  DefUse v(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& add = g.nodes[size_t(i)];
    if (dead[size_t(i)] || !ir::is_onnx_domain(add.domain) || add.op_type != "Add" ||
        add.inputs.size() != 2 || add.outputs.size() != 1 || add.inputs[0] == add.inputs[1])
      continue;
    const int dq0 = dequantize_into(v, g, add.inputs[0], i, dead);
    const int dq1 = dequantize_into(v, g, add.inputs[1], i, dead);
    if (dq0 < 0 && dq1 < 0) continue;
    // A is a dequantized side; B the other, dequantized too or float (Add's
    // inputs share a type, and a plain DequantizeLinear gives float).
    const int dq_a = dq0 >= 0 ? dq0 : dq1;
    const int dq_b = dq0 >= 0 ? dq1 : -1;
    const std::string& b_value = add.inputs[dq0 >= 0 ? 1 : 0];
    std::string result = add.outputs[0];
    const int relu = sole_consumer(v, g, result, "Relu");
    if (relu >= 0 && !dead[size_t(relu)]) result = g.nodes[size_t(relu)].outputs[0];
    // A plain QuantizeLinear reading the result; the float result stays an
    // output when anything else reads it.
    int q = -1;
    for (int c : v.consumers(result)) {
      const Tensor *s = nullptr, *z = nullptr;
      if (!dead[size_t(c)] && plain_quantize(v, g.nodes[size_t(c)], &s, &z)) {
        q = c;
        break;
      }
    }
    const bool keep_float = q < 0 || !v.only_consumer(result, q);

    ir::Node f;
    f.name = add.name + "_dequantize_add";
    f.op_type = "DequantizeAdd";
    f.domain = kTesseraDomain;
    const ir::Node& a = g.nodes[size_t(dq_a)];
    f.inputs = {a.inputs[0], a.inputs[1], a.inputs[2]};
    if (dq_b >= 0) {
      const ir::Node& b = g.nodes[size_t(dq_b)];
      f.inputs.insert(f.inputs.end(), {b.inputs[0], b.inputs[1], b.inputs[2]});
    } else {
      f.inputs.insert(f.inputs.end(), {b_value, "", ""});
    }
    f.outputs = {keep_float ? result : ""};
    if (q >= 0) {
      const ir::Node& qn = g.nodes[size_t(q)];
      f.inputs.insert(f.inputs.end(), {qn.inputs[1], qn.inputs[2]});
      f.outputs.push_back(qn.outputs[0]);
      dead[size_t(q)] = true;
    } else {
      while (f.inputs.back().empty()) f.inputs.pop_back();
    }
    ir::Attribute r;
    r.name = "relu";
    r.type = ir::AttrType::kInt;
    r.i = relu >= 0 ? 1 : 0;
    f.attributes.push_back(r);
    dead[size_t(dq_a)] = true;
    if (dq_b >= 0) dead[size_t(dq_b)] = true;
    if (relu >= 0) dead[size_t(relu)] = true;
    // At the Add's place: its inputs are ready there, and the Relu's and
    // QuantizeLinear's readers all come after it.
    g.nodes[size_t(i)] = std::move(f);
    ++fused;
  }
  return commit_fusions(model, g, dead, fused);
}

}  // namespace tessera::cpu
