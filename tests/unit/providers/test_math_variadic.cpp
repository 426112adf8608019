#include <cstdint>
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
  r = run1("Where", {tv<bool>({true, false}), tv<std::string>({"a", "b"}),
                     tv<std::string>({"x", "y"})});
  EXPECT_EQ(vec<std::string>(r), (std::vector<std::string>{"a", "y"}));
  r = run1("Where", {tv<bool>({false}), tv<int64_t>({1}), tv<int64_t>({2})});
  EXPECT_EQ(vec<int64_t>(r)[0], 2);
  EXPECT_THROW(run1("Where", {tv<bool>({true, false, true}), tv<float>({1, 2}), tv<float>({1})}),
               Error);
}

}  // namespace tessera::test
