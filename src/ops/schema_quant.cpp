// Quantized ops of ai.onnx: the integer matmul and convolution
// (MatMulInteger, ConvInteger), their quantized-linear forms (QLinearMatMul,
// QLinearConv) and DynamicQuantizeLinear. Their shapes are MatMul's and
// Conv's over the operands' positions.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

// The 8-bit float types QLinearMatMul takes from opset 21.
const std::vector<DataType>& quantized_types_21() {
  static const std::vector<DataType> v = {DataType::kInt8,         DataType::kUInt8,
                                          DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ,
                                          DataType::kFloat8E5M2,   DataType::kFloat8E5M2FNUZ};
  return v;
}

const std::vector<DataType>& int32_type() {
  static const std::vector<DataType> v = {DataType::kInt32};
  return v;
}

ir::TypeInfo tensor_type(DataType t) {
  ir::TypeInfo ti;
  ti.kind = ir::TypeInfo::Kind::kTensor;
  ti.elem_type = t;
  return ti;
}

std::vector<ir::TypeInfo> int32_outputs(const ir::Node& n, int64_t,
                                        const std::vector<ir::TypeInfo>&) {
  return std::vector<ir::TypeInfo>(n.outputs.size(), tensor_type(DataType::kInt32));
}

// y has y_zero_point's (input 7) type.
std::vector<ir::TypeInfo> type_of_input7(const ir::Node& n, int64_t,
                                         const std::vector<ir::TypeInfo>& in) {
  const bool known = in.size() > 7 && in[7].kind == ir::TypeInfo::Kind::kTensor;
  return std::vector<ir::TypeInfo>(n.outputs.size(),
                                   tensor_type(known ? in[7].elem_type : DataType::kUndefined));
}

// y and y_zero_point uint8, y_scale float.
std::vector<ir::TypeInfo> dynamic_quantize_types(const ir::Node& n, int64_t,
                                                 const std::vector<ir::TypeInfo>&) {
  std::vector<ir::TypeInfo> out(n.outputs.size(), tensor_type(DataType::kUInt8));
  if (out.size() > 1) out[1] = tensor_type(DataType::kFloat);
  return out;
}

OutShapes matmul_integer(const ShapeQuery& q) { return matmul_of(q, 0, 1); }
OutShapes qlinear_matmul(const ShapeQuery& q) { return matmul_of(q, 0, 3); }
OutShapes conv_integer(const ShapeQuery& q) { return conv_of(q, 0, 1); }
OutShapes qlinear_conv(const ShapeQuery& q) { return conv_of(q, 0, 3); }

// y like x; y_scale and y_zero_point scalars.
OutShapes dynamic_quantize(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  OutShapes out(q.num_outputs(), Shape{});
  if (!out.empty()) out[0] = *x;
  return out;
}

}  // namespace

void add_quant_schemas(std::vector<OpSchema>& t) {
  const TypeParam out_int32{"T3", {}, {0}, int32_type()};
  t.push_back({"",
               "MatMulInteger",
               10,
               {},
               {{"T1", {0, 2}, {}, int8_types()}, {"T2", {1, 3}, {}, int8_types()}, out_int32},
               int32_outputs,
               matmul_integer});
  t.push_back({"",
               "ConvInteger",
               10,
               conv_attrs(),
               {{"T1", {0, 2}, {}, int8_types()}, {"T2", {1, 3}, {}, int8_types()}, out_int32},
               int32_outputs,
               conv_integer});
  // Scales are float (opset 21: float, float16 or bfloat16, one type TS).
  const TypeParam scales10{"TS", {1, 4, 6}, {}, float_type()};
  const TypeParam scales21{
      "TS", {1, 4, 6}, {}, {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}};
  auto qlinear = [](const std::vector<DataType>& q, const TypeParam& scales) {
    return std::vector<TypeParam>{
        {"T1", {0, 2}, {}, q}, {"T2", {3, 5}, {}, q}, {"T3", {7}, {0}, q}, scales};
  };
  t.push_back({"",
               "QLinearMatMul",
               10,
               {},
               qlinear(int8_types(), scales10),
               type_of_input7,
               qlinear_matmul});
  t.push_back({"",
               "QLinearMatMul",
               21,
               {},
               qlinear(quantized_types_21(), scales21),
               type_of_input7,
               qlinear_matmul});
  std::vector<TypeParam> qconv = qlinear(int8_types(), scales10);
  qconv.push_back({"T4", {8}, {}, int32_type()});
  t.push_back({"", "QLinearConv", 10, conv_attrs(), qconv, type_of_input7, qlinear_conv});
  t.push_back({"",
               "DynamicQuantizeLinear",
               11,
               {},
               {{"T1", {0}, {}, float_type()}, {"T2", {}, {0, 2}, {DataType::kUInt8}}},
               dynamic_quantize_types,
               dynamic_quantize});
}

}  // namespace tessera::ops
