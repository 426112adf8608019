// What the CUDA provider claims and declines among the CNN ops (pooling,
// BatchNormalization, ConvTranspose), and why. Needs no GPU.
#include "ops/graph_types.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

Tensor floats(std::vector<int64_t> dims, DataType t = DataType::kFloat) {
  if (t == DataType::kDouble)
    return Tensor::from_vector<double>(std::vector<double>(size_t(count(dims)), 0.5), Shape(dims));
  return make_tensor(t, dims, random_values(count(dims), 1));
}

OneNode pool(const char* op, int64_t opset, std::vector<int64_t> x,
             std::vector<ir::Attribute> attrs, DataType t = DataType::kFloat) {
  OneNode m(op, opset, std::move(attrs));
  m.input("x", floats(x, t)).output("y");
  return m;
}

OneNode batch_norm(int64_t opset, std::vector<int64_t> x, std::vector<ir::Attribute> attrs = {},
                   DataType t = DataType::kFloat, DataType params = DataType::kFloat,
                   DataType stats = DataType::kFloat) {
  OneNode m("BatchNormalization", opset, std::move(attrs));
  const int64_t c = x.size() > 1 ? x[1] : 1;
  m.input("x", floats(x, t))
      .input("scale", floats({c}, params), true)
      .input("b", floats({c}, params), true)
      .input("mean", floats({c}, stats), true)
      .input("var", floats({c}, stats), true)
      .output("y");
  return m;
}

OneNode conv_transpose(std::vector<int64_t> x, std::vector<int64_t> w,
                       std::vector<ir::Attribute> attrs = {}) {
  OneNode m("ConvTranspose", 11, std::move(attrs));
  m.input("x", floats(x)).input("w", floats(w), true).output("y");
  return m;
}

}  // namespace

TEST(CudaCnnClaims, ClaimsPooling) {
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}) {
    EXPECT_EQ(claim(pool("MaxPool", 12, {1, 2, 8, 8}, {attr_ints("kernel_shape", {3, 3})}, t)), "");
    EXPECT_EQ(claim(pool("AveragePool", 19, {1, 2, 8}, {attr_ints("kernel_shape", {3})}, t)), "");
    EXPECT_EQ(claim(pool("GlobalMaxPool", 1, {1, 2, 4, 4}, {}, t)), "");
    EXPECT_EQ(claim(pool("GlobalAveragePool", 1, {1, 2, 4, 4, 4}, {}, t)), "");
  }
  // Asymmetric pads, dilations, ceil_mode, auto_pad and 3-D are all the kernel's.
  EXPECT_EQ(claim(pool("MaxPool", 12, {1, 1, 9, 9},
                       {attr_ints("kernel_shape", {3, 2}), attr_ints("pads", {0, 1, 2, 0}),
                        attr_ints("dilations", {2, 1}), attr_int("ceil_mode", 1),
                        attr_ints("strides", {2, 3})})),
            "");
  EXPECT_EQ(claim(pool("AveragePool", 11, {1, 1, 5, 6, 7},
                       {attr_ints("kernel_shape", {2, 3, 2}), attr_string("auto_pad", "SAME_LOWER"),
                        attr_int("count_include_pad", 1)})),
            "");
  EXPECT_EQ(claim(pool("GlobalAveragePool", 1, {2, 3}, {})), "");  // no spatial dims
}

TEST(CudaCnnClaims, DeclinesPoolingWithAReason) {
  expect_has(
      claim(pool("MaxPool", 12, {1, 1, 4, 4, 4, 4}, {attr_ints("kernel_shape", {2, 2, 2, 2})})),
      "4-D pooling; the CUDA kernel takes 1-D to 3-D");
  expect_has(claim(pool("MaxPool", 12, {1, 1, 4, 4}, {})), "kernel_shape is missing");
  expect_has(claim(pool("AveragePool", 11, {1, 1, 4, 4}, {attr_ints("kernel_shape", {2})})),
             "X has rank 4 but kernel_shape has 1 dims");
  expect_has(claim(pool("MaxPool", 12, {1, 1, 4, 4},
                        {attr_ints("kernel_shape", {2, 2}), attr_string("auto_pad", "FULL")})),
             "auto_pad 'FULL'");
  expect_has(claim(pool("MaxPool", 12, {1, 1, 4, 4},
                        {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {1, 0})})),
             "strides has a non-positive value");
  expect_has(claim(pool("MaxPool", 12, {1, 1, 4, 4},
                        {attr_ints("kernel_shape", {2, 2}), attr_ints("dilations", {1})})),
             "dilations has 1 values, not 2");
  expect_has(claim(pool("AveragePool", 11, {1, 1, 4, 4},
                        {attr_ints("kernel_shape", {2, 2}), attr_ints("pads", {1, 1})})),
             "pads has 2 values, not 4");
  OneNode indices("MaxPool", 12, {attr_ints("kernel_shape", {2, 2})});
  indices.input("x", floats({1, 1, 4, 4})).output("y").output("i");
  expect_has(claim(indices), "the Indices output is not supported");
  expect_has(claim(pool("GlobalMaxPool", 1, {4}, {})), "X has rank 1");
  OneNode dbl("MaxPool", 12, {attr_ints("kernel_shape", {2})});
  dbl.input("x", Tensor::from_vector<double>({1, 2, 3, 4}, Shape{1, 1, 4})).output("y");
  expect_has(claim(dbl), "double");
  OneNode i8("MaxPool", 12, {attr_ints("kernel_shape", {2})});
  i8.input("x", Tensor::from_vector<int8_t>({1, 2, 3, 4}, Shape{1, 1, 4})).output("y");
  expect_has(claim(i8), "int8");
}

TEST(CudaCnnClaims, ClaimsBatchNormalization) {
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}) {
    EXPECT_EQ(claim(batch_norm(9, {2, 3, 4, 4}, {}, t, t, t)), "");
    EXPECT_EQ(claim(batch_norm(14, {2, 3, 4}, {}, t, t, DataType::kFloat)), "");
    EXPECT_EQ(claim(batch_norm(15, {2, 3}, {}, t, DataType::kFloat, DataType::kFloat16)), "");
  }
  EXPECT_EQ(claim(batch_norm(7, {2, 3, 4}, {attr_int("spatial", 1)})), "");
  EXPECT_EQ(claim(batch_norm(15, {2, 3, 2, 2, 2}, {attr_int("training_mode", 0)})), "");
}

TEST(CudaCnnClaims, DeclinesBatchNormalizationWithAReason) {
  expect_has(claim(batch_norm(15, {2, 3, 4}, {attr_int("training_mode", 1)})), "training_mode=1");
  expect_has(claim(batch_norm(7, {2, 3, 4}, {attr_int("spatial", 0)})), "spatial=0");
  OneNode training = batch_norm(7, {2, 3, 4});
  training.output("running_mean");
  expect_has(claim(training), "output 1 is used");
  expect_has(claim(batch_norm(15, {3}, {})), "X has rank 1");
  OneNode per_element("BatchNormalization", 9);
  per_element.input("x", floats({2, 3, 4}));
  for (const char* name : {"scale", "b", "mean", "var"})
    per_element.input(name, floats({3, 4}), true);
  per_element.output("y");
  expect_has(claim(per_element), "scale has 12 elements, not the 3 channels of X");
  expect_has(claim(batch_norm(15, {2, 3}, {}, DataType::kFloat, DataType::kDouble)), "double");
}

TEST(CudaCnnClaims, ClaimsConvTranspose) {
  EXPECT_EQ(claim(conv_transpose({1, 4, 5, 5}, {4, 3, 3, 3},
                                 {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1}),
                                  attr_ints("output_padding", {1, 1})})),
            "");
  EXPECT_EQ(claim(conv_transpose({1, 4, 7}, {4, 2, 3}, {attr_int("group", 2)})), "");
  EXPECT_EQ(claim(conv_transpose({1, 2, 3, 3, 3}, {2, 2, 2, 2, 2})), "");
  // An end pad beyond the begin pad is computed whole and cropped.
  EXPECT_EQ(claim(conv_transpose({1, 2, 5, 5}, {2, 2, 3, 3}, {attr_ints("pads", {0, 0, 2, 1})})),
            "");
  EXPECT_EQ(
      claim(conv_transpose({1, 2, 5, 5}, {2, 2, 3, 3},
                           {attr_string("auto_pad", "SAME_UPPER"), attr_ints("strides", {2, 2})})),
      "");
  EXPECT_EQ(
      claim(conv_transpose({1, 2, 5, 5}, {2, 2, 3, 3},
                           {attr_ints("output_shape", {10, 10}), attr_ints("strides", {2, 2})})),
      "");
}

TEST(CudaCnnClaims, DeclinesConvTransposeWithAReason) {
  expect_has(claim(conv_transpose({1, 1, 2, 2, 2, 2}, {1, 1, 1, 1, 1, 1})), "W has rank 6");
  expect_has(claim(conv_transpose({1, 2, 5, 5}, {2, 2, 3, 3}, {attr_ints("pads", {-1, 0, 0, 0})})),
             "negative pads");
  expect_has(
      claim(conv_transpose({1, 2, 5, 5}, {2, 2, 3, 3},
                           {attr_ints("strides", {2, 2}), attr_ints("output_padding", {2, 0})})),
      "output_padding 2 with pads 0 and 0 on spatial axis 0");
  expect_has(
      claim(conv_transpose({1, 2, 5, 5}, {2, 2, 1, 1},
                           {attr_string("auto_pad", "SAME_UPPER"), attr_ints("strides", {3, 3})})),
      "negative begin pad");
  expect_has(claim(conv_transpose({1, 2, 5, 5}, {2, 2, 3, 3}, {attr_ints("pads", {1, 1})})),
             "pads has 2 values, not 4");
  expect_has(claim(conv_transpose({1, 2, 5, 5}, {2, 2, 3, 3}, {attr_string("auto_pad", "FULL")})),
             "auto_pad 'FULL'");
}
