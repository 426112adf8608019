#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_int;
using test::attr_ints;
using test::attr_string;
using test::run_node;

std::vector<double> values(const Value& v) {
  std::vector<double> out;
  const Tensor& t = v.tensor();
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.element_as_double(i));
  return out;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want,
                 double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(VisionKernels, NonMaxSuppressionSuppressesOverlaps) {
  auto boxes = Tensor::from_vector<float>({0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
                                           0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101},
                                          Shape{1, 6, 4});
  auto scores = Tensor::from_vector<float>({0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}, Shape{1, 1, 6});
  auto out = run_node("NonMaxSuppression",
                      {boxes, scores, Tensor::scalar<int64_t>(3), Tensor::scalar<float>(0.5f),
                       Tensor::scalar<float>(0.f)},
                      {}, 11);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{3, 3}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(VisionKernels, NonMaxSuppressionBadShapes) {
  auto boxes = Tensor::from_vector<float>({0, 0, 1, 1}, Shape{1, 1, 4});
  auto scores = Tensor::from_vector<float>({0.9f, 0.1f}, Shape{1, 1, 2});
  EXPECT_THROW(run_node("NonMaxSuppression", {boxes, scores}, {}, 11), Error);
}

TEST(VisionKernels, RoiAlignAvgOfConstantImageIsConstant) {
  auto x = Tensor::from_vector<float>(std::vector<float>(16, 3.f), Shape{1, 1, 4, 4});
  auto rois = Tensor::from_vector<float>({0, 0, 3, 3}, Shape{1, 4});
  auto bi = Tensor::from_vector<int64_t>({0}, Shape{1});
  auto out = run_node(
      "RoiAlign", {x, rois, bi},
      {attr_int("output_height", 2), attr_int("output_width", 2), attr_int("sampling_ratio", 2)},
      16);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{1, 1, 2, 2}));
  expect_near(values(out[0]), {3, 3, 3, 3});
}

TEST(VisionKernels, RoiAlignBatchIndexOutOfRange) {
  auto x = Tensor::from_vector<float>(std::vector<float>(16, 3.f), Shape{1, 1, 4, 4});
  auto rois = Tensor::from_vector<float>({0, 0, 3, 3}, Shape{1, 4});
  auto bi = Tensor::from_vector<int64_t>({2}, Shape{1});
  EXPECT_THROW(run_node("RoiAlign", {x, rois, bi}, {}, 16), Error);
}

TEST(VisionKernels, GridSampleBilinearAlignCornersIdentity) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  auto grid = Tensor::from_vector<float>({-1, -1, 1, -1, -1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
                                         Shape{1, 2, 4, 2});
  auto out = run_node("GridSample", {x, grid}, {attr_int("align_corners", 1)}, 16);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{1, 1, 2, 4}));
  expect_near(values(out[0]), {1, 2, 3, 4, 2.5, 2.5, 2.5, 2.5});
}

TEST(VisionKernels, GridSampleNearestBorderAndZeros) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  auto grid = Tensor::from_vector<float>({-3, -3, 3, 3}, Shape{1, 1, 2, 2});
  auto out = run_node("GridSample", {x, grid},
                      {attr_string("mode", "nearest"), attr_string("padding_mode", "border")}, 20);
  expect_near(values(out[0]), {1, 4});
  out = run_node("GridSample", {x, grid}, {attr_string("mode", "nearest")}, 20);
  expect_near(values(out[0]), {0, 0});
}

TEST(VisionKernels, GridSample3DLinear) {
  std::vector<float> v(8);
  for (int i = 0; i < 8; ++i) v[size_t(i)] = float(i);
  auto x = Tensor::from_vector<float>(v, Shape{1, 1, 2, 2, 2});
  auto grid = Tensor::from_vector<float>({0, 0, 0}, Shape{1, 1, 1, 1, 3});
  auto out = run_node("GridSample", {x, grid}, {attr_int("align_corners", 1)}, 20);
  expect_near(values(out[0]), {3.5});
}

// A plain bilinear GridSample of one 2-D plane, zeros or border padding, written from the spec.
double reference_bilinear(const std::vector<float>& img, int64_t H, int64_t W, double gx, double gy,
                          bool align, bool border) {
  auto unnorm = [&](double g, int64_t len) {
    return align ? (g + 1) / 2 * double(len - 1) : ((g + 1) * double(len) - 1) / 2;
  };
  double x = unnorm(gx, W), y = unnorm(gy, H);
  if (border) {
    x = std::clamp(x, 0.0, double(W - 1));
    y = std::clamp(y, 0.0, double(H - 1));
  }
  auto at = [&](int64_t iy, int64_t ix) -> double {
    if (border) {
      iy = std::clamp<int64_t>(iy, 0, H - 1);
      ix = std::clamp<int64_t>(ix, 0, W - 1);
    }
    if (iy < 0 || iy >= H || ix < 0 || ix >= W) return 0.0;
    return img[size_t(iy * W + ix)];
  };
  const double fx = std::floor(x), fy = std::floor(y), tx = x - fx, ty = y - fy;
  const auto x0 = int64_t(fx), y0 = int64_t(fy);
  return (1 - ty) * ((1 - tx) * at(y0, x0) + tx * at(y0, x0 + 1)) +
         ty * ((1 - tx) * at(y0 + 1, x0) + tx * at(y0 + 1, x0 + 1));
}

// Float 4-D input takes the per-position taps path; double input the
// per-element one. Both, and the plain reference above, agree on every mode,
// padding and corner rule, with grid values inside and outside [-1, 1].
TEST(VisionKernels, GridSampleFloatPlanesMatchElementPath) {
  const int64_t N = 2, C = 3, H = 5, W = 7, OH = 4, OW = 6;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> val(-2, 2), pos(-1.4f, 1.4f);
  std::vector<float> xv(size_t(N * C * H * W)), gv(size_t(N * OH * OW * 2));
  for (float& v : xv) v = val(rng);
  for (float& v : gv) v = pos(rng);
  gv[0] = -1;  // the exact corners
  gv[1] = 1;
  gv[3] = std::nanf("");  // a NaN coordinate reads zero
  std::vector<double> xd(xv.begin(), xv.end()), gd(gv.begin(), gv.end());
  auto xf = Tensor::from_vector<float>(xv, Shape{N, C, H, W});
  auto gf = Tensor::from_vector<float>(gv, Shape{N, OH, OW, 2});
  auto xdt = Tensor::from_vector<double>(xd, Shape{N, C, H, W});
  auto gdt = Tensor::from_vector<double>(gd, Shape{N, OH, OW, 2});
  for (const char* mode : {"linear", "nearest"})
    for (const char* pad : {"zeros", "border", "reflection"})
      for (int align : {0, 1}) {
        SCOPED_TRACE(std::string(mode) + " " + pad + " align_corners=" + std::to_string(align));
        std::vector<ir::Attribute> attrs = {attr_string("mode", mode),
                                            attr_string("padding_mode", pad),
                                            attr_int("align_corners", align)};
        auto fast = values(run_node("GridSample", {xf, gf}, attrs, 20)[0]);
        auto plain = values(run_node("GridSample", {xdt, gdt}, attrs, 20)[0]);
        expect_near(fast, plain, 1e-5);
        if (std::string(mode) != "linear" || std::string(pad) == "reflection") continue;
        for (int64_t n = 0; n < N; ++n)
          for (int64_t c = 0; c < C; ++c)
            for (int64_t o = 0; o < OH * OW; ++o) {
              const double gx = gv[size_t((n * OH * OW + o) * 2)],
                           gy = gv[size_t((n * OH * OW + o) * 2 + 1)];
              if (std::isnan(gx) || std::isnan(gy)) continue;
              std::vector<float> plane(xv.begin() + (n * C + c) * H * W,
                                       xv.begin() + (n * C + c + 1) * H * W);
              EXPECT_NEAR(
                  fast[size_t((n * C + c) * OH * OW + o)],
                  reference_bilinear(plane, H, W, gx, gy, align != 0, std::string(pad) == "border"),
                  1e-5)
                  << "n " << n << " c " << c << " o " << o;
            }
      }
}

TEST(VisionKernels, AffineGridIdentity) {
  auto theta = Tensor::from_vector<float>({1, 0, 0, 0, 1, 0}, Shape{1, 2, 3});
  auto size = Tensor::from_vector<int64_t>({1, 1, 2, 2}, Shape{4});
  auto out = run_node("AffineGrid", {theta, size}, {attr_int("align_corners", 1)}, 20);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{1, 2, 2, 2}));
  expect_near(values(out[0]), {-1, -1, 1, -1, -1, 1, 1, 1});
}

TEST(VisionKernels, Col2ImSumsOverlaps) {
  // 1x3 image, block 1x2, two blocks: columns [[a0,a1],[b0,b1]].
  auto x = Tensor::from_vector<float>({1, 2, 10, 20}, Shape{1, 2, 2});
  auto img = Tensor::from_vector<int64_t>({1, 3}, Shape{2});
  auto blk = Tensor::from_vector<int64_t>({1, 2}, Shape{2});
  auto out = run_node("Col2Im", {x, img, blk}, {}, 18);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{1, 1, 1, 3}));
  expect_near(values(out[0]), {1, 12, 20});
}

TEST(VisionKernels, CenterCropPadCropsAndPads) {
  auto x = Tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto shape = Tensor::from_vector<int64_t>({4, 1}, Shape{2});
  auto out = run_node("CenterCropPad", {x, shape}, {}, 18);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{4, 1}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 2, 5, 0}));
  EXPECT_THROW(run_node("CenterCropPad", {x, Tensor::from_vector<int64_t>({4}, Shape{1})}, {}, 18),
               Error);
}

}  // namespace
}  // namespace tessera
