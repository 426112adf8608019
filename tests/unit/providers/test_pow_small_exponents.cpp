// Float Pow with a scalar exponent of 1, 2, 3, 0.5 or -1 skips powf; double
// inputs keep powf, so the same node in both types checks one against the
// other, special values included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::run_node;

TEST(PowSmallExponents, MatchPowf) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.f,
                          -0.f,
                          1.f,
                          -1.f,
                          2.5f,
                          -3.25f,
                          1e-20f,
                          3e19f,
                          inf,
                          -inf,
                          std::numeric_limits<float>::quiet_NaN(),
                          7e-45f,
                          -7e-45f,
                          3e38f,
                          -2e-39f};
  for (int i = 0; i < 5000; ++i) v.push_back(float(i) * 0.0173f - 40.f);
  const Shape s{int64_t(v.size())};
  for (float e : {1.f, 2.f, 3.f, 0.5f, -1.f, 1.5f}) {
    SCOPED_TRACE(e);
    const Value f = run_node("Pow", {Tensor::from_vector(v, s), Tensor::scalar(e)}, {}, 15)[0];
    const std::vector<double> dv(v.begin(), v.end());
    const Value g =
        run_node("Pow", {Tensor::from_vector(dv, s), Tensor::scalar(double(e))}, {}, 15)[0];
    const float* got = f.tensor().data<float>();
    const double* want = g.tensor().data<double>();
    for (size_t i = 0; i < v.size(); ++i) {
      const float w = float(want[i]);
      if (std::isnan(w)) {
        ASSERT_TRUE(std::isnan(got[i])) << v[i];
        continue;
      }
      ASSERT_EQ(std::signbit(got[i]), std::signbit(w)) << v[i];
      if (std::isinf(w))
        ASSERT_EQ(got[i], w) << v[i];
      else
        ASSERT_NEAR(got[i], w, std::abs(w) * 3e-7f + 1e-44f) << v[i];
    }
  }
}

}  // namespace
}  // namespace tessera
