#include <cmath>
#include <cstdint>
#include <limits>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

TEST(MathBinary, AddEqualShapesAndScalars) {
  auto r = run1("Add", {tv<float>({1, 2, 3}), tv<float>({10, 20, 30})});
  EXPECT_EQ(vec<float>(r), (std::vector<float>{11, 22, 33}));
  r = run1("Add", {tv<float>({5}, Shape{}), tv<float>({1, 2, 3})});
  EXPECT_EQ(r.shape(), Shape({3}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{6, 7, 8}));
  r = run1("Sub", {tv<float>({1, 2, 3}), tv<float>({1}, Shape{})});
  EXPECT_EQ(vec<float>(r), (std::vector<float>{0, 1, 2}));
  r = run1("Mul", {tv<float>({2}, Shape{}), tv<float>({3}, Shape{})});
  EXPECT_EQ(r.shape(), Shape{});
  EXPECT_EQ(vec<float>(r), (std::vector<float>{6}));
}

TEST(MathBinary, BroadcastRowsAndColumns) {
  // [2,1] + [1,3] -> [2,3]
  auto r = run1("Add", {tv<int32_t>({10, 20}, Shape{2, 1}), tv<int32_t>({1, 2, 3}, Shape{1, 3})});
  EXPECT_EQ(r.shape(), Shape({2, 3}));
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{11, 12, 13, 21, 22, 23}));
  // [2,3] - [3]
  r = run1("Sub", {tv<int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3}), tv<int32_t>({1, 1, 1})});
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  // [3,1] * [3] (column times row)
  r = run1("Mul", {tv<int64_t>({1, 2, 3}, Shape{3, 1}), tv<int64_t>({1, 10, 100})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{1, 10, 100, 2, 20, 200, 3, 30, 300}));
}

TEST(MathBinary, BroadcastRank6) {
  std::vector<float> a(2 * 3 * 4), b(3 * 1 * 5 * 1 * 1);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = float(i) * 1000;
  // a: [2,1,3,1,1,4]  b: [3,1,5,1,1] -> [2,3,3,5,1,4]
  auto r = run1("Add", {tv<float>(a, Shape{2, 1, 3, 1, 1, 4}), tv<float>(b, Shape{3, 1, 5, 1, 1})});
  ASSERT_EQ(r.shape(), Shape({2, 3, 3, 5, 1, 4}));
  const float* d = r.data<float>();
  for (int64_t i0 = 0; i0 < 2; ++i0)
    for (int64_t i1 = 0; i1 < 3; ++i1)
      for (int64_t i2 = 0; i2 < 3; ++i2)
        for (int64_t i3 = 0; i3 < 5; ++i3)
          for (int64_t i5 = 0; i5 < 4; ++i5) {
            float want = a[size_t((i0 * 3 + i2) * 4 + i5)] + b[size_t(i1 * 5 + i3)];
            int64_t o = ((((i0 * 3 + i1) * 3 + i2) * 5 + i3) * 1) * 4 + i5;
            ASSERT_EQ(d[o], want);
          }
}

TEST(MathBinary, ZeroSizedDims) {
  auto r = run1("Add", {tv<float>({}, Shape{0, 3}), tv<float>({1, 2, 3})});
  EXPECT_EQ(r.shape(), Shape({0, 3}));
  r = run1("Mul", {tv<float>({}, Shape{2, 0}), tv<float>({5}, Shape{})});
  EXPECT_EQ(r.shape(), Shape({2, 0}));
  r = run1("Add", {tv<float>({}, Shape{0}), tv<float>({1}, Shape{1})});
  EXPECT_EQ(r.shape(), Shape({0}));
}

TEST(MathBinary, NonBroadcastableShapesNameBoth) {
  try {
    run1("Add", {tv<float>({1, 2, 3}), tv<float>({1, 2})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("[3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[2]"), std::string::npos) << m;
    EXPECT_NE(m.find("Add"), std::string::npos) << m;
  }
}

TEST(MathBinary, MismatchedTypesFail) {
  EXPECT_THROW(run1("Add", {tv<float>({1}), tv<double>({1})}), Error);
}

TEST(MathBinary, IntegerOverflowWraps) {
  const int64_t mx = std::numeric_limits<int64_t>::max();
  const int64_t mn = std::numeric_limits<int64_t>::min();
  auto r = run1("Add", {tv<int64_t>({mx}), tv<int64_t>({1})});
  EXPECT_EQ(vec<int64_t>(r)[0], mn);
  r = run1("Mul", {tv<int64_t>({mx}), tv<int64_t>({2})});
  EXPECT_EQ(vec<int64_t>(r)[0], -2);
  r = run1("Sub", {tv<int64_t>({mn}), tv<int64_t>({1})});
  EXPECT_EQ(vec<int64_t>(r)[0], mx);
  r = run1("Mul", {tv<int16_t>({30000}), tv<int16_t>({30000})});
  EXPECT_EQ(vec<int16_t>(r)[0], int16_t(30000 * 30000));
  r = run1("Mul", {tv<uint16_t>({65535}), tv<uint16_t>({65535})});
  EXPECT_EQ(vec<uint16_t>(r)[0], uint16_t(1));
}

TEST(MathBinary, IntegerDivisionTruncatesAndGuards) {
  auto r = run1("Div", {tv<int32_t>({7, -7, 7, -7}), tv<int32_t>({2, 2, -2, -2})});
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{3, -3, -3, 3}));
  const int64_t mn = std::numeric_limits<int64_t>::min();
  r = run1("Div", {tv<int64_t>({mn}), tv<int64_t>({-1})});
  EXPECT_EQ(vec<int64_t>(r)[0], mn);
  try {
    run1("Div", {tv<int32_t>({1, 2}), tv<int32_t>({1, 0})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos);
  }
  r = run1("Div", {tv<float>({1, -1}), tv<float>({0, 0})});
  EXPECT_EQ(vec<float>(r)[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(vec<float>(r)[1], -std::numeric_limits<float>::infinity());
}

TEST(MathBinary, ModFollowsDivisorSignOrFmod) {
  auto r = run1("Mod", {tv<int32_t>({-4, 7, 5, -5}), tv<int32_t>({3, -3, 3, -3})});
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{2, -2, 2, -2}));
  r = run1("Mod", {tv<int32_t>({-4, 7, 5, -5}), tv<int32_t>({3, -3, 3, -3})},
           {attr_int("fmod", 1)});
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{-1, 1, 2, -2}));
  r = run1("Mod", {tv<float>({-4.5f, 7.5f}), tv<float>({2, -2})}, {attr_int("fmod", 1)});
  EXPECT_EQ(vec<float>(r), (std::vector<float>{-0.5f, 1.5f}));
  const int64_t mn = std::numeric_limits<int64_t>::min();
  r = run1("Mod", {tv<int64_t>({mn}), tv<int64_t>({-1})});
  EXPECT_EQ(vec<int64_t>(r)[0], 0);
  EXPECT_THROW(run1("Mod", {tv<int64_t>({1}), tv<int64_t>({0})}), Error);
}

TEST(MathBinary, PowMixedTypes) {
  auto r = run1("Pow", {tv<float>({2, 3}), tv<int64_t>({3, 2})});
  EXPECT_EQ(vec<float>(r), (std::vector<float>{8, 9}));
  r = run1("Pow", {tv<int64_t>({2, 3, 2}), tv<int64_t>({10, 3, -1})});
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{1024, 27, 0}));
  r = run1("Pow", {tv<int32_t>({4}), tv<float>({0.5f})});
  EXPECT_EQ(vec<int32_t>(r)[0], 2);
  r = run1("Pow", {tv<float>({4}), tv<float>({0.5f})}, {}, 7);
  EXPECT_EQ(vec<float>(r)[0], 2);
}

TEST(MathBinary, Float16ComputesInFloat) {
  auto r = run1("Add", {tv<Float16>({Float16(1.5f), Float16(2.25f)}),
                        tv<Float16>({Float16(0.25f)}, Shape{})});
  EXPECT_EQ(float(vec<Float16>(r)[0]), 1.75f);
  EXPECT_EQ(float(vec<Float16>(r)[1]), 2.5f);
  r = run1("Mul", {tv<BFloat16>({BFloat16(3.0f)}), tv<BFloat16>({BFloat16(-2.0f)})});
  EXPECT_EQ(float(vec<BFloat16>(r)[0]), -6.0f);
}

TEST(MathBinary, LegacyBroadcastWithAxis) {
  // Opset 6: B [3] lines up with A [2,3,2] at axis 1.
  auto r = run1(
      "Add",
      {tv<float>({0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}, Shape{2, 3, 2}), tv<float>({10, 20, 30})},
      {attr_int("broadcast", 1), attr_int("axis", 1)}, 6);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{10, 10, 20, 20, 30, 30, 11, 11, 21, 21, 31, 31}));
  // Without axis: numpy-style suffix alignment.
  r = run1("Mul", {tv<float>({1, 2, 3, 4}, Shape{2, 2}), tv<float>({10, 100})},
           {attr_int("broadcast", 1)}, 1);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{10, 200, 30, 400}));
  EXPECT_THROW(run1("Add", {tv<float>({1, 2}, Shape{2}), tv<float>({1, 2, 3})},
                    {attr_int("broadcast", 1), attr_int("axis", 0)}, 6),
               Error);
}

TEST(MathBinary, PReluBroadcastsSlope) {
  auto r = run1("PRelu", {tv<float>({-1, 2, -3, 4}, Shape{2, 2}), tv<float>({0.5f, 0.25f})});
  EXPECT_EQ(vec<float>(r), (std::vector<float>{-0.5f, 2, -1.5f, 4}));
  // Opset 6: per-channel slope [C] for X [N, C, W].
  r = run1("PRelu", {tv<float>({-1, -1, -1, -1}, Shape{1, 2, 2}), tv<float>({0.5f, 2})}, {}, 6);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{-0.5f, -0.5f, -2, -2}));
  EXPECT_THROW(run1("PRelu", {tv<float>({1}), tv<float>({1, 2})}), Error);
}

// Slopes constant along X's contiguous runs take the vectorised path: one
// slope for a long [1, 3, 20001] (cut into pieces), one per channel of
// [2, 3, 40]; NaN passes through and -0 stays -0, as x < 0 ? x * slope : x.
TEST(MathBinary, PReluConstantSlopeRuns) {
  struct Case {
    Shape x, slope;
  };
  for (const Case& c :
       {Case{Shape{1, 3, 20001}, Shape{1, 1}}, Case{Shape{2, 3, 40}, Shape{3, 1}}}) {
    const int64_t n = c.x.num_elements(), ns = c.slope.num_elements();
    std::vector<float> x(static_cast<size_t>(n)), s(static_cast<size_t>(ns));
    for (int64_t i = 0; i < n; ++i) x[size_t(i)] = float((i * 37) % 101 - 50) * 0.125f;
    x[5] = std::numeric_limits<float>::quiet_NaN();
    x[6] = -0.0f;
    for (int64_t i = 0; i < ns; ++i) s[size_t(i)] = 0.1f + 0.2f * float(i);
    auto r = vec<float>(run1("PRelu", {tv<float>(x, c.x), tv<float>(s, c.slope)}));
    ASSERT_EQ(r.size(), x.size());
    const int64_t run = c.x[2];
    for (int64_t i = 0; i < n; ++i) {
      const float slope = s[size_t(ns == 1 ? 0 : (i / run) % ns)];
      const float v = x[size_t(i)];
      const float want = v < 0 ? v * slope : v;
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(r[size_t(i)])) << i;
      } else {
        ASSERT_EQ(r[size_t(i)], want) << "at " << i;
        ASSERT_EQ(std::signbit(r[size_t(i)]), std::signbit(want)) << "at " << i;
      }
    }
  }
}

TEST(MathBinary, BitShiftAndBitwise) {
  auto r = run1("BitShift", {tv<uint8_t>({1, 128, 255}), tv<uint8_t>({3, 1, 8})},
                {attr_string("direction", "LEFT")});
  EXPECT_EQ(vec<uint8_t>(r), (std::vector<uint8_t>{8, 0, 0}));
  r = run1("BitShift", {tv<uint64_t>({1024}), tv<uint64_t>({70})},
           {attr_string("direction", "RIGHT")});
  EXPECT_EQ(vec<uint64_t>(r)[0], 0u);
  r = run1("BitwiseAnd", {tv<int32_t>({12, -1}), tv<int32_t>({10, 5})});
  EXPECT_EQ(vec<int32_t>(r), (std::vector<int32_t>{8, 5}));
  r = run1("BitwiseXor", {tv<uint8_t>({0xf0}), tv<uint8_t>({0xff})});
  EXPECT_EQ(vec<uint8_t>(r)[0], 0x0f);
  r = run1("BitwiseNot", {tv<int8_t>({0, -1})});
  EXPECT_EQ(vec<int8_t>(r), (std::vector<int8_t>{-1, 0}));
}

TEST(MathBinary, ComparisonsAndLogic) {
  auto r = run1("Less", {tv<float>({1, 2, 3}), tv<float>({2}, Shape{})});
  EXPECT_EQ(r.dtype(), DataType::kBool);
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{true, false, false}));
  r = run1("GreaterOrEqual", {tv<int64_t>({1, 2, 3}), tv<int64_t>({2, 2, 2})});
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{false, true, true}));
  r = run1("Equal", {tv<std::string>({"a", "b"}), tv<std::string>({"a"}, Shape{})});
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{true, false}));
  r = run1("Equal", {tv<bool>({true, false}), tv<bool>({true, true})});
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{true, false}));
  float nan = std::numeric_limits<float>::quiet_NaN();
  r = run1("Equal", {tv<float>({nan}), tv<float>({nan})});
  EXPECT_FALSE(vec<bool>(r)[0]);
  r = run1("Xor", {tv<bool>({true, true, false}), tv<bool>({true, false, false})});
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{false, true, false}));
  r = run1("And", {tv<bool>({true, false}, Shape{2, 1}), tv<bool>({true, false})});
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{true, false, false, false}));
  // Equal on strings only from opset 19.
  EXPECT_THROW(run1("Equal", {tv<std::string>({"a"}), tv<std::string>({"a"})}, {}, 13), Error);
}

}  // namespace tessera::test
