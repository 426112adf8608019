// ai.onnx.preview.FlexAttention without modifiers (the conformance suite runs
// score_mod/prob_mod): against a plain softmax(QK^T * scale) V, with GQA head
// sharing, an explicit scale, and shape errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

std::vector<float> ramp(size_t n, float a, float b) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(a * float(i) + b);
  return v;
}

// Y[b,h,l,:] = softmax(Q[b,h,l,:] . K[b,h/g,s,:] * scale) @ V[b,h/g,:,:]
std::vector<double> naive(const std::vector<float>& q, const std::vector<float>& k,
                          const std::vector<float>& v, int64_t B, int64_t Hq, int64_t Hkv,
                          int64_t L, int64_t S, int64_t E, int64_t Ev, double scale) {
  std::vector<double> y(size_t(B * Hq * L * Ev));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t hk = h / (Hq / Hkv);
      for (int64_t l = 0; l < L; ++l) {
        std::vector<double> p(static_cast<size_t>(S));
        double mx = -1e300, sum = 0;
        for (int64_t s = 0; s < S; ++s) {
          double acc = 0;
          for (int64_t e = 0; e < E; ++e)
            acc += q[size_t(((b * Hq + h) * L + l) * E + e)] * k[size_t(((b * Hkv + hk) * S + s) * E + e)];
          p[size_t(s)] = acc * scale;
          mx = std::max(mx, p[size_t(s)]);
        }
        for (double& x : p) sum += (x = std::exp(x - mx));
        for (int64_t e = 0; e < Ev; ++e) {
          double acc = 0;
          for (int64_t s = 0; s < S; ++s)
            acc += p[size_t(s)] / sum * v[size_t(((b * Hkv + hk) * S + s) * Ev + e)];
          y[size_t(((b * Hq + h) * L + l) * Ev + e)] = acc;
        }
      }
    }
  return y;
}

std::vector<Value> flex(std::vector<Value> in, std::vector<ir::Attribute> attrs = {}) {
  return run_node("FlexAttention", std::move(in), std::move(attrs), 1, 1, "ai.onnx.preview");
}

}  // namespace

TEST(PreviewFlexAttention, GroupedQueryHeadsMatchPlainAttention) {
  const int64_t B = 2, Hq = 4, Hkv = 2, L = 3, S = 5, E = 4, Ev = 6;
  auto q = ramp(size_t(B * Hq * L * E), 0.37f, 0.1f);
  auto k = ramp(size_t(B * Hkv * S * E), 0.53f, 0.7f);
  auto v = ramp(size_t(B * Hkv * S * Ev), 0.29f, 1.3f);
  auto out = flex({Tensor::from_vector<float>(q, {B, Hq, L, E}),
                   Tensor::from_vector<float>(k, {B, Hkv, S, E}),
                   Tensor::from_vector<float>(v, {B, Hkv, S, Ev})});
  const Tensor& y = out[0].tensor();
  ASSERT_EQ(y.dtype(), DataType::kFloat);
  ASSERT_EQ(y.shape(), Shape({B, Hq, L, Ev}));
  auto want = naive(q, k, v, B, Hq, Hkv, L, S, E, Ev, 1.0 / std::sqrt(double(E)));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y.data<float>()[i], want[i], 1e-5) << i;
}

TEST(PreviewFlexAttention, ExplicitScaleInDouble) {
  const int64_t B = 1, H = 2, L = 2, S = 3, E = 2, Ev = 2;
  auto q = ramp(size_t(B * H * L * E), 0.9f, 0.2f);
  auto k = ramp(size_t(B * H * S * E), 0.4f, 0.5f);
  auto v = ramp(size_t(B * H * S * Ev), 0.8f, 0.3f);
  auto to_d = [](const std::vector<float>& f) { return std::vector<double>(f.begin(), f.end()); };
  auto out = flex({Tensor::from_vector<double>(to_d(q), {B, H, L, E}),
                   Tensor::from_vector<double>(to_d(k), {B, H, S, E}),
                   Tensor::from_vector<double>(to_d(v), {B, H, S, Ev})},
                  {attr_float("scale", 2.5f)});
  const Tensor& y = out[0].tensor();
  ASSERT_EQ(y.dtype(), DataType::kDouble);
  auto want = naive(q, k, v, B, H, H, L, S, E, Ev, 2.5);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y.data<double>()[i], want[i], 1e-6) << i;
}

TEST(PreviewFlexAttention, RejectsBadShapes) {
  auto t = [](std::vector<int64_t> d) {
    Shape s(d);
    return Tensor::from_vector<float>(std::vector<float>(size_t(s.num_elements()), 0.5f), s);
  };
  // 3 query heads over 2 KV heads.
  EXPECT_THROW(flex({t({1, 3, 2, 4}), t({1, 2, 2, 4}), t({1, 2, 2, 4})}), Error);
  // Q/K head sizes differ.
  EXPECT_THROW(flex({t({1, 2, 2, 4}), t({1, 2, 2, 3}), t({1, 2, 2, 4})}), Error);
  // Not 4-D.
  EXPECT_THROW(flex({t({2, 2, 4}), t({2, 2, 4}), t({2, 2, 4})}), Error);
}

}  // namespace tessera::test
