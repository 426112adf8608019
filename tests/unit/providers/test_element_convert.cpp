// The one element-conversion helper that the quant, recurrent, random and
// signal families share.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "providers/cpu/element_convert.hpp"
#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/recurrent/float_io.hpp"

namespace tessera::cpu {
namespace {

TEST(ElementConvert, HalfTypesGoThroughFloatAndBoolMeansNonZero) {
  EXPECT_EQ(float(convert_elem<Float16>(1.5)), 1.5f);
  EXPECT_EQ(convert_elem<double>(BFloat16(2.0f)), 2.0);
  EXPECT_TRUE(convert_elem<bool>(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_TRUE(convert_elem<bool>(Float16(-0.5f)));
  EXPECT_FALSE(convert_elem<bool>(Float16(0.0f)));
  EXPECT_FALSE(convert_elem<bool>(int64_t(0)));
  EXPECT_EQ(convert_elem<int32_t>(-7.9), -7);
  EXPECT_EQ(from_double<uint8_t>(200.0), 200);
  EXPECT_EQ(to_double(true), 1.0);
}

TEST(ElementConvert, TensorReadersAgreeAcrossFamilies) {
  auto h = Tensor::from_vector<Float16>({Float16(1.0f), Float16(-2.5f)}, Shape{2});
  EXPECT_EQ(read_as<float>(h), (std::vector<float>{1.0f, -2.5f}));
  EXPECT_EQ(load_float<float>(h), (std::vector<float>{1.0f, -2.5f}));
  auto i = Tensor::from_vector<int8_t>({-128, 127}, Shape{2});
  EXPECT_EQ(read_as<double>(i), (std::vector<double>{-128, 127}));
  EXPECT_THROW(load_float<float>(i), Error);  // the recurrent family takes float types only
}

TEST(ElementConvert, WritersClampIntegersAndRoundHalves) {
  Tensor i(DataType::kInt8, Shape{4});
  std::vector<float> v = {300.f, -300.f, std::nanf(""), -3.7f};
  write_from(i, v.data());
  EXPECT_EQ(i.data<int8_t>()[0], 127);
  EXPECT_EQ(i.data<int8_t>()[1], -128);
  EXPECT_EQ(i.data<int8_t>()[2], 0);
  EXPECT_EQ(i.data<int8_t>()[3], -3);
  Tensor b(DataType::kBFloat16, Shape{1});
  store_float(std::vector<double>{1.0}, b);
  EXPECT_EQ(float(b.data<BFloat16>()[0]), 1.0f);
  Tensor flags(DataType::kBool, Shape{2});
  std::vector<double> d = {0.0, -1e-30};
  write_from(flags, d.data());
  EXPECT_FALSE(flags.data<bool>()[0]);
  EXPECT_TRUE(flags.data<bool>()[1]);
}

}  // namespace
}  // namespace tessera::cpu
