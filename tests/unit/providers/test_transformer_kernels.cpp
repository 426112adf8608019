#include <gtest/gtest.h>

#include <cmath>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_float;
using test::attr_int;
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

Tensor iota(Shape s, float start = 0.f) {
  std::vector<float> v(size_t(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + float(i);
  return Tensor::from_vector<float>(v, s);
}

TEST(TransformerKernels, EinsumMatmulTransposeTraceAndEllipsis) {
  auto a = iota(Shape{2, 3}), b = iota(Shape{3, 2});
  auto out = run_node("Einsum", {a, b}, {attr_string("equation", "ij,jk->ik")}, 12);
  expect_near(values(out[0]), {10, 13, 28, 40});
  out = run_node("Einsum", {a}, {attr_string("equation", "ij->ji")}, 12);
  expect_near(values(out[0]), {0, 3, 1, 4, 2, 5});
  auto sq = iota(Shape{3, 3});
  out = run_node("Einsum", {sq}, {attr_string("equation", "ii")}, 12);  // implicit: trace
  EXPECT_EQ(out[0].tensor().rank(), 0u);
  expect_near(values(out[0]), {12});
  out = run_node("Einsum", {sq}, {attr_string("equation", "ii->i")}, 12);
  expect_near(values(out[0]), {0, 4, 8});
  auto batched = iota(Shape{2, 2, 3});
  out = run_node("Einsum", {batched, b}, {attr_string("equation", "...ij,jk")}, 12);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 2, 2}));
  expect_near(values(out[0]), {10, 13, 28, 40, 46, 67, 64, 94});
}

TEST(TransformerKernels, EinsumSizeMismatchNamesLabel) {
  auto a = iota(Shape{2, 3}), b = iota(Shape{2, 2});
  try {
    run_node("Einsum", {a, b}, {attr_string("equation", "ij,jk->ik")}, 12);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("label 'j'"), std::string::npos) << e.what();
  }
}

TEST(TransformerKernels, AttentionMatchesManualSoftmax) {
  // One head, one query, two keys.
  auto q = Tensor::from_vector<float>({1, 0}, Shape{1, 1, 1, 2});
  auto k = Tensor::from_vector<float>({1, 0, 0, 1}, Shape{1, 1, 2, 2});
  auto v = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  auto out = run_node("Attention", {q, k, v}, {attr_float("scale", 1.f)}, 23, 4);
  double e = std::exp(1.0), p0 = e / (e + 1), p1 = 1 / (e + 1);
  expect_near(values(out[0]), {p0 * 1 + p1 * 3, p0 * 2 + p1 * 4});
  expect_near(values(out[3]), {1, 0});
}

TEST(TransformerKernels, AttentionCausalGqa3DWithPast) {
  // 3-D inputs: 2 query heads share 1 kv head; past of length 1, causal.
  auto q = Tensor::from_vector<float>({1, 0, 0, 1}, Shape{1, 1, 4});
  auto k = Tensor::from_vector<float>({0, 0}, Shape{1, 1, 2});
  auto v = Tensor::from_vector<float>({5, 6}, Shape{1, 1, 2});
  auto pk = Tensor::from_vector<float>({0, 0}, Shape{1, 1, 1, 2});
  auto pv = Tensor::from_vector<float>({1, 2}, Shape{1, 1, 1, 2});
  auto out = run_node("Attention", {q, k, v, Value(), pk, pv},
                      {attr_int("q_num_heads", 2), attr_int("kv_num_heads", 1),
                       attr_int("is_causal", 1)},
                      23, 3);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{1, 1, 4}));
  expect_near(values(out[0]), {3, 4, 3, 4});  // equal scores: mean of past and current value
  EXPECT_EQ(out[1].tensor().shape(), (Shape{1, 1, 2, 2}));
  expect_near(values(out[2]), {1, 2, 5, 6});
}

TEST(TransformerKernels, AttentionFullyMaskedRowIsZero) {
  auto q = iota(Shape{1, 1, 2, 2}), k = iota(Shape{1, 1, 2, 2}), v = iota(Shape{1, 1, 2, 2});
  Tensor mask(DataType::kBool, Shape{2, 2});
  bool* m = mask.mutable_data<bool>();
  m[0] = m[1] = false;
  m[2] = m[3] = true;
  auto out = run_node("Attention", {q, k, v, mask}, {}, 23);
  auto y = values(out[0]);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0);
  EXPECT_FALSE(std::isnan(y[2]));
}

TEST(TransformerKernels, AttentionHeadMismatch) {
  auto q = iota(Shape{1, 3, 1, 2}), k = iota(Shape{1, 2, 1, 2}), v = iota(Shape{1, 2, 1, 2});
  EXPECT_THROW(run_node("Attention", {q, k, v}, {}, 23), Error);
}

TEST(TransformerKernels, RotaryEmbeddingHalvesAndInterleaved) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 1, 4});
  auto cosc = Tensor::from_vector<float>({0, 0}, Shape{1, 2});
  auto sinc = Tensor::from_vector<float>({1, 1}, Shape{1, 2});
  auto pos = Tensor::from_vector<int64_t>({0}, Shape{1, 1});
  auto out = run_node("RotaryEmbedding", {x, cosc, sinc, pos}, {}, 23);
  expect_near(values(out[0]), {-3, -4, 1, 2});
  out = run_node("RotaryEmbedding", {x, cosc, sinc, pos}, {attr_int("interleaved", 1)}, 23);
  expect_near(values(out[0]), {-2, 1, -4, 3});
}

TEST(TransformerKernels, TensorScatterLinearAndCircular) {
  auto past = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 4, 1});
  auto upd = Tensor::from_vector<float>({9, 10}, Shape{2, 1, 1});
  auto idx = Tensor::from_vector<int64_t>({1, 3}, Shape{2});
  auto out = run_node("TensorScatter", {past, upd, idx}, {}, 24);
  expect_near(values(out[0]), {1, 9, 3, 4, 5, 6, 7, 10});
  auto upd2 = Tensor::from_vector<float>({9, 9, 10, 10}, Shape{2, 2, 1});
  EXPECT_THROW(run_node("TensorScatter", {past, upd2, idx}, {}, 24), Error);
  out = run_node("TensorScatter", {past, upd2, idx}, {attr_string("mode", "circular")}, 24);
  expect_near(values(out[0]), {1, 9, 9, 4, 10, 6, 7, 10});
}

}  // namespace
}  // namespace tessera
