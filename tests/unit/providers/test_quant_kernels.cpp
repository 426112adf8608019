#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/float8.hpp"
#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_int;
using test::run_node;

template <typename T>
std::vector<double> values(const Value& v) {
  std::vector<double> out;
  const Tensor& t = v.tensor();
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.element_as_double(i));
  return out;
}

TEST(QuantKernels, QuantizeLinearPerTensorRoundsHalfToEven) {
  auto x = Tensor::from_vector<float>({0.f, 1.f, 2.5f, 3.5f, -300.f, 1000.f}, Shape{6});
  auto out = run_node("QuantizeLinear",
                      {x, Tensor::scalar<float>(1.f), Tensor::scalar<uint8_t>(10)}, {}, 13);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kUInt8);
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<double>{10, 11, 12, 14, 0, 255}));
}

TEST(QuantKernels, QuantizeLinearPerAxisInt8) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto s = Tensor::from_vector<float>({1, 2, 4}, Shape{3});
  auto z = Tensor::from_vector<int8_t>({0, 1, -1}, Shape{3});
  auto out = run_node("QuantizeLinear", {x, s, z}, {attr_int("axis", 1)}, 13);
  EXPECT_EQ(values<int8_t>(out[0]), (std::vector<double>{1, 2, 0, 4, 3, 1}));
}

TEST(QuantKernels, QuantizeLinearBlockedInt4) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4, 10, 20, 30, 40}, Shape{2, 4});
  auto s = Tensor::from_vector<float>({1, 2, 10, 20}, Shape{2, 2});
  auto z = Tensor(DataType::kInt4, Shape{2, 2});
  for (int i = 0; i < 4; ++i) set_packed_int(DataType::kInt4, z.mutable_raw_data(), i, 0);
  auto out =
      run_node("QuantizeLinear", {x, s, z}, {attr_int("axis", 1), attr_int("block_size", 2)}, 21);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kInt4);
  EXPECT_EQ(values<int>(out[0]), (std::vector<double>{1, 2, 2, 2, 1, 2, 2, 2}));
}

TEST(QuantKernels, QuantizeLinearFloat8Saturates) {
  auto x = Tensor::from_vector<float>({1.f, 1000.f, -1000.f}, Shape{3});
  auto z = Tensor(DataType::kFloat8E4M3FN, Shape{});
  static_cast<uint8_t*>(z.mutable_raw_data())[0] = 0;
  auto out = run_node("QuantizeLinear", {x, Tensor::scalar<float>(1.f), z}, {}, 19);
  EXPECT_EQ(values<float>(out[0]), (std::vector<double>{1, 448, -448}));
}

TEST(QuantKernels, QuantizeLinearOutputDtypeWithoutZeroPoint) {
  auto x = Tensor::from_vector<float>({-1.f, 3.f}, Shape{2});
  auto out = run_node("QuantizeLinear", {x, Tensor::scalar<float>(1.f)},
                      {attr_int("output_dtype", int64_t(DataType::kInt16))}, 21);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kInt16);
  EXPECT_EQ(values<int16_t>(out[0]), (std::vector<double>{-1, 3}));
}

TEST(QuantKernels, DequantizeLinearPerAxisAndInt32) {
  auto x = Tensor::from_vector<uint8_t>({10, 20, 30, 40}, Shape{2, 2});
  auto s = Tensor::from_vector<float>({0.5f, 2.f}, Shape{2});
  auto z = Tensor::from_vector<uint8_t>({10, 0}, Shape{2});
  auto out = run_node("DequantizeLinear", {x, s, z}, {attr_int("axis", 0)}, 13);
  EXPECT_EQ(values<float>(out[0]), (std::vector<double>{0, 5, 60, 80}));
  auto xi = Tensor::from_vector<int32_t>({-4, 8}, Shape{2});
  out = run_node("DequantizeLinear", {xi, Tensor::scalar<float>(0.25f)}, {}, 10);
  EXPECT_EQ(values<float>(out[0]), (std::vector<double>{-1, 2}));
}

TEST(QuantKernels, DequantizeLinearBadScaleShapeNamesNode) {
  auto x = Tensor::from_vector<uint8_t>({1, 2, 3, 4}, Shape{2, 2});
  auto s = Tensor::from_vector<float>({1, 2, 3}, Shape{3});
  try {
    run_node("DequantizeLinear", {x, s}, {}, 13);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("test_DequantizeLinear"), std::string::npos) << m;
    EXPECT_NE(m.find("[3]"), std::string::npos) << m;
  }
}

TEST(QuantKernels, DynamicQuantizeLinear) {
  auto x = Tensor::from_vector<float>({0.f, 2.f, -3.f, 1000.f, -25.f}, Shape{5});
  auto out = run_node("DynamicQuantizeLinear", {x}, {}, 11, 3);
  float scale = out[1].tensor().data<float>()[0];
  EXPECT_NEAR(scale, 1025.f / 255.f, 1e-6);
  EXPECT_EQ(out[2].tensor().data<uint8_t>()[0], 6);
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<double>{6, 6, 5, 255, 0}));
}

TEST(QuantKernels, DynamicQuantizeLinearOfAnInfiniteInputStaysDefined) {
  // max = inf: the scale is inf and -min / scale NaN; the zero point must come
  // out 0, not a NaN converted to uint8 (UBSan reports that).
  const float inf = std::numeric_limits<float>::infinity();
  auto x = Tensor::from_vector<float>({-1.f, 2.f, inf, 0.5f}, Shape{4});
  auto out = run_node("DynamicQuantizeLinear", {x}, {}, 11, 3);
  EXPECT_TRUE(std::isinf(out[1].tensor().data<float>()[0]));
  EXPECT_EQ(out[2].tensor().data<uint8_t>()[0], 0);
  EXPECT_EQ(out[0].tensor().data<uint8_t>()[2], 0);  // inf / inf is NaN: 0
}

TEST(QuantKernels, MatMulIntegerWithZeroPoints) {
  auto a = Tensor::from_vector<uint8_t>({11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}, Shape{4, 3});
  auto b = Tensor::from_vector<uint8_t>({1, 4, 2, 5, 3, 6}, Shape{3, 2});
  auto out = run_node("MatMulInteger",
                      {a, b, Tensor::scalar<uint8_t>(12), Tensor::scalar<uint8_t>(0)}, {}, 10);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kInt32);
  EXPECT_EQ(values<int32_t>(out[0]),
            (std::vector<double>{-38, -83, -44, -98, -50, -113, -56, -128}));
}

TEST(QuantKernels, MatMulIntegerShapeMismatch) {
  auto a = Tensor::from_vector<uint8_t>({1, 2, 3, 4}, Shape{2, 2});
  auto b = Tensor::from_vector<uint8_t>({1, 2, 3}, Shape{3, 1});
  EXPECT_THROW(run_node("MatMulInteger", {a, b}, {}, 10), Error);
}

TEST(QuantKernels, QLinearMatMul) {
  auto a = Tensor::from_vector<uint8_t>({208, 236, 0, 238, 3, 214, 255, 29}, Shape{2, 4});
  auto b = Tensor::from_vector<uint8_t>({152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247},
                                        Shape{4, 3});
  auto out = run_node("QLinearMatMul",
                      {a, Tensor::scalar<float>(0.0066f), Tensor::scalar<uint8_t>(113), b,
                       Tensor::scalar<float>(0.00705f), Tensor::scalar<uint8_t>(114),
                       Tensor::scalar<float>(0.0107f), Tensor::scalar<uint8_t>(118)},
                      {}, 10);
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<double>{168, 115, 255, 1, 66, 151}));
}

TEST(QuantKernels, ConvIntegerAndQLinearConv) {
  auto x = Tensor::from_vector<uint8_t>({2, 3, 4, 5, 6, 7, 8, 9, 10}, Shape{1, 1, 3, 3});
  auto w = Tensor::from_vector<uint8_t>({1, 1, 1, 1}, Shape{1, 1, 2, 2});
  auto out = run_node("ConvInteger", {x, w, Tensor::scalar<uint8_t>(1)}, {}, 10);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<double>{12, 16, 24, 28}));
  out = run_node(
      "QLinearConv",
      {x, Tensor::scalar<float>(1.f), Tensor::scalar<uint8_t>(1), w, Tensor::scalar<float>(1.f),
       Tensor::scalar<uint8_t>(0), Tensor::scalar<float>(2.f), Tensor::scalar<uint8_t>(0)},
      {test::attr_ints("pads", {0, 0, 0, 0})}, 10);
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<double>{6, 8, 12, 14}));
}

TEST(QuantKernels, ConvIntegerChannelMismatch) {
  auto x = Tensor::from_vector<uint8_t>(std::vector<uint8_t>(18, 1), Shape{1, 2, 3, 3});
  auto w = Tensor::from_vector<uint8_t>({1, 1, 1, 1}, Shape{1, 1, 2, 2});
  EXPECT_THROW(run_node("ConvInteger", {x, w}, {}, 10), Error);
}

}  // namespace
}  // namespace tessera
