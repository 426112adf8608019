#include "providers/cpu/transforms/quant_match.hpp"

#include "core/quant_types.hpp"
#include "ops/schema.hpp"

namespace tessera::cpu {

using namespace tessera::optimizer;

bool simple_quant_params(const DefUse& v, const ir::Node& n, const Tensor** s, const Tensor** z) {
  if (n.inputs.size() < 3 || n.outputs.size() != 1 || !ops::attr_is_default(n, "block_size"))
    return false;
  *s = v.constant(n.inputs[1]);
  *z = v.constant(n.inputs[2]);
  return *s && *z && (*s)->dtype() == DataType::kFloat && (*s)->num_elements() == 1 &&
         (*s)->data<float>()[0] > 0.f && is_8bit_integer_type((*z)->dtype()) &&
         (*z)->num_elements() == 1;
}

bool plain_quantize(const DefUse& v, const ir::Node& q, const Tensor** s, const Tensor** z) {
  return ir::is_onnx_domain(q.domain) && q.op_type == "QuantizeLinear" &&
         simple_quant_params(v, q, s, z) && ops::attr_is_default(q, "saturate") &&
         ops::attr_is_default(q, "output_dtype") && ops::attr_is_default(q, "precision");
}

bool plain_dequantize(const DefUse& v, const ir::Node& dq, const Tensor** s, const Tensor** z) {
  return ir::is_onnx_domain(dq.domain) && dq.op_type == "DequantizeLinear" &&
         simple_quant_params(v, dq, s, z) && ops::attr_is_default(dq, "output_dtype");
}

}  // namespace tessera::cpu
