#include <cstdint>
#include <limits>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// x = [[[1,2],[3,4]],[[5,6],[7,8]]]  shape [2,2,2]
Value cube() { return tv<float>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 2, 2}); }
Value axes(std::vector<int64_t> a) {
  Shape s{int64_t(a.size())};
  return tv<int64_t>(a, s);
}
}  // namespace

TEST(ReduceOps, SumAxesAttributeAndInput) {
  auto r = run1("ReduceSum", {cube()}, {attr_ints("axes", {1})}, 11);
  EXPECT_EQ(r.shape(), Shape({2, 1, 2}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{4, 6, 12, 14}));
  r = run1("ReduceSum", {cube(), axes({-1})}, {attr_int("keepdims", 0)}, 13);
  EXPECT_EQ(r.shape(), Shape({2, 2}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{3, 7, 11, 15}));
  r = run1("ReduceSum", {cube(), axes({0, 2})}, {attr_int("keepdims", 0)}, 13);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{14, 22}));
  // No axes: everything.
  r = run1("ReduceSum", {cube()}, {}, 13);
  EXPECT_EQ(r.shape(), Shape({1, 1, 1}));
  EXPECT_EQ(vec<float>(r)[0], 36);
  // Empty axes with noop_with_empty_axes: identity.
  r = run1("ReduceSum", {cube(), axes({})}, {attr_int("noop_with_empty_axes", 1)}, 13);
  EXPECT_EQ(r.shape(), Shape({2, 2, 2}));
  EXPECT_EQ(vec<float>(r)[7], 8);
}

TEST(ReduceOps, AllKinds) {
  auto run = [](const char* op) {
    return vec<float>(run1(op, {cube(), axes({0})}, {attr_int("keepdims", 0)}, 18));
  };
  EXPECT_EQ(run("ReduceMean"), (std::vector<float>{3, 4, 5, 6}));
  EXPECT_EQ(run("ReduceMax"), (std::vector<float>{5, 6, 7, 8}));
  EXPECT_EQ(run("ReduceMin"), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(run("ReduceProd"), (std::vector<float>{5, 12, 21, 32}));
  EXPECT_EQ(run("ReduceL1"), (std::vector<float>{6, 8, 10, 12}));
  EXPECT_EQ(run("ReduceSumSquare"), (std::vector<float>{26, 40, 58, 80}));
  expect_near_all(run("ReduceL2"), {std::sqrt(26.f), std::sqrt(40.f), std::sqrt(58.f),
                                    std::sqrt(80.f)});
  expect_near_all(run("ReduceLogSum"), {std::log(6.f), std::log(8.f), std::log(10.f),
                                        std::log(12.f)});
  expect_near_all(run("ReduceLogSumExp"),
                  {std::log(std::exp(1.f) + std::exp(5.f)), std::log(std::exp(2.f) + std::exp(6.f)),
                   std::log(std::exp(3.f) + std::exp(7.f)), std::log(std::exp(4.f) + std::exp(8.f))});
}

TEST(ReduceOps, LogSumExpIsStable) {
  auto r = run1("ReduceLogSumExp", {tv<float>({1000, 1000, -kInf})}, {attr_int("keepdims", 0)}, 18);
  expect_near_all(vec<float>(r), {1000 + std::log(2.0f)});
  r = run1("ReduceLogSumExp", {tv<double>({-1e300, 1e300})}, {attr_int("keepdims", 0)}, 13);
  EXPECT_EQ(vec<double>(r)[0], 1e300);
}

TEST(ReduceOps, NaNPropagatesInMaxMin) {
  std::vector<float> x(20, 1.0f);
  x[13] = kNaN;
  auto r = run1("ReduceMax", {tv<float>(x)}, {attr_int("keepdims", 0)}, 18);
  EXPECT_TRUE(std::isnan(vec<float>(r)[0]));
  r = run1("ReduceMin", {tv<float>(x, Shape{4, 5})}, {attr_ints("axes", {0})}, 13);
  auto v = vec<float>(r);
  EXPECT_TRUE(std::isnan(v[3]));
  EXPECT_EQ(v[0], 1.0f);
  r = run1("ReduceSum", {tv<float>(x)}, {}, 13);
  EXPECT_TRUE(std::isnan(vec<float>(r)[0]));
}

TEST(ReduceOps, EmptyReductionsGiveIdentity) {
  Value e = tv<float>({}, Shape{2, 0});
  auto one = [&](const char* op) {
    return vec<float>(run1(op, {e, axes({1})}, {attr_int("keepdims", 0)}, 18));
  };
  EXPECT_EQ(one("ReduceSum"), (std::vector<float>{0, 0}));
  EXPECT_EQ(one("ReduceProd"), (std::vector<float>{1, 1}));
  EXPECT_EQ(one("ReduceMax"), (std::vector<float>{-kInf, -kInf}));
  EXPECT_EQ(one("ReduceMin"), (std::vector<float>{kInf, kInf}));
  EXPECT_EQ(one("ReduceLogSum"), (std::vector<float>{-kInf, -kInf}));
  EXPECT_EQ(one("ReduceLogSumExp"), (std::vector<float>{-kInf, -kInf}));
  EXPECT_EQ(one("ReduceL2"), (std::vector<float>{0, 0}));
  auto r = run1("ReduceMax", {tv<int32_t>({}, Shape{0}), axes({0})}, {}, 18);
  EXPECT_EQ(vec<int32_t>(r)[0], std::numeric_limits<int32_t>::min());
  // Reducing the non-empty axis of an empty tensor gives an empty result.
  r = run1("ReduceSum", {e, axes({0})}, {}, 13);
  EXPECT_EQ(r.shape(), Shape({1, 0}));
}

TEST(ReduceOps, IntegersWrapAndBoolMax) {
  const int64_t mx = std::numeric_limits<int64_t>::max();
  auto r = run1("ReduceSum", {tv<int64_t>({mx, 1})}, {attr_int("keepdims", 0)}, 13);
  EXPECT_EQ(vec<int64_t>(r)[0], std::numeric_limits<int64_t>::min());
  r = run1("ReduceMean", {tv<int32_t>({1, 2})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<int32_t>(r)[0], 1);
  // The int32 sum overflows; the mean must not.
  r = run1("ReduceMean", {tv<int32_t>({2000000000, 2000000000, 2000000000})},
           {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<int32_t>(r)[0], 2000000000);
  r = run1("ReduceMax", {tv<bool>({false, true, false, false}, Shape{2, 2}), axes({1})},
           {attr_int("keepdims", 0)}, 20);
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{true, false}));
}

TEST(ReduceOps, BadAxesFail) {
  EXPECT_THROW(run1("ReduceSum", {cube(), axes({3})}, {}, 13), Error);
  EXPECT_THROW(run1("ReduceSum", {cube(), axes({1, -2})}, {}, 13), Error);
}

TEST(ReduceOps, LargeInnerAndOuterReductions) {
  std::vector<float> x(300 * 257);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 5);
  auto rows = vec<float>(run1("ReduceSum", {tv<float>(x, Shape{300, 257}), axes({1})},
                              {attr_int("keepdims", 0)}, 13));
  auto cols = vec<float>(run1("ReduceSum", {tv<float>(x, Shape{300, 257}), axes({0})},
                              {attr_int("keepdims", 0)}, 13));
  for (int64_t i = 0; i < 300; ++i) {
    float s = 0;
    for (int64_t j = 0; j < 257; ++j) s += x[size_t(i * 257 + j)];
    ASSERT_EQ(rows[size_t(i)], s);
  }
  for (int64_t j = 0; j < 257; ++j) {
    float s = 0;
    for (int64_t i = 0; i < 300; ++i) s += x[size_t(i * 257 + j)];
    ASSERT_EQ(cols[size_t(j)], s);
  }
}

TEST(ReduceArg, ArgMaxArgMin) {
  auto r = run1("ArgMax", {tv<float>({1, 3, 3, 2, 0, 5}, Shape{2, 3})}, {attr_int("axis", 1)}, 13);
  EXPECT_EQ(r.dtype(), DataType::kInt64);
  EXPECT_EQ(r.shape(), Shape({2, 1}));
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{1, 2}));
  r = run1("ArgMax", {tv<float>({1, 3, 3, 2, 0, 5}, Shape{2, 3})},
           {attr_int("axis", -1), attr_int("select_last_index", 1), attr_int("keepdims", 0)}, 13);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{2, 2}));
  r = run1("ArgMin", {tv<int32_t>({4, 1, 1, 2}, Shape{2, 2})}, {}, 11);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{1, 0}));
  EXPECT_THROW(run1("ArgMax", {tv<float>({}, Shape{0})}, {}, 13), Error);
}

TEST(ReduceCumSum, ExclusiveReverse) {
  Value x = tv<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto r = run1("CumSum", {x, tv<int32_t>({1}, Shape{})}, {}, 14);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  r = run1("CumSum", {x, tv<int64_t>({0}, Shape{})}, {attr_int("exclusive", 1)}, 14);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{0, 0, 0, 1, 2, 3}));
  r = run1("CumSum", {x, tv<int64_t>({-1}, Shape{})}, {attr_int("reverse", 1)}, 14);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{6, 5, 3, 15, 11, 6}));
  r = run1("CumSum", {x, tv<int64_t>({1}, Shape{})},
           {attr_int("reverse", 1), attr_int("exclusive", 1)}, 11);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{5, 3, 0, 11, 6, 0}));
  EXPECT_THROW(run1("CumSum", {x, tv<int64_t>({2}, Shape{})}, {}, 14), Error);
}

TEST(ReduceCumSum, CumProd) {
  Value x = tv<int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto r = run1("CumProd", {x, tv<int64_t>({1}, Shape{})}, {}, 26);
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{1, 2, 6, 4, 20, 120}));
  r = run1("CumProd", {x, tv<int64_t>({0}, Shape{})}, {attr_int("exclusive", 1)}, 26);
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{1, 1, 1, 1, 2, 3}));
}

}  // namespace tessera::test
