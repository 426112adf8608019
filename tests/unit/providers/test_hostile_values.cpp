// Regression tests for data-dependent undefined behaviour found under the
// sanitizers: hostile values in inputs (NaN, infinities, absurd magnitudes)
// must give an error or a defined result, never an undefined float-to-int
// conversion, an overflow or an endless loop.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_int;
using test::attr_string;
using test::run_node;

// Runs the node and expects a tessera::Error whose message contains `what`.
template <typename F>
void expect_error(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << what << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(HostileValues, ResizeWithAbsurdScalesIsAnError) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  for (float s : {1e30f, kInf}) {
    auto scales = Tensor::from_vector<float>({1, 1, s, 1}, Shape{4});
    expect_error([&] { run_node("Resize", {x, Value(), scales}, {}, 19); }, "output length");
  }
}

TEST(HostileValues, ResizeCropWithNaNRoiIsAnError) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  auto roi = Tensor::from_vector<float>({0, 0, 0, 0, 1, 1, kNaN, 1}, Shape{8});
  auto scales = Tensor::from_vector<float>({1, 1, 2, 2}, Shape{4});
  expect_error(
      [&] {
        run_node("Resize", {x, roi, scales},
                 {attr_string("coordinate_transformation_mode", "tf_crop_and_resize")}, 19);
      },
      "output length");
}

TEST(HostileValues, ResizeOfAnEmptyAxisToSizes) {
  // An empty axis given a non-empty size has nothing to sample from.
  auto x = Tensor::from_vector<float>({}, Shape{1, 1, 0, 4});
  auto roi = Tensor::from_vector<float>({0, 0, 0, 0, 1, 1, 1, 1}, Shape{8});
  auto sizes = Tensor::from_vector<int64_t>({1, 1, 3, 2}, Shape{4});
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    expect_error(
        [&] {
          run_node("Resize", {x, Value(), Value(), sizes}, {attr_string("mode", mode)}, 19);
        },
        "axis 2 of input shape [1,1,0,4] is empty");
    // tf_crop_and_resize samples outside the image everywhere: the extrapolation value.
    auto out = run_node("Resize", {x, roi, Value(), sizes},
                        {attr_string("mode", mode),
                         attr_string("coordinate_transformation_mode", "tf_crop_and_resize"),
                         test::attr_float("extrapolation_value", 7.f)},
                        19);
    const Tensor& y = out[0].tensor();
    ASSERT_EQ(y.shape(), (Shape{1, 1, 3, 2})) << mode;
    for (int64_t i = 0; i < y.num_elements(); ++i) EXPECT_EQ(y.data<float>()[i], 7.f) << mode;
  }
}

TEST(HostileValues, RoiAlignWithNonFiniteBoxIsAnError) {
  auto x = Tensor::from_vector<float>(std::vector<float>(16, 3.f), Shape{1, 1, 4, 4});
  auto bi = Tensor::from_vector<int64_t>({0}, Shape{1});
  for (float v : {kNaN, kInf, 1e30f}) {
    auto rois = Tensor::from_vector<float>({0, 0, v, 3}, Shape{1, 4});
    expect_error(
        [&] {
          run_node("RoiAlign", {x, rois, bi},
                   {attr_int("output_height", 2), attr_int("output_width", 2)}, 16);
        },
        "must be finite");
  }
}

TEST(HostileValues, GridSampleReflectionOfNonFiniteGridReadsZero) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  auto grid = Tensor::from_vector<float>({kInf, 0, -kInf, 0, kNaN, 0, 3e38f, 0}, Shape{1, 1, 4, 2});
  for (const char* mode : {"nearest", "linear"}) {
    auto out = run_node("GridSample", {x, grid},
                        {attr_string("mode", mode), attr_string("padding_mode", "reflection")}, 20);
    const float* y = out[0].tensor().data<float>();
    EXPECT_EQ(y[0], 0.f) << mode;
    EXPECT_EQ(y[1], 0.f) << mode;
    EXPECT_EQ(y[2], 0.f) << mode;
    EXPECT_TRUE(std::isfinite(y[3])) << mode;
  }
}

TEST(HostileValues, MelWeightMatrixWithHugeUpperEdge) {
  auto run = [](float hi) {
    return run_node(
        "MelWeightMatrix",
        {Tensor::scalar<int32_t>(8), Tensor::scalar<int32_t>(16), Tensor::scalar<int32_t>(8192),
         Tensor::scalar<float>(0), Tensor::scalar<float>(hi)},
        {}, 17);
  };
  expect_error([&] { run(kInf); }, "too large");
  expect_error([&] { run(3e38f); }, "too large");
  // Large but representable: edges far past the last bin are skipped, not looped over.
  auto y = run(1e12f)[0];
  EXPECT_EQ(y.tensor().shape(), (Shape{9, 8}));
}

}  // namespace
}  // namespace tessera
