// vec_pow against pow in double rounded to float (the correctly rounded
// result but for rare double roundings), with the loops of every instruction
// set the CPU runs: bases across the whole float range (subnormals
// included), exponents that overflow and underflow, special values handed to
// powf, and lengths that end in a partial vector.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "linalg/vec_pow.hpp"

namespace tessera::linalg {
namespace {

std::vector<Isa> kernel_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kPortable})
    if (isa <= cpu_isa_supported()) out.push_back(isa);
  return out;
}

int32_t ordered(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i < 0 ? int32_t(0x80000000u) - i : i;
}

// Distance in units in the last place between two finite or equal floats.
int64_t ulps(float a, float b) {
  if (a == b) return 0;
  return std::llabs(int64_t(ordered(a)) - int64_t(ordered(b)));
}

float reference(float x, float y) { return float(std::pow(double(x), double(y))); }

TEST(LinalgVecPow, WithinOneUlpOfTheRoundedResultOnEveryIsa) {
  std::vector<float> xs;
  for (uint32_t bits = 1; bits < 0x7f800000u; bits += 0x00012345u) {
    float f;
    std::memcpy(&f, &bits, 4);
    xs.push_back(f);
  }
  for (float f = 0.01f; f < 4.f; f += 0.00731f) xs.push_back(f);
  const float ys[] = {0.f, 1.f, -1.f, 0.5f, 1.7f, -2.3f, 3.f, 10.5f, 100.f, -100.f, 1e-3f, -0.37f};
  for (Isa isa : kernel_isas())
    for (float y : ys) {
      std::vector<float> out(xs.size());
      vec_pow_scalar(xs.data(), y, out.data(), int64_t(xs.size()), isa);
      int64_t inexact = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        const float want = reference(xs[i], y);
        ASSERT_LE(ulps(out[i], want), 1) << isa_name(isa) << " pow(" << xs[i] << ", " << y << ")";
        inexact += out[i] != want;
      }
      // The vector lanes round once from near-double precision; the
      // portable set is libm's powf, held to the 1 ulp above only.
      if (isa != Isa::kPortable) {
        EXPECT_LE(inexact * 10000, int64_t(xs.size())) << isa_name(isa) << " y " << y;
      }
    }
}

TEST(LinalgVecPow, OverflowAndUnderflowRoundAsTheExactValue) {
  std::vector<float> x, y;
  for (float e = 30.f; e < 50.f; e += 0.013f) {  // 10^e crosses FLT_MAX; 10^-e the subnormals
    x.push_back(10.f);
    y.push_back(e);
    x.push_back(10.f);
    y.push_back(-e);
  }
  for (Isa isa : kernel_isas()) {
    std::vector<float> out(x.size());
    vec_pow(x.data(), y.data(), out.data(), int64_t(x.size()), isa);
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = reference(x[i], y[i]);
      if (std::isinf(want))
        ASSERT_EQ(out[i], want) << isa_name(isa) << " y " << y[i];
      else
        ASSERT_LE(ulps(out[i], want), 1) << isa_name(isa) << " y " << y[i];
    }
  }
}

// Outside the vector domain every lane is powf's, bit for bit, and a vector
// with one such lane still gives its other lanes their values.
TEST(LinalgVecPow, SpecialValuesArePowfs) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const float xs[] = {0.f, -0.f, -2.f, -0.5f, -inf, inf, nan, 1.f, 2.f, 1e-45f, 3e38f};
  const float ys[] = {nan, inf, -inf, 2.f, 3.f, 0.5f, -1.f, 0.f, -3.f, 1.5f};
  std::vector<float> x, y;
  for (float a : xs)
    for (float b : ys) {
      x.push_back(a);
      y.push_back(b);
      x.push_back(1.25f);  // an ordinary neighbour
      y.push_back(2.5f);
    }
  for (Isa isa : kernel_isas()) {
    std::vector<float> out(x.size());
    vec_pow(x.data(), y.data(), out.data(), int64_t(x.size()), isa);
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = std::pow(x[i], y[i]);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(out[i])) << isa_name(isa) << " pow(" << x[i] << ", " << y[i] << ")";
        continue;
      }
      ASSERT_LE(ulps(out[i], want), 1) << isa_name(isa) << " pow(" << x[i] << ", " << y[i] << ")";
      ASSERT_EQ(std::signbit(out[i]), std::signbit(want))
          << isa_name(isa) << " pow(" << x[i] << ", " << y[i] << ")";
    }
  }
}

// Every length up to a few vectors: a value's result does not depend on its
// position (tails are padded vectors), and the scalar-exponent loop agrees
// with the element-wise one; in place works.
TEST(LinalgVecPow, TailsAndInPlace) {
  for (Isa isa : kernel_isas())
    for (int64_t n = 1; n <= 37; ++n) {
      std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n), 2.75f);
      for (int64_t i = 0; i < n; ++i) x[size_t(i)] = 0.3f + 0.071f * float(i);
      std::vector<float> a(static_cast<size_t>(n)), b = x;
      vec_pow(x.data(), y.data(), a.data(), n, isa);
      vec_pow_scalar(b.data(), 2.75f, b.data(), n, isa);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(a[size_t(i)], b[size_t(i)]) << isa_name(isa) << " n " << n << " at " << i;
        float one;
        vec_pow_scalar(&x[size_t(i)], 2.75f, &one, 1, isa);
        ASSERT_EQ(one, a[size_t(i)]) << isa_name(isa) << " n " << n << " at " << i;
      }
    }
}

}  // namespace
}  // namespace tessera::linalg
