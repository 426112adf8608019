#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "linalg/depthwise.hpp"
#include "unit/linalg/activation_ref.hpp"

namespace tessera::linalg {
namespace {

// The depthwise plane against the definition, with the kernel of every
// instruction set the CPU runs, for stride 1/2/3 fast and
// general paths, pads larger than the kernel reach, dilations, residual and
// activations.
TEST(LinalgDepthwise, PlaneMatchesDefinition) {
  struct Case {
    int64_t H, W, KH, KW, sh, sw, ph, pw, pe_h, pe_w, dh, dw;
  };
  const Case cases[] = {
      {7, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   {8, 8, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},
      {9, 11, 3, 3, 2, 2, 0, 1, 1, 2, 1, 1},  {5, 17, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
      {10, 10, 3, 3, 3, 3, 1, 0, 2, 1, 2, 2}, {1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {33, 35, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, {6, 40, 1, 7, 1, 2, 0, 3, 0, 3, 1, 1},
  };
  const std::vector<ActivationSpec> acts = every_activation();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kPortable})
    if (isa <= cpu_isa_supported()) isas.push_back(isa);
  for (Isa isa : isas)
    for (const auto& c : cases)
      for (size_t ai = 0; ai < acts.size(); ++ai) {
        const int64_t OH = (c.H + c.ph + c.pe_h - ((c.KH - 1) * c.dh + 1)) / c.sh + 1;
        const int64_t OW = (c.W + c.pw + c.pe_w - ((c.KW - 1) * c.dw + 1)) / c.sw + 1;
        ASSERT_GT(OH, 0);
        ASSERT_GT(OW, 0);
        std::vector<float> x(size_t(c.H * c.W)), w(size_t(c.KH * c.KW)), r(size_t(OH * OW));
        for (auto* v : {&x, &w, &r})
          for (auto& e : *v) e = u(rng);
        const float bias = u(rng);
        const bool residual = ai >= 2;
        std::vector<float> want(size_t(OH * OW));
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            double s = bias;
            for (int64_t kh = 0; kh < c.KH; ++kh)
              for (int64_t kw = 0; kw < c.KW; ++kw) {
                const int64_t ih = oh * c.sh - c.ph + kh * c.dh, iw = ow * c.sw - c.pw + kw * c.dw;
                if (ih >= 0 && ih < c.H && iw >= 0 && iw < c.W)
                  s += double(w[size_t(kh * c.KW + kw)]) * double(x[size_t(ih * c.W + iw)]);
              }
            const float v = float(s) + (residual ? r[size_t(oh * OW + ow)] : 0.f);
            want[size_t(oh * OW + ow)] = float(activation_ref(acts[ai], v));
          }
        std::vector<float> y(want.size(), -7.f);
        const DepthwiseGeometry g{c.H, c.W, OH, OW, c.KH, c.KW, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw};
        depthwise_conv2d_plane(x.data(), w.data(), bias, residual ? r.data() : nullptr, acts[ai], g,
                               y.data(), isa);
        for (size_t i = 0; i < y.size(); ++i)
          ASSERT_NEAR(y[i], want[i], 1e-5) << isa_name(isa) << " H=" << c.H << " W=" << c.W
                                           << " stride " << c.sw << " act " << ai << " at " << i;
      }
}

}  // namespace
}  // namespace tessera::linalg
