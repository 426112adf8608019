// ONNX Runtime's com.microsoft ops that run as function bodies
// (contrib_bodies.cpp): their type variables, as its operator documentation
// lists them, so their outputs are typed and their inputs checked before
// they expand. Their shapes are given where they are an input's or a
// broadcast; the others are left to the expanded body's ops.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

ir::TypeInfo tensor_type(DataType t) {
  ir::TypeInfo ti;
  ti.kind = ir::TypeInfo::Kind::kTensor;
  ti.elem_type = t;
  return ti;
}

// QGemm's Y: quantized to y_zero_point's type when y_scale is given
// (uint8 without a zero point), float otherwise.
std::vector<ir::TypeInfo> qgemm_type(const ir::Node& n, int64_t,
                                     const std::vector<ir::TypeInfo>& in) {
  const auto given = [&](size_t i) { return i < n.inputs.size() && !n.inputs[i].empty(); };
  if (!given(7)) return {tensor_type(DataType::kFloat)};
  if (!given(8)) return {tensor_type(DataType::kUInt8)};
  const bool known = in.size() > 8 && in[8].kind == ir::TypeInfo::Kind::kTensor;
  return {tensor_type(known ? in[8].elem_type : DataType::kUndefined)};
}

}  // namespace

void add_contrib_body_schemas(std::vector<OpSchema>& t) {
  const std::string ms = "com.microsoft";
  auto add = [&](const char* op, std::vector<AttrDef> attrs, std::vector<TypeParam> types,
                 ShapeRule shape = unknown_shapes) {
    t.push_back({ms, op, 1, std::move(attrs), std::move(types), nullptr, shape});
  };
  const std::vector<DataType>& fl = float_types();
  const std::vector<DataType>& q8 = int8_types();
  add("Gelu", {}, {{"T", {0}, {0}, fl}}, same_shape_as_input0);
  add("FastGelu", {}, {{"T", {0, 1}, {0}, fl}}, broadcast_inputs);
  add("BiasGelu", {}, {{"T", {0, 1}, {0}, fl}}, broadcast_inputs);
  add("QuickGelu", {float_attr("alpha", 1.702f)}, {{"T", {0}, {0}, fl}}, same_shape_as_input0);
  add("BiasAdd", {}, {{"T", {0, 1, 2}, {0}, fl}}, broadcast_inputs);
  // output and input_skip_bias_sum T; mean and inv_std_var float.
  const TypeParam stats{"U", {}, {1, 2}, float_type()};
  add("SkipLayerNormalization", {float_attr("epsilon", 1e-12f)},
      {{"T", {0, 1, 2, 3, 4}, {0, 3}, fl}, stats});
  add("SkipSimplifiedLayerNormalization", {float_attr("epsilon", 1e-12f)},
      {{"T", {0, 1, 2, 3}, {0, 3}, fl}, stats});
  // The QLinear element-wise ops: A, B and C with their zero points are T.
  for (const char* op : {"QLinearAdd", "QLinearMul"})
    add(op, {}, {{"T", {0, 2, 3, 5, 7}, {0}, q8}, {"S", {1, 4, 6}, {}, float_type()}});
  // X, Y and their zero points T; scales float.
  const std::vector<TypeParam> unary = {{"T", {0, 2, 4}, {0}, q8}, {"S", {1, 3}, {}, float_type()}};
  add("QLinearSigmoid", {}, unary);
  add("QLinearLeakyRelu", {float_attr("alpha", 0.01f)}, unary);
  add("QLinearSoftmax", {int_attr("axis", -1), int_attr("opset", 0)}, unary);
  add("QLinearGlobalAveragePool", {int_attr("channels_last", 0)}, unary);
  add("QLinearAveragePool",
      {string_attr("auto_pad", "NOTSET"), int_attr("ceil_mode", 0), int_attr("channels_last", 0),
       int_attr("count_include_pad", 0), ints_attr("kernel_shape"), ints_attr("pads"),
       ints_attr("strides")},
      unary);
  add("QLinearWhere", {},
      {{"B", {0}, {}, bool_type()},
       {"T", {1, 3, 4, 6, 8}, {0}, q8},
       {"S", {2, 5, 7}, {}, float_type()}});
  // Y_zero_point (input 1) then (X, X_scale, X_zero_point) triples, each X its own 8-bit type.
  add("QLinearConcat", {required_attr("axis", ir::AttrType::kInt)},
      {{"T8", {1}, {0}, q8}, {"S", {0}, {}, float_type()}});
  add("DynamicQuantizeMatMul", {}, {{"T1", {0, 2, 4}, {0}, float_type()}, {"T2", {1, 3}, {}, q8}});
  add("MatMulIntegerToFloat", {},
      {{"T1", {0, 4}, {}, q8}, {"T2", {1, 5}, {}, q8}, {"T3", {2, 3, 6}, {0}, fl}});
  add("QAttention",
      {float_attr("mask_filter_value", -10000.0f), int_attr("num_heads", 0),
       int_attr("unidirectional", 0)},
      {{"T1", {0, 6}, {}, q8},
       {"T2", {1, 7}, {}, q8},
       {"T3", {2, 3, 4, 8}, {0, 1}, fl},
       {"T4", {5}, {}, {DataType::kInt32}}});
  add("QLinearConv", conv_attrs(),
      {{"T1", {0, 2}, {}, q8},
       {"T2", {3, 5}, {}, q8},
       {"T3", {7}, {0}, q8},
       {"S", {1, 4, 6}, {}, float_type()},
       {"T4", {8}, {}, {DataType::kInt32}}});
  add("QGemm", {float_attr("alpha", 1.0f), int_attr("transA", 0), int_attr("transB", 0)},
      {{"TA", {0, 2}, {}, q8},
       {"TB", {3, 5}, {}, q8},
       {"TC", {6}, {}, {DataType::kInt32}},
       {"TR", {}, {0}, {DataType::kFloat, DataType::kInt8, DataType::kUInt8}}});
  t.back().type_rule = qgemm_type;
  add("QuantizeLinear", {int_attr("axis", 1)},
      {{"T1", {0, 1}, {}, fl}, {"T2", {2}, {0}, q8, false, "", -1, DataType::kUInt8}});
  add("DequantizeLinear", {int_attr("axis", 1)}, {{"T1", {0, 2}, {}, q8}, {"T2", {1}, {0}, fl}});
  std::vector<AttrDef> act = {string_attr("activation", ""),
                              optional_attr("activation_params", ir::AttrType::kFloats)};
  std::vector<AttrDef> fused_conv = conv_attrs();
  fused_conv.insert(fused_conv.end(), act.begin(), act.end());
  add("FusedConv", fused_conv, {{"T", {0, 1, 2, 3}, {0}, fl}});
  std::vector<AttrDef> fused_gemm = {float_attr("activation_alpha", 0.01f),
                                     float_attr("alpha", 1.0f), float_attr("beta", 1.0f),
                                     int_attr("transA", 0), int_attr("transB", 0)};
  fused_gemm.insert(fused_gemm.end(), act.begin(), act.end());
  add("FusedGemm", fused_gemm, {{"T", {0, 1, 2}, {0}, fl}});
}

}  // namespace tessera::ops
