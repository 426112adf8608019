#include <gtest/gtest.h>

#include <cmath>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_float;
using test::attr_string;
using test::run_node;

const char* kDomain = "ai.onnx.preview.training";

TEST(TrainingKernels, AdagradOneStep) {
  auto x = Tensor::from_vector<float>({1.f}, Shape{1});
  auto g = Tensor::from_vector<float>({-1.f}, Shape{1});
  auto h = Tensor::from_vector<float>({2.f}, Shape{1});
  auto out = run_node("Adagrad", {Tensor::scalar<float>(0.1f), Tensor::scalar<int64_t>(0), x, g, h},
                      {attr_float("epsilon", 1e-5f)}, 1, 2, kDomain);
  EXPECT_NEAR(out[1].tensor().data<float>()[0], 3.f, 1e-6);
  EXPECT_NEAR(out[0].tensor().data<float>()[0], 1.f + 0.1f / (std::sqrt(3.f) + 1e-5f), 1e-6);
}

TEST(TrainingKernels, MomentumStandardAndNesterovMultiple) {
  auto x1 = Tensor::from_vector<float>({1.f}, Shape{1}), x2 = Tensor::from_vector<double>({2.0}, Shape{1});
  auto g1 = Tensor::from_vector<float>({1.f}, Shape{1}), g2 = Tensor::from_vector<double>({1.0}, Shape{1});
  auto v1 = Tensor::from_vector<float>({1.f}, Shape{1}), v2 = Tensor::from_vector<double>({1.0}, Shape{1});
  std::vector<ir::Attribute> attrs = {attr_float("alpha", 0.5f), attr_float("beta", 2.f),
                                      attr_string("mode", "standard")};
  auto out = run_node("Momentum", {Tensor::scalar<float>(0.1f), Tensor::scalar<int64_t>(1), x1, x2, g1,
                                   g2, v1, v2},
                      attrs, 1, 4, kDomain);
  EXPECT_NEAR(out[2].tensor().data<float>()[0], 2.5f, 1e-6);    // V_new = 0.5 + 2
  EXPECT_NEAR(out[0].tensor().data<float>()[0], 0.75f, 1e-6);   // X - 0.1 * 2.5
  EXPECT_EQ(out[1].tensor().dtype(), DataType::kDouble);
  attrs[2] = attr_string("mode", "nesterov");
  out = run_node("Momentum", {Tensor::scalar<float>(0.1f), Tensor::scalar<int64_t>(1), x1, g1, v1},
                 attrs, 1, 2, kDomain);
  EXPECT_NEAR(out[0].tensor().data<float>()[0], 1.f - 0.1f * (1.f + 0.5f * 2.5f), 1e-6);
}

TEST(TrainingKernels, AdamOneStep) {
  auto x = Tensor::from_vector<float>({1.f}, Shape{1});
  auto g = Tensor::from_vector<float>({1.f}, Shape{1});
  auto v = Tensor::from_vector<float>({0.f}, Shape{1});
  auto h = Tensor::from_vector<float>({0.f}, Shape{1});
  auto out = run_node("Adam", {Tensor::scalar<float>(0.1f), Tensor::scalar<int64_t>(1), x, g, v, h},
                      {}, 1, 3, kDomain);
  double vn = 0.1, hn = 0.001, ra = 0.1 * std::sqrt(1 - 0.999) / (1 - 0.9);
  EXPECT_NEAR(out[1].tensor().data<float>()[0], vn, 1e-6);
  EXPECT_NEAR(out[2].tensor().data<float>()[0], hn, 1e-6);
  EXPECT_NEAR(out[0].tensor().data<float>()[0], 1 - ra * vn / std::sqrt(hn), 1e-5);
}

TEST(TrainingKernels, WrongInputCountAndShapes) {
  auto x = Tensor::from_vector<float>({1.f, 2.f}, Shape{2});
  auto g = Tensor::from_vector<float>({1.f}, Shape{1});
  EXPECT_THROW(run_node("Adagrad", {Tensor::scalar<float>(0.1f), Tensor::scalar<int64_t>(0), x, g},
                        {}, 1, 1, kDomain),
               Error);
  EXPECT_THROW(run_node("Adagrad", {Tensor::scalar<float>(0.1f), Tensor::scalar<int64_t>(0), x, g, x},
                        {}, 1, 2, kDomain),
               Error);
}

}  // namespace
}  // namespace tessera
