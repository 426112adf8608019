// QuantizeLinear and DequantizeLinear, version by version: the attributes
// each adds (saturate 19, block_size and output_dtype 21, precision 23) with
// the spec's defaults, which the optimizer's Q/DQ passes read through the
// entries, and the types that settle y: y_zero_point's or output_dtype (uint8
// when neither is given) to quantize, x_scale's or output_dtype to dequantize.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

OutShapes shaped_like_x(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  return {*x};
}

std::vector<DataType> with(std::vector<DataType> a, const std::vector<DataType>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<DataType>& scale_types() {  // float, float16, bfloat16
  static const std::vector<DataType> v = {DataType::kFloat, DataType::kFloat16,
                                          DataType::kBFloat16};
  return v;
}

// The quantized types of opset 21 (16- and 4-bit integers join the 8-bit
// ones), and of 23 (float4e2m1 joins them) and 25 (the 2-bit integers),
// which changes only the types and so shares 23's entries.
const std::vector<DataType>& quantized_21() {
  static const std::vector<DataType> v =
      with({DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kUInt16, DataType::kInt4,
            DataType::kUInt4},
           float8_types());
  return v;
}

const std::vector<DataType>& quantized_23() {
  static const std::vector<DataType> v =
      with(quantized_21(), {DataType::kFloat4E2M1, DataType::kInt2, DataType::kUInt2});
  return v;
}

void add_quantize(std::vector<OpSchema>& t) {
  // y: y_zero_point's type (input 2), else output_dtype (21 on), else uint8.
  auto y = [](const std::vector<DataType>& allowed, bool output_dtype) {
    return TypeParam{
        "T2", {2}, {0}, allowed, false, output_dtype ? "output_dtype" : "", -1, DataType::kUInt8};
  };
  const std::vector<DataType> x10 = {DataType::kFloat, DataType::kInt32};
  const std::vector<DataType> x19 = with(scale_types(), {DataType::kInt32});
  const std::vector<TypeParam> t10 = {
      {"T1", {0}, {}, x10}, {"S", {1}, {}, float_type()}, y(int8_types(), false)};
  t.push_back({"", "QuantizeLinear", 10, {}, t10, nullptr, shaped_like_x});
  t.push_back({"", "QuantizeLinear", 13, {int_attr("axis", 1)}, t10, nullptr, shaped_like_x});
  t.push_back({"",
               "QuantizeLinear",
               19,
               {int_attr("axis", 1), int_attr("saturate", 1)},
               {{"T1", {0, 1}, {}, x19}, y(with(int8_types(), float8_types()), false)},
               nullptr,
               shaped_like_x});
  t.push_back({"",
               "QuantizeLinear",
               21,
               {int_attr("axis", 1), int_attr("block_size", 0), int_attr("output_dtype", 0),
                int_attr("saturate", 1)},
               {{"T1", {0, 1}, {}, x19}, y(quantized_21(), true)},
               nullptr,
               shaped_like_x});
  // 23: the scale has its own type (25 adds float8e8m0); `precision` is the
  // type the division is computed in (0: the scale's).
  t.push_back({"",
               "QuantizeLinear",
               23,
               {int_attr("axis", 1), int_attr("block_size", 0), int_attr("output_dtype", 0),
                int_attr("precision", 0), int_attr("saturate", 1)},
               {{"T1", {0}, {}, x19},
                {"T2", {1}, {}, with(x19, {DataType::kFloat8E8M0})},
                y(quantized_23(), true)},
               nullptr,
               shaped_like_x});
}

void add_dequantize(std::vector<OpSchema>& t) {
  const std::vector<DataType> x10 = {DataType::kInt8, DataType::kUInt8, DataType::kInt32};
  const std::vector<DataType> x19 = with(x10, float8_types());
  const std::vector<DataType> x21 = with(quantized_21(), {DataType::kInt32});
  const std::vector<DataType> x23 = with(quantized_23(), {DataType::kInt32});
  const std::vector<TypeParam> t10 = {
      {"T", {0, 2}, {}, x10}, {"S", {1}, {}, float_type()}, {"Y", {}, {0}, float_type()}};
  t.push_back({"", "DequantizeLinear", 10, {}, t10, nullptr, shaped_like_x});
  t.push_back({"", "DequantizeLinear", 13, {int_attr("axis", 1)}, t10, nullptr, shaped_like_x});
  // 19 on: y has x_scale's type.
  t.push_back({"",
               "DequantizeLinear",
               19,
               {int_attr("axis", 1)},
               {{"T1", {0, 2}, {}, x19}, {"T2", {1}, {0}, scale_types()}},
               nullptr,
               shaped_like_x});
  t.push_back({"",
               "DequantizeLinear",
               21,
               {int_attr("axis", 1), int_attr("block_size", 0)},
               {{"T1", {0, 2}, {}, x21}, {"T2", {1}, {0}, scale_types()}},
               nullptr,
               shaped_like_x});
  // 23: output_dtype, else x_scale's type (25 adds float8e8m0 scales).
  t.push_back({"",
               "DequantizeLinear",
               23,
               {int_attr("axis", 1), int_attr("block_size", 0), int_attr("output_dtype", 0)},
               {{"T1", {0, 2}, {}, x23},
                {"T2", {1}, {}, with(scale_types(), {DataType::kFloat8E8M0})},
                {"T3", {}, {0}, scale_types(), false, "output_dtype", 1}},
               nullptr,
               shaped_like_x});
}

}  // namespace

void add_qdq_schemas(std::vector<OpSchema>& t) {
  add_quantize(t);
  add_dequantize(t);
}

}  // namespace tessera::ops
