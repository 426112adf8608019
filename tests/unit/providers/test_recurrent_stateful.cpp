// LinearAttention and CausalConvWithState on cases small enough to follow by
// hand (d_k = d_v = 1), including a past_state whose type S differs from T.
#include <gtest/gtest.h>

#include <cmath>

#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

Value f32(std::vector<float> v, Shape s) { return Tensor::from_vector<float>(v, std::move(s)); }
Value f16(std::vector<float> v, Shape s) {
  std::vector<Float16> h;
  for (float x : v) h.push_back(Float16(x));
  return Tensor::from_vector<Float16>(h, std::move(s));
}

void expect_values(const Value& v, const std::vector<double>& e, const Shape& s, double tol = 1e-5) {
  const Tensor& t = v.tensor();
  ASSERT_EQ(t.shape(), s);
  for (int64_t i = 0; i < t.num_elements(); ++i)
    EXPECT_NEAR(t.element_as_double(i), e[size_t(i)], tol) << "element " << i;
}

std::vector<ir::Attribute> la_attrs(const char* rule) {
  ir::Attribute r;
  r.name = "update_rule";
  r.type = ir::AttrType::kString;
  r.s = rule;
  return {attr_int("q_num_heads", 1), attr_int("kv_num_heads", 1), attr_float("scale", 1.f), r};
}

}  // namespace

// q = [1, 2], k = [1, 1], v = [3, 4] over two steps, state S0 = 2 (as float).
TEST(RecurrentLinearAttention, LinearRuleWithFloatStateForHalfInputs) {
  auto out = run_node("LinearAttention",
                      {f16({1, 2}, {1, 2, 1}), f16({1, 1}, {1, 2, 1}), f16({3, 4}, {1, 2, 1}),
                       f32({2}, {1, 1, 1, 1})},
                      la_attrs("linear"), 27, 2);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kFloat16);
  EXPECT_EQ(out[1].tensor().dtype(), DataType::kFloat);  // S follows past_state
  expect_values(out[0], {5, 18}, {1, 2, 1});
  expect_values(out[1], {9}, {1, 1, 1, 1});
}

TEST(RecurrentLinearAttention, GatedRulePerHeadDecay) {
  auto out = run_node("LinearAttention",
                      {f32({1, 2}, {1, 2, 1}), f32({1, 1}, {1, 2, 1}), f32({3, 4}, {1, 2, 1}),
                       f32({2}, {1, 1, 1, 1}), f32({std::log(0.5f), std::log(0.5f)}, {1, 2, 1})},
                      la_attrs("gated"), 27, 2);
  expect_values(out[0], {4, 12}, {1, 2, 1});
  expect_values(out[1], {6}, {1, 1, 1, 1});
}

TEST(RecurrentLinearAttention, DeltaRule) {
  auto out = run_node("LinearAttention",
                      {f32({1, 2}, {1, 2, 1}), f32({1, 1}, {1, 2, 1}), f32({3, 4}, {1, 2, 1}),
                       f32({2}, {1, 1, 1, 1}), Value(), f32({0.5f, 0.5f}, {1, 2, 1})},
                      la_attrs("delta"), 27, 2);
  expect_values(out[0], {2.5, 6.5}, {1, 2, 1});
  expect_values(out[1], {3.25}, {1, 1, 1, 1});
}

TEST(RecurrentLinearAttention, GroupedQueryHeadsShareState) {
  // Two query heads read the one KV head; default scale 1/sqrt(d_k) = 1.
  std::vector<ir::Attribute> a = {attr_int("q_num_heads", 2), attr_int("kv_num_heads", 1),
                                  la_attrs("linear")[3]};
  auto out = run_node("LinearAttention",
                      {f32({1, -1}, {1, 1, 2}), f32({2}, {1, 1, 1}), f32({3}, {1, 1, 1})}, a, 27, 2);
  expect_values(out[0], {6, -6}, {1, 1, 2});
  expect_values(out[1], {6}, {1, 1, 1, 1});
}

TEST(RecurrentLinearAttention, MissingGateInputsAndBadHeadsThrow) {
  Value q = f32({1}, {1, 1, 1});
  EXPECT_THROW(run_node("LinearAttention", {q, q, q}, la_attrs("gated_delta"), 27, 2), Error);
  std::vector<ir::Attribute> bad = {attr_int("q_num_heads", 3), attr_int("kv_num_heads", 2)};
  EXPECT_THROW(run_node("LinearAttention", {q, q, q}, bad, 27, 2), Error);
  EXPECT_THROW(run_node("LinearAttention", {q, q, q}, la_attrs("linear"), 26, 2), Error);
}

// padded = [past 5, 1, 2, 3]; out[t] = 10 * padded[t] + 1 * padded[t + 1] + bias.
TEST(RecurrentCausalConv, PastStateAndBias) {
  auto out = run_node("CausalConvWithState",
                      {f32({1, 2, 3}, {1, 1, 3}), f32({10, 1}, {1, 1, 2}), f32({1}, {1}),
                       f32({5}, {1, 1, 1})},
                      {}, 27, 2);
  expect_values(out[0], {52, 13, 24}, {1, 1, 3});
  expect_values(out[1], {3}, {1, 1, 1});
}

TEST(RecurrentCausalConv, ShortInputKeepsPastInState) {
  // k = 3, one new value: present_state = [past[1], x].
  auto out = run_node("CausalConvWithState",
                      {f32({4}, {1, 1, 1}), f32({1, 1, 1}, {1, 1, 3}), Value(), f32({2, 3}, {1, 1, 2})},
                      {}, 27, 2);
  expect_values(out[0], {9}, {1, 1, 1});
  expect_values(out[1], {3, 4}, {1, 1, 2});
}

TEST(RecurrentCausalConv, SiluAndHalf) {
  ir::Attribute act;
  act.name = "activation";
  act.type = ir::AttrType::kString;
  act.s = "silu";
  auto out = run_node("CausalConvWithState", {f16({1, -2}, {1, 2, 1}), f16({1, 1}, {2, 1, 1})}, {act},
                      27, 2);
  EXPECT_EQ(out[0].tensor().dtype(), DataType::kFloat16);
  expect_values(out[0], {0.7310586, -2 * 0.1192029}, {1, 2, 1}, 2e-3);
  EXPECT_EQ(out[1].tensor().shape(), (Shape{1, 2, 0}));
}

TEST(RecurrentCausalConv, RejectsMismatchedWeight) {
  EXPECT_THROW(run_node("CausalConvWithState", {f32({1, 2}, {1, 2, 1}), f32({1}, {1, 1, 1})}, {}, 27, 2),
               Error);
}

}  // namespace tessera::test
