#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

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

void expect_near(const std::vector<double>& got, const std::vector<double>& want,
                 double tol = 1e-5) {
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
  auto out = run_node(
      "Attention", {q, k, v, Value(), pk, pv},
      {attr_int("q_num_heads", 2), attr_int("kv_num_heads", 1), attr_int("is_causal", 1)}, 23, 3);
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

Tensor random_tensor(Shape s, std::mt19937& rng, DataType dtype) {
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> v(size_t(s.num_elements()));
  for (float& x : v) x = dist(rng);
  if (dtype == DataType::kFloat) return Tensor::from_vector<float>(v, s);
  return Tensor::from_vector<double>(std::vector<double>(v.begin(), v.end()), s);
}

// Float Attention without a cache runs through SGEMM; the same call on double
// tensors runs the per-element double loops. They agree across layouts, head
// sharing, Sq != T, causal rows, float and bool masks of every broadcast, and
// query rows taken in several blocks.
TEST(TransformerKernels, AttentionSgemmMatchesDoublePath) {
  struct Case {
    bool three_d;
    int64_t B, QH, KH, Sq, T, D, VD;
    int causal;
    std::vector<int64_t> mask;  // empty: none
    DataType mask_type;
  };
  const std::vector<Case> cases = {
      {false, 2, 4, 4, 5, 5, 8, 8, 0, {}, DataType::kFloat},
      {false, 1, 4, 2, 3, 7, 8, 6, 1, {}, DataType::kFloat},
      {true, 2, 4, 1, 6, 6, 4, 4, 1, {}, DataType::kFloat},
      {false, 2, 2, 2, 4, 6, 8, 8, 0, {2, 1, 4, 6}, DataType::kFloat},
      {false, 1, 3, 3, 4, 4, 8, 8, 0, {4, 1}, DataType::kFloat},
      {true, 1, 2, 2, 5, 5, 4, 4, 1, {5, 5}, DataType::kBool},
      {false, 2, 2, 1, 3, 5, 4, 4, 0, {1, 2, 1, 5}, DataType::kBool},
      // Long enough that the query rows go in several blocks (rows x T
      // scores of at most 64 Ki floats), causal and with masks per row.
      {false, 1, 2, 1, 200, 700, 4, 4, 1, {200, 700}, DataType::kFloat},
      {true, 1, 2, 2, 150, 1100, 4, 4, 0, {1, 2, 150, 1100}, DataType::kBool},
  };
  std::mt19937 rng(3);
  for (size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    SCOPED_TRACE("case " + std::to_string(n));
    auto shape = [&](int64_t H, int64_t S, int64_t size) {
      return c.three_d ? Shape{c.B, S, H * size} : Shape{c.B, H, S, size};
    };
    const Shape qs = shape(c.QH, c.Sq, c.D), ks = shape(c.KH, c.T, c.D),
                vs = shape(c.KH, c.T, c.VD);
    Tensor qf = random_tensor(qs, rng, DataType::kFloat),
           kf = random_tensor(ks, rng, DataType::kFloat),
           vf = random_tensor(vs, rng, DataType::kFloat);
    auto to_double = [](const Tensor& t) {
      std::vector<double> v(size_t(t.num_elements()));
      for (size_t i = 0; i < v.size(); ++i) v[i] = t.element_as_double(int64_t(i));
      return Tensor::from_vector<double>(v, t.shape());
    };
    Value mask_f, mask_d;
    if (!c.mask.empty()) {
      const Shape ms(c.mask);
      if (c.mask_type == DataType::kBool) {
        Tensor m(DataType::kBool, ms);
        bool* p = m.mutable_data<bool>();
        for (int64_t i = 0; i < ms.num_elements(); ++i) p[i] = (rng() % 4) != 0 || i == 0;
        mask_f = m;
        mask_d = m;
      } else {
        Tensor m = random_tensor(ms, rng, DataType::kFloat);
        mask_f = m;
        mask_d = to_double(m);
      }
    }
    std::vector<ir::Attribute> attrs = {attr_int("is_causal", c.causal)};
    if (c.three_d) {
      attrs.push_back(attr_int("q_num_heads", c.QH));
      attrs.push_back(attr_int("kv_num_heads", c.KH));
    }
    auto fast = run_node("Attention", {qf, kf, vf, mask_f}, attrs, 23);
    auto plain =
        run_node("Attention", {to_double(qf), to_double(kf), to_double(vf), mask_d}, attrs, 23);
    EXPECT_EQ(fast[0].tensor().dtype(), DataType::kFloat);
    EXPECT_EQ(fast[0].tensor().shape(), plain[0].tensor().shape());
    expect_near(values(fast[0]), values(plain[0]), 1e-5);
  }
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
