// The float fast paths of Add/Sub/Mul/Div (equal shapes, a scalar on either
// side, a trailing vector on either side, a per-channel operand) against the same op on double
// inputs, which always takes the generic broadcasting kernel.
#include <cmath>
#include <random>
#include <string>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

namespace {

std::vector<double> random_doubles(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 3.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = float(u(rng));  // representable in float, so both paths see the same inputs
  return v;
}

std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

}  // namespace

TEST(MathBinaryFast, FloatPathsMatchGenericBroadcast) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {Shape{2, 3, 37}, Shape{2, 3, 37}},              // equal (odd length: vector tail)
      {Shape{2, 3, 37}, Shape{}},                      // scalar right
      {Shape{1}, Shape{4, 17}},                        // scalar left, lower rank
      {Shape{1, 1, 1}, Shape{5}},                      // a scalar of higher rank widens the output
      {Shape{4, 3, 19}, Shape{19}},                    // trailing vector right
      {Shape{1, 19}, Shape{4, 3, 19}},                 // trailing vector left
      {Shape{4, 1}, Shape{1, 5}},                      // outer product: generic
      {Shape{2, 5, 3, 7}, Shape{2, 5, 1, 1}},          // per channel (I = 1)
      {Shape{1, 5, 1, 1}, Shape{2, 5, 3, 7}},          // per channel, left, batch broadcast
      {Shape{1, 3, 4, 5, 16}, Shape{1, 3, 1, 1, 16}},  // blocked per channel (I = 16)
      {Shape{2, 3, 1, 1, 16}, Shape{2, 3, 4, 5, 16}},  // blocked, left
      {Shape{2, 3, 4, 5}, Shape{2, 1, 4, 1}},          // two runs of ones: generic
      {Shape{2, 3, 4, 5}, Shape{2, 3, 4, 1}},          // a trailing run of one
      {Shape{3, 4, 5}, Shape{1, 1, 5}},                // a leading run
      {Shape{1}, Shape{1}},                            // one element each
  };
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (const auto& [sa, sb] : cases) {
      auto a = random_doubles(sa.num_elements(), 1), b = random_doubles(sb.num_elements(), 2);
      auto rf = run1(op, {tv<float>(to_float(a), sa), tv<float>(to_float(b), sb)});
      auto rd = run1(op, {tv<double>(a, sa), tv<double>(b, sb)});
      const std::string at = std::string(op) + " " + sa.to_string() + " " + sb.to_string();
      ASSERT_EQ(rf.shape(), rd.shape()) << at;
      auto vf = vec<float>(rf);
      auto vd = vec<double>(rd);
      for (size_t i = 0; i < vf.size(); ++i)
        EXPECT_NEAR(double(vf[i]), vd[i], 1e-6 * std::abs(vd[i])) << at << " at " << i;
    }
  }
}

TEST(MathBinaryFast, NaNAndInfinityPropagate) {
  const float inf = INFINITY, nan = NAN;
  auto r = run1("Add", {tv<float>({1, nan, inf, -inf, 2}, Shape{5}), tv<float>({1, 1, 1, inf, 1})});
  auto v = vec<float>(r);
  EXPECT_EQ(v[0], 2.f);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], inf);
  EXPECT_TRUE(std::isnan(v[3]));  // -inf + inf
  r = run1("Div", {tv<float>({1, -1, 0}, Shape{3}), tv<float>({0}, Shape{})});
  v = vec<float>(r);
  EXPECT_EQ(v[0], inf);
  EXPECT_EQ(v[1], -inf);
  EXPECT_TRUE(std::isnan(v[2]));
}

}  // namespace tessera::test
