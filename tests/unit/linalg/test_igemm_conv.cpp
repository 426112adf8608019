#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "linalg/igemm_conv.hpp"
#include "linalg/nhwc_bytes.hpp"
#include "linalg/quantize.hpp"

namespace tessera::linalg {
namespace {

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

TEST(NhwcBytes, TransposesIntoTheGridWithItsBorder) {
  std::mt19937 rng(3);
  // Channels in and out of whole 16s, planes in and out of whole 16s.
  struct Case {
    int64_t C, H, W, top, left, bottom, right;
  };
  for (const Case& cs :
       {Case{16, 4, 4, 0, 0, 0, 0}, Case{32, 7, 7, 1, 1, 1, 1}, Case{20, 5, 9, 2, 0, 1, 3},
        Case{3, 6, 6, 3, 3, 3, 3}, Case{48, 14, 14, 0, 1, 2, 0}})
    for (uint8_t flip : {uint8_t(0), uint8_t(0x80)}) {
      const auto src = random_bytes(size_t(cs.C * cs.H * cs.W), rng);
      const PaddedPixels g{
          cs.C, cs.H, cs.W, cs.top, cs.left, cs.top + cs.H + cs.bottom, cs.left + cs.W + cs.right,
          77,   flip};
      std::vector<uint8_t> got(size_t(g.PH * g.PW * cs.C), 0xEE), want(got.size(), 77);
      for (int64_t c = 0; c < cs.C; ++c)
        for (int64_t y = 0; y < cs.H; ++y)
          for (int64_t x = 0; x < cs.W; ++x)
            want[size_t(((y + cs.top) * g.PW + x + cs.left) * cs.C + c)] =
                src[size_t((c * cs.H + y) * cs.W + x)] ^ flip;
      to_padded_nhwc(src.data(), g, got.data());
      ASSERT_EQ(got, want) << "C " << cs.C << " H " << cs.H << " W " << cs.W;
    }
}

struct ConvCase {
  int64_t C, H, W, M, k, stride, dil, pad;
};

// igemm_conv_requantize gives the bytes of the exact convolution (in 64
// bits, then wrapped to 32 as the product does) requantized channel by
// channel by linalg::requantize.
TEST(IgemmConv, RequantizedConvolutionMatchesTheDefinition) {
  ThreadPool pool(2);
  std::mt19937 rng(11);
  const ConvCase cases[] = {{16, 7, 7, 70, 3, 1, 1, 1},   {8, 9, 11, 64, 1, 1, 1, 0},
                            {12, 10, 10, 20, 3, 2, 1, 1}, {4, 12, 9, 130, 3, 1, 2, 2},
                            {32, 5, 5, 16, 5, 1, 1, 2},   {20, 8, 8, 33, 1, 2, 1, 0},
                            {1, 9, 9, 17, 4, 1, 1, 1},    {64, 14, 14, 8, 3, 1, 1, 1}};
  int64_t checked = 0, ran = 0;
  for (const ConvCase& cs : cases)
    for (int form = 0; form < 4; ++form) {
      const bool x_signed = form & 1, w_signed = form != 2, y_signed = form == 3;
      ConvShape s{cs.C,      cs.H,   cs.W,   cs.M,   cs.k,   cs.k, cs.stride,
                  cs.stride, cs.dil, cs.dil, cs.pad, cs.pad, 0,    0};
      const int64_t ek = (cs.k - 1) * cs.dil + 1;
      s.OH = (cs.H + 2 * cs.pad - ek) / cs.stride + 1;
      s.OW = (cs.W + 2 * cs.pad - ek) / cs.stride + 1;
      if (!igemm_conv_fits(s)) continue;
      const int64_t P = s.OH * s.OW, taps = cs.k * cs.k;
      const auto x = random_bytes(size_t(cs.C * cs.H * cs.W), rng);
      const auto w = random_bytes(size_t(cs.M * cs.C * taps), rng);
      const int32_t xz = x_signed ? -7 : 121;
      // Weight zero points: 0 (symmetric int8), or one nonzero for all.
      const std::vector<int32_t> wz(size_t(cs.M), form == 2 ? 131 : form == 1 ? -3 : 0);
      std::vector<int32_t> bias(size_t(cs.M));
      std::vector<float> mult(size_t(cs.M));
      for (int64_t m = 0; m < cs.M; ++m) {
        bias[size_t(m)] = int32_t(rng() % 40000) - 20000;
        mult[size_t(m)] = 2e-4f + float(rng() % 1000) * 1e-6f;
      }
      const float ys = form == 0 ? 0.25f : 0.0173f;
      const int32_t yz = y_signed ? -5 : 100, lo = y_signed ? -128 : 0, hi = y_signed ? 127 : 255;
      auto value = [](uint8_t v, bool is_signed) {
        return is_signed ? int64_t(int8_t(v)) : int64_t(v);
      };
      std::vector<uint8_t> want(size_t(cs.M * P));
      for (int64_t m = 0; m < cs.M; ++m) {
        std::vector<int32_t> acc(static_cast<size_t>(P));
        for (int64_t oy = 0; oy < s.OH; ++oy)
          for (int64_t ox = 0; ox < s.OW; ++ox) {
            int64_t sum = 0;
            for (int64_t c = 0; c < cs.C; ++c)
              for (int64_t ky = 0; ky < cs.k; ++ky)
                for (int64_t kx = 0; kx < cs.k; ++kx) {
                  const int64_t iy = oy * cs.stride - cs.pad + ky * cs.dil;
                  const int64_t ix = ox * cs.stride - cs.pad + kx * cs.dil;
                  if (iy < 0 || iy >= cs.H || ix < 0 || ix >= cs.W) continue;
                  sum += (value(x[size_t((c * cs.H + iy) * cs.W + ix)], x_signed) - xz) *
                         (value(w[size_t(((m * cs.C + c) * cs.k + ky) * cs.k + kx)], w_signed) -
                          wz[size_t(m)]);
                }
            acc[size_t(oy * s.OW + ox)] = int32_t(uint32_t(uint64_t(sum)));
          }
        requantize(acc.data(), P, bias[size_t(m)], mult[size_t(m)], ys, yz, lo, hi,
                   want.data() + m * P);
      }
      const PackedConvFilters filters(w.data(), w_signed, cs.M, cs.C, cs.k, cs.k);
      std::vector<uint8_t> got(want.size(), 0xEE);
      ConvRequantize out;
      out.bias = bias.data();
      out.mult = mult.data();
      out.y_scale = ys;
      out.y_zero = yz;
      out.lo = lo;
      out.hi = hi;
      out.y = got.data();
      ASSERT_TRUE(igemm_conv_requantize(s, 1, x.data(), x_signed, xz, filters, {wz.data(), cs.M},
                                        out, &pool));
      ASSERT_EQ(got, want) << "C " << cs.C << " H " << cs.H << " W " << cs.W << " M " << cs.M
                           << " k " << cs.k << " stride " << cs.stride << " dil " << cs.dil
                           << " pad " << cs.pad << " form " << form;
      checked += int64_t(got.size());
      ++ran;
    }
  if (ran == 0) GTEST_SKIP() << "this CPU has no AVX-512 VNNI: igemm_conv does not run";
  EXPECT_GT(checked, 50000);
}

TEST(IgemmConv, DeclinesWhatItCannotRequantizeInRegisters) {
  const ConvShape s{8, 4, 4, 4, 1, 1, 1, 1, 1, 1, 0, 0, 4, 4};
  if (!igemm_conv_fits(s)) GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  std::mt19937 rng(2);
  const auto x = random_bytes(8 * 16, rng), w = random_bytes(4 * 8, rng);
  const PackedConvFilters filters(w.data(), true, 4, 8, 1, 1);
  const std::vector<float> mult(4, 1e-3f);
  std::vector<uint8_t> y(4 * 16, 0xEE);
  ConvRequantize out;
  out.mult = mult.data();
  out.y = y.data();
  const std::vector<int32_t> differing = {0, 1, 0, 0}, same = {2, 2, 2, 2};
  EXPECT_FALSE(igemm_conv_requantize(s, 1, x.data(), false, 0, filters, {differing.data(), 4}, out,
                                     nullptr));
  out.y_scale = 1e-20f;  // below 2^-40
  EXPECT_FALSE(
      igemm_conv_requantize(s, 1, x.data(), false, 0, filters, {same.data(), 4}, out, nullptr));
  EXPECT_EQ(y, std::vector<uint8_t>(4 * 16, 0xEE));  // nothing written
  out.y_scale = 0.5f;
  EXPECT_TRUE(
      igemm_conv_requantize(s, 1, x.data(), false, 0, filters, {same.data(), 4}, out, nullptr));
}

}  // namespace
}  // namespace tessera::linalg
