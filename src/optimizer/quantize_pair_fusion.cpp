// QuantizeLinear(DequantizeLinear(q)) with the same scale and zero point is
// q itself, and with a Relu between them it is Max(q, zero point) (q itself
// again when the zero point is the type's lowest value): the
// round trip through float between two quantized operators (QOperator and
// QDQ models have one after nearly every convolution) becomes nothing, or
// one pass over bytes.
//
// Exact: for an integer a = q - z and a scale s > 0, (a * s) / s rounds to a
// (the float error is far below one half), and Q clamps q back to itself;
// Relu passes a * s when a >= 0 and gives 0, which quantizes to z, else.
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "core/quant_types.hpp"
#include "optimizer/graph_view.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// A constant positive float scalar scale and an 8-bit scalar zero point
// (inputs 1 and 2 of a QuantizeLinear or DequantizeLinear).
bool simple_params(const GraphView& v, const ir::Node& n, const Tensor** s, const Tensor** z) {
  if (n.inputs.size() < 3 || n.outputs.size() != 1 || attr_int(n, "block_size", 0) != 0)
    return false;
  *s = v.constant(n.inputs[1]);
  *z = v.constant(n.inputs[2]);
  return *s && *z && (*s)->dtype() == DataType::kFloat && (*s)->num_elements() == 1 &&
         (*s)->data<float>()[0] > 0.f && is_8bit_integer_type((*z)->dtype()) &&
         (*z)->num_elements() == 1;
}

bool same_params(const Tensor* s1, const Tensor* z1, const Tensor* s2, const Tensor* z2) {
  const float a = s1->data<float>()[0], b = s2->data<float>()[0];
  return std::memcmp(&a, &b, sizeof(float)) == 0 && z1->dtype() == z2->dtype() &&
         z1->element_as_double(0) == z2->element_as_double(0);
}

}  // namespace

size_t fuse_quantize_pairs(ir::Model& model, ir::Graph& g) {
  if (model.opset("") < 12) return 0;  // Max on 8-bit tensors
  GraphView v(g);
  std::unordered_set<std::string> outputs;
  for (const auto& o : g.outputs) outputs.insert(o.name);
  std::vector<bool> dead(g.nodes.size(), false);
  std::unordered_map<std::string, std::string> rename;
  size_t fused = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    const ir::Node& q = g.nodes[size_t(i)];
    const Tensor *s2 = nullptr, *z2 = nullptr, *s1 = nullptr, *z1 = nullptr;
    if (dead[size_t(i)] || !ir::is_onnx_domain(q.domain) || q.op_type != "QuantizeLinear" ||
        !simple_params(v, q, &s2, &z2) || attr_int(q, "saturate", 1) != 1 ||
        attr_int(q, "output_dtype", 0) != 0)
      continue;
    // Q's input: DQ's output, or a Relu of it; each read by the next alone.
    int relu = producer_of(v, g, q.inputs[0], "Relu");
    if (relu >= 0 && sole_consumer(v, g, q.inputs[0], "QuantizeLinear") != i) relu = -1;
    const std::string& dq_out = relu >= 0 ? g.nodes[size_t(relu)].inputs[0] : q.inputs[0];
    const int d = producer_of(v, g, dq_out, "DequantizeLinear");
    if (d < 0 || dead[size_t(d)] || (relu >= 0 && dead[size_t(relu)])) continue;
    const ir::Node& dq = g.nodes[size_t(d)];
    if (!simple_params(v, dq, &s1, &z1) || !same_params(s1, z1, s2, z2) ||
        sole_consumer(v, g, dq_out, relu >= 0 ? "Relu" : "QuantizeLinear") < 0)
      continue;
    const std::string& q_in = dq.inputs[0];
    // A zero point at the type's lowest value leaves nothing for Max to do
    // (a quantizer gives a Relu's output that range).
    const double lowest = z2->dtype() == DataType::kUInt8 ? 0 : -128;
    const bool max_needed = relu >= 0 && z2->element_as_double(0) != lowest;
    if (!max_needed && !outputs.count(q.outputs[0]) && !v.pinned(q.outputs[0])) {
      // Q(DQ(q)) is q: its readers read q.
      rename[q.outputs[0]] = q_in;
      dead[size_t(i)] = true;
    } else {
      ir::Node f;
      f.name = q.name + (max_needed ? "_max" : "_identity");
      f.op_type = max_needed ? "Max" : "Identity";
      f.inputs = {q_in};
      if (max_needed) f.inputs.push_back(q.inputs[2]);
      f.outputs = q.outputs;
      g.nodes[size_t(i)] = std::move(f);
    }
    dead[size_t(d)] = true;
    if (relu >= 0) dead[size_t(relu)] = true;
    ++fused;
  }
  if (!fused) return 0;
  // (A chain of removed pairs renames through each in turn.)
  for (auto& n : g.nodes)
    for (auto& in : n.inputs)
      for (auto it = rename.find(in); it != rename.end(); it = rename.find(in)) in = it->second;
  erase_nodes(g, dead);
  return fused;
}

}  // namespace tessera::optimizer
