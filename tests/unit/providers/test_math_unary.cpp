#include <cmath>
#include <cstdint>
#include <limits>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
}  // namespace

TEST(MathUnary, AbsNegAtInt64Extremes) {
  const int64_t mn = std::numeric_limits<int64_t>::min();
  const int64_t mx = std::numeric_limits<int64_t>::max();
  auto r = run1("Abs", {tv<int64_t>({mn, -5, mx})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{mn, 5, mx}));
  r = run1("Neg", {tv<int64_t>({mn, -5, mx})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{mn, 5, -mx}));
  r = run1("Abs", {tv<int8_t>({-128, -1})});
  EXPECT_EQ(vec<int8_t>(r), (std::vector<int8_t>{-128, 1}));
  r = run1("Abs", {tv<uint32_t>({7})});
  EXPECT_EQ(vec<uint32_t>(r)[0], 7u);
}

TEST(MathUnary, RoundHalfToEvenAndSign) {
  auto r = run1("Round", {tv<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, kNaN})});
  expect_near_all(vec<float>(r), {0, 2, 2, -0.0f, -2, 2, kNaN});
  r = run1("Sign", {tv<float>({-3, 0, 2, kNaN})});
  expect_near_all(vec<float>(r), {-1, 0, 1, kNaN});
  r = run1("Sign", {tv<int32_t>({-3, 0, 2})});
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{-1, 0, 1}));
}

TEST(MathUnary, Transcendentals) {
  auto r = run1("Exp", {tv<float>({0, 1, -kInf})});
  expect_near_all(vec<float>(r), {1, 2.7182817f, 0});
  r = run1("Log", {tv<double>({1, 0})});
  EXPECT_EQ(vec<double>(r)[0], 0);
  EXPECT_EQ(vec<double>(r)[1], -std::numeric_limits<double>::infinity());
  r = run1("Sqrt", {tv<float>({4, -1})});
  expect_near_all(vec<float>(r), {2, kNaN});
  r = run1("Erf", {tv<float>({0, 1})});
  expect_near_all(vec<float>(r), {0, 0.8427008f});
  r = run1("Atanh", {tv<float>({0.5f})}, {}, 9);
  expect_near_all(vec<float>(r), {0.5493061f});
  r = run1("Reciprocal", {tv<float>({2, 0})});
  expect_near_all(vec<float>(r), {0.5f, kInf});
}

TEST(MathUnary, SigmoidIsStableForLargeInputs) {
  auto r = run1("Sigmoid", {tv<float>({-1000, 0, 1000})});
  expect_near_all(vec<float>(r), {0, 0.5f, 1});
  r = run1("Softplus", {tv<float>({-1000, 0, 1000})});
  expect_near_all(vec<float>(r), {0, 0.6931472f, 1000});
}

TEST(MathUnary, ActivationsWithAttributes) {
  auto r = run1("LeakyRelu", {tv<float>({-2, 3})}, {attr_float("alpha", 0.1f)});
  expect_near_all(vec<float>(r), {-0.2f, 3});
  r = run1("Elu", {tv<float>({-1, 2})});
  expect_near_all(vec<float>(r), {-0.6321206f, 2});
  r = run1("Selu", {tv<float>({-1, 2})});
  expect_near_all(vec<float>(r), {-1.1113307f, 2.101402f});
  r = run1("Celu", {tv<float>({-1, 2})}, {attr_float("alpha", 2.0f)});
  expect_near_all(vec<float>(r), {-0.7869387f, 2});
  r = run1("ThresholdedRelu", {tv<float>({0.5f, 1.5f})});
  expect_near_all(vec<float>(r), {0, 1.5f});
  r = run1("HardSigmoid", {tv<float>({-10, 0, 10})});
  expect_near_all(vec<float>(r), {0, 0.5f, 1});
  r = run1("HardSwish", {tv<float>({-4, 1, 4})});
  expect_near_all(vec<float>(r), {0, 0.6666667f, 4});
  r = run1("Softsign", {tv<float>({-1, 3})});
  expect_near_all(vec<float>(r), {-0.5f, 0.75f});
  r = run1("Mish", {tv<float>({1})});
  expect_near_all(vec<float>(r), {0.8650984f});
  r = run1("Gelu", {tv<float>({1})}, {}, 20);
  expect_near_all(vec<float>(r), {0.8413447f});
  r = run1("Gelu", {tv<float>({1})}, {attr_string("approximate", "tanh")}, 20);
  expect_near_all(vec<float>(r), {0.8411920f});
  r = run1("Swish", {tv<float>({1})}, {attr_float("alpha", 2.0f)}, 24);
  expect_near_all(vec<float>(r), {0.8807971f});
  r = run1("Shrink", {tv<float>({-2, 0.3f, 2})},
           {attr_float("lambd", 1), attr_float("bias", 0.5f)});
  expect_near_all(vec<float>(r), {-1.5f, 0, 1.5f});
  r = run1("Relu", {tv<int32_t>({-3, 4})});
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{0, 4}));
  r = run1("Relu", {tv<float>({-1, kNaN})});
  expect_near_all(vec<float>(r), {0, kNaN});
  EXPECT_THROW(run1("Gelu", {tv<float>({1})}, {attr_string("approximate", "erf")}, 20), Error);
}

TEST(MathUnary, ClipAttributesAndInputs) {
  auto r = run1("Clip", {tv<float>({-5, 0, 5})}, {attr_float("min", -1), attr_float("max", 1)}, 6);
  expect_near_all(vec<float>(r), {-1, 0, 1});
  r = run1("Clip", {tv<float>({-5, 0, 5, kNaN}), tv<float>({-1}, Shape{}), Value()}, {}, 13);
  expect_near_all(vec<float>(r), {-1, 0, 5, kNaN});
  r = run1("Clip", {tv<int64_t>({-5, 0, 5}), Value(), tv<int64_t>({2}, Shape{})}, {}, 13);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{-5, 0, 2}));
  // min > max gives max everywhere.
  r = run1("Clip", {tv<int32_t>({-5, 0, 5}), tv<int32_t>({3}, Shape{}), tv<int32_t>({1}, Shape{})},
           {}, 13);
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{1, 1, 1}));
  // Integer Clip only from opset 12.
  EXPECT_THROW(run1("Clip", {tv<int32_t>({1})}, {}, 11), Error);
}

TEST(MathUnary, IsNaNIsInfNot) {
  auto r = run1("IsNaN", {tv<float>({1, kNaN, kInf})});
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{false, true, false}));
  r = run1("IsInf", {tv<float>({1, kNaN, kInf, -kInf})}, {attr_int("detect_negative", 0)});
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{false, false, true, false}));
  r = run1("IsInf", {tv<double>({-std::numeric_limits<double>::infinity()})},
           {attr_int("detect_positive", 0)});
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{true}));
  r = run1("Not", {tv<bool>({true, false})});
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{false, true}));
}

TEST(MathUnary, HalfTypesAndEmptyAndLargeTensors) {
  auto r = run1("Tanh", {tv<Float16>({Float16(0.0f), Float16(100.0f)})});
  EXPECT_EQ(float(vec<Float16>(r)[1]), 1.0f);
  r = run1("Exp", {tv<float>({}, Shape{0, 4})});
  EXPECT_EQ(r.shape(), Shape({0, 4}));
  // Big enough to be split across threads.
  std::vector<float> big(200000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = float(i % 7) - 3;
  r = run1("Abs", {tv<float>(big)});
  const float* d = r.data<float>();
  for (size_t i = 0; i < big.size(); ++i) ASSERT_EQ(d[i], std::fabs(big[i]));
}

// A float op through its vector loop against `ref` in double, over a tensor
// long enough to be split into chunks and to leave a tail: within
// atol + rtol * |want|, NaN for NaN.
template <class Ref>
void expect_float_op(const std::string& op, std::vector<ir::Attribute> attrs, int64_t opset,
                     float lo, float hi, Ref ref, double rtol, double atol = 0) {
  std::vector<float> x(5003);
  for (size_t i = 0; i < x.size(); ++i) x[i] = lo + (hi - lo) * float(i) / float(x.size() - 1);
  x[7] = kNaN;
  const Tensor r = run1(op, {tv<float>(x)}, attrs, opset);
  const std::vector<float> y = vec<float>(r);
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = ref(double(x[i]));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(y[i])) << op << "(" << x[i] << ") = " << y[i];
      continue;
    }
    EXPECT_NEAR(double(y[i]), want, atol + rtol * std::abs(want)) << op << "(" << x[i] << ")";
  }
}

double softplus_ref(double v) {
  return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
}
double tanh_ref(double v) { return std::tanh(v); }
double log_ref(double v) { return std::log(v); }
double mish_ref(double v) { return v * std::tanh(softplus_ref(v)); }
double elu_ref(double v) { return v < 0 ? 0.5 * std::expm1(v) : v; }
double selu_ref(double v) {
  return 1.05070102214813232421875 * (v > 0 ? v : 1.67326319217681884765625 * std::expm1(v));
}
double celu_ref(double v) { return v > 0 ? v : 2 * std::expm1(v / 2); }
double gelu_ref(double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }
// 0.5 v (1 + tanh(u)) as the equal v / (1 + e^-2u), which double evaluates
// without 1 + tanh(u) cancelling for negative v.
double gelu_tanh_ref(double v) {
  return v / (1 + std::exp(-2 * std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
}

TEST(MathUnary, FloatVectorPathsMatchDouble) {
  expect_float_op("Tanh", {}, 13, -10.0f, 10.0f, tanh_ref, 3e-7);
  expect_float_op("Tanh", {}, 13, -1e-3f, 1e-3f, tanh_ref, 3e-7);
  expect_float_op("Log", {}, 13, -1.0f, 50.0f, log_ref, 2e-7);
  expect_float_op("Softplus", {}, 13, -30.0f, 30.0f, softplus_ref, 4e-7);
  expect_float_op("Mish", {}, 18, -30.0f, 30.0f, mish_ref, 5e-7);
  expect_float_op("Gelu", {}, 20, -8.0f, 8.0f, gelu_ref, 2e-6, 1e-7);
  expect_float_op("Elu", {attr_float("alpha", 0.5f)}, 6, -20.0f, 5.0f, elu_ref, 3e-7);
  expect_float_op("Selu", {}, 6, -20.0f, 5.0f, selu_ref, 3e-7);
  expect_float_op("Celu", {attr_float("alpha", 2.0f)}, 12, -20.0f, 5.0f, celu_ref, 3e-7);
  expect_float_op(
      "Elu", {}, 6, -1e-3f, 1e-3f, [](double v) { return v < 0 ? std::expm1(v) : v; }, 3e-7);
  const ir::Attribute tanh_form = attr_string("approximate", "tanh");
  expect_float_op("Gelu", {tanh_form}, 20, -8.0f, 8.0f, gelu_tanh_ref, 2e-6, 1e-12);
  expect_float_op("Gelu", {tanh_form}, 20, -1e-3f, 1e-3f, gelu_tanh_ref, 2e-6, 1e-12);
}

TEST(MathUnary, UnsupportedTypeIsRejected) {
  EXPECT_THROW(run1("Exp", {tv<int32_t>({1})}), Error);
  EXPECT_THROW(run1("Neg", {tv<uint8_t>({1})}), Error);
}

}  // namespace tessera::test
