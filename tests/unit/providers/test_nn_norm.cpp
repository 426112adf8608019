#include <cmath>

#include "unit/providers/nn_test_helpers.hpp"

namespace tessera::test::nn {
namespace {

// Reference: normalize each row of `n` values (mean/var or RMS).
std::vector<float> normalize_rows(const std::vector<float>& x, int64_t n, float eps, bool rms,
                                  const std::vector<float>& scale, const std::vector<float>& bias) {
  std::vector<float> y(x.size());
  for (size_t r = 0; r < x.size() / size_t(n); ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j) mean += x[r * size_t(n) + size_t(j)];
    mean = rms ? 0.0 : mean / double(n);
    for (int64_t j = 0; j < n; ++j) {
      const double d = x[r * size_t(n) + size_t(j)] - mean;
      var += d * d;
    }
    var /= double(n);
    for (int64_t j = 0; j < n; ++j) {
      const size_t i = r * size_t(n) + size_t(j);
      y[i] = float((x[i] - mean) / std::sqrt(var + eps) *
                       (scale.empty() ? 1.0 : scale[size_t(j) % scale.size()]) +
                   (bias.empty() ? 0.0 : bias[size_t(j) % bias.size()]));
    }
  }
  return y;
}

TEST(NnNorm, LayerNormalizationWithStatsOutputs) {
  auto x = random_floats(2 * 3 * 4, 1);
  auto s = random_floats(12, 2), b = random_floats(12, 3);
  auto out = run_node("LayerNormalization",
                      {f32(x, Shape{2, 3, 4}), f32(s, Shape{3, 4}), f32(b, Shape{3, 4})},
                      {attr_int("axis", 1), attr_float("epsilon", 1e-3f)}, 17, 3);
  expect_near(out[0], normalize_rows(x, 12, 1e-3f, false, s, b), Shape{2, 3, 4});
  ASSERT_EQ(out[1].tensor().shape(), (Shape{2, 1, 1}));
  ASSERT_EQ(out[2].tensor().shape(), (Shape{2, 1, 1}));
  double mean0 = 0;
  for (int i = 0; i < 12; ++i) mean0 += x[size_t(i)];
  EXPECT_NEAR(out[1].tensor().element_as_double(0), mean0 / 12, 1e-5);
}

TEST(NnNorm, RmsNormalization) {
  auto x = random_floats(3 * 8, 4);
  auto s = random_floats(8, 5);
  auto out = run_node("RMSNormalization", {f32(x, Shape{3, 8}), f32(s, Shape{8})}, {}, 23);
  expect_near(out[0], normalize_rows(x, 8, 1e-5f, true, s, {}), Shape{3, 8});
}

TEST(NnNorm, InstanceAndGroupNormalization) {
  auto x = random_floats(2 * 4 * 5, 6);
  auto s = random_floats(4, 7), b = random_floats(4, 8);
  auto inst = run_node("InstanceNormalization",
                       {f32(x, Shape{2, 4, 5}), f32(s, Shape{4}), f32(b, Shape{4})}, {}, 22);
  std::vector<float> want(x.size());
  for (size_t p = 0; p < 8; ++p) {
    std::vector<float> row(x.begin() + long(p * 5), x.begin() + long(p * 5 + 5));
    auto r = normalize_rows(row, 5, 1e-5f, false, {s[p % 4]}, {b[p % 4]});
    std::copy(r.begin(), r.end(), want.begin() + long(p * 5));
  }
  expect_near(inst[0], want, Shape{2, 4, 5});
  // One channel per group: GroupNormalization-21 equals InstanceNormalization.
  auto grp =
      run_node("GroupNormalization", {f32(x, Shape{2, 4, 5}), f32(s, Shape{4}), f32(b, Shape{4})},
               {attr_int("num_groups", 4)}, 21);
  expect_near(grp[0], want, Shape{2, 4, 5});
}

// Instances longer than the kernel's work piece (ConvTasNet's GroupNorm(1, C)
// exported as one [1, 1, C*T] instance), split into pieces whose statistics
// are merged: one long instance with a mean far from zero, and six instances
// of two pieces each.
TEST(NnNorm, InstanceNormalizationOfLongInstances) {
  for (const Shape& shape : {Shape{1, 1, 100003}, Shape{2, 3, 40000}}) {
    const int64_t C = shape[1], S = shape[2];
    auto x = random_floats(size_t(shape.num_elements()), 10);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 50.0f + 3.0f * x[i] + float(i % 7);
    auto s = random_floats(size_t(C), 11), b = random_floats(size_t(C), 12);
    auto out = run_node("InstanceNormalization",
                        {f32(x, shape), f32(s, Shape{C}), f32(b, Shape{C})}, {}, 22);
    std::vector<float> want(x.size());
    for (int64_t p = 0; p < shape[0] * C; ++p) {
      std::vector<float> row(x.begin() + long(p * S), x.begin() + long((p + 1) * S));
      auto r = normalize_rows(row, S, 1e-5f, false, {s[size_t(p % C)]}, {b[size_t(p % C)]});
      std::copy(r.begin(), r.end(), want.begin() + long(p * S));
    }
    expect_near(out[0], want, shape);
  }
}

// GroupNormalization over groups of several channels, one group longer
// than the kernel's work piece: per-channel scale and bias (opset 21) and
// per-group ones (opset 18), against normalizing each group as one row.
TEST(NnNorm, GroupNormalizationOfLongGroups) {
  struct Case {
    Shape x;
    int64_t groups, opset;
  };
  for (const Case& c : {Case{Shape{1, 4, 20000}, 1, 21}, Case{Shape{2, 6, 700}, 2, 21},
                        Case{Shape{2, 6, 700}, 3, 18}}) {
    const int64_t N = c.x[0], C = c.x[1], S = c.x[2], cpg = C / c.groups;
    auto x = random_floats(size_t(c.x.num_elements()), 13);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 20.0f + 2.0f * x[i] + float(i % 5);
    const int64_t np = c.opset >= 21 ? C : c.groups;
    auto s = random_floats(size_t(np), 14), b = random_floats(size_t(np), 15);
    auto out = run_node("GroupNormalization", {f32(x, c.x), f32(s, Shape{np}), f32(b, Shape{np})},
                        {attr_int("num_groups", c.groups)}, c.opset);
    std::vector<float> want(x.size());
    for (int64_t g = 0; g < N * c.groups; ++g) {
      const int64_t len = cpg * S;
      std::vector<float> run(x.begin() + long(g * len), x.begin() + long((g + 1) * len));
      auto r = normalize_rows(run, len, 1e-5f, false, {}, {});
      for (int64_t j = 0; j < len; ++j) {
        const int64_t ch = (g % c.groups) * cpg + j / S, k = np == C ? ch : ch / cpg;
        want[size_t(g * len + j)] = r[size_t(j)] * s[size_t(k)] + b[size_t(k)];
      }
    }
    expect_near(out[0], want, c.x);
  }
}

TEST(NnNorm, BatchNormalizationInferenceAndTraining) {
  auto x = random_floats(2 * 3 * 4, 9);
  std::vector<float> s = {1, 2, 0.5}, b = {0, 1, -1}, m = {0.1f, -0.2f, 0.3f}, v = {1, 0.5, 2};
  auto out = run_node("BatchNormalization",
                      {f32(x, Shape{2, 3, 4}), f32(s, Shape{3}), f32(b, Shape{3}), f32(m, Shape{3}),
                       f32(v, Shape{3})},
                      {}, 15);
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = (i / 4) % 3;
    want[i] = float((x[i] - m[c]) / std::sqrt(v[c] + 1e-5) * s[c] + b[c]);
  }
  expect_near(out[0], want, Shape{2, 3, 4});
  auto tr = run_node("BatchNormalization",
                     {f32(x, Shape{2, 3, 4}), f32(s, Shape{3}), f32(b, Shape{3}), f32(m, Shape{3}),
                      f32(v, Shape{3})},
                     {attr_int("training_mode", 1)}, 15, 3);
  double mean0 = 0;
  for (size_t n = 0; n < 2; ++n)
    for (size_t i = 0; i < 4; ++i) mean0 += x[n * 12 + i];
  mean0 /= 8;
  EXPECT_NEAR(tr[1].tensor().element_as_double(0), 0.1 * 0.9 + mean0 * 0.1, 1e-5);
}

TEST(NnNorm, BatchNormalizationChecksParameterSizes) {
  auto err = error_of([] {
    run_node("BatchNormalization",
             {f32(std::vector<float>(6), Shape{1, 3, 2}), f32({1, 1}, Shape{2}),
              f32({0, 0, 0}, Shape{3}), f32({0, 0, 0}, Shape{3}), f32({1, 1, 1}, Shape{3})},
             {}, 15);
  });
  EXPECT_NE(err.find("scale [2]"), std::string::npos) << err;
}

TEST(NnNorm, LrnMvnAndLpNormalization) {
  auto x = f32({1, 2, 3, 4}, Shape{1, 4, 1, 1});
  // size 3: channel 0 sums squares of channels 0..1.
  auto lrn = run_node("LRN", {x},
                      {attr_int("size", 3), attr_float("alpha", 3.f), attr_float("beta", 1.f)}, 13);
  expect_near(lrn[0], {1.f / (1 + 5), 2.f / (1 + 14), 3.f / (1 + 29), 4.f / (1 + 25)},
              Shape{1, 4, 1, 1});
  // A window far past the channels (its size once overflowed the cost
  // estimate): alpha / size vanishes, y = x / bias^beta.
  auto wide =
      run_node("LRN", {x}, {attr_int("size", int64_t(1) << 62), attr_float("beta", 1.f)}, 13);
  expect_near(wide[0], {1, 2, 3, 4}, Shape{1, 4, 1, 1});
  auto lp = run_node("LpNormalization", {f32({3, 4, 0, 0}, Shape{2, 2})}, {}, 22);
  expect_near(lp[0], {0.6f, 0.8f, 0, 0}, Shape{2, 2});
  auto mvn = run_node("MeanVarianceNormalization", {f32({1, 3, 5, 7}, Shape{1, 1, 2, 2})}, {}, 13);
  const float sd = std::sqrt(5.f);
  expect_near(mvn[0], {-3 / sd, -1 / sd, 1 / sd, 3 / sd}, Shape{1, 1, 2, 2});
}

// MeanVarianceNormalization over axes whose innermost dim is reduced (runs
// of contiguous values) and over axes that keep it (contiguous statistics),
// negative axes included, against a double reference.
TEST(NnNorm, MeanVarianceNormalizationAxes) {
  const Shape s{2, 3, 5, 7};
  std::vector<float> x(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(std::sin(double(i) * 0.91) * 3 + double(i % 7));
  for (const std::vector<int64_t>& axes :
       std::vector<std::vector<int64_t>>{{0, 2, 3}, {-1}, {1}, {0, 1}, {2}, {0, -2}, {1, 2, 3}}) {
    std::vector<bool> red(4, false);
    for (int64_t a : axes) red[size_t(a < 0 ? a + 4 : a)] = true;
    // Group of each element: its index with the reduced dims zeroed.
    auto group = [&](size_t i) {
      int64_t rem = int64_t(i), g = 0, stride = 1;
      for (size_t d = 4; d-- > 0;) {
        const int64_t c = rem % s[d];
        rem /= s[d];
        if (!red[d]) g += c * stride;
        stride *= s[d];
      }
      return g;
    };
    std::vector<double> sum(x.size(), 0), sq(x.size(), 0), cnt(x.size(), 0);
    for (size_t i = 0; i < x.size(); ++i) sum[size_t(group(i))] += x[i], ++cnt[size_t(group(i))];
    for (size_t i = 0; i < x.size(); ++i) {
      const double d = x[i] - sum[size_t(group(i))] / cnt[size_t(group(i))];
      sq[size_t(group(i))] += d * d;
    }
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t g = size_t(group(i));
      want[i] = float((x[i] - sum[g] / cnt[g]) / (std::sqrt(sq[g] / cnt[g]) + 1e-9));
    }
    auto y = run_node("MeanVarianceNormalization", {f32(x, s)}, {attr_ints("axes", axes)}, 13);
    SCOPED_TRACE(testing::PrintToString(axes));
    expect_near(y[0], want, s, 1e-5f);
  }
}

TEST(NnNorm, BFloat16LayerNorm) {
  std::vector<BFloat16> x = {BFloat16(1.f), BFloat16(3.f)};
  auto out =
      run_node("LayerNormalization",
               {Tensor::from_vector(x, Shape{1, 2}),
                Tensor::from_vector(std::vector<BFloat16>{BFloat16(1.f), BFloat16(1.f)}, Shape{2})},
               {attr_float("epsilon", 0.f)}, 17);
  ASSERT_EQ(out[0].tensor().dtype(), DataType::kBFloat16);
  expect_near(out[0], {-1, 1}, Shape{1, 2}, 1e-2f);
}

}  // namespace
}  // namespace tessera::test::nn
