// Every vector kernel set this CPU supports against a double-precision scalar
// reference: lengths that leave tails, rows of length 1, NaN and infinities.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "linalg/vec_math.hpp"

namespace tessera::linalg {
namespace {

using detail::VecKernels;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<VecKernels> kernel_sets() {
  std::vector<VecKernels> ks = {detail::vec_kernels_generic()};
  VecKernels k;
  if (detail::vec_kernels_avx2(&k)) ks.push_back(k);
  if (detail::vec_kernels_avx512(&k)) ks.push_back(k);
  return ks;
}

const std::vector<int64_t> kLengths = {0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 100, 768};

std::vector<float> random_values(int64_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

// Same NaN-ness, same infinity, else within atol + rtol * |want|.
void expect_close(float got, double want, double atol, double rtol, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": got " << got << ", want NaN";
  } else if (std::isinf(want)) {
    EXPECT_EQ(double(got), want) << what;
  } else {
    EXPECT_NEAR(double(got), want, atol + rtol * std::abs(want)) << what;
  }
}

// exp in double, overflowing to inf where the float result would.
double float_exp(float x) {
  const double e = std::exp(double(x));
  return e > double(std::numeric_limits<float>::max()) ? double(kInf) : e;
}

TEST(VecMath, DispatchPicksASet) { EXPECT_FALSE(std::string(vec_kernel_name()).empty()); }

TEST(VecMath, ExpMatchesLibm) {
  for (const auto& k : kernel_sets()) {
    for (int64_t n : kLengths) {
      auto x = random_values(n, -90.0f, 89.0f, unsigned(n));
      if (n > 5) {
        x[0] = kNaN;
        x[1] = kInf;
        x[2] = -kInf;
        x[3] = 0.0f;
        x[4] = 88.7f;
      }
      std::vector<float> y(static_cast<size_t>(n), -1.0f);
      k.exp(x.data(), y.data(), n);
      for (int64_t i = 0; i < n; ++i)
        expect_close(y[size_t(i)], float_exp(x[size_t(i)]), 1e-37, 3e-7,
                     std::string(k.name) + " exp(" + std::to_string(x[size_t(i)]) + ")");
    }
    // Overflow and underflow limits.
    const std::vector<float> edge = {89.0f, 100.0f, -103.0f, -110.0f, -87.0f, -0.0f};
    std::vector<float> y(edge.size());
    k.exp(edge.data(), y.data(), int64_t(edge.size()));
    EXPECT_EQ(y[0], kInf) << k.name;
    EXPECT_EQ(y[1], kInf) << k.name;
    EXPECT_LT(y[2], 1e-44f) << k.name;
    EXPECT_EQ(y[3], 0.0f) << k.name;
    EXPECT_NEAR(double(y[4]), std::exp(-87.0), 1e-6 * std::exp(-87.0)) << k.name;
    EXPECT_EQ(y[5], 1.0f) << k.name;
  }
}

TEST(VecMath, ErfMatchesLibm) {
  for (const auto& k : kernel_sets()) {
    for (int64_t n : kLengths) {
      auto x = random_values(n, -5.0f, 5.0f, unsigned(n) + 7);
      if (n > 4) {
        x[0] = kNaN;
        x[1] = kInf;
        x[2] = -kInf;
        x[3] = 1e-3f;
      }
      std::vector<float> y(static_cast<size_t>(n), -1.0f);
      k.erf(x.data(), y.data(), n);
      for (int64_t i = 0; i < n; ++i)
        expect_close(y[size_t(i)], std::erf(double(x[size_t(i)])), 2e-7, 2e-6,
                     std::string(k.name) + " erf(" + std::to_string(x[size_t(i)]) + ")");
    }
  }
}

// Distance of `got` from the exact `want` in units of the float spacing at
// `want`, or at `floor` where |want| is below it (subnormal spacing below the
// normal range); equal infinities (want beyond float's range counting as
// infinite) and two NaNs are 0 apart, anything else against a NaN or
// infinity is infinitely far.
double ulp_error(float got, double want, float floor = 0) {
  if (std::abs(want) > double(std::numeric_limits<float>::max()))
    want = std::copysign(double(kInf), want);  // what float rounds it to
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got) ? 0 : kInf;
  if (std::isinf(want) || std::isinf(got)) return double(got) == want ? 0 : kInf;
  const float w = std::max(float(std::abs(want)), floor);
  const double spacing = w < std::numeric_limits<float>::min()
                             ? double(std::numeric_limits<float>::denorm_min())
                             : double(std::nextafter(w, kInf)) - double(w);
  return std::abs(double(got) - want) / spacing;
}

// Inputs for the one-argument functions: both signs of a log-spaced sweep
// from subnormals to 1e4, a fine linear grid over [-lin, lin], and the ends.
std::vector<float> dense_inputs(float lin) {
  std::vector<float> x = {0.0f,
                          -0.0f,
                          kInf,
                          -kInf,
                          kNaN,
                          std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::max()};
  for (double v = 1e-42; v < 1e4; v *= 1.01) x.push_back(float(v)), x.push_back(-float(v));
  const int steps = 40000;
  for (int i = 0; i <= steps; ++i) x.push_back(lin * float(2 * i - steps) / float(steps));
  return x;
}

// Runs `f` of every kernel set over dense_inputs(lin) and checks the ulp
// distance from `ref` (computed in double) against `allowed(x)`; results
// below `floor` count in ulps of `floor`.
template <class F, class Ref, class Allowed>
void expect_ulps_where(const char* what, F f, Ref ref, float lin, Allowed allowed, float floor) {
  const std::vector<float> x = dense_inputs(lin);
  for (const auto& k : kernel_sets()) {
    std::vector<float> y(x.size(), 12345.0f);
    f(k, x.data(), y.data(), int64_t(x.size()));
    double worst = 0, worst_ulps = 0;
    float worst_x = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double e = ulp_error(y[i], ref(double(x[i])), floor);
      if (e / allowed(double(x[i])) > worst)
        worst = e / allowed(double(x[i])), worst_ulps = e, worst_x = x[i];
    }
    EXPECT_LE(worst, 1.0) << k.name << " " << what << ": " << worst_ulps
                          << " ulps at x = " << worst_x;
  }
}

template <class F, class Ref>
void expect_ulps(const char* what, F f, Ref ref, float lin, double max_ulps, float floor = 0) {
  expect_ulps_where(
      what, f, ref, lin, [max_ulps](double) { return max_ulps; }, floor);
}

TEST(VecMath, TanhWithinUlpsOfLibm) {
  expect_ulps(
      "tanh", [](const VecKernels& k, const float* x, float* y, int64_t n) { k.tanh(x, y, n); },
      [](double v) { return std::tanh(v); }, 12.0f, 3.0);
  for (const auto& k : kernel_sets()) {
    // Exactly +-1 once saturated; the sign of zero is kept.
    const std::vector<float> x = {9.5f, -20.0f, 1e30f, -0.0f, 1e-30f};
    std::vector<float> y(x.size());
    k.tanh(x.data(), y.data(), int64_t(x.size()));
    EXPECT_EQ(y[0], 1.0f) << k.name;
    EXPECT_EQ(y[1], -1.0f) << k.name;
    EXPECT_EQ(y[2], 1.0f) << k.name;
    EXPECT_TRUE(y[3] == 0.0f && std::signbit(y[3])) << k.name;
    EXPECT_EQ(y[4], 1e-30f) << k.name;
  }
}

TEST(VecMath, ExpWithinUlpsOfLibm) {
  // 1.2 ulps: the portable set's multiply-adds round twice (the vector sets
  // stay within 1). Subnormal results count in ulps of the smallest normal.
  expect_ulps(
      "exp", [](const VecKernels& k, const float* x, float* y, int64_t n) { k.exp(x, y, n); },
      [](double v) { return std::exp(v); }, 90.0f, 1.2, std::numeric_limits<float>::min());
}

// Within 1 ulp over [-1, 1], where the result is near 1/2 and 1 + e^-x near
// 2, so an uncorrected sum and quotient would each add up to half an ulp of
// the result; 1.6 elsewhere, where exp's own error dominates. Results below
// 1e-30 (x under -69) count in ulps of 1e-30.
TEST(VecMath, SigmoidWithinUlps) {
  expect_ulps_where(
      "sigmoid",
      [](const VecKernels& k, const float* x, float* y, int64_t n) {
        k.activation(0, 0, 0, x, y, n);
      },
      [](double v) { return 1 / (1 + std::exp(-v)); }, 20.0f,
      [](double v) { return std::abs(v) <= 1 ? 1.0 : 1.6; }, 1e-30f);
}

TEST(VecMath, LogWithinUlpsOfLibm) {
  expect_ulps(
      "log", [](const VecKernels& k, const float* x, float* y, int64_t n) { k.log(x, y, n); },
      [](double v) { return std::log(v); }, 3.0f, 2.0);
}

TEST(VecMath, SinCosWithinUlpsOfLibm) {
  // Near a zero of the function the ulps are counted at 2^-24 (the spacing
  // at 1/2): the reduction's absolute error there is a fraction of that.
  for (bool cos : {false, true}) {
    expect_ulps(
        cos ? "cos" : "sin",
        [cos](const VecKernels& k, const float* x, float* y, int64_t n) {
          detail::finish_sin_cos(cos, cos ? k.cos(x, y, n) : k.sin(x, y, n), y, n);
        },
        [cos](double v) { return cos ? std::cos(v) : std::sin(v); }, 70000.0f, 2.0, 0x1p-24f);
  }
  for (const auto& k : kernel_sets()) {
    // Exact values, the sign of zero, and a large argument left to libm in
    // place (out aliasing x).
    std::vector<float> x = {0.0f, -0.0f, 1e-30f, -3e-39f, 1e6f, -1e20f, kInf, kNaN, 1.0f};
    std::vector<float> y(x.size());
    detail::finish_sin_cos(false, k.sin(x.data(), y.data(), int64_t(x.size())), y.data(),
                           int64_t(x.size()));
    EXPECT_TRUE(y[0] == 0.0f && !std::signbit(y[0])) << k.name;
    EXPECT_TRUE(y[1] == 0.0f && std::signbit(y[1])) << k.name;
    EXPECT_EQ(y[2], 1e-30f) << k.name;
    EXPECT_EQ(y[3], -3e-39f) << k.name;
    EXPECT_EQ(y[4], std::sin(1e6f)) << k.name;
    EXPECT_EQ(y[5], std::sin(-1e20f)) << k.name;
    EXPECT_TRUE(std::isnan(y[6]) && std::isnan(y[7])) << k.name;
    detail::finish_sin_cos(true, k.cos(x.data(), x.data(), int64_t(x.size())), x.data(),
                           int64_t(x.size()));
    EXPECT_EQ(x[0], 1.0f) << k.name;
    EXPECT_EQ(x[1], 1.0f) << k.name;
    EXPECT_EQ(x[4], std::cos(1e6f)) << k.name;
    EXPECT_EQ(x[5], std::cos(-1e20f)) << k.name;
    EXPECT_TRUE(std::isnan(x[6]) && std::isnan(x[7])) << k.name;
  }
  // The public entry points finish the large lanes themselves.
  const float big[3] = {2e5f, -0.5f, 1e9f};
  float out[3];
  vec_sin(big, out, 3);
  EXPECT_EQ(out[0], std::sin(2e5f));
  EXPECT_NEAR(out[1], std::sin(-0.5), 1e-7);
  EXPECT_EQ(out[2], std::sin(1e9f));
}

TEST(VecMath, AtanAsinWithinUlpsOfLibm) {
  // dense_inputs covers both signs from subnormals to 1e4, the infinities and
  // NaN; asin is NaN beyond [-1, 1] (the reference's NaN there counts as exact).
  expect_ulps(
      "atan", [](const VecKernels& k, const float* x, float* y, int64_t n) { k.atan(x, y, n); },
      [](double v) { return std::atan(v); }, 30.0f, 2.0);
  expect_ulps(
      "asin", [](const VecKernels& k, const float* x, float* y, int64_t n) { k.asin(x, y, n); },
      [](double v) { return std::asin(v); }, 1.0f, 2.0);
  for (const auto& k : kernel_sets()) {
    const std::vector<float> x = {-0.0f, 1e-30f, kInf, -kInf, 1.0f, -1.0f, 1.0000001f};
    std::vector<float> at(x.size()), as(x.size());
    k.atan(x.data(), at.data(), int64_t(x.size()));
    k.asin(x.data(), as.data(), int64_t(x.size()));
    EXPECT_TRUE(at[0] == 0.0f && std::signbit(at[0])) << k.name;
    EXPECT_TRUE(as[0] == 0.0f && std::signbit(as[0])) << k.name;
    EXPECT_EQ(at[1], 1e-30f) << k.name;
    EXPECT_EQ(as[1], 1e-30f) << k.name;
    EXPECT_EQ(at[2], float(M_PI / 2)) << k.name;
    EXPECT_EQ(at[3], -float(M_PI / 2)) << k.name;
    EXPECT_EQ(as[4], float(M_PI / 2)) << k.name;
    EXPECT_EQ(as[5], -float(M_PI / 2)) << k.name;
    EXPECT_TRUE(std::isnan(as[6])) << k.name;
  }
}

double softplus_ref(double v) {
  return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
}

TEST(VecMath, SoftplusWithinUlps) {
  expect_ulps(
      "softplus",
      [](const VecKernels& k, const float* x, float* y, int64_t n) { k.softplus(x, y, n); },
      softplus_ref, 30.0f, 4.0);
}

// GELU's tanh form as x * sigmoid(2u), which double evaluates without the
// cancellation of 1 + tanh(u) for negative x.
double gelu_tanh_ref(double v) {
  const double u = std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v);
  return v / (1 + std::exp(-2 * u));
}

TEST(VecMath, GeluTanhWithinUlps) {
  // For x < 0 the result is about x e^-2|u|, so the roundings in forming u
  // (|u| up to 90) reach the result |2u|-fold: 4 ulps times max(1, |2u|)
  // there. Results below 1e-30 (x under -9.5, which may flush to 0 near
  // 1e-37) count in ulps of 1e-30: an absolute error of about 4e-37.
  auto allowed = [](double v) {
    const double two_u = 2 * std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v);
    return v < 0 ? 4.0 * std::max(1.0, std::abs(two_u)) : 4.0;
  };
  expect_ulps_where(
      "gelu_tanh",
      [](const VecKernels& k, const float* x, float* y, int64_t n) { k.gelu_tanh(x, y, n); },
      gelu_tanh_ref, 12.0f, allowed, 1e-30f);
}

TEST(VecMath, MishWithinUlps) {
  // x e^x for x under -66 goes through a subnormal e^x: counted as gelu_tanh's.
  expect_ulps(
      "mish", [](const VecKernels& k, const float* x, float* y, int64_t n) { k.mish(x, y, n); },
      [](double v) { return v * std::tanh(softplus_ref(v)); }, 30.0f, 5.0, 1e-30f);
}

// Elu, Selu and Celu (vec_activation kinds 4 to 6) through their e^x - 1,
// whose relative accuracy near 0 the ulp bound checks.
TEST(VecMath, ExponentialLinearUnitsWithinUlps) {
  const double alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875;
  expect_ulps(
      "elu",
      [](const VecKernels& k, const float* x, float* y, int64_t n) {
        k.activation(4, 0.5f, 0, x, y, n);
      },
      [](double v) { return v < 0 ? 0.5 * std::expm1(v) : v; }, 30.0f, 3.0);
  expect_ulps(
      "selu",
      [&](const VecKernels& k, const float* x, float* y, int64_t n) {
        k.activation(5, float(alpha), float(gamma), x, y, n);
      },
      [&](double v) {
        return double(float(gamma)) * (v > 0 ? v : double(float(alpha)) * std::expm1(v));
      },
      30.0f, 3.0);
  expect_ulps(
      "celu",
      [](const VecKernels& k, const float* x, float* y, int64_t n) {
        k.activation(6, 2.0f, 0, x, y, n);
      },
      [](double v) { return v > 0 ? v : 2 * std::expm1(v / 2); }, 30.0f, 3.0);
}

double gelu_ref(double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }

TEST(VecMath, GeluWithAndWithoutBias) {
  for (const auto& k : kernel_sets()) {
    for (int64_t len : {1, 5, 16, 19, 64}) {
      const int64_t rows = 3, n = rows * len;
      auto x = random_values(n, -6.0f, 6.0f, unsigned(len));
      auto b = random_values(len, -1.0f, 1.0f, unsigned(len) + 1);
      x[0] = kNaN;
      if (n > 2) x[n - 1] = kInf;
      std::vector<float> y(static_cast<size_t>(n)), yb(y);
      k.gelu(x.data(), nullptr, 0, y.data(), n);
      k.gelu(x.data(), b.data(), len, yb.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const double xi = x[size_t(i)];
        const std::string at = std::string(k.name) + " gelu at " + std::to_string(i);
        expect_close(y[size_t(i)], gelu_ref(xi), 1e-6, 1e-6, at);
        expect_close(yb[size_t(i)], gelu_ref(double(float(xi + b[size_t(i % len)]))), 1e-6, 1e-6,
                     at);
      }
    }
  }
}

TEST(VecMath, SoftmaxRow) {
  for (const auto& k : kernel_sets()) {
    for (int64_t n : kLengths) {
      if (n == 0) continue;
      auto x = random_values(n, -30.0f, 30.0f, unsigned(n) + 3);
      if (n > 3) x[2] = -kInf;  // a masked position gets exactly 0
      std::vector<float> y(static_cast<size_t>(n));
      k.softmax_row(x.data(), y.data(), n);
      double mx = -INFINITY, sum = 0;
      for (float v : x) mx = std::max(mx, double(v));
      for (float v : x) sum += std::exp(double(v) - mx);
      for (int64_t i = 0; i < n; ++i)
        expect_close(y[size_t(i)], std::exp(double(x[size_t(i)]) - mx) / sum, 1e-8, 2e-6,
                     std::string(k.name) + " softmax n=" + std::to_string(n));
      // In place gives the same.
      std::vector<float> z = x;
      k.softmax_row(z.data(), z.data(), n);
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(z[size_t(i)], y[size_t(i)]);
    }
    // A NaN poisons its row; an all -inf row is 0/0; +inf gives NaN (inf - inf).
    // At the middle and at the end (the ragged last vector's new lanes).
    for (int64_t n : {1, 5, 17, 77}) {
      for (float bad : {kNaN, kInf})
        for (int64_t at : {n / 2, n - 1}) {
          auto x = random_values(n, -1.0f, 1.0f, 9);
          x[size_t(at)] = bad;
          std::vector<float> y(static_cast<size_t>(n));
          k.softmax_row(x.data(), y.data(), n);
          for (float v : y) EXPECT_TRUE(std::isnan(v)) << k.name << " n=" << n << " at " << at;
        }
      std::vector<float> x(static_cast<size_t>(n), -kInf), y(x);
      k.softmax_row(x.data(), y.data(), n);
      for (float v : y) EXPECT_TRUE(std::isnan(v)) << k.name;
    }
    // A row of one is 1.
    const float one = 5.0f;
    float y1 = 0;
    k.softmax_row(&one, &y1, 1);
    EXPECT_EQ(y1, 1.0f) << k.name;
  }
}

TEST(VecMath, LogSoftmaxRow) {
  for (const auto& k : kernel_sets()) {
    for (int64_t n : kLengths) {
      if (n == 0) continue;
      auto x = random_values(n, -30.0f, 30.0f, unsigned(n) + 5);
      if (n > 3) x[2] = -kInf;  // gives -inf
      std::vector<float> y(static_cast<size_t>(n));
      k.log_softmax_row(x.data(), y.data(), n);
      double mx = -INFINITY, sum = 0;
      for (float v : x) mx = std::max(mx, double(v));
      for (float v : x) sum += std::exp(double(v) - mx);
      for (int64_t i = 0; i < n; ++i) {
        const double want = double(x[size_t(i)]) - mx - std::log(sum);
        expect_close(y[size_t(i)], want, 2e-6, 2e-7,
                     std::string(k.name) + " log softmax n=" + std::to_string(n));
      }
      std::vector<float> z = x;
      k.log_softmax_row(z.data(), z.data(), n);
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(z[size_t(i)], y[size_t(i)]);
    }
    for (int64_t n : {1, 5, 17}) {
      for (float bad : {kNaN, kInf}) {
        auto x = random_values(n, -1.0f, 1.0f, 9);
        x[size_t(n / 2)] = bad;
        std::vector<float> y(static_cast<size_t>(n));
        k.log_softmax_row(x.data(), y.data(), n);
        for (float v : y) EXPECT_TRUE(std::isnan(v)) << k.name << " n=" << n;
      }
      std::vector<float> x(static_cast<size_t>(n), -kInf), y(x);
      k.log_softmax_row(x.data(), y.data(), n);
      for (float v : y) EXPECT_TRUE(std::isnan(v)) << k.name;
    }
  }
}

TEST(VecMath, LayerNormRow) {
  for (const auto& k : kernel_sets()) {
    for (int64_t n : kLengths) {
      if (n == 0) continue;
      auto x = random_values(n, 95.0f, 105.0f, unsigned(n));  // large mean: centring matters
      auto s = random_values(n, -1.0f, 1.0f, unsigned(n) + 1);
      auto b = random_values(n, -1.0f, 1.0f, unsigned(n) + 2);
      auto g = random_values(n, 0.5f, 1.5f, unsigned(n) + 3);
      auto be = random_values(n, -1.0f, 1.0f, unsigned(n) + 4);
      for (int variant = 0; variant < 3; ++variant) {
        const float* skip = variant >= 1 ? s.data() : nullptr;
        const float* bias = variant == 2 ? b.data() : nullptr;
        const float* beta = variant == 1 ? nullptr : be.data();
        std::vector<double> v(static_cast<size_t>(n));
        double mean = 0, var = 0;
        for (int64_t i = 0; i < n; ++i) {
          v[size_t(i)] = double(x[size_t(i)]) + (skip ? skip[i] : 0.0) + (bias ? bias[i] : 0.0);
          mean += v[size_t(i)];
        }
        mean /= double(n);
        for (double d : v) var += (d - mean) * (d - mean);
        var /= double(n);
        std::vector<float> y(static_cast<size_t>(n)), sum(y);
        k.layer_norm_row(x.data(), skip, bias, g.data(), beta, 1e-5f, y.data(), sum.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          const double want =
              (v[size_t(i)] - mean) / std::sqrt(var + 1e-5) * g[size_t(i)] + (beta ? beta[i] : 0.0);
          const std::string at = std::string(k.name) + " n=" + std::to_string(n) + " variant " +
                                 std::to_string(variant);
          expect_close(y[size_t(i)], want, 2e-4, 1e-4, at);
          expect_close(sum[size_t(i)], v[size_t(i)], 0, 1e-6, at);
        }
      }
    }
    // NaN in the row gives NaNs; a row of 1 normalises to beta.
    std::vector<float> x = {1, kNaN, 3}, g = {1, 1, 1}, y(3);
    k.layer_norm_row(x.data(), nullptr, nullptr, g.data(), nullptr, 1e-5f, y.data(), nullptr, 3);
    for (float v : y) EXPECT_TRUE(std::isnan(v)) << k.name;
    const float x1 = 7, g1 = 2, b1 = 0.25f;
    float y1 = 0;
    k.layer_norm_row(&x1, nullptr, nullptr, &g1, &b1, 1e-5f, &y1, nullptr, 1);
    EXPECT_EQ(y1, 0.25f) << k.name;
  }
}

TEST(VecMath, BinaryOps) {
  const BinaryOp ops[] = {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv};
  auto ref = [](BinaryOp op, float a, float b) {
    switch (op) {
      case BinaryOp::kAdd:
        return a + b;
      case BinaryOp::kSub:
        return a - b;
      case BinaryOp::kMul:
        return a * b;
      default:
        return a / b;
    }
  };
  for (const auto& k : kernel_sets()) {
    for (int64_t n : kLengths) {
      auto a = random_values(n, -3.0f, 3.0f, unsigned(n));
      auto b = random_values(n, -3.0f, 3.0f, unsigned(n) + 1);
      if (n > 3) {
        a[0] = kNaN;
        b[1] = kInf;
        b[2] = 0.0f;
      }
      for (BinaryOp op : ops) {
        std::vector<float> y(static_cast<size_t>(n)), ys(y), yf(y);
        k.binary(op, a.data(), b.data(), y.data(), n);
        k.binary_scalar(op, a.data(), 1.5f, false, ys.data(), n);
        k.binary_scalar(op, a.data(), 1.5f, true, yf.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          const float ai = a[size_t(i)], bi = b[size_t(i)];
          const std::string at = std::string(k.name) + " op " + std::to_string(int(op));
          expect_close(y[size_t(i)], ref(op, ai, bi), 0, 0, at);
          expect_close(ys[size_t(i)], ref(op, ai, 1.5f), 0, 0, at);
          expect_close(yf[size_t(i)], ref(op, 1.5f, ai), 0, 0, at);
        }
      }
    }
  }
}

// a op row, row op a over rows of n, for the per-channel operands.
TEST(VecMath, BinaryRows) {
  for (const auto& k : kernel_sets()) {
    for (int64_t n : {1, 5, 16, 17, 40}) {
      const int64_t rows = 3;
      auto a = random_values(rows * n, -3.0f, 3.0f, unsigned(n));
      auto row = random_values(n, 0.5f, 3.0f, unsigned(n) + 7);
      for (int op = 0; op < 4; ++op)
        for (bool first : {false, true}) {
          std::vector<float> y(a.size());
          k.binary_rows(op, a.data(), row.data(), first, y.data(), rows, n);
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < n; ++j) {
              const float x = a[size_t(r * n + j)], v = row[size_t(j)];
              const float l = first ? v : x, rr = first ? x : v;
              const float want = op == 0 ? l + rr : op == 1 ? l - rr : op == 2 ? l * rr : l / rr;
              EXPECT_EQ(y[size_t(r * n + j)], want) << k.name << " op " << op << " n " << n;
            }
        }
    }
  }
}

// The pass activations against their definitions in double, NaN and the
// infinities included.
TEST(VecMath, Activations) {
  for (const auto& k : kernel_sets()) {
    for (int64_t n : kLengths) {
      auto x = random_values(n, -12.0f, 12.0f, unsigned(n) + 3);
      if (n > 4) x[0] = kNaN, x[1] = kInf, x[2] = -kInf, x[3] = -100.0f;
      const std::string at = std::string(k.name) + " n " + std::to_string(n);
      std::vector<float> y(x.size());
      k.activation(0, 0, 0, x.data(), y.data(), n);  // sigmoid
      for (int64_t i = 0; i < n; ++i) {
        const double xi = x[size_t(i)];
        expect_close(y[size_t(i)], 1 / (1 + std::exp(-xi)), 1e-7, 2e-7, at + " sigmoid");
      }
      k.activation(1, 1.0f, 0, x.data(), y.data(), n);  // swish (SiLU)
      for (int64_t i = 0; i < n; ++i) {
        const double xi = x[size_t(i)];
        const double want = std::isinf(xi) && xi < 0 ? double(kNaN) : xi / (1 + std::exp(-xi));
        expect_close(y[size_t(i)], want, 1e-6, 2e-7, at + " swish");
      }
      k.activation(2, 0.2f, 0.5f, x.data(), y.data(), n);  // hard sigmoid
      for (int64_t i = 0; i < n; ++i) {
        const double xi = x[size_t(i)];
        const double want =
            std::isnan(xi) ? xi : std::fmin(1.0, std::fmax(0.0, double(0.2f) * xi + 0.5));
        expect_close(y[size_t(i)], want, 1e-7, 1e-7, at + " hard sigmoid");
      }
      k.activation(3, 1.0f / 6, 0.5f, x.data(), y.data(), n);  // hard swish
      for (int64_t i = 0; i < n; ++i) {
        const double xi = x[size_t(i)];
        const double want = xi * std::fmin(1.0, std::fmax(0.0, double(1.0f / 6) * xi + 0.5));
        expect_close(y[size_t(i)], want, 1e-7, 1e-7, at + " hard swish");
      }
      k.activation(int(VecActivation::kLeakyRelu), 0.1f, 0, x.data(), y.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const float xi = x[size_t(i)];
        const float want = xi < 0 ? 0.1f * xi : xi;  // exact: one rounding either way
        if (std::isnan(xi))
          EXPECT_TRUE(std::isnan(y[size_t(i)])) << at << " leaky relu";
        else
          EXPECT_EQ(y[size_t(i)], want) << at << " leaky relu at " << i;
      }
    }
    // The sign of zero is kept.
    const float zeros[2] = {0.0f, -0.0f};
    float out[2];
    k.activation(int(VecActivation::kLeakyRelu), 0.1f, 0, zeros, out, 2);
    EXPECT_FALSE(std::signbit(out[0])) << k.name;
    EXPECT_TRUE(std::signbit(out[1])) << k.name;
  }
}

}  // namespace
}  // namespace tessera::linalg
