#include <gtest/gtest.h>

#include <cmath>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_float;
using test::attr_int;
using test::attr_ints;
using test::run_node;

std::vector<double> values(const Value& v) {
  std::vector<double> out;
  for (int64_t i = 0; i < v.tensor().num_elements(); ++i) out.push_back(v.tensor().element_as_double(i));
  return out;
}
double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}
double stddev(const std::vector<double>& v) {
  double m = mean(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size()));
}

TEST(RandomKernels, NormalShapeTypeStatistics) {
  auto y = run_node("RandomNormal", {},
                    {attr_ints("shape", {100, 100}), attr_float("mean", 2.0f), attr_float("scale", 3.0f)},
                    1)[0];
  EXPECT_EQ(y.tensor().dtype(), DataType::kFloat);
  EXPECT_EQ(y.tensor().shape(), (Shape{100, 100}));
  auto v = values(y);
  EXPECT_NEAR(mean(v), 2.0, 0.15);
  EXPECT_NEAR(stddev(v), 3.0, 0.15);
}

TEST(RandomKernels, SeedIsReproducibleAndUnseededVaries) {
  std::vector<ir::Attribute> a = {attr_ints("shape", {64}), attr_float("seed", 5.0f)};
  auto y1 = values(run_node("RandomUniform", {}, a, 22)[0]);
  auto y2 = values(run_node("RandomUniform", {}, a, 22)[0]);
  EXPECT_EQ(y1, y2);
  auto z1 = values(run_node("RandomUniform", {}, {attr_ints("shape", {64})}, 22)[0]);
  auto z2 = values(run_node("RandomUniform", {}, {attr_ints("shape", {64})}, 22)[0]);
  EXPECT_NE(z1, z2);
}

TEST(RandomKernels, UniformRangeAndDtypes) {
  for (DataType t : {DataType::kFloat, DataType::kDouble, DataType::kFloat16}) {
    auto y = run_node("RandomUniform", {},
                      {attr_ints("shape", {10000}), attr_float("low", -2.0f), attr_float("high", 4.0f),
                       attr_int("dtype", int64_t(t))},
                      1)[0];
    EXPECT_EQ(y.tensor().dtype(), t);
    auto v = values(y);
    for (double x : v) {
      ASSERT_GE(x, -2.0);
      ASSERT_LE(x, 4.0);
    }
    EXPECT_NEAR(mean(v), 1.0, 0.1);
  }
  // bfloat16 arrives at opset 22.
  EXPECT_THROW(run_node("RandomUniform", {},
                        {attr_ints("shape", {2}), attr_int("dtype", int64_t(DataType::kBFloat16))}, 21),
               Error);
  auto b = run_node("RandomUniform", {},
                    {attr_ints("shape", {2}), attr_int("dtype", int64_t(DataType::kBFloat16))}, 22)[0];
  EXPECT_EQ(b.tensor().dtype(), DataType::kBFloat16);
  EXPECT_THROW(run_node("RandomUniform", {}, {attr_ints("shape", {2}), attr_int("dtype", 6)}, 22),
               Error);
}

TEST(RandomKernels, LikeTakesShapeAndType) {
  Value x = Tensor(DataType::kDouble, Shape{3, 4});
  auto y = run_node("RandomNormalLike", {x}, {}, 1)[0];
  EXPECT_EQ(y.tensor().dtype(), DataType::kDouble);
  EXPECT_EQ(y.tensor().shape(), (Shape{3, 4}));
  Value xi = Tensor(DataType::kInt32, Shape{5});
  auto u = run_node("RandomUniformLike", {xi}, {attr_int("dtype", int64_t(DataType::kFloat))}, 22)[0];
  EXPECT_EQ(u.tensor().dtype(), DataType::kFloat);
  EXPECT_EQ(u.tensor().shape(), (Shape{5}));
  EXPECT_THROW(run_node("RandomUniformLike", {xi}, {}, 22), Error);  // int32 output not allowed
}

TEST(RandomKernels, BernoulliProbabilities) {
  std::vector<float> p(10000);
  for (size_t i = 0; i < p.size(); ++i) p[i] = i % 2 ? 0.25f : 1.0f;
  Value x = Tensor::from_vector<float>(p, {10000});
  auto y = run_node("Bernoulli", {x}, {attr_float("seed", 1.0f)}, 15)[0];
  EXPECT_EQ(y.tensor().dtype(), DataType::kFloat);
  auto v = values(y);
  double odd = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_TRUE(v[i] == 0.0 || v[i] == 1.0);
    if (i % 2 == 0) ASSERT_EQ(v[i], 1.0);
    else odd += v[i];
  }
  EXPECT_NEAR(odd / 5000.0, 0.25, 0.03);
  auto again = values(run_node("Bernoulli", {x}, {attr_float("seed", 1.0f)}, 15)[0]);
  EXPECT_EQ(v, again);
  auto b = run_node("Bernoulli", {x}, {attr_int("dtype", int64_t(DataType::kBool))}, 22)[0];
  EXPECT_EQ(b.tensor().dtype(), DataType::kBool);
  Value bad = Tensor::from_vector<float>({1.5f}, {1});
  EXPECT_THROW(run_node("Bernoulli", {bad}, {}, 15), Error);
}

TEST(RandomKernels, MultinomialFrequencies) {
  // Log-probabilities of [0.1, 0.2, 0.7] in row 0; row 1 always picks class 2.
  Value x = Tensor::from_vector<float>(
      {std::log(0.1f), std::log(0.2f), std::log(0.7f), -1e9f, -1e9f, 0.0f}, {2, 3});
  auto y = run_node("Multinomial", {x}, {attr_int("sample_size", 10000), attr_float("seed", 3.0f)},
                    7)[0];
  EXPECT_EQ(y.tensor().dtype(), DataType::kInt32);
  EXPECT_EQ(y.tensor().shape(), (Shape{2, 10000}));
  auto v = values(y);
  std::vector<double> count(3, 0);
  for (int i = 0; i < 10000; ++i) count[size_t(v[size_t(i)])] += 1;
  EXPECT_NEAR(count[0] / 10000, 0.1, 0.02);
  EXPECT_NEAR(count[1] / 10000, 0.2, 0.02);
  EXPECT_NEAR(count[2] / 10000, 0.7, 0.02);
  for (int i = 10000; i < 20000; ++i) ASSERT_EQ(v[size_t(i)], 2.0);
  auto y64 = run_node("Multinomial", {x}, {attr_int("dtype", int64_t(DataType::kInt64))}, 22)[0];
  EXPECT_EQ(y64.tensor().dtype(), DataType::kInt64);
  EXPECT_EQ(y64.tensor().shape(), (Shape{2, 1}));
}

}  // namespace
}  // namespace tessera
