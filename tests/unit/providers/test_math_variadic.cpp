#include <cstdint>
#include <cstring>
#include <limits>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
}

TEST(MathVariadic, SumMeanBroadcast) {
  auto r = run1("Sum", {tv<float>({1, 2, 3}), tv<float>({10}, Shape{1}),
                        tv<float>({100, 200, 300, 400, 500, 600}, Shape{2, 3})});
  EXPECT_EQ(r.shape(), Shape({2, 3}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{111, 212, 313, 411, 512, 613}));
  r = run1("Mean", {tv<float>({1, 2}), tv<float>({3, 4})});
  EXPECT_EQ(vec<float>(r), (std::vector<float>{2, 3}));
  r = run1("Sum", {tv<float>({1, 2})});
  EXPECT_EQ(vec<float>(r), (std::vector<float>{1, 2}));
}

TEST(MathVariadic, MaxMinPropagateNaN) {
  auto r = run1("Max", {tv<float>({1, kNaN, 3}), tv<float>({kNaN, 2, 1})});
  expect_near_all(vec<float>(r), {kNaN, kNaN, 3});
  r = run1("Min", {tv<float>({1, 5, 3}), tv<float>({2}, Shape{}), tv<float>({kNaN, 0, 9})});
  expect_near_all(vec<float>(r), {kNaN, 0, 2});
  r = run1("Max", {tv<int64_t>({std::numeric_limits<int64_t>::min(), 5}), tv<int64_t>({-1, 7})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{-1, 7}));
  // Integer Max only from opset 12.
  EXPECT_THROW(run1("Max", {tv<int32_t>({1}), tv<int32_t>({2})}, {}, 8), Error);
}

TEST(MathVariadic, LargeEqualShapesSplitAcrossThreads) {
  std::vector<float> a(100000), b(100000);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float(i);
    b[i] = 1;
  }
  auto r = run1("Sum", {tv<float>(a), tv<float>(b)});
  const float* d = r.data<float>();
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(d[i], float(i) + 1);
}

TEST(MathVariadic, WhereThreeWayBroadcast) {
  auto r = run1("Where", {tv<bool>({true, false}, Shape{2, 1}), tv<float>({1, 2, 3}),
                          tv<float>({-1}, Shape{})});
  EXPECT_EQ(r.shape(), Shape({2, 3}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{1, 2, 3, -1, -1, -1}));
  r = run1("Where",
           {tv<bool>({true, false}), tv<std::string>({"a", "b"}), tv<std::string>({"x", "y"})});
  EXPECT_EQ(vec<std::string>(r), (std::vector<std::string>{"a", "y"}));
  r = run1("Where", {tv<bool>({false}), tv<int64_t>({1}), tv<int64_t>({2})});
  EXPECT_EQ(vec<int64_t>(r)[0], 2);
  EXPECT_THROW(run1("Where", {tv<bool>({true, false, true}), tv<float>({1, 2}), tv<float>({1})}),
               Error);
}

// The mask-select loops: every combination of a full and a broadcast
// condition, x and y, at lengths that leave vector tails, on 1-, 2-, 4- and
// 8-byte types; NaN and infinities are copied bit for bit.
template <typename T>
void check_where_broadcasts(T a, T b) {
  for (int64_t n : {1, 7, 33, 4099}) {
    std::vector<bool> cond(static_cast<size_t>(n));
    std::vector<T> xs(static_cast<size_t>(n)), ys(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      cond[size_t(i)] = (i * 7919) % 3 == 0;
      xs[size_t(i)] = i % 2 ? a : b;
      ys[size_t(i)] = i % 2 ? b : a;
    }
    for (int mode = 0; mode < 8; ++mode) {
      const bool fc = mode & 1, fx = mode & 2, fy = mode & 4;
      std::vector<bool> c = fc ? cond : std::vector<bool>{cond[0]};
      std::vector<T> x = fx ? xs : std::vector<T>{xs[0]};
      std::vector<T> y = fy ? ys : std::vector<T>{ys[0]};
      auto shape = [n](bool full) { return full ? Shape{1, n} : Shape{1}; };
      if (!fc && !fx && !fy) continue;
      auto r = run1("Where", {tv<bool>(c, shape(fc)), tv<T>(x, shape(fx)), tv<T>(y, shape(fy))});
      ASSERT_EQ(r.shape(), Shape({1, n}));
      const T* d = r.template data<T>();
      for (int64_t i = 0; i < n; ++i) {
        const bool ci = fc ? cond[size_t(i)] : cond[0];
        const T want = ci ? (fx ? xs[size_t(i)] : xs[0]) : (fy ? ys[size_t(i)] : ys[0]);
        ASSERT_EQ(std::memcmp(&d[i], &want, sizeof(T)), 0) << "mode " << mode << " i " << i;
      }
    }
  }
}

TEST(MathVariadic, WhereSelectsEveryBroadcastAndWidth) {
  check_where_broadcasts<float>(kNaN, -std::numeric_limits<float>::infinity());
  check_where_broadcasts<double>(-0.0, 1e300);
  check_where_broadcasts<int64_t>(std::numeric_limits<int64_t>::min(), 3);
  check_where_broadcasts<int16_t>(-5, 7);
  check_where_broadcasts<uint8_t>(255, 1);
}

TEST(MathVariadic, WhereRowBroadcastOfCondition) {
  // A [1, 3] mask over [2, 3] values: the condition repeats per row.
  auto r = run1("Where", {tv<bool>({true, false, true}, Shape{1, 3}),
                          tv<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3}), tv<float>({-1}, Shape{})});
  EXPECT_EQ(vec<float>(r), (std::vector<float>{1, -1, 3, 4, -1, 6}));
}

}  // namespace tessera::test
