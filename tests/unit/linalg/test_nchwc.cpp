#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "linalg/nchwc.hpp"
#include "linalg/nchwc_fused.hpp"
#include "linalg/winograd.hpp"
#include "unit/linalg/activation_ref.hpp"

namespace tessera::linalg::nchwc {
namespace {

struct ConvCase {
  int64_t N, C, H, W, M, KH, KW, sh, sw, ph, pw, pe_h, pe_w, dh, dw;
  bool depthwise, blocked_input;
};

// Every kernel set this CPU can run, widest first: each test body below runs
// on all of them, so an AVX-512 machine checks the AVX2 kernels too.
std::vector<Isa> kernel_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kPortable})
    if (isa <= cpu_isa()) out.push_back(isa);
  return out;
}

// Runs the blocked kernels of one set while in scope.
class UseIsa {
 public:
  explicit UseIsa(Isa isa) : was_(set_kernel_isa(isa)) {}
  ~UseIsa() { set_kernel_isa(was_); }
  UseIsa(const UseIsa&) = delete;
  UseIsa& operator=(const UseIsa&) = delete;

 private:
  Isa was_;
};

float act_ref(const ActivationSpec& a, float v) { return float(activation_ref(a, v)); }

// yb (blocked [N, blocks(M), pixels, 16]) has zero padded lanes and, made
// plain, matches `want` within tol * (1 + |want|); `what` names the case.
void expect_blocked_output(const std::vector<float>& yb, const std::vector<float>& want, int64_t N,
                           int64_t M, int64_t pixels, float tol, ThreadPool* pool,
                           const std::string& what) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t blk = 0; blk < blocks(M); ++blk)
      for (int64_t p = 0; p < pixels; ++p)
        for (int64_t l = M - blk * 16; l < 16; ++l)
          ASSERT_EQ(yb[size_t(((n * blocks(M) + blk) * pixels + p) * 16 + l)], 0.f)
              << "padded lane " << l << " of block " << blk << " " << what;
  std::vector<float> y(want.size(), -9.f);
  from_blocked(yb.data(), N, M, pixels, y.data(), pool);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], want[i], tol * (1 + std::abs(want[i]))) << "at " << i << " " << what;
}

// Runs one case through to_blocked -> conv2d (or winograd_conv2d with that
// tile) -> from_blocked and compares with the definition computed in double;
// also checks the padded lanes are zero.
void check_conv(const ConvCase& c, const ActivationSpec& act, bool with_bias, bool with_residual,
                ThreadPool* pool, int64_t winograd_tile = 0) {
  Conv2dShape s;
  s.N = c.N, s.C = c.C, s.H = c.H, s.W = c.W, s.M = c.M, s.KH = c.KH, s.KW = c.KW;
  s.sh = c.sh, s.sw = c.sw, s.ph = c.ph, s.pw = c.pw, s.dh = c.dh, s.dw = c.dw;
  s.OH = (c.H + c.ph + c.pe_h - ((c.KH - 1) * c.dh + 1)) / c.sh + 1;
  s.OW = (c.W + c.pw + c.pe_w - ((c.KW - 1) * c.dw + 1)) / c.sw + 1;
  s.group = c.depthwise ? c.C : 1;
  s.input_blocked = c.blocked_input;
  ASSERT_GT(s.OH, 0);
  ASSERT_GT(s.OW, 0);
  const int64_t cpg = c.depthwise ? 1 : c.C;
  std::mt19937 rng(unsigned(c.C * 131 + c.M * 7 + c.KH));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(size_t(c.N * c.C * c.H * c.W)), w(size_t(c.M * cpg * c.KH * c.KW)),
      b(size_t(c.M)), r(size_t(c.N * c.M * s.OH * s.OW));
  for (auto* v : {&x, &w, &b, &r})
    for (auto& e : *v) e = u(rng);
  std::vector<float> want(r.size());
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t m = 0; m < c.M; ++m)
      for (int64_t oh = 0; oh < s.OH; ++oh)
        for (int64_t ow = 0; ow < s.OW; ++ow) {
          double acc = 0;
          for (int64_t ci = 0; ci < cpg; ++ci) {
            const int64_t cin = c.depthwise ? m : ci;
            for (int64_t kh = 0; kh < c.KH; ++kh)
              for (int64_t kw = 0; kw < c.KW; ++kw) {
                const int64_t ih = oh * c.sh - c.ph + kh * c.dh, iw = ow * c.sw - c.pw + kw * c.dw;
                if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
                acc += double(w[size_t(((m * cpg + ci) * c.KH + kh) * c.KW + kw)]) *
                       double(x[size_t(((n * c.C + cin) * c.H + ih) * c.W + iw)]);
              }
          }
          const size_t o = size_t(((n * c.M + m) * s.OH + oh) * s.OW + ow);
          float v = float(acc) + (with_bias ? b[size_t(m)] : 0.f);
          if (with_residual) v += r[o];
          want[o] = act_ref(act, v);
        }
  const int64_t ohw = s.OH * s.OW;
  std::vector<float> xb;
  const float* xin = x.data();
  if (c.blocked_input) {
    xb.assign(size_t(c.N * blocks(c.C) * c.H * c.W * 16), -5.f);
    to_blocked(x.data(), c.N, c.C, c.H * c.W, xb.data(), pool);
    xin = xb.data();
  }
  std::vector<float> rb(size_t(c.N * blocks(c.M) * ohw * 16));
  to_blocked(r.data(), c.N, c.M, ohw, rb.data(), pool);
  std::vector<float> yb(rb.size(), std::numeric_limits<float>::quiet_NaN());
  if (winograd_tile) {
    ASSERT_TRUE(winograd_supported(s));
    const WinogradFilter wf(w.data(), c.M, c.C, winograd_tile);
    winograd_conv2d(s, wf, xin, with_bias ? b.data() : nullptr, with_residual ? rb.data() : nullptr,
                    act, yb.data(), pool);
  } else {
    const PackedFilter pf(w.data(), s);
    ASSERT_TRUE(pf.matches(s));
    conv2d(s, pf, xin, with_bias ? b.data() : nullptr, with_residual ? rb.data() : nullptr, act,
           yb.data(), pool);
  }
  // Winograd's transforms round more (F(4x4, 3x3)'s output transform weighs
  // products by up to 8): a bound in units of the terms' scale, sqrt(C * 9)
  // for these inputs.
  const float tol = winograd_tile ? 2e-5f * std::sqrt(float(c.C * 9)) : 2e-4f;
  std::ostringstream what;
  what << "C" << c.C << " M" << c.M << " " << c.H << "x" << c.W << " k" << c.KH << "x" << c.KW
       << " s" << c.sh << " act " << int(act.kind) << " winograd " << winograd_tile;
  expect_blocked_output(yb, want, c.N, c.M, ohw, tol, pool, what.str());
}

const ConvCase kCases[] = {
    // N  C   H   W   M  KH KW sh sw ph pw peh pew dh dw  dw?    blocked
    {1, 32, 9, 33, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},   // 3x3, 2+1 out blocks
    {2, 16, 7, 7, 32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, false, true},    // 1x1, batch 2
    {1, 20, 8, 10, 20, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, false, true},   // channels not /16, s2
    {1, 3, 23, 23, 20, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, false, false},  // plain-input stem
    {1, 3, 23, 23, 32, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, false, false},  // ... zero-bordered copy
    {1, 16, 11, 12, 16, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, false, true},  // dilation 2
    {1, 32, 6, 40, 17, 1, 5, 1, 1, 0, 2, 0, 1, 1, 1, false, true},   // 1x5, asymmetric pad
    {1, 8, 1, 1, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},      // all border
    {1, 16, 16, 16, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, false, true},  // 1x1 as one row, chunked
    {1, 16, 3, 120, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},  // a row cut in chunks
    {1, 24, 12, 30, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},   // depthwise 3x3
    {2, 40, 13, 13, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, true},   // depthwise s2
    {1, 16, 9, 20, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, true, true},    // depthwise 5x5
    {1, 16, 10, 10, 16, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, true, true},   // depthwise dilated
    {1, 32, 5, 40, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},    // wide: border pixels
    {1, 16, 37, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},    // depthwise: 3 row bands
    {1, 32, 20, 21, 32, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, true, true},   // depthwise s2, no pad
    {1, 16, 9, 11, 16, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, true, true},    // depthwise s2, pad begin
    {1, 16, 1, 1, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},     // depthwise, one pixel
    // The register-tiled depthwise rows (3x3, 5x5; stride 1, 2): rows cut in
    // tiles and bands, pads narrower than the window, asymmetric pads.
    {1, 32, 23, 31, 32, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, true, true},   // 5x5 s2
    {1, 24, 40, 33, 24, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, true, true},   // 5x5, 3 bands, 3 tiles
    {1, 16, 10, 12, 16, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1, true, true},   // 5x5, pads 1
    {1, 16, 36, 31, 16, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, true, true},   // 3x3 s2, wide rows
    {1, 16, 14, 13, 16, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, true, true},   // 3x3 s2, 6-pixel rows
    {2, 48, 7, 7, 48, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, true, true},     // 5x5 s2 on 7x7, batch 2
    {1, 3, 17, 17, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, false},  // RGB stem 3x3 s2
    // Blocked 1x1 with several output-block groups (a ragged last group):
    {1, 32, 16, 16, 112, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, false, true},  // 4+3 blocks, chunked row
    {2, 48, 7, 7, 80, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, false, true},     // 4+1 blocks, batch 2
    {1, 20, 9, 11, 100, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, false, true},   // channels not /16
    {1, 64, 13, 13, 96, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, false, true},   // stride 2, 4+2 blocks
    {1, 16, 6, 7, 64, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, false, true},     // padded: border pixels
    // Filters outweigh the input: two threads take 5 of the 10 output blocks
    // each, the second from an odd block (pairs 5-6, 7-8, then 9 alone).
    {1, 64, 5, 5, 160, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},
    // Dilations past the plane (DeepLab's atrous layers): only some taps ever
    // touch the input, the others are skipped; none at all in the last one.
    {1, 32, 7, 9, 40, 3, 3, 1, 1, 6, 6, 6, 6, 6, 6, false, true},
    {1, 16, 5, 6, 16, 3, 3, 1, 1, 12, 12, 12, 12, 12, 12, false, true},
    {1, 48, 7, 7, 48, 3, 3, 1, 1, 8, 8, 8, 8, 8, 8, true, true},
    {1, 16, 2, 2, 16, 1, 1, 5, 5, 3, 3, 3, 3, 1, 1, false, true},
    // Few channels at stride 2: one border row and column, cheaper than a
    // bordered copy, so they run one pixel at a time with clipped taps.
    {1, 16, 40, 40, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, true},
};

const std::vector<ActivationSpec> kActs = every_activation();

TEST(LinalgNchwc, ConvMatchesDefinition) {
  ThreadPool two(2);
  for (Isa isa : kernel_isas()) {
    SCOPED_TRACE(isa_name(isa));
    const UseIsa use(isa);
    for (const ConvCase& c : kCases)
      for (size_t ai = 0; ai < kActs.size(); ++ai)
        check_conv(c, kActs[ai], ai != 1, ai >= 2, ai % 2 ? &two : nullptr);
  }
}

// 3x3 stride-1 dense cases for the Winograd products: tiles cut by the
// plane's edge, pads 0 to 2, channels not /16, batches of tiles, and both
// ways of splitting between two threads (by tiles, or by output blocks when
// the transformed filters outweigh the transformed input).
const ConvCase kWinogradCases[] = {
    // N  C   H   W   M  KH KW sh sw ph pw peh pew dh dw  dw?    blocked
    {1, 32, 9, 33, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},   // partial tiles, 3 blocks
    {2, 40, 14, 14, 36, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},  // channels not /16, N 2
    {1, 64, 5, 5, 160, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},   // by output blocks
    {1, 32, 8, 8, 32, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, false, true},    // no pads
    {1, 32, 7, 9, 32, 3, 3, 1, 1, 2, 2, 2, 2, 1, 1, false, true},    // pads 2
    {1, 16, 6, 7, 16, 3, 3, 1, 1, 0, 1, 2, 1, 1, 1, false, true},    // asymmetric pads
    {1, 16, 1, 1, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},    // one pixel
    {1, 32, 60, 44, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},  // several batches
    {1, 96, 34, 30, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},  // 24 outputs: 1.5 blocks
};

TEST(LinalgNchwc, WinogradMatchesDefinition) {
  ThreadPool two(2);
  for (Isa isa : kernel_isas()) {
    SCOPED_TRACE(isa_name(isa));
    const UseIsa use(isa);
    for (int64_t tile : {4, 2})
      for (const ConvCase& c : kWinogradCases)
        for (size_t ai = 0; ai < kActs.size(); ++ai)
          check_conv(c, kActs[ai], ai != 1, ai >= 2, ai % 2 ? &two : nullptr, tile);
  }
}

TEST(LinalgNchwc, WinogradChecksItsInputs) {
  Conv2dShape s;
  s.C = 32, s.M = 32, s.H = s.W = s.OH = s.OW = 8, s.KH = s.KW = 3, s.ph = s.pw = 1;
  std::vector<float> w(32 * 32 * 9, 0.5f), x(2 * 8 * 8 * 16, 1.f), y(x.size());
  EXPECT_THROW(WinogradFilter(w.data(), 32, 32, 3), Error);  // tile 2 or 4
  const WinogradFilter wf(w.data(), 32, 32, 4);
  Conv2dShape other = s;
  other.M = 48;  // the filter was made for 32 outputs
  EXPECT_THROW(winograd_conv2d(other, wf, x.data(), nullptr, nullptr, {}, y.data(), nullptr),
               Error);
  other = s;
  other.sh = other.sw = 2;
  EXPECT_FALSE(winograd_supported(other));
  EXPECT_THROW(winograd_conv2d(other, wf, x.data(), nullptr, nullptr, {}, y.data(), nullptr),
               Error);
  EXPECT_TRUE(winograd_supported(s));
  // The choice of tile follows the channel counts.
  EXPECT_EQ(winograd_tile(16, 64, true), 0);
  EXPECT_EQ(winograd_tile(96, 16, false), 0);
  // Between 16 and 32 outputs only on the AVX-512 products.
  for (Isa isa : kernel_isas()) {
    const UseIsa use(isa);
    EXPECT_EQ(winograd_tile(96, 24, false), isa == Isa::kAvx512 ? 2 : 0) << isa_name(isa);
  }
  EXPECT_EQ(winograd_tile(64, 64, true), 4);
  EXPECT_EQ(winograd_tile(64, 64, false), 2);
  EXPECT_EQ(winograd_tile(256, 256, true), 2);
  EXPECT_EQ(winograd_tile(512, 512, true), 0);
  EXPECT_EQ(winograd_tile(512, 512, false), 0);
}

// expand_depthwise gives what its two convolutions give one after the other:
// strides 1 and 2, pads 0 to 2, channels not /16, batch 2, one band or
// several (112 columns: 36 rows per band), parts by rows (few blocks) and by
// output blocks.
TEST(LinalgNchwc, ExpandDepthwiseMatchesTwoConvs) {
  struct Case {
    int64_t N, C, E, H, W, s, pt, pl, pb, pr;
  };
  const Case cases[] = {
      {1, 16, 96, 40, 112, 2, 1, 1, 1, 1},  // MobileNetV2's features.2, fewer rows
      {1, 24, 144, 23, 21, 1, 1, 1, 1, 1},  // stride 1, odd plane
      {2, 20, 40, 9, 7, 2, 0, 1, 2, 0},     // asymmetric pads, batch 2, channels not /16
      {1, 32, 32, 90, 112, 1, 2, 2, 2, 2},  // two blocks: split by rows; several bands
      {1, 16, 16, 5, 6, 1, 1, 1, 1, 1},     // one block
  };
  ThreadPool two(2);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto rnd = [&](int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) x = u(rng);
    return v;
  };
  for (Isa isa : kernel_isas()) {
    SCOPED_TRACE(isa_name(isa));
    const UseIsa use(isa);
    for (const Case& c : cases) {
      Conv2dShape e, d;
      e.N = d.N = c.N, e.C = c.C, e.M = c.E, e.H = e.OH = d.H = c.H, e.W = e.OW = d.W = c.W;
      d.C = d.M = d.group = c.E, d.KH = d.KW = 3, d.sh = d.sw = c.s, d.ph = c.pt, d.pw = c.pl;
      d.OH = (c.H + c.pt + c.pb - 3) / c.s + 1, d.OW = (c.W + c.pl + c.pr - 3) / c.s + 1;
      ASSERT_TRUE(expand_depthwise_supported(e, d));
      const auto we = rnd(c.E * c.C), wd = rnd(c.E * 9), be = rnd(c.E), bd = rnd(c.E);
      const PackedFilter pe(we.data(), e), pd(wd.data(), d);
      std::vector<float> x(size_t(c.N * blocks(c.C) * c.H * c.W * 16));
      const auto xp = rnd(c.N * c.C * c.H * c.W);
      to_blocked(xp.data(), c.N, c.C, c.H * c.W, x.data(), nullptr);
      const ActivationSpec relu6{Activation::kClip, 0.f, 6.f}, none{};
      std::vector<float> mid(size_t(c.N * blocks(c.E) * c.H * c.W * 16));
      std::vector<float> want(size_t(c.N * blocks(c.E) * d.OH * d.OW * 16));
      conv2d(e, pe, x.data(), be.data(), nullptr, relu6, mid.data(), nullptr);
      conv2d(d, pd, mid.data(), bd.data(), nullptr, none, want.data(), nullptr);
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
        std::vector<float> got(want.size(), std::numeric_limits<float>::quiet_NaN());
        expand_depthwise(e, pe, be.data(), relu6, d, pd, bd.data(), none, x.data(), got.data(),
                         pool);
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_NEAR(got[i], want[i], 1e-5f * (1 + std::abs(want[i])))
              << "at " << i << " C" << c.C << " E" << c.E << " " << c.H << "x" << c.W << " s" << c.s
              << (pool ? " two threads" : " one thread");
      }
    }
  }
  // A shape it does not compute is an error, not a wrong answer.
  Conv2dShape e, d;
  e.C = 16, e.M = 32, e.H = e.W = e.OH = e.OW = 4;
  d = e;
  d.C = d.M = d.group = 32, d.KH = d.KW = 5;  // 5x5
  EXPECT_FALSE(expand_depthwise_supported(e, d));
  const std::vector<float> w(32 * 16, 1.f), w2(32 * 25, 1.f), x(4 * 4 * 16, 1.f);
  std::vector<float> y(2 * 4 * 4 * 16);
  EXPECT_THROW(
      expand_depthwise(e, PackedFilter(w.data(), e), nullptr, {}, d, PackedFilter(w2.data(), d),
                       nullptr, {}, x.data(), y.data(), nullptr),
      Error);
}

// ---- 3-D (video) convolutions: depth as one more tap axis ----

struct Conv3dCase {
  int64_t N, C, D, H, W, M, KD, KH, KW;
  int64_t sd, sh, sw, pd, ph, pw, pe_d, pe_h, pe_w, dd, dh, dw;
  bool blocked_input;
};

// The blocked 3-D convolution against its definition in double, as check_conv.
void check_conv3d(const Conv3dCase& c, const ActivationSpec& act, bool with_bias,
                  bool with_residual, ThreadPool* pool) {
  Conv2dShape s;
  s.N = c.N, s.C = c.C, s.D = c.D, s.H = c.H, s.W = c.W, s.M = c.M;
  s.KD = c.KD, s.KH = c.KH, s.KW = c.KW, s.sd = c.sd, s.sh = c.sh, s.sw = c.sw;
  s.pd = c.pd, s.ph = c.ph, s.pw = c.pw, s.dd = c.dd, s.dh = c.dh, s.dw = c.dw;
  s.OD = (c.D + c.pd + c.pe_d - ((c.KD - 1) * c.dd + 1)) / c.sd + 1;
  s.OH = (c.H + c.ph + c.pe_h - ((c.KH - 1) * c.dh + 1)) / c.sh + 1;
  s.OW = (c.W + c.pw + c.pe_w - ((c.KW - 1) * c.dw + 1)) / c.sw + 1;
  s.input_blocked = c.blocked_input;
  ASSERT_GT(s.OD * s.OH * s.OW, 0);
  const int64_t in_sp = c.D * c.H * c.W, out_sp = s.OD * s.OH * s.OW;
  const int64_t taps = c.KD * c.KH * c.KW;
  std::mt19937 rng(unsigned(c.C * 131 + c.M * 7 + c.KD));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(size_t(c.N * c.C * in_sp)), w(size_t(c.M * c.C * taps)), b(size_t(c.M)),
      r(size_t(c.N * c.M * out_sp));
  for (auto* v : {&x, &w, &b, &r})
    for (auto& e : *v) e = u(rng);
  std::vector<float> want(r.size());
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t m = 0; m < c.M; ++m)
      for (int64_t od = 0; od < s.OD; ++od)
        for (int64_t oh = 0; oh < s.OH; ++oh)
          for (int64_t ow = 0; ow < s.OW; ++ow) {
            double acc = 0;
            for (int64_t ci = 0; ci < c.C; ++ci)
              for (int64_t kd = 0; kd < c.KD; ++kd)
                for (int64_t kh = 0; kh < c.KH; ++kh)
                  for (int64_t kw = 0; kw < c.KW; ++kw) {
                    const int64_t id = od * c.sd - c.pd + kd * c.dd;
                    const int64_t ih = oh * c.sh - c.ph + kh * c.dh;
                    const int64_t iw = ow * c.sw - c.pw + kw * c.dw;
                    if (id < 0 || id >= c.D || ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
                    acc +=
                        double(w[size_t((((m * c.C + ci) * c.KD + kd) * c.KH + kh) * c.KW + kw)]) *
                        double(x[size_t((((n * c.C + ci) * c.D + id) * c.H + ih) * c.W + iw)]);
                  }
            const size_t o = size_t((((n * c.M + m) * s.OD + od) * s.OH + oh) * s.OW + ow);
            float v = float(acc) + (with_bias ? b[size_t(m)] : 0.f);
            if (with_residual) v += r[o];
            want[o] = act_ref(act, v);
          }
  std::vector<float> xb;
  const float* xin = x.data();
  if (c.blocked_input) {
    xb.assign(size_t(c.N * blocks(c.C) * in_sp * 16), -5.f);
    to_blocked(x.data(), c.N, c.C, in_sp, xb.data(), pool);
    xin = xb.data();
  }
  std::vector<float> rb(size_t(c.N * blocks(c.M) * out_sp * 16));
  to_blocked(r.data(), c.N, c.M, out_sp, rb.data(), pool);
  std::vector<float> yb(rb.size(), std::numeric_limits<float>::quiet_NaN());
  const PackedFilter pf(w.data(), s);
  ASSERT_TRUE(pf.matches(s));
  conv2d(s, pf, xin, with_bias ? b.data() : nullptr, with_residual ? rb.data() : nullptr, act,
         yb.data(), pool);
  std::ostringstream what;
  what << "C" << c.C << " M" << c.M << " " << c.D << "x" << c.H << "x" << c.W << " k" << c.KD << "x"
       << c.KH << "x" << c.KW << " act " << int(act.kind);
  expect_blocked_output(yb, want, c.N, c.M, out_sp, 2e-4f, pool, what.str());
}

const Conv3dCase k3dCases[] = {
    // N C  D  H  W   M KD KH KW sd sh sw pd ph pw ped peh pew dd dh dw  blocked
    {1, 32, 4, 6, 9, 48, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},    // R3D's 3x3x3
    {2, 16, 5, 7, 7, 32, 1, 1, 1, 2, 2, 2, 0, 0, 0, 0, 0, 0, 1, 1, 1, true},    // downsample
    {1, 3, 4, 15, 15, 32, 3, 7, 7, 1, 2, 2, 1, 3, 3, 1, 3, 3, 1, 1, 1, false},  // stem, bordered
    {1, 3, 5, 9, 10, 8, 3, 3, 3, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, false},    // stem, clipped
    {1, 16, 7, 5, 6, 20, 3, 3, 3, 2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1, true},    // depth s2, d2
    {1, 16, 3, 1, 1, 16, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},    // 1x1 planes
    {1, 20, 3, 4, 5, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, true},    // 1x1x1: one row
    {1, 16, 4, 3, 3, 16, 3, 1, 1, 1, 1, 1, 0, 0, 0, 2, 0, 0, 1, 1, 1, true},    // pad at the end
    {1, 16, 6, 4, 4, 16, 2, 3, 3, 1, 1, 1, 0, 1, 1, 0, 1, 1, 4, 1, 1, true},    // a plane apart
};

TEST(LinalgNchwc, Conv3dMatchesDefinition) {
  ThreadPool two(2);
  for (Isa isa : kernel_isas()) {
    SCOPED_TRACE(isa_name(isa));
    const UseIsa use(isa);
    for (const Conv3dCase& c : k3dCases)
      for (size_t ai = 0; ai < 4; ++ai)
        check_conv3d(c, kActs[ai], ai != 1, ai >= 2, ai % 2 ? &two : nullptr);
  }
}

TEST(LinalgNchwc, KernelNameFollowsTheSetInUse) {
  for (Isa isa : kernel_isas()) {
    const UseIsa use(isa);
    EXPECT_STREQ(kernel_name(), isa_name(isa));
    EXPECT_EQ(fast_path_available(), isa != Isa::kPortable);
  }
  // Asking for more than the CPU has gives what it has.
  const UseIsa use(Isa::kAvx512);
  EXPECT_STREQ(kernel_name(), isa_name(cpu_isa()));
}

TEST(LinalgNchwc, PortableConvMatchesDefinition) {
  const bool was = set_fast_path_enabled(false);
  EXPECT_STREQ(kernel_name(), "portable");
  for (const ConvCase& c : kCases) check_conv(c, kActs[2], true, true, nullptr);
  set_fast_path_enabled(was);
}

TEST(LinalgNchwc, NaNPassesThroughRelu) {
  Conv2dShape s;
  s.C = 16, s.H = 1, s.W = 1, s.M = 16, s.OH = 1, s.OW = 1;
  std::vector<float> w(16 * 16, 0.f);
  w[0] = 1.f;  // output channel 0 reads input channel 0
  const PackedFilter pf(w.data(), s);
  std::vector<float> x(16, 0.f), y(16, 1.f);
  x[0] = std::numeric_limits<float>::quiet_NaN();
  for (Isa isa : kernel_isas()) {
    const UseIsa use(isa);
    std::fill(y.begin(), y.end(), 1.f);
    conv2d(s, pf, x.data(), nullptr, nullptr, {Activation::kRelu, 0, 0}, y.data(), nullptr);
    EXPECT_TRUE(std::isnan(y[0])) << isa_name(isa);
    EXPECT_TRUE(std::isnan(y[1])) << isa_name(isa);  // 0 * NaN is NaN, as in the definition
  }
}

TEST(LinalgNchwc, FilterChecksShapes) {
  Conv2dShape s;
  s.C = 8, s.M = 16, s.group = 4;     // grouped, not depthwise
  std::vector<float> w(16 * 8, 1.f);  // enough for group 1: [16, 8, 1, 1]
  EXPECT_THROW(PackedFilter(w.data(), s), tessera::Error);
  s.group = 1;
  const PackedFilter pf(w.data(), s);
  Conv2dShape other = s;
  other.M = 32;
  EXPECT_FALSE(pf.matches(other));
  other = s;
  other.KD = 2;  // a 3-D filter is another packing
  EXPECT_FALSE(pf.matches(other));
  Conv2dShape dw3d;
  dw3d.C = dw3d.M = dw3d.group = 16, dw3d.KD = 3;  // depthwise takes no depth
  std::vector<float> wd(16 * 3, 1.f);
  EXPECT_THROW(PackedFilter(wd.data(), dw3d), tessera::Error);
}

// Channels-last [N, HW, C] to blocked and back: the same blocked tensor as
// from the NCHW transpose, padded lanes zero, over bands of 64 pixels.
TEST(LinalgNchwc, ChannelsLastReordersMatchTheTransposed) {
  const int64_t N = 2, C = 37, HW = 150;
  std::vector<float> nhwc(size_t(N * HW * C)), nchw(nhwc.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t p = 0; p < HW; ++p)
      for (int64_t c = 0; c < C; ++c) {
        const float v = float((n * HW + p) * C + c) + 0.25f;
        nhwc[size_t((n * HW + p) * C + c)] = v;
        nchw[size_t((n * C + c) * HW + p)] = v;
      }
  ThreadPool two(2);
  std::vector<float> want(size_t(N * blocks(C) * HW * 16)), got(want.size(), 9.f);
  to_blocked(nchw.data(), N, C, HW, want.data(), nullptr);
  to_blocked_channels_last(nhwc.data(), N, C, HW, got.data(), &two);
  EXPECT_EQ(got, want);
  std::vector<float> back(nhwc.size(), -1.f);
  from_blocked_channels_last(got.data(), N, C, HW, back.data(), &two);
  EXPECT_EQ(back, nhwc);
}

// Planes of a few pixels and of several bands of pixels (the last one
// partial), a partial last block of channels.
TEST(LinalgNchwc, ReorderRoundTripsAndZeroesPadding) {
  for (const int64_t HW : {int64_t(5), int64_t(200)}) {
    SCOPED_TRACE(HW);
    const int64_t N = 2, C = 21;
    std::vector<float> x(size_t(N * C * HW));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) + 0.5f;
    std::vector<float> b(size_t(N * blocks(C) * HW * 16), 9.f), back(x.size());
    to_blocked(x.data(), N, C, HW, b.data(), nullptr);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t p = 0; p < HW; ++p)
        for (int64_t l = C % 16; l < 16; ++l)
          EXPECT_EQ(b[size_t(((n * 2 + 1) * HW + p) * 16 + l)], 0.f);
    from_blocked(b.data(), N, C, HW, back.data(), nullptr);
    EXPECT_EQ(back, x);
  }
}

// Pools against the definition on a blocked tensor, pads and strides included.
void check_pools() {
  ThreadPool two(2);
  for (const bool is_max : {true, false})
    for (const bool include_pad : {false, true}) {
      Pool2dShape s;
      s.N = 1, s.C = 18, s.H = 9, s.W = 11, s.KH = 3, s.KW = 3, s.sh = 2, s.sw = 2, s.ph = 1,
      s.pw = 1;
      s.pe_h = 1, s.pe_w = 1;
      s.count_include_pad = include_pad;
      s.OH = (s.H + 2 - 3) / 2 + 1, s.OW = (s.W + 2 - 3) / 2 + 1;
      std::mt19937 rng(5);
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      std::vector<float> x(size_t(s.C * s.H * s.W));
      for (auto& e : x) e = u(rng);
      std::vector<float> xb(size_t(blocks(s.C) * s.H * s.W * 16)),
          yb(size_t(blocks(s.C) * s.OH * s.OW * 16), -3.f), y(size_t(s.C * s.OH * s.OW));
      to_blocked(x.data(), 1, s.C, s.H * s.W, xb.data(), nullptr);
      if (is_max)
        max_pool2d(s, xb.data(), yb.data(), &two);
      else
        avg_pool2d(s, xb.data(), yb.data(), nullptr);
      from_blocked(yb.data(), 1, s.C, s.OH * s.OW, y.data(), nullptr);
      for (int64_t c = 0; c < s.C; ++c)
        for (int64_t oh = 0; oh < s.OH; ++oh)
          for (int64_t ow = 0; ow < s.OW; ++ow) {
            float mx = -1e30f;
            double sum = 0;
            int cnt = 0;
            for (int64_t kh = 0; kh < 3; ++kh)
              for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
                if (ih < 0 || ih >= s.H || iw < 0 || iw >= s.W) continue;
                const float v = x[size_t((c * s.H + ih) * s.W + iw)];
                mx = std::max(mx, v);
                sum += v;
                ++cnt;
              }
            // Clipped to the padded input: pads count, positions past them do not.
            const int64_t h_end = std::min(oh * 2 - 1 + 3, s.H + 1),
                          w_end = std::min(ow * 2 - 1 + 3, s.W + 1);
            const double div =
                include_pad ? double((h_end - (oh * 2 - 1)) * (w_end - (ow * 2 - 1))) : double(cnt);
            const float want = is_max ? mx : float(sum / div);
            ASSERT_NEAR(y[size_t((c * s.OH + oh) * s.OW + ow)], want, 1e-5f)
                << (is_max ? "max" : "avg") << " c" << c << " " << oh << "," << ow;
          }
      for (int64_t p = 0; p < s.OH * s.OW; ++p)
        for (int64_t l = 2; l < 16; ++l) ASSERT_EQ(yb[size_t((s.OH * s.OW + p) * 16 + l)], 0.f);
    }
  std::vector<float> x(size_t(20 * 6)), xb(size_t(2 * 6 * 16)), g(32), gp(20);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 7);
  to_blocked(x.data(), 1, 20, 6, xb.data(), nullptr);
  global_avg_pool(1, 20, 6, xb.data(), g.data(), &two);
  from_blocked(g.data(), 1, 20, 1, gp.data(), nullptr);
  for (int64_t c = 0; c < 20; ++c) {
    double sum = 0;
    for (int64_t p = 0; p < 6; ++p) sum += x[size_t(c * 6 + p)];
    EXPECT_NEAR(gp[size_t(c)], sum / 6, 1e-5) << c;
  }
}

TEST(LinalgNchwc, PoolsMatchDefinition) {
  for (Isa isa : kernel_isas()) {
    SCOPED_TRACE(isa_name(isa));
    const UseIsa use(isa);
    check_pools();
  }
}

}  // namespace
}  // namespace tessera::linalg::nchwc

namespace tessera::linalg::nchwc {
namespace {

// A NaN anywhere in a max-pool window wins, whether it comes first or last
// (MaxPool propagates NaN), in both halves of a block, on every kernel set.
TEST(LinalgNchwc, MaxPoolPropagatesNaN) {
  for (Isa isa : kernel_isas()) {
    const UseIsa use(isa);
    Pool2dShape s;
    s.C = 16, s.H = 1, s.W = 3, s.OH = 1, s.OW = 1, s.KH = 1, s.KW = 3;
    std::vector<float> x(3 * 16, 1.f), y(16, 0.f);
    x[0 * 16 + 0] = std::numeric_limits<float>::quiet_NaN();   // lane 0: NaN first
    x[2 * 16 + 1] = std::numeric_limits<float>::quiet_NaN();   // lane 1: NaN last
    x[1 * 16 + 2] = 5.f;                                       // lane 2: plain max
    x[2 * 16 + 12] = std::numeric_limits<float>::quiet_NaN();  // lane 12: upper half
    max_pool2d(s, x.data(), y.data(), nullptr);
    EXPECT_TRUE(std::isnan(y[0])) << isa_name(isa);
    EXPECT_TRUE(std::isnan(y[1])) << isa_name(isa);
    EXPECT_EQ(y[2], 5.f) << isa_name(isa);
    EXPECT_EQ(y[3], 1.f) << isa_name(isa);
    EXPECT_TRUE(std::isnan(y[12])) << isa_name(isa);
    EXPECT_EQ(y[13], 1.f) << isa_name(isa);
  }
}

}  // namespace
}  // namespace tessera::linalg::nchwc
