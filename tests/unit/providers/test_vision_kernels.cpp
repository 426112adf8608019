#include <gtest/gtest.h>

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

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(VisionKernels, NonMaxSuppressionSuppressesOverlaps) {
  auto boxes = Tensor::from_vector<float>({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                                           0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101},
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
  auto out = run_node("RoiAlign", {x, rois, bi},
                      {attr_int("output_height", 2), attr_int("output_width", 2),
                       attr_int("sampling_ratio", 2)},
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
