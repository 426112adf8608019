// MaxUnpool with an explicit output_shape: indices address the default
// output (the ONNX reference's reading, padded at the end), unless some index
// only fits the larger output_shape (PyTorch's flat indices).
#include <gtest/gtest.h>

#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

std::vector<float> unpool(std::vector<int64_t> idx, std::vector<int64_t> out_shape) {
  auto out = run_node("MaxUnpool",
                      {Tensor::from_vector<float>({5, 6, 7, 8}, {1, 1, 2, 2}),
                       Tensor::from_vector<int64_t>(idx, {1, 1, 2, 2}),
                       Tensor::from_vector<int64_t>(out_shape, {4})},
                      {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})}, 22);
  const Tensor& y = out[0].tensor();
  return std::vector<float>(y.data<float>(), y.data<float>() + y.num_elements());
}

}  // namespace

TEST(NnMaxUnpoolOutputShape, IndicesOfTheDefaultShapeArePadded) {
  auto y = unpool({5, 7, 13, 15}, {1, 1, 5, 5});  // default shape 4x4
  std::vector<float> want(25, 0);
  want[6] = 5, want[8] = 6, want[16] = 7, want[18] = 8;
  EXPECT_EQ(y, want);
}

TEST(NnMaxUnpoolOutputShape, FlatIndicesIntoALargerOutput) {
  auto y = unpool({6, 8, 16, 24}, {1, 1, 5, 5});  // 24 only fits 5x5
  std::vector<float> want(25, 0);
  want[6] = 5, want[8] = 6, want[16] = 7, want[24] = 8;
  EXPECT_EQ(y, want);
  EXPECT_THROW(unpool({6, 8, 16, 25}, {1, 1, 5, 5}), Error);
}

}  // namespace tessera::test
