#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "linalg/depthwise_vnni.hpp"
#include "linalg/quantize.hpp"

namespace tessera::linalg {
namespace {

// depthwise_vnni_requant gives the bytes of the exact convolution
// requantized by linalg::requantize: both strides, windows up to 4 wide and
// 5 tall, pads past the window, planes narrower and wider than a vector,
// both input signednesses, both output types, and multipliers on both
// sides of y_scale / 2 (the saturating and the float clamps).
TEST(DepthwiseVnni, MatchesTheDefinition) {
  struct Case {
    int64_t H, W, kh, kw, stride, pad_top, pad_left;
  };
  const Case cases[] = {{56, 56, 3, 3, 1, 1, 1}, {112, 112, 3, 3, 2, 1, 1}, {7, 7, 3, 3, 1, 1, 1},
                        {9, 20, 3, 3, 2, 0, 0},  {5, 3, 3, 3, 1, 2, 2},     {11, 37, 5, 4, 1, 2, 1},
                        {8, 8, 2, 2, 2, 0, 1},   {6, 70, 1, 1, 1, 0, 0}};
  std::mt19937 rng(4);
  int64_t checked = 0;
  for (const Case& c : cases)
    for (int form = 0; form < 4; ++form) {
      const bool x_signed = form & 1, y_signed = form >= 2;
      const DepthwiseVnniShape s{c.H,
                                 c.W,
                                 (c.H + 2 * c.pad_top - c.kh) / c.stride + 1,
                                 (c.W + 2 * c.pad_left - c.kw) / c.stride + 1,
                                 c.kh,
                                 c.kw,
                                 c.stride,
                                 c.pad_top,
                                 c.pad_left};
      if (!depthwise_vnni_fits(s)) GTEST_SKIP() << "this CPU has no AVX-512 VNNI and VBMI";
      std::vector<uint8_t> x(size_t(c.H * c.W));
      for (auto& v : x) v = uint8_t(rng());
      std::vector<int32_t> taps(size_t(c.kh * c.kw));
      for (auto& t : taps) t = int32_t(rng() % 256) - 128;
      DepthwiseVnniFilter f;
      ASSERT_TRUE(prepare_depthwise_vnni(taps.data(), c.kh, c.kw, &f));
      const int32_t xz = x_signed ? -9 : 131;
      const float ys = 0.05f;
      // forms 0 and 2 under y_scale / 2 (saturating clamps), 1 and 3 over.
      const DepthwiseVnniRequant q{
          int32_t(rng() % 2000) - 1000, form % 2 ? 0.04f : 0.0011f, ys,
          y_signed ? -3 : 120,          y_signed ? -128 : 0,        y_signed ? 127 : 255};
      std::vector<int32_t> acc(size_t(s.OH * s.OW));
      for (int64_t oy = 0; oy < s.OH; ++oy)
        for (int64_t ox = 0; ox < s.OW; ++ox) {
          int64_t sum = 0;
          for (int64_t ky = 0; ky < c.kh; ++ky)
            for (int64_t kx = 0; kx < c.kw; ++kx) {
              const int64_t iy = oy * c.stride - c.pad_top + ky,
                            ix = ox * c.stride - c.pad_left + kx;
              if (iy < 0 || iy >= c.H || ix < 0 || ix >= c.W) continue;
              const uint8_t b = x[size_t(iy * c.W + ix)];
              const int64_t v = x_signed ? int64_t(int8_t(b)) : int64_t(b);
              sum += (v - xz) * taps[size_t(ky * c.kw + kx)];
            }
          acc[size_t(oy * s.OW + ox)] = int32_t(sum);
        }
      std::vector<uint8_t> want(acc.size()), got(acc.size() + 16, 0xEE);
      requantize(acc.data(), int64_t(acc.size()), q.bias, q.mult, q.y_scale, q.y_zero, q.lo, q.hi,
                 want.data());
      depthwise_vnni_requant(x.data(), x_signed, xz, f, s, q, got.data());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(got[i], want[i])
            << "element " << i << " of " << c.H << "x" << c.W << " k " << c.kh << "x" << c.kw
            << " stride " << c.stride << " form " << form;
      for (size_t i = want.size(); i < got.size(); ++i)
        ASSERT_EQ(got[i], 0xEE) << "wrote past the plane";
      checked += int64_t(want.size());
    }
  EXPECT_GT(checked, 10000);
}

TEST(DepthwiseVnni, FiltersOutsideInt8AreDeclined) {
  DepthwiseVnniFilter f;
  const int32_t fine[9] = {-128, 127, 0, 1, 2, 3, 4, 5, 6}, wide[9] = {0, 0, 0, 0, 128, 0, 0, 0, 0};
  EXPECT_TRUE(prepare_depthwise_vnni(fine, 3, 3, &f));
  EXPECT_EQ(f.sum, 20);
  EXPECT_FALSE(prepare_depthwise_vnni(wide, 3, 3, &f));
  EXPECT_FALSE(prepare_depthwise_vnni(fine, 1, 9, &f));  // wider than a word
}

}  // namespace
}  // namespace tessera::linalg
