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

namespace {

std::vector<linalg::Isa> convert_isas() {
  std::vector<linalg::Isa> out;
  for (linalg::Isa isa : {linalg::Isa::kAvx512, linalg::Isa::kAvx2, linalg::Isa::kPortable})
    if (isa <= linalg::cpu_isa_supported()) out.push_back(isa);
  return out;
}

}  // namespace

// Every bfloat16 widens to the float with its bits on top, with each set's
// loops and on lengths that end in a partial vector.
TEST(HalfConvert, EveryBFloatWidensExactlyOnEveryIsa) {
  std::vector<uint16_t> b(65536 + 13);
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint16_t(i);
  for (linalg::Isa isa : convert_isas()) {
    std::vector<float> f(b.size(), 7.f);
    linalg::bfloats_to_floats(b.data(), f.data(), int64_t(b.size()), isa);
    for (size_t i = 0; i < b.size(); ++i)
      ASSERT_EQ(float_bits(f[i]), uint32_t(b[i]) << 16) << linalg::isa_name(isa) << " at " << i;
  }
}

// Narrowing gives BFloat16::from_float bit for bit (NaNs quieted with their
// sign kept) around every rounding edge of a spread of exponents, subnormals
// included (no flush to zero), with each set's loops.
TEST(HalfConvert, NarrowsAsBFloat16DoesOnEveryIsa) {
  std::vector<float> f;
  for (uint32_t hi = 0; hi < 65536; hi += 97) {
    const uint32_t b = hi << 16;
    for (uint32_t d : {0u, 1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) f.push_back(bits_float(b + d));
  }
  for (uint32_t bits :
       {0x00000001u, 0x00008000u, 0x00018000u, 0x807fffffu, 0x7f7fffffu, 0x7f7f8000u, 0x7f800000u,
        0xff800000u, 0x7f800001u, 0xff800001u, 0x7fc00000u, 0xffffffffu})
    f.push_back(bits_float(bits));
  for (linalg::Isa isa : convert_isas())
    for (size_t len : {f.size(), f.size() - 5, size_t(3)}) {
      std::vector<uint16_t> h(len);
      linalg::floats_to_bfloats(f.data(), h.data(), int64_t(len), isa);
      for (size_t i = 0; i < len; ++i) {
        const uint16_t want = BFloat16::from_float(f[i]);
        ASSERT_EQ(h[i], want) << linalg::isa_name(isa) << " float bits " << float_bits(f[i]);
        if (std::isnan(f[i])) {
          ASSERT_TRUE(std::isnan(float(BFloat16::from_bits(h[i]))));
        }
      }
    }
}

// The float16 loops of each set (F16C, or the portable scalar one) agree.
TEST(HalfConvert, Float16OnEveryIsa) {
  std::vector<float> f;
  for (uint32_t i = 0; i < 65536; i += 3) {
    const float x = Float16::to_float(uint16_t(i));
    if (!std::isnan(x)) f.push_back(bits_float(float_bits(x) + 0x1000u));
  }
  for (linalg::Isa isa : convert_isas()) {
    std::vector<uint16_t> h(f.size());
    linalg::floats_to_halves(f.data(), h.data(), int64_t(f.size()), isa);
    std::vector<float> back(f.size());
    linalg::halves_to_floats(h.data(), back.data(), int64_t(h.size()), isa);
    for (size_t i = 0; i < f.size(); ++i) {
      ASSERT_EQ(h[i], Float16::from_float(f[i])) << linalg::isa_name(isa) << " at " << i;
      ASSERT_EQ(float_bits(back[i]), float_bits(Float16::to_float(h[i])))
          << linalg::isa_name(isa) << " at " << i;
    }
  }
}
