// ONNX Runtime's `com.microsoft` operators, as function bodies of standard
// ops and of Tessera's own fused ops (com.tessera), so models written by ONNX
// Runtime's tools (its quantizer's QOperator form, its transformer optimizer,
// an optimized model it saved) load and run here.
//
// A session expands these nodes before the graph optimizer runs (where no
// provider has a kernel for the node itself), so the optimizer's fusions see
// the bodies as they would see the model's own ops: a QLinearAdd becomes
// DequantizeLinear -> Add -> QuantizeLinear, a DynamicQuantizeMatMul the
// integer product that fuses into com.tessera.MatMulIntegerToFloat, a
// SkipLayerNormalization the residual Add + LayerNormalization that fuses
// back into com.tessera.SkipLayerNormalization. docs/operators.md lists the
// ops and what is not supported.
#pragma once
#include <string>
#include <vector>

#include "ops/function_bodies.hpp"

namespace tessera::ops {

inline constexpr const char* kMicrosoftDomain = "com.microsoft";

// Every com.microsoft body (parsed once, on first use).
const std::vector<FunctionBody>& contrib_bodies();

// The ops whose body is written for each node's form (QLinearConcat's number
// of inputs, QGemm's optional inputs) rather than taken from the table.
const std::vector<std::string>& contrib_ops_with_generated_bodies();

// The body for a com.microsoft `node` at `opset`, or null.
const FunctionBody* find_contrib_body(const ir::Node& node, int64_t opset);

}  // namespace tessera::ops
