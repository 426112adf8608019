#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "linalg/quantize.hpp"

namespace tessera::linalg {
namespace {

// Each test runs on every instruction set's kernels this CPU has (a wider
// one than the CPU's runs the CPU's again), against the formulas.
class QuantizeIsa : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override { was_ = set_quantize_isa(GetParam()); }
  void TearDown() override { set_quantize_isa(was_); }

 private:
  Isa was_ = Isa::kPortable;
};

INSTANTIATE_TEST_SUITE_P(Kernels, QuantizeIsa,
                         ::testing::Values(Isa::kPortable, Isa::kAvx2, Isa::kAvx512),
                         [](const ::testing::TestParamInfo<Isa>& i) {
                           return std::string(isa_name(i.param));
                         });

TEST_P(QuantizeIsa, RangeHoldsZeroAndIgnoresNaN) {
  // Lengths around the 16-lane vectors, with the extremes in the tails too.
  for (int64_t n : {0, 1, 15, 16, 17, 33, 100}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[size_t(i)] = float(i % 7) + 1.0f;  // all positive
    float lo = -1, hi = -1;
    min_max_with_zero(x.data(), n, &lo, &hi);
    EXPECT_EQ(lo, 0.f) << n;
    EXPECT_EQ(hi, n == 0 ? 0.f : n < 7 ? float(n) : 7.f) << n;
    if (n < 2) continue;
    x[size_t(n - 1)] = -9.5f;  // in the tail
    x[0] = std::numeric_limits<float>::quiet_NaN();
    min_max_with_zero(x.data(), n, &lo, &hi);
    EXPECT_EQ(lo, -9.5f) << n;
    EXPECT_FALSE(std::isnan(hi)) << n;
  }
}

TEST_P(QuantizeIsa, RoundsHalfToEvenAndSaturates) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-3.f, 3.f);
  std::vector<float> x(203);
  for (auto& v : x) v = u(rng);
  // Exact halves (x / scale = k + 0.5) must go to the even neighbour.
  const float scale = 0.5f, zp = 100.f;
  for (int i = 0; i < 40; ++i) x[size_t(i * 5)] = (float(i - 20) + 0.5f) * scale;
  x[3] = 1e9f;                                     // saturates at 255
  x[4] = -1e9f;                                    // at 0
  x[5] = std::numeric_limits<float>::quiet_NaN();  // 0
  std::vector<uint8_t> y(x.size());
  quantize_u8(x.data(), int64_t(x.size()), scale, zp, y.data());
  for (size_t i = 0; i < x.size(); ++i) {
    uint8_t want = 0;
    if (!std::isnan(x[i])) {
      const float v = std::nearbyint(x[i] / scale) + zp;
      want = uint8_t(std::fmin(std::fmax(v, 0.f), 255.f));
    }
    ASSERT_EQ(y[i], want) << "element " << i << " = " << x[i];
  }
  EXPECT_EQ(y[0], uint8_t(80));  // -19.5 -> -20 (even), + 100
  EXPECT_EQ(y[3], 255);
  EXPECT_EQ(y[4], 0);
  EXPECT_EQ(y[5], 0);
}

TEST_P(QuantizeIsa, RequantizeMatchesItsFormulaIncludingInt32Overflow) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::vector<int32_t> acc(100);
  for (auto& v : acc) v = any(rng) / 4096;
  // Sums past int32 with the bias: the exact path must take them.
  acc[3] = INT32_MAX - 5;
  acc[20] = INT32_MAX;
  acc[41] = INT32_MIN + 2;
  for (int64_t bias : {int64_t(0), int64_t(1000), int64_t(-77777), int64_t(INT32_MAX) + 10})
    for (auto [lo, hi] : {std::pair{0, 255}, std::pair{-128, 127}}) {
      const float mult = 0.0003f, ys = 0.9f;
      const int32_t yzp = lo == 0 ? 100 : -3;
      std::vector<uint8_t> y(acc.size());
      requantize(acc.data(), int64_t(acc.size()), bias, mult, ys, yzp, lo, hi, y.data());
      for (size_t i = 0; i < acc.size(); ++i) {
        const float real = float(int64_t(acc[i]) + bias) * mult;
        const float v = std::nearbyint(real / ys) + float(yzp);
        const int32_t want = int32_t(std::fmin(std::fmax(v, float(lo)), float(hi)));
        ASSERT_EQ(y[i], uint8_t(want)) << "element " << i << " bias " << bias;
      }
    }
}

// The vector loop divides by ys as a multiplication by 1 / ys corrected
// with an FMA: every quotient must round as the division does, including
// those within an ulp of a half and exact halves (power-of-two scales).
TEST_P(QuantizeIsa, RequantizeRoundsAsTheDivisionDoes) {
  std::mt19937 rng(8);
  std::uniform_int_distribution<int32_t> sums(-(1 << 20), 1 << 20);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::vector<int32_t> acc(4096);
  for (auto& v : acc) v = sums(rng);
  int64_t checked = 0;
  for (int trial = 0; trial < 120; ++trial) {
    // Quotients of a few hundred (sums up to 2^20 times about 2^-12): one
    // trial in three with power-of-two scales (exact halves), one with
    // mult = ys * 2^-12 for a ys of any mantissa (real / ys lands within an
    // ulp or two of a half whenever the sum is 2048 mod 4096: where an
    // uncorrected multiplication by 1 / ys rounds the other way), one at
    // random.
    const int form = trial % 3;
    const float ys = std::ldexp(form == 0 ? 1.0f : mantissa(rng), int(rng() % 30) - 20);
    const float mult = ys * std::ldexp(form == 2 ? mantissa(rng) : 1.0f, -12);
    const int64_t bias = int64_t(rng() % 2001) - 1000;
    std::vector<uint8_t> y(acc.size());
    requantize(acc.data(), int64_t(acc.size()), bias, mult, ys, 3, 0, 255, y.data());
    for (size_t i = 0; i < acc.size(); ++i) {
      const float real = float(int64_t(acc[i]) + bias) * mult;
      const float v = std::nearbyint(real / ys) + 3.0f;
      const int32_t want = int32_t(std::fmin(std::fmax(v, 0.0f), 255.0f));
      ASSERT_EQ(y[i], uint8_t(want)) << "element " << i << " mult " << mult << " ys " << ys;
    }
    checked += int64_t(acc.size());
  }
  EXPECT_EQ(checked, 120 * 4096);
}

TEST_P(QuantizeIsa, DequantizeBothSignednesses) {
  std::vector<uint8_t> x(37);
  for (size_t i = 0; i < x.size(); ++i) x[i] = uint8_t(i * 7);
  for (bool is_signed : {false, true}) {
    std::vector<float> y(x.size());
    dequantize_8bit(x.data(), is_signed, int64_t(x.size()), 0.25f, 3.f, y.data());
    for (size_t i = 0; i < x.size(); ++i) {
      const float v = is_signed ? float(int8_t(x[i])) : float(x[i]);
      ASSERT_EQ(y[i], (v - 3.f) * 0.25f) << i;
    }
  }
}

TEST_P(QuantizeIsa, SignedQuantizeAndTapAccumulationMatchTheirFormulas) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-80.f, 80.f);
  for (int64_t n : {0, 1, 7, 8, 9, 31, 100}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (auto& v : x) v = u(rng);
    if (n > 2) x[2] = std::numeric_limits<float>::quiet_NaN();
    std::vector<int8_t> y(static_cast<size_t>(n));
    quantize_s8(x.data(), n, 0.5f, -3.f, y.data());
    for (int64_t i = 0; i < n; ++i) {
      int8_t want = 0;
      if (!std::isnan(x[size_t(i)])) {
        const float v = std::nearbyint(x[size_t(i)] / 0.5f) - 3.f;
        want = int8_t(std::fmin(std::fmax(v, -128.f), 127.f));
      }
      ASSERT_EQ(y[size_t(i)], want) << "n " << n << " element " << i;
    }
    std::uniform_int_distribution<int> s16(INT16_MIN, INT16_MAX);
    for (int64_t stride : {1, 2, 3}) {
      std::vector<int16_t> src(size_t(n * stride + 1));
      for (auto& v : src) v = int16_t(s16(rng));
      std::vector<uint32_t> acc(static_cast<size_t>(n)), want(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) acc[size_t(i)] = want[size_t(i)] = uint32_t(rng());
      const int32_t w = -30001;
      accumulate_tap_s16(src.data(), stride, n, w, acc.data());
      for (int64_t i = 0; i < n; ++i)
        want[size_t(i)] += uint32_t(int32_t(src[size_t(i * stride)]) * w);
      ASSERT_EQ(acc, want) << "n " << n << " stride " << stride;
    }
  }
}

}  // namespace
}  // namespace tessera::linalg

TEST(Quantize, LookupMapsEveryByteWhateverTheLength) {
  // Every byte value, at lengths around the 64-byte vector step, against
  // the table read one byte at a time.
  std::mt19937 rng(7);
  std::vector<uint8_t> table(256);
  for (auto& t : table) t = uint8_t(rng());
  for (int64_t n : {0, 1, 63, 64, 65, 256, 1000}) {
    std::vector<uint8_t> x(static_cast<size_t>(n)), y(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < n; ++i) x[size_t(i)] = uint8_t(n >= 256 ? i : rng());
    tessera::linalg::lookup_8bit(x.data(), n, table.data(), y.data());
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(y[size_t(i)], table[x[size_t(i)]]) << "n " << n << " element " << i;
  }
}
