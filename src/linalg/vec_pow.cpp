#include "linalg/vec_pow.hpp"

#include <cmath>
#include <cstring>

namespace tessera::linalg {

namespace {

// Vectors of kBytes of doubles (the arithmetic) and of the floats they come
// from: the build's widest registers, so no select is lowered lane by lane.
template <int kBytes>
struct Lanes {
  static constexpr int W = kBytes / 8;
  typedef double D __attribute__((vector_size(kBytes)));
  typedef uint64_t I __attribute__((vector_size(kBytes)));
  typedef float F __attribute__((vector_size(kBytes / 2)));
};

// ln 2 in two parts, the first with its low 32 bits zero, so n * hi is exact
// for the |n| < 200 met here.
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kInvLn2 = 1.44269504088896340736;

// exp(y * log(x)) for x a positive finite double (every float is a normal
// double) and y finite. log(x) = e ln2 + log(m), m in [sqrt(1/2), sqrt(2)),
// log(m) = 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.172: the series
// to s^19 leaves under 1e-17. y log(x) is clamped to [-120, 100], past
// which the float result is 0 or infinity anyway; exp(t) = 2^n e^r with
// |r| <= ln2 / 2 and e^r by Taylor to r^11 (remainder under 1e-14).
template <int kBytes>
[[gnu::always_inline]] inline bool pow_lanes(const float* xs, const float* ys, float* out) {
  using L = Lanes<kBytes>;
  using D = typename L::D;
  using I = typename L::I;
  using F = typename L::F;
  F xf, yf;
  std::memcpy(&xf, xs, sizeof(xf));
  std::memcpy(&yf, ys, sizeof(yf));
  // The domain, all lanes at once: x positive and finite, y finite (a NaN
  // fails every compare).
  typedef uint32_t U __attribute__((vector_size(kBytes / 2)));
  const U ya = (U)yf & (U{} + 0x7fffffffu);
  const auto ok =
      (xf > (F{} + 0.f)) & (xf <= (F{} + 3.40282347e38f)) & ((F)ya <= (F{} + 3.40282347e38f));
  uint32_t lanes[L::W];
  std::memcpy(lanes, &ok, sizeof(lanes));
  uint32_t all = ~0u;
  for (int j = 0; j < L::W; ++j) all &= lanes[j];
  if (!all) return false;
  const D x = __builtin_convertvector(xf, D);
  const D y = __builtin_convertvector(yf, D);
  const I b = (I)x;
  // The biased exponent as the low bits of 2^52's mantissa: exact, and no
  // 64-bit integer to double conversion (AVX2 has none).
  const I eb = (b >> 52) | (I{} + 0x4330000000000000ULL);
  D e = (D)eb - (D{} + 4503599627370496.0 + 1023.0);
  const I mb = (b & (I{} + 0x000fffffffffffffULL)) | (I{} + 0x3ff0000000000000ULL);
  D m = (D)mb;
  const auto big = m > (D{} + 1.4142135623730951);
  m = big ? m * (D{} + 0.5) : m;
  e = big ? e + (D{} + 1.0) : e;
  const D s = (m - (D{} + 1.0)) / (m + (D{} + 1.0));
  const D s2 = s * s;
  D q = (D{} + 1.0 / 19);
  q = q * s2 + (D{} + 1.0 / 17);
  q = q * s2 + (D{} + 1.0 / 15);
  q = q * s2 + (D{} + 1.0 / 13);
  q = q * s2 + (D{} + 1.0 / 11);
  q = q * s2 + (D{} + 1.0 / 9);
  q = q * s2 + (D{} + 1.0 / 7);
  q = q * s2 + (D{} + 1.0 / 5);
  q = q * s2 + (D{} + 1.0 / 3);
  q = q * s2 + (D{} + 1.0);
  const D logx = e * (D{} + kLn2) + (D{} + 2.0) * s * q;
  D t = y * logx;
  t = t < (D{} + -120.0) ? (D{} + -120.0) : t;
  t = t > (D{} + 100.0) ? (D{} + 100.0) : t;
  // n = round(t / ln2) through the 1.5 * 2^52 shifter: its low bits hold n.
  const D shifter = (D{} + 6755399441055744.0);
  const D kd = t * (D{} + kInvLn2) + shifter;
  const D n = kd - shifter;
  const D r = (t - n * (D{} + kLn2Hi)) - n * (D{} + kLn2Lo);
  D p = (D{} + 1.0 / 39916800);
  p = p * r + (D{} + 1.0 / 3628800);
  p = p * r + (D{} + 1.0 / 362880);
  p = p * r + (D{} + 1.0 / 40320);
  p = p * r + (D{} + 1.0 / 5040);
  p = p * r + (D{} + 1.0 / 720);
  p = p * r + (D{} + 1.0 / 120);
  p = p * r + (D{} + 1.0 / 24);
  p = p * r + (D{} + 1.0 / 6);
  p = p * r + (D{} + 0.5);
  p = p * r + (D{} + 1.0);
  p = p * r + (D{} + 1.0);
  const I ni = (I)kd - (I{} + 0x4338000000000000ULL);
  const I scale_bits = (ni + (I{} + 1023)) << 52;
  const F f = __builtin_convertvector(p * (D)scale_bits, F);
  std::memcpy(out, &f, sizeof(f));
  return true;
}

// Vectors of W values; a vector with any lane outside the domain goes to
// powf lane by lane. The tail runs as a vector padded with 1s, so a value's
// result does not depend on where it sits.
template <int kBytes, bool kScalarY>
[[gnu::always_inline]] inline void pow_body(const float* x, const float* y, float ys, float* out,
                                            int64_t n) {
  constexpr int W = Lanes<kBytes>::W;
  float yb[W];  // the scalar exponent in every lane
  for (int j = 0; j < W; ++j) yb[j] = ys;
  auto scalar = [&](const float* xv, const float* yv, float* o, int w) {
    for (int j = 0; j < w; ++j) o[j] = std::pow(xv[j], kScalarY ? ys : yv[j]);
  };
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const float* yv = kScalarY ? yb : y + i;
    if (!pow_lanes<kBytes>(x + i, yv, out + i)) scalar(x + i, yv, out + i, W);
  }
  if (i == n) return;
  const int w = int(n - i);
  float xv[W], yv[W], o[W];
  for (int j = 0; j < W; ++j) {
    xv[j] = j < w ? x[i + j] : 1.f;
    yv[j] = kScalarY ? ys : (j < w ? y[i + j] : 1.f);
  }
  if (!pow_lanes<kBytes>(xv, yv, o)) scalar(xv, yv, o, w);
  std::memcpy(out + i, o, size_t(w) * sizeof(float));
}

// Without wide double vectors the lanes cost more than libm's powf.
template <bool kScalarY>
void pow_generic(const float* x, const float* y, float ys, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::pow(x[i], kScalarY ? ys : y[i]);
}

#if defined(__x86_64__)
template <bool kScalarY>
__attribute__((target("avx2,fma"))) void pow_avx2(const float* x, const float* y, float ys,
                                                  float* out, int64_t n) {
  pow_body<32, kScalarY>(x, y, ys, out, n);
}

template <bool kScalarY>
__attribute__((target("avx512f,avx512dq"))) void pow_avx512(const float* x, const float* y,
                                                            float ys, float* out, int64_t n) {
  pow_body<64, kScalarY>(x, y, ys, out, n);
}
#endif

using PowFn = void (*)(const float*, const float*, float, float*, int64_t);

template <bool kScalarY>
PowFn pick(Isa isa) {
  if (isa > cpu_isa_supported()) isa = cpu_isa_supported();
#if defined(__x86_64__)
  if (isa >= Isa::kAvx512) return pow_avx512<kScalarY>;
  if (isa >= Isa::kAvx2) return pow_avx2<kScalarY>;
#endif
  return pow_generic<kScalarY>;
}

}  // namespace

void vec_pow(const float* x, const float* y, float* out, int64_t n, Isa isa) {
  pick<false>(isa)(x, y, 0.f, out, n);
}

void vec_pow_scalar(const float* x, float e, float* out, int64_t n, Isa isa) {
  pick<true>(isa)(x, nullptr, e, out, n);
}

void vec_pow(const float* x, const float* y, float* out, int64_t n) {
  static const PowFn fn = pick<false>(cpu_isa());
  fn(x, y, 0.f, out, n);
}

void vec_pow_scalar(const float* x, float e, float* out, int64_t n) {
  static const PowFn fn = pick<true>(cpu_isa());
  fn(x, nullptr, e, out, n);
}

}  // namespace tessera::linalg
