#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

TEST(MathSoftmax, LastAxisIsStable) {
  auto r = run1("Softmax", {tv<float>({1000, 1001, 1002, 0, 0, 0}, Shape{2, 3})}, {}, 13);
  expect_near_all(vec<float>(r),
                  {0.09003057f, 0.24472847f, 0.66524096f, 1 / 3.f, 1 / 3.f, 1 / 3.f});
  r = run1("LogSoftmax", {tv<float>({1000, 1001, 1002})}, {}, 13);
  expect_near_all(vec<float>(r), {-2.4076059f, -1.4076059f, -0.4076059f});
}

TEST(MathSoftmax, InnerAxisAndNegativeAxis) {
  // [2,2,2] along axis 1 (== -2): pairs (x[i,0,k], x[i,1,k]).
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  auto a = run1("Softmax", {tv<float>(x, Shape{2, 2, 2})}, {attr_int("axis", 1)}, 13);
  auto b = run1("Softmax", {tv<float>(x, Shape{2, 2, 2})}, {attr_int("axis", -2)}, 13);
  EXPECT_EQ(vec<float>(a), vec<float>(b));
  float lo = 1 / (1 + std::exp(2.0f)), hi = 1 - lo;
  expect_near_all(vec<float>(a), {lo, lo, hi, hi, lo, lo, hi, hi});
}

TEST(MathSoftmax, LegacyCoercesTo2D) {
  // Opset 11, axis 1 on [1,2,2]: softmax over the 4 trailing elements.
  auto r = run1("Softmax", {tv<float>({0, 0, 0, 0}, Shape{1, 2, 2})}, {}, 11);
  expect_near_all(vec<float>(r), {0.25f, 0.25f, 0.25f, 0.25f});
  r = run1("Hardmax", {tv<float>({1, 3, 3, 2}, Shape{1, 2, 2})}, {}, 11);
  expect_near_all(vec<float>(r), {0, 1, 0, 0});
  r = run1("Hardmax", {tv<float>({1, 3, 3, 2}, Shape{2, 2})}, {attr_int("axis", 0)}, 13);
  expect_near_all(vec<float>(r), {0, 1, 1, 0});
  EXPECT_THROW(run1("Softmax", {tv<float>({1, 2})}, {attr_int("axis", 2)}, 13), Error);
}

TEST(MathSoftmax, HalfAndEmpty) {
  auto r = run1("Softmax", {tv<Float16>({Float16(0.0f), Float16(0.0f)})}, {}, 13);
  EXPECT_EQ(float(vec<Float16>(r)[0]), 0.5f);
  r = run1("Softmax", {tv<float>({}, Shape{0, 3})}, {}, 13);
  EXPECT_EQ(r.shape(), Shape({0, 3}));
}

// Float rows along the last axis against a double reference: short rows (a
// block of rows at a time, more rows than one block holds) and long rows
// (the row loops), with NaN, +inf and all -inf rows giving NaNs.
void check_softmax_rows(const std::string& op, int64_t rows, int64_t len) {
  std::vector<float> x(static_cast<size_t>(rows * len));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(double(i) * 1.7) * 20);
  x[0] = std::numeric_limits<float>::quiet_NaN();                         // row 0
  if (rows > 1) x[size_t(len)] = std::numeric_limits<float>::infinity();  // row 1
  if (rows > 2)
    for (int64_t j = 0; j < len; ++j)
      x[size_t(2 * len + j)] = -std::numeric_limits<float>::infinity();
  if (rows > 3 && len > 1) x[size_t(3 * len + len / 2)] = -std::numeric_limits<float>::infinity();
  auto r = run1(op, {tv<float>(x, Shape{rows, len})}, {attr_int("axis", -1)}, 13);
  const std::vector<float> y = vec<float>(r);
  for (int64_t o = 0; o < rows; ++o) {
    const float* xr = x.data() + o * len;
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < len; ++j) mx = std::max(mx, double(xr[j]));
    for (int64_t j = 0; j < len; ++j) sum += std::exp(double(xr[j]) - mx);
    for (int64_t j = 0; j < len; ++j) {
      const float got = y[size_t(o * len + j)];
      const std::string at = op + " len " + std::to_string(len) + " row " + std::to_string(o);
      if (o < 3) {
        ASSERT_TRUE(std::isnan(got)) << at;
        continue;
      }
      const double d = double(xr[j]) - mx;
      if (op == "Softmax") {
        ASSERT_NEAR(got, std::exp(d) / sum, 1e-8 + 2e-6 * std::exp(d) / sum) << at;
      } else if (std::isinf(d)) {
        ASSERT_EQ(double(got), d) << at;
      } else {
        const double want = d - std::log(sum);
        ASSERT_NEAR(got, want, 2e-6 * (1 + std::abs(want))) << at;
      }
    }
  }
}

TEST(MathSoftmax, FloatRowsShortAndLong) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (int64_t len : {1, 3, 4, 17, 31, 32, 33, 100, 1000}) check_softmax_rows(op, 5, len);
    check_softmax_rows(op, 3000, 4);  // several blocks of short rows
    check_softmax_rows(op, 2, 50257);
  }
  // A row of one is 1 (log: 0).
  auto r = run1("LogSoftmax", {tv<float>({7, -3}, Shape{2, 1})}, {}, 13);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{0, 0}));
  r = run1("Softmax", {tv<float>({7, -3}, Shape{2, 1})}, {}, 13);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{1, 1}));
}

TEST(MathSoftmax, FloatInnerAxisMatchesReference) {
  // [2, 37, 19] along axis 1: columns 19 apart; one column holds a NaN.
  const int64_t outer = 2, len = 37, inner = 19;
  std::vector<float> x(static_cast<size_t>(outer * len * inner));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::cos(double(i) * 0.37) * 30);
  x[size_t(5 * inner + 3)] = std::numeric_limits<float>::quiet_NaN();  // outer 0, column 3
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    auto r = run1(op, {tv<float>(x, Shape{outer, len, inner})}, {attr_int("axis", -2)}, 13);
    const std::vector<float> y = vec<float>(r);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        auto at = [&](int64_t k) { return size_t((o * len + k) * inner + j); };
        double mx = -INFINITY, sum = 0;
        for (int64_t k = 0; k < len; ++k) mx = std::max(mx, double(x[at(k)]));
        for (int64_t k = 0; k < len; ++k) sum += std::exp(double(x[at(k)]) - mx);
        for (int64_t k = 0; k < len; ++k) {
          if (o == 0 && j == 3) {
            ASSERT_TRUE(std::isnan(y[at(k)])) << op;
            continue;
          }
          const double d = double(x[at(k)]) - mx;
          const double want = std::string(op) == "Softmax" ? std::exp(d) / sum : d - std::log(sum);
          ASSERT_NEAR(y[at(k)], want, 2e-6 * (1e-2 + std::abs(want))) << op << " " << o << " " << j;
        }
      }
  }
}

TEST(MathDet, BatchedDeterminants) {
  auto r = run1("Det", {tv<float>({1, 2, 3, 4, 2, 0, 0, 2}, Shape{2, 2, 2})}, {}, 11);
  EXPECT_EQ(r.shape(), Shape({2}));
  expect_near_all(vec<float>(r), {-2, 4});
  r = run1("Det", {tv<double>({0, 1, 1, 0}, Shape{2, 2})}, {}, 22);
  EXPECT_EQ(vec<double>(r)[0], -1);
  EXPECT_THROW(run1("Det", {tv<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3})}, {}, 22), Error);
}

TEST(MathRegistry, EveryOpsetVersionHasAKernel) {
  const auto& reg = cpu::cpu_kernel_registry();
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    for (int64_t v = 1; v <= 24; ++v)
      EXPECT_TRUE(reg.lookup("", op, v, {DataType::kFloat, DataType::kFloat}).entry)
          << op << " opset " << v;
  EXPECT_TRUE(reg.lookup("", "Cast", 1, {DataType::kFloat}).entry);
  EXPECT_TRUE(reg.lookup("", "Cast", 25, {DataType::kInt2}).entry);
  EXPECT_FALSE(reg.lookup("", "Cast", 24, {DataType::kInt2}).entry);
  EXPECT_FALSE(reg.lookup("", "Round", 10, {DataType::kFloat}).entry);
  EXPECT_TRUE(reg.lookup("", "ReduceMax", 20, {DataType::kBool}).entry);
  EXPECT_FALSE(reg.lookup("", "ReduceMax", 18, {DataType::kBool}).entry);
  EXPECT_TRUE(reg.lookup("", "Swish", 24, {DataType::kFloat}).entry);
}

}  // namespace tessera::test
