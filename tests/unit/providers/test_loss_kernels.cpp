// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss on hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

ir::Attribute reduction(const char* r) {
  ir::Attribute a;
  a.name = "reduction";
  a.type = ir::AttrType::kString;
  a.s = r;
  return a;
}

void expect_values(const Value& v, const std::vector<double>& e, const Shape& s, double tol = 1e-6) {
  const Tensor& t = v.tensor();
  ASSERT_EQ(t.shape(), s);
  for (int64_t i = 0; i < t.num_elements(); ++i)
    EXPECT_NEAR(t.element_as_double(i), e[size_t(i)], tol) << "element " << i;
}

// log-probabilities [[-1, -2, -3], [-0.5, -1.5, -2.5]], targets [2, 0], weights [1, 2, 3]:
// losses [9, 0.5], total weight 3 + 1.
Value logp() { return Tensor::from_vector<float>({-1, -2, -3, -0.5f, -1.5f, -2.5f}, {2, 3}); }
Value targets() { return Tensor::from_vector<int32_t>({2, 0}, {2}); }
Value weights() { return Tensor::from_vector<float>({1, 2, 3}, {3}); }

}  // namespace

TEST(LossNll, Reductions) {
  expect_values(run_node("NegativeLogLikelihoodLoss", {logp(), targets(), weights()}, {reduction("none")}, 13)[0],
                {9, 0.5}, {2});
  expect_values(run_node("NegativeLogLikelihoodLoss", {logp(), targets(), weights()}, {reduction("sum")}, 13)[0],
                {9.5}, {});
  expect_values(run_node("NegativeLogLikelihoodLoss", {logp(), targets(), weights()}, {}, 22)[0], {9.5 / 4}, {});
  // No weights: the mean is over the targets.
  expect_values(run_node("NegativeLogLikelihoodLoss", {logp(), targets()}, {}, 12)[0], {1.75}, {});
}

TEST(LossNll, IgnoreIndexDropsTargetAndWeight) {
  auto out = run_node("NegativeLogLikelihoodLoss", {logp(), targets(), weights()},
                      {attr_int("ignore_index", 0)}, 13);
  expect_values(out[0], {3}, {});
}

TEST(LossNll, SpatialDimsAndInt64Targets) {
  // input (1, 2, 2): class c at position d is x[0, c, d].
  Value x = Tensor::from_vector<double>({-1, -2, -3, -4}, {1, 2, 2});
  Value t = Tensor::from_vector<int64_t>({1, 0}, {1, 2});
  auto out = run_node("NegativeLogLikelihoodLoss", {x, t}, {reduction("none")}, 13);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kDouble);
  expect_values(out[0], {3, 2}, {1, 2});
}

TEST(LossNll, RejectsTargetOutOfRangeAndBadShapes) {
  Value bad = Tensor::from_vector<int32_t>({3, 0}, {2});
  EXPECT_THROW(run_node("NegativeLogLikelihoodLoss", {logp(), bad}, {}, 13), Error);
  Value short_t = Tensor::from_vector<int32_t>({0}, {1});
  EXPECT_THROW(run_node("NegativeLogLikelihoodLoss", {logp(), short_t}, {}, 13), Error);
  EXPECT_THROW(run_node("NegativeLogLikelihoodLoss", {logp(), targets()}, {}, 11), Error);
}

TEST(LossSoftmaxCrossEntropy, LossAndLogProb) {
  Value scores = Tensor::from_vector<float>({0, 0, 1, 2}, {2, 2});
  Value labels = Tensor::from_vector<int64_t>({1, 0}, {2});
  auto out = run_node("SoftmaxCrossEntropyLoss", {scores, labels}, {reduction("none")}, 13, 2);
  double l2 = 1 - std::log(std::exp(1.0) + std::exp(2.0));  // log_softmax of [1, 2] at 0
  expect_values(out[0], {std::log(2.0), -l2}, {2});
  expect_values(out[1], {-std::log(2.0), -std::log(2.0), l2, l2 + 1}, {2, 2});
}

TEST(LossSoftmaxCrossEntropy, MeanWithWeightsAndIgnoreIndex) {
  Value scores = Tensor::from_vector<float>({0, 0, 1, 2, 5, 5}, {3, 2});
  Value labels = Tensor::from_vector<int32_t>({1, 0, -1}, {3});
  Value w = Tensor::from_vector<float>({2, 0.5f}, {2});
  auto out = run_node("SoftmaxCrossEntropyLoss", {scores, labels, w}, {attr_int("ignore_index", -1)}, 12);
  // Row 0: label 1 (weight 0.5); row 1: label 0 (weight 2); row 2 ignored.
  double l0 = std::log(2.0) * 0.5, l1 = (std::log(std::exp(1.0) + std::exp(2.0)) - 1) * 2;
  expect_values(out[0], {(l0 + l1) / 2.5}, {}, 1e-5);
}

TEST(LossSoftmaxCrossEntropy, Float16) {
  std::vector<Float16> s = {Float16(0.f), Float16(0.f)};
  auto out = run_node("SoftmaxCrossEntropyLoss",
                      {Tensor::from_vector<Float16>(s, {1, 2}), Tensor::from_vector<int64_t>({0}, {1})},
                      {}, 13);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kFloat16);
  expect_values(out[0], {std::log(2.0)}, {}, 1e-3);
}

}  // namespace tessera::test
