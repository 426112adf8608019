// The 2-D pool plane kernels against the definition, with the kernels of
// every instruction set the CPU runs (AVX-512, AVX2, portable): padded
// borders, trailing (ceil-mode) pads, strides 1, 2 and 3, dilations, and rows
// that are not a whole number of vectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "linalg/cpu_isa.hpp"
#include "linalg/pool2d.hpp"

namespace tessera::linalg {
namespace {

struct Case {
  int64_t H, W, KH, KW, sh, sw, ph, pw, pe_h, pe_w, dh, dw;
};

// ResNet's stem pool, ceil-mode-like trailing pads, stride 1, 2 and 3,
// dilation, a 5x5 stride-1 pool (YOLO's SPPF) on a 20-wide row, a 1x1 plane,
// and rows of 17, 67 and 130 values (one past a vector of bytes or floats).
const Case kCases[] = {
    {112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, {7, 8, 2, 2, 2, 2, 0, 0, 1, 0, 1, 1},
    {6, 9, 3, 2, 1, 1, 1, 0, 1, 1, 1, 1},     {10, 11, 3, 3, 3, 3, 1, 2, 2, 1, 2, 2},
    {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},     {20, 20, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
    {5, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    {4, 67, 2, 3, 2, 2, 0, 1, 1, 1, 1, 1},
    {3, 130, 3, 2, 1, 2, 1, 0, 1, 1, 1, 1},   {9, 33, 4, 4, 4, 3, 1, 2, 2, 2, 1, 2}};

std::vector<Isa> kernel_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kPortable})
    if (isa <= cpu_isa_supported()) out.push_back(isa);
  return out;
}

DepthwiseGeometry geometry(const Case& c) {
  const int64_t OH = (c.H + c.ph + c.pe_h - ((c.KH - 1) * c.dh + 1)) / c.sh + 1;
  const int64_t OW = (c.W + c.pw + c.pe_w - ((c.KW - 1) * c.dw + 1)) / c.sw + 1;
  return {c.H, c.W, OH, OW, c.KH, c.KW, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw};
}

// The definition: max (or sum, in row-major tap order) over the in-bounds
// taps; `init` is the value of a window with none.
template <typename T, typename Combine>
std::vector<T> reference(const std::vector<T>& x, const DepthwiseGeometry& g, T init,
                         Combine combine) {
  std::vector<T> y(size_t(g.OH * g.OW));
  for (int64_t oh = 0; oh < g.OH; ++oh)
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      T acc = init;
      for (int64_t kh = 0; kh < g.KH; ++kh)
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const int64_t ih = oh * g.sh - g.ph + kh * g.dh, iw = ow * g.sw - g.pw + kw * g.dw;
          if (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W)
            acc = combine(acc, x[size_t(ih * g.W + iw)]);
        }
      y[size_t(oh * g.OW + ow)] = acc;
    }
  return y;
}

template <typename T>
void check_max(Isa isa, const Case& c, std::mt19937& rng) {
  const DepthwiseGeometry g = geometry(c);
  std::vector<T> x(size_t(c.H * c.W)), y(size_t(g.OH * g.OW), T(9));
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<float> u(-4.f, -1.f);  // all negative: padding must not win as 0
    for (auto& e : x) e = u(rng);
  } else {
    std::uniform_int_distribution<int> u(std::numeric_limits<T>::lowest(),
                                         std::numeric_limits<T>::max());
    for (auto& e : x) e = T(u(rng));
  }
  max_pool2d_plane(x.data(), g, y.data(), isa);
  const std::vector<T> want =
      reference<T>(x, g, std::numeric_limits<T>::lowest(), [](T a, T b) { return std::max(a, b); });
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_EQ(y[i], want[i]) << isa_name(isa) << " H=" << c.H << " W=" << c.W << " at " << i;
}

TEST(LinalgPool2d, MaxPlaneMatchesDefinitionOnEveryIsa) {
  std::mt19937 rng(5);
  for (Isa isa : kernel_isas())
    for (const Case& c : kCases) {
      check_max<float>(isa, c, rng);
      check_max<uint8_t>(isa, c, rng);
      check_max<int8_t>(isa, c, rng);
    }
}

TEST(LinalgPool2d, SumPlaneIsTheRowMajorSumOnEveryIsa) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (Isa isa : kernel_isas())
    for (const Case& c : kCases) {
      const DepthwiseGeometry g = geometry(c);
      std::vector<float> x(size_t(c.H * c.W)), y(size_t(g.OH * g.OW), 9.f);
      for (auto& e : x) e = u(rng);
      sum_pool2d_plane(x.data(), g, y.data(), isa);
      const std::vector<float> want =
          reference<float>(x, g, 0.f, [](float a, float b) { return a + b; });
      for (size_t i = 0; i < y.size(); ++i)  // the same additions in the same order: exact
        ASSERT_EQ(y[i], want[i]) << isa_name(isa) << " H=" << c.H << " W=" << c.W << " at " << i;
    }
}

}  // namespace
}  // namespace tessera::linalg
