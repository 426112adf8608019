// ConvInteger and QLinearConv on the packed path (2-D, groups of 4 or more
// output channels: filters x im2col on linalg::igemm) and the direct integer
// loop (depthwise, narrow groups) against the definition: strides, pads, dilations, groups,
// per-channel zero points and scales, both 8-bit types, and constant filters packed at session
// creation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "unit/kernel_test_util.hpp"
#include "unit/providers/one_node_model.hpp"

namespace tessera {
namespace {

using test::attr_int;
using test::attr_ints;
using test::random_bytes;
using test::run_node;

struct Geometry {
  int64_t N, C, H, W, M, kh, kw, group, stride, pad, dil;
  int64_t stride_w = 0;  // 0: `stride` both ways
  int64_t sw() const { return stride_w ? stride_w : stride; }
  int64_t oh() const { return (H + 2 * pad - (kh - 1) * dil - 1) / stride + 1; }
  int64_t ow() const { return (W + 2 * pad - (kw - 1) * dil - 1) / sw() + 1; }
  std::vector<ir::Attribute> attrs() const {
    return {attr_int("group", group), attr_ints("strides", {stride, sw()}),
            attr_ints("pads", {pad, pad, pad, pad}), attr_ints("dilations", {dil, dil})};
  }
};

// The exact sums sum (x - xzp) (w - wzp[m]) over the window (outside: none).
std::vector<int64_t> reference(const Geometry& g, const Tensor& x, const Tensor& w, int64_t xzp,
                               const Tensor* wzp) {
  const int64_t cg = g.C / g.group, mg = g.M / g.group;
  std::vector<int64_t> out;
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t m = 0; m < g.M; ++m) {
      const int64_t wz =
          wzp ? int64_t(wzp->element_as_double(wzp->num_elements() == 1 ? 0 : m)) : 0;
      for (int64_t oy = 0; oy < g.oh(); ++oy)
        for (int64_t ox = 0; ox < g.ow(); ++ox) {
          int64_t s = 0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ky = 0; ky < g.kh; ++ky)
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t iy = oy * g.stride - g.pad + ky * g.dil;
                const int64_t ix = ox * g.sw() - g.pad + kx * g.dil;
                if (iy < 0 || iy >= g.H || ix < 0 || ix >= g.W) continue;
                const int64_t ci = (m / mg) * cg + c;
                const int64_t xv =
                    int64_t(x.element_as_double(((n * g.C + ci) * g.H + iy) * g.W + ix));
                const int64_t wv =
                    int64_t(w.element_as_double(((m * cg + c) * g.kh + ky) * g.kw + kx));
                s += (xv - xzp) * (wv - wz);
              }
          out.push_back(s);
        }
    }
  return out;
}

const Geometry kCases[] = {
    {1, 3, 9, 11, 8, 3, 3, 1, 1, 1, 1},   // 3x3, pad 1
    {2, 8, 7, 7, 12, 3, 3, 2, 2, 1, 1},   // 2 groups of 6, stride 2
    {1, 5, 10, 8, 70, 1, 1, 1, 1, 0, 1},  // 1x1, more than a 64-column panel
    {1, 4, 12, 12, 4, 3, 2, 1, 1, 2, 2},  // dilation 2, a 3x2 window
    // The direct loop: depthwise (stride 1 and 2) and groups of 2 channels.
    {2, 8, 9, 10, 8, 3, 3, 8, 1, 1, 1},
    {1, 6, 11, 11, 6, 3, 3, 6, 2, 1, 1},
    {1, 4, 8, 8, 4, 3, 3, 2, 1, 2, 2},
    {1, 4, 9, 12, 4, 3, 3, 4, 1, 1, 1, 2},  // strides 1 x 2: a row at a time
    {1, 8, 9, 12, 8, 3, 3, 1, 2, 1, 1, 1},  // the packed path, strides 2 x 1
    // Depthwise in float (exact below 2^24): a channel multiplier of 2 with
    // 5x5 taps and rows longer than a vector, dilation 2 at stride 2, and
    // 272 taps (past the float path's 256: the integer loop).
    {1, 4, 13, 37, 8, 5, 5, 4, 1, 2, 1},
    {1, 3, 20, 40, 3, 3, 3, 3, 2, 1, 2},
    {1, 2, 17, 17, 2, 17, 16, 2, 1, 0, 1},
};

TEST(ConvIntegerPacked, MatchesTheDefinition) {
  uint32_t seed = 1;
  for (const Geometry& g : kCases)
    for (DataType tx : {DataType::kUInt8, DataType::kInt8})
      for (DataType tw : {DataType::kUInt8, DataType::kInt8}) {
        const Tensor x = random_bytes(tx, Shape{g.N, g.C, g.H, g.W}, seed++);
        const Tensor w = random_bytes(tw, Shape{g.M, g.C / g.group, g.kh, g.kw}, seed++);
        const Tensor xzp = random_bytes(tx, Shape{}, seed++);
        const Tensor wzp = random_bytes(tw, Shape{g.M}, seed++);
        auto out = run_node("ConvInteger", {x, w, xzp, wzp}, g.attrs(), 10);
        const Tensor& y = out[0].tensor();
        ASSERT_EQ(y.shape(), (Shape{g.N, g.M, g.oh(), g.ow()}));
        const auto want = reference(g, x, w, int64_t(xzp.element_as_double(0)), &wzp);
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_EQ(y.data<int32_t>()[i], int32_t(want[i]))
              << "element " << i << " of case C " << g.C << " M " << g.M << " group " << g.group;
      }
}

TEST(ConvIntegerPacked, QLinearConvRequantizesAsTheSpecSays) {
  uint32_t seed = 50;
  for (const Geometry& g : kCases)
    for (DataType t : {DataType::kUInt8, DataType::kInt8}) {
      const Tensor x = random_bytes(t, Shape{g.N, g.C, g.H, g.W}, seed++);
      const Tensor w = random_bytes(DataType::kInt8, Shape{g.M, g.C / g.group, g.kh, g.kw}, seed++);
      const Tensor xzp = random_bytes(t, Shape{}, seed++);
      Tensor ws(DataType::kFloat, Shape{g.M});
      Tensor bias(DataType::kInt32, Shape{g.M});
      for (int64_t m = 0; m < g.M; ++m) {
        ws.mutable_data<float>()[m] = 0.001f * float(m + 1);
        bias.mutable_data<int32_t>()[m] = int32_t(m * 37 - 100);
      }
      const float xs = 0.02f, ys = 0.7f;
      const Tensor yzp =
          t == DataType::kUInt8 ? Tensor::scalar<uint8_t>(120) : Tensor::scalar<int8_t>(-7);
      auto out = run_node("QLinearConv",
                          {x, Tensor::scalar<float>(xs), xzp, w, ws, Tensor::scalar<int8_t>(0),
                           Tensor::scalar<float>(ys), yzp, bias},
                          g.attrs(), 10);
      const Tensor& y = out[0].tensor();
      ASSERT_EQ(y.dtype(), t);
      const auto acc = reference(g, x, w, int64_t(xzp.element_as_double(0)), nullptr);
      const double lo = t == DataType::kUInt8 ? 0 : -128, hi = t == DataType::kUInt8 ? 255 : 127;
      const int64_t plane = g.oh() * g.ow();
      for (size_t i = 0; i < acc.size(); ++i) {
        const int64_t m = (int64_t(i) / plane) % g.M;
        const float real =
            float(double(acc[i]) + bias.data<int32_t>()[m]) * (xs * ws.data<float>()[m]);
        const double r = double(std::nearbyint(real / ys)) + yzp.element_as_double(0);
        ASSERT_EQ(y.element_as_double(int64_t(i)), std::clamp(r, lo, hi))
            << "element " << i << " of case C " << g.C << " M " << g.M;
      }
    }
}

// QLinearConv with constant filters, as quantized models have them: on
// AVX-512 VNNI machines the row path (the image as pixel rows read in place,
// quant/qlinear_conv_rows.hpp) takes windows of several pixels, strided 1x1
// layers and 1x1 layers 256 channels deep, and declines (to the packed path)
// weight zero points that differ by channel; elsewhere the packed path runs
// them all. Either way the bytes are the definition's. Scales and zero
// points are constants in one form (every run takes the row path; the raw
// filters are dropped) and graph inputs in the other.
TEST(ConvIntegerPacked, QLinearConvWithConstantFiltersMatchesTheDefinition) {
  const Geometry cases[] = {
      {2, 8, 9, 11, 70, 3, 3, 1, 1, 1, 1},    // 3x3, pad 1, two images, 70 channels
      {1, 16, 10, 10, 20, 3, 3, 1, 2, 1, 1},  // stride 2
      {1, 4, 12, 12, 8, 3, 3, 1, 1, 2, 2},    // dilation 2: one run a tap
      {1, 12, 8, 8, 16, 1, 1, 1, 2, 0, 1},    // 1x1, stride 2
      {1, 256, 5, 5, 70, 1, 1, 1, 1, 0, 1},   // 1x1, 256 channels: the row path
      {1, 16, 20, 20, 24, 1, 1, 1, 1, 0, 1},  // 1x1, 16 channels: the packed path
      {1, 3, 9, 9, 8, 3, 3, 1, 1, 1, 1},      // 9-byte runs: the packed path
      // Depthwise (on VNNI + VBMI machines linalg/depthwise_vnni where the
      // weights minus their zero point fit int8, the float path elsewhere):
      {1, 16, 12, 12, 16, 3, 3, 16, 1, 1, 1},  // stride 1
      {2, 8, 13, 13, 8, 3, 3, 8, 2, 1, 1},     // stride 2, two images
      {1, 4, 9, 21, 8, 3, 3, 4, 1, 1, 1},      // two filters a channel
      {1, 8, 10, 10, 8, 5, 5, 8, 1, 2, 1},     // 5 wide: the float path
      {1, 8, 10, 10, 8, 3, 3, 8, 1, 2, 2},     // dilation 2: the float path
  };
  uint32_t seed = 300;
  for (const Geometry& g : cases)
    for (int form = 0; form < 6; ++form) {
      const DataType tx = form % 2 ? DataType::kInt8 : DataType::kUInt8;
      // Weights: int8 with zero point 0, uint8 with one zero point, int8
      // with zero points that differ by channel.
      const int wform = form / 2;
      const DataType tw = wform == 1 ? DataType::kUInt8 : DataType::kInt8;
      const Tensor x = random_bytes(tx, Shape{g.N, g.C, g.H, g.W}, seed++);
      const Tensor w = random_bytes(tw, Shape{g.M, g.C / g.group, g.kh, g.kw}, seed++);
      const Tensor xzp = random_bytes(tx, Shape{}, seed++);
      Tensor wzp(tw, Shape{g.M});
      Tensor ws(DataType::kFloat, Shape{g.M});
      Tensor bias(DataType::kInt32, Shape{g.M});
      for (int64_t m = 0; m < g.M; ++m) {
        auto* z = static_cast<uint8_t*>(wzp.mutable_raw_data());
        z[m] = wform == 0 ? 0 : wform == 1 ? 131 : uint8_t(m % 5);
        ws.mutable_data<float>()[m] = 0.0007f * float(m % 9 + 1);
        bias.mutable_data<int32_t>()[m] = int32_t(m * 53 - 900);
      }
      const float xs = 0.03f, ys = 0.11f;
      const Tensor yzp =
          tx == DataType::kUInt8 ? Tensor::scalar<uint8_t>(7) : Tensor::scalar<int8_t>(-100);
      const auto acc = reference(g, x, w, int64_t(xzp.element_as_double(0)), &wzp);
      for (bool constant_scales : {true, false}) {
        test::OneNode m("QLinearConv", 10, g.attrs());
        m.input("x", x)
            .input("xs", Tensor::scalar<float>(xs), constant_scales)
            .input("xzp", xzp, constant_scales)
            .input("w", w, true)
            .input("ws", ws, constant_scales)
            .input("wzp", wzp, constant_scales)
            .input("ys", Tensor::scalar<float>(ys), constant_scales)
            .input("yzp", yzp, constant_scales)
            .input("bias", bias, true)
            .output("y");
        auto session = Session::create_from_model(m.model, {}, {});
        const Tensor y = session->run(m.feeds)[0].tensor();
        ASSERT_EQ(y.shape(), (Shape{g.N, g.M, g.oh(), g.ow()}));
        const double lo = tx == DataType::kUInt8 ? 0 : -128,
                     hi = tx == DataType::kUInt8 ? 255 : 127;
        const int64_t plane = g.oh() * g.ow();
        for (size_t i = 0; i < acc.size(); ++i) {
          const int64_t c = (int64_t(i) / plane) % g.M;
          const float real =
              float(double(acc[i]) + bias.data<int32_t>()[c]) * (xs * ws.data<float>()[c]);
          const double r = double(std::nearbyint(real / ys)) + yzp.element_as_double(0);
          ASSERT_EQ(y.element_as_double(int64_t(i)), std::clamp(r, lo, hi))
              << "element " << i << " of case C " << g.C << " H " << g.H << " M " << g.M << " k "
              << g.kh << " stride " << g.stride << " form " << form
              << (constant_scales ? " (constant scales)" : "");
        }
      }
    }
}

// Pads and strides whose padded plane would pass 2^40 positions are an
// error (the integer paths copy planes with their padding).
TEST(ConvIntegerPacked, HugePaddingIsAnError) {
  const int64_t edge = (int64_t(1) << 31) - 1;
  const Tensor x = random_bytes(DataType::kUInt8, Shape{1, 4, 5, 5}, 7);
  const Tensor w = random_bytes(DataType::kInt8, Shape{4, 4, 3, 3}, 8);
  try {
    run_node("ConvInteger", {x, w},
             {attr_ints("strides", {edge, edge}), attr_ints("pads", {edge, edge, edge, edge})}, 10);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("larger than 2^40 positions"), std::string::npos)
        << e.what();
  }
}

TEST(ConvIntegerPacked, DepthwiseSumsAtTheirLargestStayExact) {
  // 256 taps of (255 - 0) * (-128 - 127): the largest sum the float path
  // takes, -16,646,400, two ulps short of float's exact-integer limit.
  const Geometry g{1, 2, 16, 16, 2, 16, 16, 2, 1, 0, 1};
  Tensor x(DataType::kUInt8, Shape{1, 2, 16, 16});
  Tensor w(DataType::kInt8, Shape{2, 1, 16, 16});
  std::fill_n(x.mutable_data<uint8_t>(), x.num_elements(), uint8_t(255));
  std::fill_n(w.mutable_data<int8_t>(), w.num_elements(), int8_t(-128));
  auto out =
      run_node("ConvInteger", {x, w, Tensor::scalar<uint8_t>(0), Tensor::scalar<int8_t>(127)},
               g.attrs(), 10);
  const Tensor& y = out[0].tensor();
  ASSERT_EQ(y.shape(), (Shape{1, 2, 1, 1}));
  EXPECT_EQ(y.data<int32_t>()[0], -16646400);
  EXPECT_EQ(y.data<int32_t>()[1], -16646400);
}

TEST(ConvIntegerPacked, ConstantFiltersArePackedOnce) {
  const Geometry g = kCases[1];
  const Tensor x = random_bytes(DataType::kUInt8, Shape{g.N, g.C, g.H, g.W}, 90);
  const Tensor w = random_bytes(DataType::kInt8, Shape{g.M, g.C / g.group, g.kh, g.kw}, 91);
  const Tensor xzp = Tensor::scalar<uint8_t>(128);
  test::OneNode m("ConvInteger", 10, g.attrs());
  m.input("x", x).input("w", w, true).input("xzp", xzp).output("y");
  auto s = Session::create_from_model(m.model, {}, {});
  const auto want = reference(g, x, w, 128, nullptr);
  for (int run = 0; run < 2; ++run) {
    const Tensor y = s->run(m.feeds)[0].tensor();
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(y.data<int32_t>()[i], int32_t(want[i])) << "run " << run << " element " << i;
  }
}

TEST(ConvIntegerPacked, ConstantDepthwiseFiltersArePreparedOnce) {
  // Depthwise layers (stride 1 and 2) with constant filters and per-channel
  // zero points: their float filters are made at kernel creation.
  for (const Geometry& g : {kCases[4], kCases[5]}) {
    const Tensor x = random_bytes(DataType::kUInt8, Shape{g.N, g.C, g.H, g.W}, 92);
    const Tensor w = random_bytes(DataType::kInt8, Shape{g.M, g.C / g.group, g.kh, g.kw}, 93);
    const Tensor wzp = random_bytes(DataType::kInt8, Shape{g.M}, 94);
    const Tensor xzp = Tensor::scalar<uint8_t>(120);
    test::OneNode m("ConvInteger", 10, g.attrs());
    m.input("x", x).input("w", w, true).input("xzp", xzp, true).input("wzp", wzp, true).output("y");
    auto s = Session::create_from_model(m.model, {}, {});
    const auto want = reference(g, x, w, 120, &wzp);
    for (int run = 0; run < 2; ++run) {
      const Tensor y = s->run(m.feeds)[0].tensor();
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(y.data<int32_t>()[i], int32_t(want[i]))
            << "group " << g.group << " run " << run << " element " << i;
    }
  }
}

}  // namespace
}  // namespace tessera
