// Matchers the 8-bit fusion passes share: QuantizeLinear / DequantizeLinear
// nodes whose kernels take their per-tensor vector loops, which is what the
// fused kernels repeat value for value.
#pragma once
#include "optimizer/def_use.hpp"

namespace tessera::cpu {

using optimizer::DefUse;

// A constant positive float scalar scale and an 8-bit scalar zero point
// (inputs 1 and 2 of a QuantizeLinear or DequantizeLinear), no block_size.
bool simple_quant_params(const DefUse& v, const ir::Node& n, const Tensor** s, const Tensor** z);
// A QuantizeLinear of simple parameters and no attribute that changes its
// arithmetic (saturate, output_dtype, precision at their defaults).
bool plain_quantize(const DefUse& v, const ir::Node& q, const Tensor** s, const Tensor** z);
// A DequantizeLinear of simple parameters giving float (no output_dtype).
bool plain_dequantize(const DefUse& v, const ir::Node& dq, const Tensor** s, const Tensor** z);

}  // namespace tessera::cpu
