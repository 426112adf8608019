#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "linalg/depthwise_8bit.hpp"

namespace tessera::linalg {
namespace {

// The definition: integer sums over the taps inside the plane.
std::vector<int32_t> reference(const std::vector<uint8_t>& x, bool is_signed, int32_t zero,
                               const std::vector<int32_t>& w, const Depthwise3x3Plane& g) {
  std::vector<int32_t> out(size_t(g.OH * g.OW), 0);
  for (int64_t oh = 0; oh < g.OH; ++oh)
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      int32_t s = 0;
      for (int64_t ky = 0; ky < 3; ++ky)
        for (int64_t kx = 0; kx < 3; ++kx) {
          const int64_t y = oh * g.stride - g.pad_top + ky, c = ow * g.stride - g.pad_left + kx;
          if (y < 0 || y >= g.H || c < 0 || c >= g.W) continue;
          const uint8_t b = x[size_t(y * g.W + c)];
          s += ((is_signed ? int32_t(int8_t(b)) : int32_t(b)) - zero) * w[size_t(ky * 3 + kx)];
        }
      out[size_t(oh * g.OW + ow)] = s;
    }
  return out;
}

TEST(Depthwise8bit, MatchesTheIntegerDefinitionForEveryStridePadAndSize) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int64_t stride : {1, 2})
    for (int64_t pad : {0, 1, 2})
      for (int64_t H : {1, 2, 3, 7, 14, 17, 56})
        for (int64_t W : {1, 3, 8, 15, 33, 112})
          for (bool is_signed : {false, true}) {
            // Output sizes as the convolution's (pads on both sides).
            const int64_t OH = (H + 2 * pad - 3) / stride + 1, OW = (W + 2 * pad - 3) / stride + 1;
            if (H + 2 * pad < 3 || W + 2 * pad < 3) continue;
            const Depthwise3x3Plane g{H, W, OH, OW, stride, pad, pad};
            std::vector<uint8_t> x(size_t(H * W));
            for (auto& v : x) v = uint8_t(byte(rng));
            // Extreme weights (-255 .. 255 after the zero point) and zero points.
            std::vector<int32_t> w(9);
            std::vector<float> wf(9);
            for (int i = 0; i < 9; ++i) wf[size_t(i)] = float(w[size_t(i)] = byte(rng) * 2 - 255);
            const int32_t zero = is_signed ? -128 + byte(rng) : byte(rng);
            std::vector<int32_t> got(size_t(OH * OW), -7);
            depthwise3x3_8bit(x.data(), is_signed, float(zero), wf.data(), g, got.data());
            ASSERT_EQ(got, reference(x, is_signed, zero, w, g))
                << "stride " << stride << " pad " << pad << " H " << H << " W " << W
                << (is_signed ? " int8" : " uint8");
          }
}

}  // namespace
}  // namespace tessera::linalg
