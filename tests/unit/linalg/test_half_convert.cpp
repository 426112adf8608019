// floats_to_halves / halves_to_floats give Float16's own conversions, bit for
// bit (NaNs as NaNs), for every float16 value and for floats around every
// rounding edge (ties, subnormals, overflow, infinities), whatever the
// buffer length.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/float16.hpp"
#include "linalg/half_convert.hpp"

using namespace tessera;

TEST(HalfConvert, EveryHalfWidensExactly) {
  std::vector<uint16_t> h(65536);
  for (size_t i = 0; i < h.size(); ++i) h[i] = uint16_t(i);
  std::vector<float> f(h.size());
  linalg::halves_to_floats(h.data(), f.data(), int64_t(h.size()));
  for (size_t i = 0; i < h.size(); ++i) {
    const float want = Float16::to_float(h[i]);
    if (std::isnan(want))  // F16C quiets signalling NaNs
      ASSERT_TRUE(std::isnan(f[i])) << "half bits " << i;
    else
      ASSERT_EQ(float_bits(f[i]), float_bits(want)) << "half bits " << i;
  }
}

TEST(HalfConvert, NarrowsAsFloat16Does) {
  std::vector<float> f;
  for (uint32_t i = 0; i < 65536; ++i) {
    const float x = Float16::to_float(uint16_t(i));
    if (std::isnan(x)) continue;
    const uint32_t b = float_bits(x);
    // The value, the ties and near-ties halfway to the next half.
    for (uint32_t d : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x1fffu}) f.push_back(bits_float(b + d));
  }
  for (float x : {1e-8f, 6e-8f, 3e-8f, 65504.f, 65519.f, 65520.f, 1e6f,
                  std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()})
    for (float s : {1.f, -1.f}) f.push_back(s * x);
  for (size_t len : {f.size(), f.size() - 3, size_t(5)}) {
    std::vector<uint16_t> h(len);
    linalg::floats_to_halves(f.data(), h.data(), int64_t(len));
    for (size_t i = 0; i < len; ++i) {
      if (std::isnan(f[i])) {
        EXPECT_TRUE(std::isnan(Float16::to_float(h[i])));
        continue;
      }
      ASSERT_EQ(h[i], Float16::from_float(f[i])) << "float " << f[i] << " at " << i;
    }
  }
}
