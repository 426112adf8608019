// Edge cases the conformance suite does not cover, per kernel family:
// zero-sized dims, scalars, rank-0 and rank-6 broadcasting, negative axes,
// int64 extremes, NaN propagation in Min/Max and the max/min reductions.
#include <cstdint>
#include <limits>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

Value axes(std::vector<int64_t> a) {
  Shape s{int64_t(a.size())};
  return tv<int64_t>(a, s);
}

std::vector<float> iota(size_t n, float start = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + float(i);
  return v;
}

// --- zero-sized dims -------------------------------------------------------

TEST(EdgeCases, ZeroSizedDimsFlowThroughElementwiseAndShapeOps) {
  Value empty = tv<float>({}, Shape{0, 3});
  auto r = run1("Add", {empty, tv<float>({1, 2, 3}, Shape{3})});
  EXPECT_EQ(r.shape(), Shape({0, 3}));
  r = run1("Relu", {empty});
  EXPECT_EQ(r.shape(), Shape({0, 3}));
  r = run1("Transpose", {empty});
  EXPECT_EQ(r.shape(), Shape({3, 0}));
  r = run1("Concat", {empty, tv<float>({1, 2, 3}, Shape{1, 3})}, {attr_int("axis", 0)});
  EXPECT_EQ(r.shape(), Shape({1, 3}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{1, 2, 3}));
  r = run1("Reshape", {empty, axes({3, 0, 5})}, {attr_int("allowzero", 1)}, 18);
  EXPECT_EQ(r.shape(), Shape({3, 0, 5}));
}

TEST(EdgeCases, SliceOfAnEmptyAxisAndExtremeSteps) {
  // Backwards over an empty axis: nothing (the clamp range [0, dim - 1] is
  // empty there, which must not be handed to std::clamp).
  Value empty = tv<float>({}, Shape{0, 2});
  auto r = run1("Slice", {empty, axes({-1}), axes({-10}), axes({0}), axes({-1})}, {}, 13);
  EXPECT_EQ(r.shape(), Shape({0, 2}));
  // Steps at the int64 extremes take the first element of the range.
  Value x = tv<float>(iota(5), Shape{5});
  r = run1("Slice", {x, axes({1}), axes({kI64Max}), axes({0}), axes({kI64Max})}, {}, 13);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{1}));
  r = run1("Slice", {x, axes({3}), axes({kI64Min}), axes({0}), axes({kI64Min})}, {}, 13);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{3}));
  r = run1("Slice", {x, axes({-1}), axes({kI64Min}), axes({0}), axes({-2})}, {}, 13);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{4, 2, 0}));
}

TEST(EdgeCases, MatMulWithZeroInnerDimIsZeros) {
  auto r = run1("MatMul", {tv<float>({}, Shape{2, 0}), tv<float>({}, Shape{0, 3})});
  EXPECT_EQ(r.shape(), Shape({2, 3}));
  EXPECT_EQ(vec<float>(r), std::vector<float>(6, 0.f));
}

TEST(EdgeCases, ReductionsOverZeroSizedAxes) {
  Value empty = tv<float>({}, Shape{2, 0});
  auto r = run1("ReduceSum", {empty, axes({1})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(r.shape(), Shape({2}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{0, 0}));
  r = run1("ReduceProd", {empty, axes({1})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{1, 1}));
  // Reducing over the non-empty axis of an empty tensor gives an empty result.
  r = run1("ReduceMax", {empty, axes({0})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(r.shape(), Shape({0}));
}

TEST(EdgeCases, MaxMinOverAnEmptySetGiveTheIdentity) {
  // Opset 18: "minus infinity (if supported by the datatype) or the minimum value
  // of the data type otherwise" for ReduceMax, the mirror for ReduceMin.
  auto r =
      run1("ReduceMax", {tv<float>({}, Shape{2, 0}), axes({1})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<float>(r), (std::vector<float>(2, -std::numeric_limits<float>::infinity())));
  r = run1("ReduceMin", {tv<float>({}, Shape{2, 0}), axes({1})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<float>(r), (std::vector<float>(2, std::numeric_limits<float>::infinity())));
  r = run1("ReduceMax", {tv<int64_t>({}, Shape{2, 0}), axes({1})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>(2, kI64Min)));
  r = run1("ReduceMin", {tv<int64_t>({}, Shape{2, 0}), axes({1})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>(2, kI64Max)));
}

// --- scalars and broadcasting ----------------------------------------------

TEST(EdgeCases, ScalarsStayRankZero) {
  auto r = run1("Add", {tv<float>({2}, Shape{}), tv<float>({3}, Shape{})});
  EXPECT_EQ(r.shape(), Shape({}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{5}));
  r = run1("Neg", {tv<float>({2}, Shape{})});
  EXPECT_EQ(r.shape(), Shape({}));
  r = run1("ReduceSum", {tv<float>({7}, Shape{})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(r.shape(), Shape({}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{7}));
}

TEST(EdgeCases, RankZeroBroadcastsAgainstRankSix) {
  Shape six{1, 2, 1, 3, 1, 2};
  auto x = iota(12);
  auto r = run1("Mul", {tv<float>(x, six), tv<float>({2}, Shape{})});
  EXPECT_EQ(r.shape(), six);
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(vec<float>(r)[i], 2 * x[i]);
  r = run1("Sub", {tv<float>({10}, Shape{}), tv<float>(x, six)});
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(vec<float>(r)[i], 10 - x[i]);
}

TEST(EdgeCases, RankSixBroadcastingBothWays) {
  // a: [2,1,3,1,2,1], b: [1,2,1,3,1,2] -> [2,2,3,3,2,2]
  Shape sa{2, 1, 3, 1, 2, 1}, sb{1, 2, 1, 3, 1, 2};
  auto a = iota(12), b = iota(12, 100);
  auto r = run1("Add", {tv<float>(a, sa), tv<float>(b, sb)});
  Shape out{2, 2, 3, 3, 2, 2};
  ASSERT_EQ(r.shape(), out);
  auto got = vec<float>(r);
  size_t k = 0;
  for (int64_t i0 = 0; i0 < 2; ++i0)
    for (int64_t i1 = 0; i1 < 2; ++i1)
      for (int64_t i2 = 0; i2 < 3; ++i2)
        for (int64_t i3 = 0; i3 < 3; ++i3)
          for (int64_t i4 = 0; i4 < 2; ++i4)
            for (int64_t i5 = 0; i5 < 2; ++i5, ++k) {
              float va = a[size_t(((i0 * 3 + i2) * 2 + i4))];
              float vb = b[size_t(((i1 * 3 + i3) * 2 + i5))];
              ASSERT_EQ(got[k], va + vb) << k;
            }
  // The same through Where (three-way broadcasting) with a rank-0 condition.
  auto w = run1("Where", {Value(Tensor::from_vector<bool>({true}, Shape{})), tv<float>(a, sa),
                          tv<float>(b, sb)});
  EXPECT_EQ(w.shape(), out);
}

// --- negative axes ---------------------------------------------------------

TEST(EdgeCases, NegativeAxesMeanTheSameAsPositive) {
  Value x = tv<float>(iota(24), Shape{2, 3, 4});
  auto same = [&](const std::string& op, std::vector<ir::Attribute> pos,
                  std::vector<ir::Attribute> neg, int64_t opset = 18) {
    auto a = run1(op, {x}, std::move(pos), opset);
    auto b = run1(op, {x}, std::move(neg), opset);
    EXPECT_EQ(a.shape(), b.shape()) << op;
    EXPECT_EQ(vec<float>(a), vec<float>(b)) << op;
  };
  same("Softmax", {attr_int("axis", 2)}, {attr_int("axis", -1)});
  same("Softmax", {attr_int("axis", 1)}, {attr_int("axis", -2)});
  same("Flatten", {attr_int("axis", 1)}, {attr_int("axis", -2)});
  auto r1 = run1("ReduceSum", {x, axes({2})}, {}, 18);
  auto r2 = run1("ReduceSum", {x, axes({-1})}, {}, 18);
  EXPECT_EQ(vec<float>(r1), vec<float>(r2));
  auto g1 = run1("Gather", {x, tv<int64_t>({3, 0}, Shape{2})}, {attr_int("axis", 2)});
  auto g2 = run1("Gather", {x, tv<int64_t>({-1, -4}, Shape{2})}, {attr_int("axis", -1)});
  EXPECT_EQ(g1.shape(), g2.shape());
  EXPECT_EQ(vec<float>(g1), vec<float>(g2));
  auto a1 = run1("ArgMax", {x}, {attr_int("axis", 1)});
  auto a2 = run1("ArgMax", {x}, {attr_int("axis", -2)});
  EXPECT_EQ(vec<int64_t>(a1), vec<int64_t>(a2));
  auto c1 = run1("Concat", {x, x}, {attr_int("axis", 2)});
  auto c2 = run1("Concat", {x, x}, {attr_int("axis", -1)});
  EXPECT_EQ(c2.shape(), Shape({2, 3, 8}));
  EXPECT_EQ(vec<float>(c1), vec<float>(c2));
  auto u = run1("Unsqueeze", {x, axes({-1})}, {}, 18);
  EXPECT_EQ(u.shape(), Shape({2, 3, 4, 1}));
}

// --- int64 extremes --------------------------------------------------------

TEST(EdgeCases, Int64ExtremesSurviveArithmeticAndReductions) {
  Value x = tv<int64_t>({kI64Min, -1, 0, kI64Max}, Shape{4});
  auto r = run1("Add", {x, tv<int64_t>({0}, Shape{})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{kI64Min, -1, 0, kI64Max}));
  r = run1("Max", {x, tv<int64_t>({kI64Max - 1}, Shape{})});
  EXPECT_EQ(vec<int64_t>(r),
            (std::vector<int64_t>{kI64Max - 1, kI64Max - 1, kI64Max - 1, kI64Max}));
  r = run1("Min", {x, tv<int64_t>({kI64Min + 1}, Shape{})});
  EXPECT_EQ(vec<int64_t>(r),
            (std::vector<int64_t>{kI64Min, kI64Min + 1, kI64Min + 1, kI64Min + 1}));
  r = run1("ReduceMax", {x}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{kI64Max}));
  r = run1("ReduceMin", {x}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{kI64Min}));
  // All values at the extreme: the reductions' starting value must not leak in.
  r = run1("ReduceMax", {tv<int64_t>({kI64Min, kI64Min}, Shape{2})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{kI64Min}));
  r = run1("ReduceMin", {tv<int64_t>({kI64Max, kI64Max}, Shape{2})}, {attr_int("keepdims", 0)}, 18);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{kI64Max}));
  r = run1("ArgMax", {tv<int64_t>({kI64Min, kI64Min, kI64Min}, Shape{3})},
           {attr_int("keepdims", 0)});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{0}));
  r = run1("ArgMin", {tv<int64_t>({kI64Max, kI64Max - 1, kI64Max}, Shape{3})},
           {attr_int("keepdims", 0)});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{1}));
  r = run1("Equal", {x, tv<int64_t>({kI64Max}, Shape{})});
  EXPECT_EQ(r.data<bool>()[3], true);
  EXPECT_EQ(r.data<bool>()[2], false);
  // Large values must not go through float: kI64Max - 1 and kI64Max differ.
  r = run1("Less", {tv<int64_t>({kI64Max - 1}, Shape{1}), tv<int64_t>({kI64Max}, Shape{1})});
  EXPECT_TRUE(r.data<bool>()[0]);
  r = run1("Abs", {tv<int64_t>({kI64Min + 1, kI64Max}, Shape{2})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{kI64Max, kI64Max}));
}

TEST(EdgeCases, IntegerDivisionByZeroIsAnErrorAndOverflowWrapsWithoutTrapping) {
  for (const char* op : {"Div", "Mod"}) {
    try {
      run1(op, {tv<int64_t>({1, 2}, Shape{2}), tv<int64_t>({1, 0}, Shape{2})});
      ADD_FAILURE() << op << ": expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos) << e.what();
    }
  }
  // INT64_MIN / -1 overflows; x86 would trap on the plain instruction.
  auto r = run1("Div", {tv<int64_t>({kI64Min}, Shape{1}), tv<int64_t>({-1}, Shape{1})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{kI64Min}));
  r = run1("Mod", {tv<int64_t>({kI64Min}, Shape{1}), tv<int64_t>({-1}, Shape{1})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{0}));
  r = run1("Neg", {tv<int64_t>({kI64Min}, Shape{1})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{kI64Min}));  // as numpy: wraps
}

// --- NaN propagation -------------------------------------------------------

TEST(EdgeCases, MinMaxPropagateNaNWhereverItIs) {
  for (const char* op : {"Max", "Min"}) {
    auto r = run1(
        op, {tv<float>({kNaN, 1, 2, kNaN}, Shape{4}), tv<float>({1, kNaN, 0, kNaN}, Shape{4})});
    auto v = vec<float>(r);
    for (size_t i : {0, 1, 3}) EXPECT_TRUE(std::isnan(v[i])) << op << " at " << i;
    EXPECT_FALSE(std::isnan(v[2])) << op;
    // Three inputs, the NaN in the last one.
    r = run1(op, {tv<float>({1}, Shape{1}), tv<float>({2}, Shape{1}), tv<float>({kNaN}, Shape{1})});
    EXPECT_TRUE(std::isnan(vec<float>(r)[0])) << op;
  }
}

TEST(EdgeCases, MaxMinReductionsPropagateNaN) {
  // NaN first, in the middle and last along the reduced axis.
  Value x = tv<float>({kNaN, 1, 2, 1, kNaN, 2, 1, 2, kNaN, 1, 2, 3}, Shape{4, 3});
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    auto r = run1(op, {x, axes({1})}, {attr_int("keepdims", 0)}, 18);
    auto v = vec<float>(r);
    for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(v[i])) << op << " row " << i;
    EXPECT_FALSE(std::isnan(v[3])) << op;
    // Along the other axis too (the strided path).
    r = run1(op, {x, axes({0})}, {attr_int("keepdims", 0)}, 18);
    for (float f : vec<float>(r)) EXPECT_TRUE(std::isnan(f)) << op << " axis 0";
    // All axes.
    r = run1(op, {x}, {attr_int("keepdims", 0)}, 18);
    EXPECT_TRUE(std::isnan(vec<float>(r)[0])) << op << " all";
  }
}

TEST(EdgeCases, ArgMaxArgMinPickTheFirstNaN) {
  // As numpy: NaN compares as the extreme, and the first one wins.
  Value x = tv<float>({1, kNaN, 3, kNaN, 5, 2, 9, 0}, Shape{2, 4});
  for (const char* op : {"ArgMax", "ArgMin"}) {
    auto r = run1(op, {x}, {attr_int("axis", 1), attr_int("keepdims", 0)});
    EXPECT_EQ(vec<int64_t>(r)[0], 1) << op;
    EXPECT_EQ(vec<int64_t>(r)[1], std::string(op) == "ArgMax" ? 2 : 3) << op;
    r = run1(op, {x},
             {attr_int("axis", 1), attr_int("keepdims", 0), attr_int("select_last_index", 1)});
    EXPECT_EQ(vec<int64_t>(r)[0], 3) << op;
  }
}

}  // namespace
}  // namespace tessera::test
