// The com.tessera transformer kernels (MultiHeadAttention,
// SkipLayerNormalization, BiasGelu) against direct double-precision
// formulas, and their errors on inputs that do not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "unit/kernel_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

Tensor rand_tensor(Shape shape, uint64_t seed, float lo = -2, float hi = 2) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.mutable_data<float>()[i] = u(rng);
  return t;
}

std::vector<Value> run_fused(const std::string& op, std::vector<Value> in,
                             std::vector<ir::Attribute> attrs) {
  return run_node(op, std::move(in), std::move(attrs), 1, 1, "com.tessera");
}

void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

std::vector<ir::Attribute> mha_attrs(int64_t H, int64_t D, int64_t S, float scale,
                                     std::vector<int64_t> out) {
  return {attr_int("num_heads", H),   attr_int("head_size", D),
          attr_int("seq_len", S),     attr_int("batch", -1),
          attr_float("scale", scale), attr_ints("output_shape", std::move(out))};
}

}  // namespace

TEST(FusedMultiHeadAttention, MatchesFormulaWithMask) {
  const int64_t B = 2, S = 7, H = 3, D = 5, HD = H * D;
  Tensor q = rand_tensor(Shape{B, S, HD}, 1), k = rand_tensor(Shape{B, S, HD}, 2),
         v = rand_tensor(Shape{B, S, HD}, 3), mask = rand_tensor(Shape{B, 1, 1, S}, 4, -3, 0);
  mask.mutable_data<float>()[2] = -INFINITY;  // a fully masked key
  const float scale = 0.37f;
  auto y = run_fused("MultiHeadAttention", {Value(q), Value(k), Value(v), Value(mask)},
                     mha_attrs(H, D, S, scale, {-1, S, HD}))[0]
               .tensor();
  ASSERT_EQ(y.shape(), (Shape{B, S, HD}));
  auto at = [&](const Tensor& t, int64_t b, int64_t s, int64_t h, int64_t d) {
    return double(t.data<float>()[((b * S + s) * H + h) * D + d]);
  };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < S; ++i) {
        std::vector<double> p(static_cast<size_t>(S));
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < S; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d) dot += at(q, b, i, h, d) * at(k, b, j, h, d);
          p[size_t(j)] = dot * scale + double(mask.data<float>()[b * S + j]);
          mx = std::max(mx, p[size_t(j)]);
        }
        for (auto& x : p) sum += (x = std::exp(x - mx));
        for (int64_t d = 0; d < D; ++d) {
          double want = 0;
          for (int64_t j = 0; j < S; ++j) want += p[size_t(j)] / sum * at(v, b, j, h, d);
          EXPECT_NEAR(at(y, b, i, h, d), want, 1e-5) << b << " " << h << " " << i << " " << d;
        }
      }
}

// A sequence long enough that the kernel takes the query rows in several
// blocks (S x S scores over 256 KB), with a mask that differs per query row
// and per head, so a block that read another block's mask rows or wrote
// another block's output rows would be caught.
TEST(FusedMultiHeadAttention, LongSequenceInRowBlocksMatchesFormula) {
  const int64_t B = 2, S = 300, H = 2, D = 8, HD = H * D;
  Tensor q = rand_tensor(Shape{B, S, HD}, 11), k = rand_tensor(Shape{B, S, HD}, 12),
         v = rand_tensor(Shape{B, S, HD}, 13), mask = rand_tensor(Shape{1, H, S, S}, 14, -4, 0);
  const float scale = 0.3f;
  auto y = run_fused("MultiHeadAttention", {Value(q), Value(k), Value(v), Value(mask)},
                     mha_attrs(H, D, S, scale, {B, S, HD}))[0]
               .tensor();
  ASSERT_EQ(y.shape(), (Shape{B, S, HD}));
  auto at = [&](const Tensor& t, int64_t b, int64_t s, int64_t h, int64_t d) {
    return double(t.data<float>()[((b * S + s) * H + h) * D + d]);
  };
  double worst = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < S; ++i) {
        std::vector<double> p(static_cast<size_t>(S));
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < S; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d) dot += at(q, b, i, h, d) * at(k, b, j, h, d);
          p[size_t(j)] = dot * scale + double(mask.data<float>()[(h * S + i) * S + j]);
          mx = std::max(mx, p[size_t(j)]);
        }
        for (auto& x : p) sum += (x = std::exp(x - mx));
        for (int64_t d = 0; d < D; ++d) {
          double want = 0;
          for (int64_t j = 0; j < S; ++j) want += p[size_t(j)] / sum * at(v, b, j, h, d);
          worst = std::max(worst, std::abs(at(y, b, i, h, d) - want));
        }
      }
  EXPECT_LT(worst, 1e-5);
}

TEST(FusedMultiHeadAttention, PackedQkvMatchesSeparateInputs) {
  const int64_t B = 2, S = 5, H = 3, D = 4, HD = H * D;
  Tensor qkv = rand_tensor(Shape{B, S, 3 * HD}, 7);
  Tensor part[3] = {Tensor(DataType::kFloat, Shape{B, S, HD}),
                    Tensor(DataType::kFloat, Shape{B, S, HD}),
                    Tensor(DataType::kFloat, Shape{B, S, HD})};
  for (int64_t r = 0; r < B * S; ++r)
    for (int p = 0; p < 3; ++p)
      for (int64_t c = 0; c < HD; ++c)
        part[p].mutable_data<float>()[r * HD + c] = qkv.data<float>()[r * 3 * HD + p * HD + c];
  Tensor mask = rand_tensor(Shape{B, 1, 1, S}, 8);
  auto attrs = mha_attrs(H, D, S, 0.5f, {-1, S, HD});
  auto want = run_fused("MultiHeadAttention",
                        {Value(part[0]), Value(part[1]), Value(part[2]), Value(mask)}, attrs);
  attrs.push_back(attr_int("packed_qkv", 1));
  auto got = run_fused("MultiHeadAttention", {Value(qkv), Value(), Value(), Value(mask)}, attrs);
  ASSERT_EQ(got[0].tensor().shape(), want[0].tensor().shape());
  for (int64_t i = 0; i < want[0].tensor().num_elements(); ++i)
    EXPECT_NEAR(got[0].tensor().data<float>()[i], want[0].tensor().data<float>()[i], 1e-5) << i;
  // K and V given too, or a QKV that is not 3 x H x D wide: errors naming it.
  expect_error(
      [&] {
        run_fused("MultiHeadAttention", {Value(qkv), Value(qkv), Value(qkv)}, attrs);
      },
      "inputs 1 and 2");
  expect_error(
      [&] {
        run_fused("MultiHeadAttention", {Value(rand_tensor(Shape{B, S, 2 * HD}, 9))}, attrs);
      },
      "QKV");
}

TEST(FusedMultiHeadAttention, SequenceFirstMatchesBatchFirst) {
  // The same attention with every input and the output laid out [S, B, ...]
  // (seq_first), packed or not, with a mask (indexed [B, H, S, S] either way).
  const int64_t B = 2, S = 5, H = 3, D = 4, HD = H * D;
  // [B, S, W] <-> [S, B, W]
  auto swap01 = [](const Tensor& t) {
    const int64_t a = t.shape()[0], b = t.shape()[1], w = t.shape()[2];
    Tensor out(DataType::kFloat, Shape{b, a, w});
    for (int64_t i = 0; i < a; ++i)
      for (int64_t j = 0; j < b; ++j)
        for (int64_t c = 0; c < w; ++c)
          out.mutable_data<float>()[(j * a + i) * w + c] = t.data<float>()[(i * b + j) * w + c];
    return out;
  };
  Tensor mask = rand_tensor(Shape{B, 1, 1, S}, 8);
  for (bool packed : {false, true}) {
    SCOPED_TRACE(packed ? "packed" : "three inputs");
    std::vector<Tensor> ins;
    for (int i = 0; i < (packed ? 1 : 3); ++i)
      ins.push_back(rand_tensor(Shape{B, S, packed ? 3 * HD : HD}, uint32_t(20 + i)));
    auto values = [&](bool seq_first) {
      std::vector<Value> v;
      for (const Tensor& t : ins) v.push_back(Value(seq_first ? swap01(t) : t));
      while (v.size() < 3) v.push_back(Value());
      v.push_back(Value(mask));
      return v;
    };
    auto attrs = mha_attrs(H, D, S, 0.5f, {B, S, HD});
    if (packed) attrs.push_back(attr_int("packed_qkv", 1));
    const Tensor want = run_fused("MultiHeadAttention", values(false), attrs)[0].tensor();
    attrs = mha_attrs(H, D, S, 0.5f, {S, B, HD});
    if (packed) attrs.push_back(attr_int("packed_qkv", 1));
    attrs.push_back(attr_int("seq_first", 1));
    const Tensor got = swap01(run_fused("MultiHeadAttention", values(true), attrs)[0].tensor());
    ASSERT_EQ(got.shape(), want.shape());
    for (int64_t i = 0; i < want.num_elements(); ++i)
      EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5) << i;
    // The error names the layout it expected.
    expect_error(
        [&] {
          const Value bad(rand_tensor(Shape{S, B, packed ? 2 * HD : HD + 1}, 9));
          run_fused("MultiHeadAttention",
                    packed ? std::vector<Value>{bad} : std::vector<Value>{bad, bad, bad}, attrs);
        },
        str_cat("[", S, ", -1, "));  // sequence first, batch from the elements
  }
}

TEST(FusedMultiHeadAttention, ErrorsNameTheProblem) {
  const int64_t S = 4, H = 2, D = 3, HD = H * D;
  Tensor q = rand_tensor(Shape{1, S, HD}, 1);
  Tensor bad_mask = rand_tensor(Shape{1, 1, 1, S + 1}, 2);
  expect_error(
      [&] {
        run_fused("MultiHeadAttention", {Value(q), Value(q), Value(q), Value(bad_mask)},
                  mha_attrs(H, D, S, 1.f, {-1, S, HD}));
      },
      "mask");
  Tensor short_k = rand_tensor(Shape{1, S - 1, HD}, 3);
  expect_error(
      [&] {
        run_fused("MultiHeadAttention", {Value(q), Value(short_k), Value(q)},
                  mha_attrs(H, D, S, 1.f, {-1, S, HD}));
      },
      "K");
  expect_error(
      [&] {
        run_fused("MultiHeadAttention", {Value(q), Value(q), Value(q)},
                  mha_attrs(H, D, S, 1.f, {5, S, HD}));
      },
      "output_shape");
}

TEST(FusedSkipLayerNorm, MatchesFormulaAndChecksParams) {
  const int64_t R = 3, N = 37;
  Tensor x = rand_tensor(Shape{R, N}, 1), s = rand_tensor(Shape{R, N}, 2),
         g = rand_tensor(Shape{N}, 3), b = rand_tensor(Shape{N}, 4),
         bias = rand_tensor(Shape{N}, 5);
  auto y =
      run_fused("SkipLayerNormalization", {Value(x), Value(s), Value(g), Value(b), Value(bias)},
                {attr_float("epsilon", 1e-6f)})[0]
          .tensor();
  for (int64_t r = 0; r < R; ++r) {
    std::vector<double> v(static_cast<size_t>(N));
    double mean = 0, var = 0;
    for (int64_t j = 0; j < N; ++j) {
      v[size_t(j)] =
          double(x.data<float>()[r * N + j]) + s.data<float>()[r * N + j] + bias.data<float>()[j];
      mean += v[size_t(j)] / double(N);
    }
    for (double d : v) var += (d - mean) * (d - mean) / double(N);
    for (int64_t j = 0; j < N; ++j) {
      const double want =
          (v[size_t(j)] - mean) / std::sqrt(var + 1e-6) * g.data<float>()[j] + b.data<float>()[j];
      EXPECT_NEAR(double(y.data<float>()[r * N + j]), want, 1e-4);
    }
  }
  Tensor short_gamma = rand_tensor(Shape{N - 1}, 6);
  expect_error(
      [&] {
        run_fused("SkipLayerNormalization", {Value(x), Value(s), Value(short_gamma)}, {});
      },
      "gamma");
}

TEST(FusedBiasGelu, MatchesFormulaAndChecksBias) {
  Tensor x = rand_tensor(Shape{2, 3, 19}, 1, -5, 5), b = rand_tensor(Shape{19}, 2);
  auto y = run_fused("BiasGelu", {Value(x), Value(b)}, {})[0].tensor();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const double v = double(x.data<float>()[i] + b.data<float>()[i % 19]);
    EXPECT_NEAR(double(y.data<float>()[i]), 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), 1e-5);
  }
  Tensor wrong = rand_tensor(Shape{18}, 3);
  expect_error([&] { run_fused("BiasGelu", {Value(x), Value(wrong)}, {}); }, "bias");
}
