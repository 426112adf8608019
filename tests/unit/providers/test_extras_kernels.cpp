// CumProd, BitCast, SwiGLU and DeformConv on hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "core/float8.hpp"
#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

void expect_values(const Value& v, const std::vector<double>& e, const Shape& s, double tol = 1e-6) {
  const Tensor& t = v.tensor();
  ASSERT_EQ(t.shape(), s);
  for (int64_t i = 0; i < t.num_elements(); ++i)
    EXPECT_NEAR(t.element_as_double(i), e[size_t(i)], tol) << "element " << i;
}

}  // namespace

TEST(ExtrasCumProd, ReverseExclusiveNegativeAxisUInt64) {
  Value x = Tensor::from_vector<uint64_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = run_node("CumProd", {x, Tensor::scalar<int64_t>(-1)},
                      {attr_int("exclusive", 1), attr_int("reverse", 1)}, 26);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kUInt64);
  expect_values(out[0], {6, 3, 1, 30, 6, 1}, {2, 3});
}

TEST(ExtrasCumProd, Float16AlongAxis0) {
  std::vector<Float16> v;
  for (float f : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}) v.push_back(Float16(f));
  auto out = run_node("CumProd", {Tensor::from_vector<Float16>(v, {2, 3}), Tensor::scalar<int32_t>(0)}, {}, 26);
  expect_values(out[0], {1, 2, 3, 4, 10, 18}, {2, 3});
}

TEST(ExtrasCumProd, RejectsBadAxisAndOldOpset) {
  Value x = Tensor::from_vector<float>({1, 2}, {2});
  EXPECT_THROW(run_node("CumProd", {x, Tensor::scalar<int64_t>(1)}, {}, 26), Error);
  EXPECT_THROW(run_node("CumProd", {x, Tensor::scalar<int64_t>(0)}, {}, 25), Error);
}

TEST(ExtrasBitCast, HalfToInt16KeepsBits) {
  std::vector<Float16> v = {Float16(1.f), Float16(-2.f)};
  auto out = run_node("BitCast", {Tensor::from_vector<Float16>(v, {2})},
                      {attr_int("to", int64_t(DataType::kInt16))}, 26);
  ASSERT_EQ(out[0].tensor().dtype(), DataType::kInt16);
  EXPECT_EQ(out[0].tensor().data<int16_t>()[0], 0x3C00);
  EXPECT_EQ(uint16_t(out[0].tensor().data<int16_t>()[1]), 0xC000);
}

TEST(ExtrasBitCast, Int4ToUInt4) {
  Tensor x(DataType::kInt4, Shape{3});
  set_packed_int(DataType::kInt4, x.mutable_raw_data(), 0, -1);
  set_packed_int(DataType::kInt4, x.mutable_raw_data(), 1, 7);
  set_packed_int(DataType::kInt4, x.mutable_raw_data(), 2, -8);
  auto out = run_node("BitCast", {x}, {attr_int("to", int64_t(DataType::kUInt4))}, 26);
  const Tensor& y = out[0].tensor();
  ASSERT_EQ(y.dtype(), DataType::kUInt4);
  EXPECT_EQ(get_packed_int(DataType::kUInt4, y.raw_data(), 0), 15);
  EXPECT_EQ(get_packed_int(DataType::kUInt4, y.raw_data(), 1), 7);
  EXPECT_EQ(get_packed_int(DataType::kUInt4, y.raw_data(), 2), 8);
}

TEST(ExtrasBitCast, RejectsWidthMismatchAndString) {
  Value x = Tensor::from_vector<float>({1}, {1});
  EXPECT_THROW(run_node("BitCast", {x}, {attr_int("to", int64_t(DataType::kInt16))}, 26), Error);
  EXPECT_THROW(run_node("BitCast", {x}, {attr_int("to", int64_t(DataType::kString))}, 26), Error);
  Value s = Tensor::from_vector<std::string>({"a"}, {1});
  EXPECT_THROW(run_node("BitCast", {s}, {attr_int("to", int64_t(DataType::kUInt8))}, 26), Error);
}

TEST(ExtrasSwiGLU, DoubleAndAlpha) {
  Value a = Tensor::from_vector<double>({1, -2}, {2});
  Value b = Tensor::from_vector<double>({2, 3}, {2});
  auto sig = [](double x) { return 1 / (1 + std::exp(-x)); };
  expect_values(run_node("SwiGLU", {a, b}, {}, 28)[0], {1 * sig(1) * 2, -2 * sig(-2) * 3}, {2}, 1e-12);
  expect_values(run_node("SwiGLU", {a, b}, {attr_float("alpha", 0.5f)}, 28)[0],
                {1 * sig(0.5) * 2, -2 * sig(-1) * 3}, {2}, 1e-12);
}

TEST(ExtrasSwiGLU, RejectsShapeMismatch) {
  Value a = Tensor::from_vector<float>({1, 2}, {2});
  Value b = Tensor::from_vector<float>({1}, {1});
  EXPECT_THROW(run_node("SwiGLU", {a, b}, {}, 28), Error);
}

// X = arange(9) as 3x3, W = ones 2x2: with zero offsets it is a plain convolution.
TEST(ExtrasDeformConv, ZeroOffsetIsConvolution) {
  std::vector<float> xs;
  for (int i = 0; i < 9; ++i) xs.push_back(float(i));
  Value x = Tensor::from_vector<float>(xs, {1, 1, 3, 3});
  Value w = Tensor::from_vector<float>({1, 1, 1, 1}, {1, 1, 2, 2});
  Value off = Tensor::from_vector<float>(std::vector<float>(32, 0.f), {1, 8, 2, 2});
  expect_values(run_node("DeformConv", {x, w, off}, {}, 19)[0], {8, 12, 20, 24}, {1, 1, 2, 2});
}

// Every tap moved down by half a pixel: rows are averaged, and row 3 reads zero.
TEST(ExtrasDeformConv, FractionalOffsetInterpolatesWithZeroOutside) {
  std::vector<float> xs;
  for (int i = 0; i < 9; ++i) xs.push_back(float(i));
  Value x = Tensor::from_vector<double>(std::vector<double>(xs.begin(), xs.end()), {1, 1, 3, 3});
  Value w = Tensor::from_vector<double>({1, 1, 1, 1}, {1, 1, 2, 2});
  std::vector<double> off(32, 0.0);
  for (int k = 0; k < 4; ++k)
    for (int o = 0; o < 4; ++o) off[size_t((k * 2) * 4 + o)] = 0.5;  // h-offset of tap k
  auto out = run_node("DeformConv", {x, w, Tensor::from_vector<double>(off, {1, 8, 2, 2})}, {}, 22);
  expect_values(out[0], {14, 18, 16.5, 19.5}, {1, 1, 2, 2}, 1e-12);
}

// 1-D, two groups, mask scales the second tap by 0.5, bias [10, 20].
TEST(ExtrasDeformConv, OneDimGroupsMaskBias) {
  Value x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {1, 2, 3});
  Value w = Tensor::from_vector<float>({1, 1, 1, -1}, {2, 1, 2});
  Value off = Tensor::from_vector<float>(std::vector<float>(4, 0.f), {1, 2, 2});
  Value b = Tensor::from_vector<float>({10, 20}, {2});
  Value mask = Tensor::from_vector<float>({1, 1, 0.5f, 0.5f}, {1, 2, 2});
  auto out = run_node("DeformConv", {x, w, off, b, mask}, {attr_int("group", 2)}, 22);
  expect_values(out[0], {12, 13.5, 21.5, 22}, {1, 2, 2});
}

TEST(ExtrasDeformConv, RejectsBadOffsetShape) {
  Value x = Tensor::from_vector<float>({1, 2, 3}, {1, 1, 3});
  Value w = Tensor::from_vector<float>({1, 1}, {1, 1, 2});
  Value off = Tensor::from_vector<float>({0, 0, 0}, {1, 1, 3});
  EXPECT_THROW(run_node("DeformConv", {x, w, off}, {}, 22), Error);
}

}  // namespace tessera::test
