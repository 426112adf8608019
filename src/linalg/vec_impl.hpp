// Internal to linalg/: the vector loops of vec_math.hpp written once over a
// lane type V, so the portable, AVX2 and AVX-512 files differ only in V.
// V provides: R (register), W (lanes), load/store, load_tail(p, n, fill) and
// store_tail(p, n, r) for the last n < W lanes, set1, add/sub/mul/div,
// fmadd(a, b, c) = a*b + c (fused or not), fma(a, b, c) = a*b + c rounded
// once, sqrt (correctly rounded), max/min, abs, round/trunc, pow2i (2^n for an
// integral n in [-126, 127]), exponent(x) and mantissa(x) (x = mantissa *
// 2^exponent with the mantissa in [1, 2), for normal positive x), hsum/hmax,
// gt(a, b) and isnan(a) masks, select(mask, a, b), copysign(mag, sign).
//
// Including files must include <cstdint> first and may wrap this header in a
// target pragma: it includes nothing itself, so no library inline function
// is compiled for an instruction set the caller did not check for.
#pragma once

namespace tessera::linalg::detail::vec_impl {

enum class Op { kAdd, kSub, kMul, kDiv };

// exp(x): x = n*ln2 + r with |r| <= ln2/2, e^r = 1 + r + r^2 Q(r) with Q of
// degree 4 fitted on that range for relative error (3.6e-9 before rounding;
// the degree-6 Taylor polynomial's truncation alone is 1.2e-7, about 1 ulp),
// so the result is within 0.9 ulp; times 2^n applied in two halves so that
// results that are subnormal or overflow round correctly.
//
// Where V has scalef (AVX-512: p * 2^n in one instruction, rounded once,
// overflowing to inf and underflowing through the subnormals), the scaling
// and the special cases take one instruction instead of about ten: x is
// clamped to [-104, 89] with NaN kept (max/min return their second operand
// for a NaN), and p * 2^n overflows or vanishes by itself. Same results.
template <class V>
inline typename V::R exp(typename V::R x) {
  using R = typename V::R;
  const R xin = x;
  // The scalef form keeps a NaN through the clamp (operand order); the other
  // clamps it away (a NaN must not reach pow2i's integer conversion) and
  // puts it back at the end.
  x = V::kScalef ? V::min(V::set1(89.0f), V::max(V::set1(-104.0f), x))
                 : V::min(V::max(x, V::set1(-104.0f)), V::set1(88.72283935546875f));
  const R n = V::round(V::mul(x, V::set1(1.44269504088896341f)));
  R r = V::fmadd(n, V::set1(-0.693145751953125f), x);  // ln2 split hi/lo: n*hi is exact
  r = V::fmadd(n, V::set1(-1.428606765330187045e-06f), r);
  R p = V::set1(1.38269598e-3f);
  p = V::fmadd(p, r, V::set1(8.36887863e-3f));
  p = V::fmadd(p, r, V::set1(4.16681804e-2f));
  p = V::fmadd(p, r, V::set1(1.66665196e-1f));
  p = V::fmadd(p, r, V::set1(4.99999940e-1f));
  p = V::fmadd(p, r, V::set1(1.0f));
  p = V::fmadd(p, r, V::set1(1.0f));
  if constexpr (V::kScalef) return V::scalef(p, n);
  const R n1 = V::trunc(V::mul(n, V::set1(0.5f)));
  const R n2 = V::sub(n, n1);
  R y = V::mul(V::mul(p, V::pow2i(n1)), V::pow2i(n2));
  y = V::select(V::gt(xin, V::set1(88.72283935546875f)), V::set1(__builtin_inff()), y);
  return V::select(V::isnan(xin), xin, y);
}

// erf(x): its Maclaurin series below |x| = 0.5, above it the Chebyshev-fitted
// erfc(z) = t * exp(-z^2 + P(t)), t = 1 / (1 + z/2), of Numerical Recipes
// (fractional error under 1.2e-7), so the result's absolute error stays near
// float rounding everywhere and the relative error stays small near 0.
template <class V>
inline typename V::R erf(typename V::R x) {
  using R = typename V::R;
  const R z = V::abs(x);
  // Series: 2/sqrt(pi) * x * (1 - x^2/3 + x^4/10 - x^6/42 + x^8/216 - x^10/1320).
  const R s = V::mul(x, x);
  R q = V::set1(-1.0f / 1320);
  q = V::fmadd(q, s, V::set1(1.0f / 216));
  q = V::fmadd(q, s, V::set1(-1.0f / 42));
  q = V::fmadd(q, s, V::set1(1.0f / 10));
  q = V::fmadd(q, s, V::set1(-1.0f / 3));
  q = V::fmadd(q, s, V::set1(1.0f));
  const R small = V::mul(V::mul(x, V::set1(1.1283791670955126f)), q);
  const R t = V::div(V::set1(1.0f), V::fmadd(z, V::set1(0.5f), V::set1(1.0f)));
  static constexpr float kP[] = {0.17087277f, -0.82215223f, 1.48851587f, -1.13520398f,
                                 0.27886807f, -0.18628806f, 0.09678418f, 0.37409196f,
                                 1.00002368f, -1.26551223f};
  R p = V::set1(kP[0]);
  for (int i = 1; i < 10; ++i) p = V::fmadd(p, t, V::set1(kP[i]));
  const R e = exp<V>(V::sub(p, V::mul(z, z)));
  const R large = V::copysign(V::sub(V::set1(1.0f), V::mul(t, e)), x);
  const R y = V::select(V::gt(V::set1(0.5f), z), small, large);
  return V::select(V::isnan(x), x, y);
}

template <class V>
inline typename V::R gelu(typename V::R v) {
  const auto e = erf<V>(V::mul(v, V::set1(0.70710678118654752f)));
  return V::mul(V::mul(v, V::set1(0.5f)), V::add(e, V::set1(1.0f)));
}

// sigmoid(x) = 1 / (1 + e), e = exp(-x). Rounding 1 + e and the quotient
// would each cost up to half an ulp of the result (two ulps in all near
// x = 0, where e is near 1), so both are corrected: c, the rounding error of
// s = 1 + e, is exact by the fast two-sum of the larger and smaller addend,
// t = q s - 1 of q = 1 / s is exact by one FMA, and 1 / (s + c) = q - q (t +
// q c) to first order. That leaves exp's error, scaled by e / (1 + e) <= 1,
// and the last rounding. exp(-x) overflows to inf for very negative x, giving
// 0; NaN stays NaN. Sigmoid, Swish and fused convolutions share it, so a
// fused SiLU gives the bytes of the unfused Sigmoid -> Mul.
template <class V>
inline typename V::R sigmoid(typename V::R x) {
  using R = typename V::R;
  const R one = V::set1(1.0f);
  const R e = exp<V>(V::sub(V::set1(0.0f), x));
  const R s = V::add(one, e);
  const R c = V::add(V::sub(V::max(e, one), s), V::min(e, one));
  const R q = V::div(one, s);
  const R t = V::fma(q, s, V::set1(-1.0f));
  const R y = V::sub(q, V::mul(q, V::fmadd(q, c, t)));
  // s = inf (e overflowed) makes c and t NaN; the result there is 0. A NaN
  // input fails the compare and stays NaN.
  return V::select(V::gt(s, V::set1(3.40282347e38f)), V::set1(0.0f), y);
}

// tanh(x): below |x| = 0.625 the odd polynomial x + x^3 P(x^2), fitted for
// relative error (about 5e-9 before rounding), so tiny inputs keep every bit
// (1 - 2 / (e^2x + 1) would cancel to 0 there); above, 1 - 2 / (e^2|x| + 1),
// which saturates to 1 once e^2|x| overflows.
template <class V>
inline typename V::R tanh(typename V::R x) {
  using R = typename V::R;
  const R z = V::abs(x);
  const R s = V::mul(x, x);
  R p = V::set1(-5.7050134e-3f);
  p = V::fmadd(p, s, V::set1(2.0639116e-2f));
  p = V::fmadd(p, s, V::set1(-5.3739727e-2f));
  p = V::fmadd(p, s, V::set1(1.3331443e-1f));
  p = V::fmadd(p, s, V::set1(-3.333328e-1f));
  // Both forms on |x|, the sign put back last: tanh(-0) is -0.
  const R small = V::fmadd(V::mul(z, s), p, z);
  const R one = V::set1(1.0f);
  const R e = exp<V>(V::add(z, z));
  const R large = V::sub(one, V::div(V::set1(2.0f), V::add(e, one)));
  // A NaN fails the compare and comes through exp and the division as NaN.
  return V::copysign(V::select(V::gt(V::set1(0.625f), z), small, large), x);
}

// log(x): x = m * 2^e with m in [sqrt(1/2), sqrt(2)), then log(1 + f) for
// f = m - 1 (exact) as f - f^2/2 + f^3 P(f), P fitted for relative error
// (under 1e-9 before rounding), plus e * ln2 split so e * hi is exact.
// Subnormals are scaled into the normal range first, since exponent() and
// mantissa() read the bits.
template <class V>
inline typename V::R log(typename V::R x) {
  using R = typename V::R;
  const R zero = V::set1(0.0f), one = V::set1(1.0f);
  const auto tiny = V::gt(V::set1(1.17549435e-38f), x);
  const R xs = V::select(tiny, V::mul(x, V::set1(8388608.0f)), x);
  R e = V::sub(V::exponent(xs), V::select(tiny, V::set1(23.0f), zero));
  R m = V::mantissa(xs);
  const auto big = V::gt(m, V::set1(1.41421356f));
  m = V::select(big, V::mul(m, V::set1(0.5f)), m);
  e = V::select(big, V::add(e, one), e);
  const R f = V::sub(m, one);
  const R f2 = V::mul(f, f);
  static constexpr float kP[] = {6.7466952e-2f,  -1.1675788e-1f, 1.1888214e-1f,
                                 -1.2405574e-1f, 1.4219545e-1f,  -1.6667996e-1f,
                                 2.0002119e-1f,  -2.5000009e-1f, 3.3333313e-1f};
  R p = V::set1(kP[0]);
  for (int i = 1; i < 9; ++i) p = V::fmadd(p, f, V::set1(kP[i]));
  R r = V::mul(V::mul(f2, f), p);
  r = V::fmadd(e, V::set1(-2.12194440e-4f), r);
  r = V::fmadd(f2, V::set1(-0.5f), r);
  r = V::add(f, r);
  r = V::fmadd(e, V::set1(0.693359375f), r);
  // log(+-0) = -inf, log(negative) = NaN, log(inf) = inf, NaN stays NaN.
  r = V::select(V::gt(x, zero), r, V::set1(-__builtin_inff()));
  r = V::select(V::gt(zero, x), V::set1(__builtin_nanf("")), r);
  r = V::select(V::gt(x, V::set1(3.40282347e38f)), x, r);
  return V::select(V::isnan(x), x, r);
}

// softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|), nothing overflows.
// log1p(u) for u in [0, 1] is log(w) - c / w with w = 1 + u rounded and
// c = (w - 1) - u its rounding error (exact, as u <= 1): the first-order
// correction for log's argument, which also gives exactly u where w rounds
// to 1, so very negative x still get e^x to full relative accuracy.
template <class V>
inline typename V::R softplus(typename V::R x) {
  using R = typename V::R;
  const R zero = V::set1(0.0f), one = V::set1(1.0f);
  const R u = exp<V>(V::sub(zero, V::abs(x)));
  const R w = V::add(one, u);
  const R c = V::sub(V::sub(w, one), u);
  const R l = V::sub(log<V>(w), V::div(c, w));
  return V::select(V::isnan(x), x, V::add(V::max(x, zero), l));
}

// GELU's tanh form 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3),
// computed as the identical x * sigmoid(2u): no 1 + tanh cancellation for
// negative x, so the small results keep their relative accuracy down to
// about 1e-37, where e^-2u overflows and they become 0 (x below about -10).
template <class V>
inline typename V::R gelu_tanh(typename V::R x) {
  using R = typename V::R;
  const R inner = V::fmadd(V::mul(x, x), V::set1(0.044715f), V::set1(1.0f));
  const R u = V::mul(V::mul(x, V::set1(0.797884561f)), inner);
  return V::mul(x, sigmoid<V>(V::add(u, u)));
}

// mish(x) = x tanh(softplus(x)) = x n / (n + 2) with n = e^x (e^x + 2), as
// tanh(log(1 + e^x)) simplifies. Past x = 20 the fraction is 1 in float, so
// clamping there keeps n finite without changing the result; a NaN becomes
// 20 in the clamp (min returns its second operand) and NaN again in x * ...
template <class V>
inline typename V::R mish(typename V::R x) {
  using R = typename V::R;
  const R two = V::set1(2.0f);
  const R e = exp<V>(V::min(x, V::set1(20.0f)));
  const R n = V::mul(e, V::add(e, two));
  return V::mul(x, V::div(n, V::add(n, two)));
}

// max(0, min(1, alpha x + beta)) as compares, so a NaN passes through. The
// product and the sum round separately (no FMA), on every instruction set.
template <class V>
inline typename V::R hard_sigmoid(typename V::R x, typename V::R alpha, typename V::R beta) {
  const typename V::R zero = V::set1(0.0f), one = V::set1(1.0f);
  typename V::R v = V::add(V::mul(alpha, x), beta);
  v = V::select(V::gt(zero, v), zero, v);
  return V::select(V::gt(v, one), one, v);
}

// expm1(x): for |x| < 0.5, x + x^2/2 + x^3 P(x) with P fitted for relative
// error (5e-9 before rounding), so small x keep their relative accuracy;
// beyond, e^x - 1, whose cancellation there costs at most a bit.
template <class V>
inline typename V::R expm1(typename V::R x) {
  using R = typename V::R;
  R p = V::set1(1.9805861e-4f);
  p = V::fmadd(p, x, V::set1(1.3981214e-3f));
  p = V::fmadd(p, x, V::set1(8.3337063e-3f));
  p = V::fmadd(p, x, V::set1(4.1665871e-2f));
  p = V::fmadd(p, x, V::set1(1.6666663e-1f));
  const R small = V::fmadd(V::mul(x, x), V::fmadd(x, p, V::set1(0.5f)), x);
  const R large = V::sub(exp<V>(x), V::set1(1.0f));
  return V::select(V::gt(V::set1(0.5f), V::abs(x)), small, large);
}

// The largest |x| sin_cos reduces: n = round(|x| 2/pi) stays far below 2^22,
// so n and n mod 4 are exact in float, and the three-part reduction keeps its
// relative accuracy. Lanes beyond it (and infinities) return x itself, for
// the caller to finish with libm.
constexpr float kTrigMax = 65536.0f;

// sin(x) (kCos false) or cos(x): r = |x| - n pi/2 with pi/2 split in three
// floats (each step one FMA, the first exact), |r| <= pi/4, then the
// sine or cosine polynomial of r (Cephes' minimax coefficients, under 1 ulp
// on that range) by the quadrant n mod 4 (n + 1 for cos), negated in
// quadrants 2 and 3, and for sin given the sign of x. |x| below 2^-12 gives x
// itself for sin (exactly sin(x) in float; keeps -0 and subnormals).
template <class V, bool kCos>
inline typename V::R sin_cos(typename V::R x) {
  using R = typename V::R;
  const R zero = V::set1(0.0f), one = V::set1(1.0f);
  const R ax = V::abs(x);
  const auto big = V::gt(ax, V::set1(kTrigMax));
  const R axr = V::select(big, zero, ax);  // keeps round() away from huge values
  const R n = V::round(V::mul(axr, V::set1(0.636619772367581343f)));
  R r = V::fma(n, V::set1(-0x1.921fb6p+0f), axr);
  r = V::fma(n, V::set1(0x1.777a5cp-25f), r);
  r = V::fma(n, V::set1(0x1.ee59dap-50f), r);
  const R q = kCos ? V::add(n, one) : n;
  const R q4 = V::sub(q, V::mul(V::set1(4.0f), V::trunc(V::mul(q, V::set1(0.25f)))));
  const R z = V::mul(r, r);
  R ps = V::set1(-1.9515295891e-4f);
  ps = V::fmadd(ps, z, V::set1(8.3321608736e-3f));
  ps = V::fmadd(ps, z, V::set1(-1.6666654611e-1f));
  const R s = V::fmadd(V::mul(r, z), ps, r);
  R pc = V::set1(2.443315711809948e-5f);
  pc = V::fmadd(pc, z, V::set1(-1.388731625493765e-3f));
  pc = V::fmadd(pc, z, V::set1(4.166664568298827e-2f));
  const R c = V::add(V::fmadd(V::mul(z, z), pc, V::mul(V::set1(-0.5f), z)), one);
  const R odd = V::sub(q4, V::mul(V::set1(2.0f), V::trunc(V::mul(q4, V::set1(0.5f)))));
  R y = V::select(V::gt(odd, V::set1(0.5f)), c, s);
  y = V::select(V::gt(q4, V::set1(1.5f)), V::sub(zero, y), y);
  if constexpr (!kCos) {
    y = V::select(V::gt(zero, x), V::sub(zero, y), y);
    y = V::select(V::gt(V::set1(0x1p-12f), ax), x, y);
  }
  // A NaN fails every compare and comes through the arithmetic as NaN.
  return V::select(big, x, y);
}

// pi/2 and pi/4 as a float and the float nearest its remainder, so that an
// offset added in two steps keeps the bits a single float would lose.
constexpr float kHalfPiHi = 1.57079637050628662109375f, kHalfPiLo = -4.37113900018624283e-8f;
constexpr float kQuarterPiHi = 0.785398185253143310546875f, kQuarterPiLo = -2.18556950009312142e-8f;

// atan(x) for x >= 0 reduced to |r| <= tan(pi/8): atan(a) = pi/2 + atan(-1/a)
// above tan(3pi/8), pi/4 + atan((a - 1)/(a + 1)) above tan(pi/8); then
// atan(r) = r + r z P(z), z = r^2, with P of degree 4 fitted (weighted least
// squares on Chebyshev nodes) to (atan(r) - r) / r^3 on that range. The sign
// of x is put back at the end. Within 2 ulps of the correctly rounded result
// (unit test VecMath.AtanAsinWithinUlpsOfLibm); NaN stays NaN, +-inf gives
// +-pi/2 (the middle branch's inf/inf is replaced by the outer one's -1/inf).
template <class V>
inline typename V::R atan(typename V::R x) {
  using R = typename V::R;
  const R zero = V::set1(0.0f), one = V::set1(1.0f);
  const R a = V::abs(x);
  const auto mid = V::gt(a, V::set1(0.414213562373095049f));
  const auto big = V::gt(a, V::set1(2.41421356237309505f));
  R r = V::select(mid, V::div(V::sub(a, one), V::add(a, one)), a);
  r = V::select(big, V::div(V::set1(-1.0f), a), r);
  const R off_hi = V::select(big, V::set1(kHalfPiHi), V::select(mid, V::set1(kQuarterPiHi), zero));
  const R off_lo = V::select(big, V::set1(kHalfPiLo), V::select(mid, V::set1(kQuarterPiLo), zero));
  const R z = V::mul(r, r);
  R p = V::set1(-0.0606607124209404f);
  p = V::fmadd(p, z, V::set1(0.10588572174310684f));
  p = V::fmadd(p, z, V::set1(-0.1424274444580078f));
  p = V::fmadd(p, z, V::set1(0.19998423755168915f));
  p = V::fmadd(p, z, V::set1(-0.3333331346511841f));
  const R t = V::fmadd(V::mul(r, z), p, off_lo);
  return V::copysign(V::add(off_hi, V::add(r, t)), x);
}

// asin(x): for |x| <= 1/2, asin(a) = a + a z Q(z), z = a^2, Q of degree 5
// fitted as for atan to (asin(a) - a) / a^3 on [0, 1/2]; above, asin(a) =
// pi/2 - 2 asin(w) with w = sqrt((1 - a)/2) <= 1/2 through the same Q, pi/2
// subtracted in two parts. The sign of x is put back at the end. Within 2
// ulps (VecMath.AtanAsinWithinUlpsOfLibm); |x| > 1 gives NaN (the square
// root of a negative), NaN stays NaN.
template <class V>
inline typename V::R asin(typename V::R x) {
  using R = typename V::R;
  const R a = V::abs(x);
  const auto high = V::gt(a, V::set1(0.5f));
  const R w = V::select(high, V::sqrt(V::mul(V::sub(V::set1(1.0f), a), V::set1(0.5f))), a);
  const R z = V::mul(w, w);
  R p = V::set1(0.03744102641940117f);
  p = V::fmadd(p, z, V::set1(0.014491950161755085f));
  p = V::fmadd(p, z, V::set1(0.031793925911188126f));
  p = V::fmadd(p, z, V::set1(0.044518522918224335f));
  p = V::fmadd(p, z, V::set1(0.07500497251749039f));
  p = V::fmadd(p, z, V::set1(0.16666659712791443f));
  const R t = V::mul(V::mul(w, z), p);
  const R two = V::set1(2.0f);
  const R folded = V::add(V::fmadd(V::set1(-2.0f), w, V::set1(kHalfPiHi)),
                          V::fmadd(V::sub(V::set1(0.0f), two), t, V::set1(kHalfPiLo)));
  return V::copysign(V::select(high, folded, V::add(w, t)), x);
}

// One activation of vec_math.hpp's VecActivation (by its index) on a register.
template <class V, int kKind>
inline typename V::R activate(typename V::R v, typename V::R a, typename V::R b) {
  const typename V::R zero = V::set1(0.0f);
  if constexpr (kKind == 0) {
    return sigmoid<V>(v);
  } else if constexpr (kKind == 1) {
    return V::mul(v, sigmoid<V>(V::mul(a, v)));
  } else if constexpr (kKind == 2) {
    return hard_sigmoid<V>(v, a, b);
  } else if constexpr (kKind == 3) {
    return V::mul(v, hard_sigmoid<V>(v, a, b));
  } else if constexpr (kKind == 4) {  // the branches as compares, so a NaN passes through
    return V::select(V::gt(zero, v), V::mul(a, expm1<V>(v)), v);
  } else if constexpr (kKind == 5) {
    return V::mul(b, V::select(V::gt(v, zero), v, V::mul(a, expm1<V>(v))));
  } else if constexpr (kKind == 6) {
    return V::select(V::gt(v, zero), v, V::mul(a, expm1<V>(V::div(v, a))));
  } else {
    return V::select(V::gt(zero, v), V::mul(a, v), v);
  }
}

template <class V, int kKind>
void activation_loop(float p0, float p1, const float* x, float* out, int64_t n) {
  using R = typename V::R;
  const R a = V::set1(p0), b = V::set1(p1);
  int64_t i = 0;
  for (; i + V::W <= n; i += V::W) V::store(out + i, activate<V, kKind>(V::load(x + i), a, b));
  if (i < n)
    V::store_tail(out + i, n - i, activate<V, kKind>(V::load_tail(x + i, n - i, 0.0f), a, b));
}

// The activations of vec_math.hpp's VecActivation over n values, one loop
// per kind.
template <class V>
void activation(int kind, float p0, float p1, const float* x, float* out, int64_t n) {
  switch (kind) {
    case 0:
      return activation_loop<V, 0>(p0, p1, x, out, n);
    case 1:
      return activation_loop<V, 1>(p0, p1, x, out, n);
    case 2:
      return activation_loop<V, 2>(p0, p1, x, out, n);
    case 3:
      return activation_loop<V, 3>(p0, p1, x, out, n);
    case 4:
      return activation_loop<V, 4>(p0, p1, x, out, n);
    case 5:
      return activation_loop<V, 5>(p0, p1, x, out, n);
    case 6:
      return activation_loop<V, 6>(p0, p1, x, out, n);
    default:
      return activation_loop<V, 7>(p0, p1, x, out, n);
  }
}

template <class V, typename V::R (*F)(typename V::R)>
void map(const float* x, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + V::W <= n; i += V::W) V::store(out + i, F(V::load(x + i)));
  if (i < n) V::store_tail(out + i, n - i, F(V::load_tail(x + i, n - i, 0.0f)));
}

template <class V>
void exp_loop(const float* x, float* out, int64_t n) {
  map<V, exp<V>>(x, out, n);
}

// sin or cos over n values; returns the largest |x| seen (NaN lanes aside),
// so the caller knows whether any lane was left for libm (see kTrigMax).
template <class V, bool kCos>
float sin_cos_loop(const float* x, float* out, int64_t n) {
  using R = typename V::R;
  R amax = V::set1(0.0f);
  int64_t i = 0;
  for (; i + V::W <= n; i += V::W) {
    const R v = V::load(x + i);
    amax = V::max(V::abs(v), amax);  // a NaN lane keeps amax (second operand)
    V::store(out + i, sin_cos<V, kCos>(v));
  }
  if (i < n) {
    const R v = V::load_tail(x + i, n - i, 0.0f);
    amax = V::max(V::abs(v), amax);  // a NaN lane keeps amax (second operand)
    V::store_tail(out + i, n - i, sin_cos<V, kCos>(v));
  }
  return V::hmax(amax);
}

template <class V>
float sin_loop(const float* x, float* out, int64_t n) {
  return sin_cos_loop<V, false>(x, out, n);
}

template <class V>
float cos_loop(const float* x, float* out, int64_t n) {
  return sin_cos_loop<V, true>(x, out, n);
}

template <class V>
void atan_loop(const float* x, float* out, int64_t n) {
  map<V, atan<V>>(x, out, n);
}

template <class V>
void asin_loop(const float* x, float* out, int64_t n) {
  map<V, asin<V>>(x, out, n);
}

template <class V>
void erf_loop(const float* x, float* out, int64_t n) {
  map<V, erf<V>>(x, out, n);
}

template <class V>
void tanh_loop(const float* x, float* out, int64_t n) {
  map<V, tanh<V>>(x, out, n);
}

template <class V>
void log_loop(const float* x, float* out, int64_t n) {
  map<V, log<V>>(x, out, n);
}

template <class V>
void softplus_loop(const float* x, float* out, int64_t n) {
  map<V, softplus<V>>(x, out, n);
}

template <class V>
void gelu_tanh_loop(const float* x, float* out, int64_t n) {
  map<V, gelu_tanh<V>>(x, out, n);
}

template <class V>
void mish_loop(const float* x, float* out, int64_t n) {
  map<V, mish<V>>(x, out, n);
}

template <class V>
void gelu_loop(const float* x, const float* bias, int64_t bias_len, float* out, int64_t n) {
  if (!bias || bias_len <= 0) return map<V, gelu<V>>(x, out, n);
  // One bias-length row at a time, so the bias lines up with the lanes.
  for (int64_t row = 0; row < n; row += bias_len) {
    const int64_t len = n - row < bias_len ? n - row : bias_len;
    const float* xr = x + row;
    float* yr = out + row;
    int64_t i = 0;
    for (; i + V::W <= len; i += V::W)
      V::store(yr + i, gelu<V>(V::add(V::load(xr + i), V::load(bias + i))));
    if (i < len) {
      const int64_t k = len - i;
      V::store_tail(
          yr + i, k,
          gelu<V>(V::add(V::load_tail(xr + i, k, 0.0f), V::load_tail(bias + i, k, 0.0f))));
    }
  }
}

// The largest of x[0..n) in every lane (padded lanes read -inf).
template <class V>
typename V::R row_max(const float* x, int64_t n) {
  const float ninf = -__builtin_inff();
  typename V::R mx = V::set1(ninf);
  int64_t i = 0;
  for (; i + V::W <= n; i += V::W) mx = V::max(mx, V::load(x + i));
  // The ragged end as the last whole vector where there is one (lanes seen
  // twice do not change a maximum): no masked load.
  if (i < n) mx = V::max(mx, i > 0 ? V::load(x + n - V::W) : V::load_tail(x, n, ninf));
  return V::set1(V::hmax(mx));
}

template <class V>
void softmax_row(const float* x, float* out, int64_t n) {
  using R = typename V::R;
  if (n <= 0) return;
  const float ninf = -__builtin_inff();
  // A NaN element need not win max(): its own exp(NaN - m) poisons the sum.
  const R vm = row_max<V>(x, n);
  // The row's last whole vector, read before the loop below may overwrite
  // its first lanes (out may be x).
  const R last = n >= V::W ? V::load(x + n - V::W) : vm;
  int64_t i = 0;
  R sum = V::set1(0.0f);
  for (i = 0; i + V::W <= n; i += V::W) {
    const R e = exp<V>(V::sub(V::load(x + i), vm));
    V::store(out + i, e);
    sum = V::add(sum, e);
  }
  const int64_t full = i;
  if (full == n) {
    const R inv = V::set1(1.0f / V::hsum(sum));
    for (i = 0; i < n; i += V::W) V::store(out + i, V::mul(V::load(out + i), inv));
    return;
  }
  if (full == 0) {  // shorter than one vector
    const R e = exp<V>(V::sub(V::load_tail(x, n, ninf), vm));
    V::store_tail(out, n, V::mul(e, V::set1(1.0f / V::hsum(e))));  // padded lanes hold 0
    return;
  }
  // The ragged end as the row's last whole vector, [n - W, n), stored
  // whole (its lanes before `full` get the values already there) and its new
  // lanes summed from the store; scaled and stored again after the loop
  // below. Masked loads and stores here waited on one another: a 77-wide row
  // took 3.5x the time of an 80-wide one.
  const R e = exp<V>(V::sub(last, vm));
  V::store(out + n - V::W, e);
  float tail_sum = 0.0f;
  for (i = full; i < n; ++i) tail_sum += out[i];
  const R inv = V::set1(1.0f / (V::hsum(sum) + tail_sum));
  for (i = 0; i < full; i += V::W) V::store(out + i, V::mul(V::load(out + i), inv));
  V::store(out + n - V::W, V::mul(e, inv));
}

// out = (x - max) - log(sum(exp(x - max))): the sum pass stores nothing, and
// the shift is subtracted from x - max (not folded into one constant) so
// entries near the maximum keep their small values exactly. NaN, +inf and an
// all -inf row give NaNs, as in softmax_row.
template <class V>
void log_softmax_row(const float* x, float* out, int64_t n) {
  using R = typename V::R;
  if (n <= 0) return;
  const float ninf = -__builtin_inff();
  const R vm = row_max<V>(x, n);
  int64_t i = 0;
  R sum = V::set1(0.0f);
  for (i = 0; i + V::W <= n; i += V::W) sum = V::add(sum, exp<V>(V::sub(V::load(x + i), vm)));
  if (i < n) sum = V::add(sum, exp<V>(V::sub(V::load_tail(x + i, n - i, ninf), vm)));
  const R ls = log<V>(V::set1(V::hsum(sum)));
  for (i = 0; i + V::W <= n; i += V::W) V::store(out + i, V::sub(V::sub(V::load(x + i), vm), ls));
  if (i < n)
    V::store_tail(out + i, n - i, V::sub(V::sub(V::load_tail(x + i, n - i, 0.0f), vm), ls));
}

template <class V>
void layer_norm_row(const float* x, const float* skip, const float* bias, const float* gamma,
                    const float* beta, float eps, float* out, float* sum_out, int64_t n) {
  using R = typename V::R;
  if (n <= 0) return;
  float* v = sum_out ? sum_out : out;
  auto input = [&](int64_t i, int64_t k) {  // x (+ skip) (+ bias) at lanes [i, i + k)
    R a = k == V::W ? V::load(x + i) : V::load_tail(x + i, k, 0.0f);
    if (skip) a = V::add(a, k == V::W ? V::load(skip + i) : V::load_tail(skip + i, k, 0.0f));
    if (bias) a = V::add(a, k == V::W ? V::load(bias + i) : V::load_tail(bias + i, k, 0.0f));
    return a;
  };
  R acc = V::set1(0.0f);
  int64_t i = 0;
  for (; i + V::W <= n; i += V::W) {
    const R a = input(i, V::W);
    V::store(v + i, a);
    acc = V::add(acc, a);
  }
  if (i < n) {
    const R a = input(i, n - i);
    V::store_tail(v + i, n - i, a);
    acc = V::add(acc, a);  // padded lanes are 0
  }
  const float mean = V::hsum(acc) / float(n);
  const R vm = V::set1(mean);
  acc = V::set1(0.0f);
  for (i = 0; i + V::W <= n; i += V::W) {
    const R d = V::sub(V::load(v + i), vm);
    acc = V::fmadd(d, d, acc);
  }
  if (i < n) {
    const R d = V::sub(V::load_tail(v + i, n - i, mean), vm);  // padded lanes give 0
    acc = V::fmadd(d, d, acc);
  }
  const float var = V::hsum(acc) / float(n);
  const R rstd = V::set1(1.0f / __builtin_sqrtf(var + eps));
  auto finish = [&](R a, int64_t i, int64_t k) {
    R g = k == V::W ? V::load(gamma + i) : V::load_tail(gamma + i, k, 0.0f);
    R y = V::mul(V::mul(V::sub(a, vm), rstd), g);
    if (beta) y = V::add(y, k == V::W ? V::load(beta + i) : V::load_tail(beta + i, k, 0.0f));
    return y;
  };
  for (i = 0; i + V::W <= n; i += V::W) V::store(out + i, finish(V::load(v + i), i, V::W));
  if (i < n) V::store_tail(out + i, n - i, finish(V::load_tail(v + i, n - i, 0.0f), i, n - i));
}

template <class V>
inline typename V::R apply(Op op, typename V::R a, typename V::R b) {
  switch (op) {
    case Op::kAdd:
      return V::add(a, b);
    case Op::kSub:
      return V::sub(a, b);
    case Op::kMul:
      return V::mul(a, b);
    default:
      return V::div(a, b);
  }
}

// The op is a template parameter so each loop body is one instruction wide.
template <class V, Op op>
void binary_loop(const float* a, const float* b, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + V::W <= n; i += V::W) V::store(out + i, apply<V>(op, V::load(a + i), V::load(b + i)));
  if (i < n)
    V::store_tail(out + i, n - i,
                  apply<V>(op, V::load_tail(a + i, n - i, 1.0f), V::load_tail(b + i, n - i, 1.0f)));
}

template <class V, Op op>
void scalar_loop(const float* a, float s, bool first, float* out, int64_t n) {
  const typename V::R vs = V::set1(s);
  int64_t i = 0;
  for (; i + V::W <= n; i += V::W) {
    const auto va = V::load(a + i);
    V::store(out + i, first ? apply<V>(op, vs, va) : apply<V>(op, va, vs));
  }
  if (i < n) {
    const auto va = V::load_tail(a + i, n - i, 1.0f);
    V::store_tail(out + i, n - i, first ? apply<V>(op, vs, va) : apply<V>(op, va, vs));
  }
}

// out[r n + j] = a[r n + j] op row[j] (row_first: row[j] op a[r n + j]).
template <class V, Op op>
void rows_loop(const float* a, const float* row, bool first, float* out, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* ar = a + r * n;
    float* o = out + r * n;
    int64_t i = 0;
    for (; i + V::W <= n; i += V::W) {
      const auto va = V::load(ar + i), vr = V::load(row + i);
      V::store(o + i, first ? apply<V>(op, vr, va) : apply<V>(op, va, vr));
    }
    if (i < n) {
      const auto va = V::load_tail(ar + i, n - i, 1.0f), vr = V::load_tail(row + i, n - i, 1.0f);
      V::store_tail(o + i, n - i, first ? apply<V>(op, vr, va) : apply<V>(op, va, vr));
    }
  }
}

template <class V>
void binary_rows(int op, const float* a, const float* row, bool first, float* out, int64_t rows,
                 int64_t n) {
  switch (Op(op)) {
    case Op::kAdd:
      return rows_loop<V, Op::kAdd>(a, row, first, out, rows, n);
    case Op::kSub:
      return rows_loop<V, Op::kSub>(a, row, first, out, rows, n);
    case Op::kMul:
      return rows_loop<V, Op::kMul>(a, row, first, out, rows, n);
    default:
      return rows_loop<V, Op::kDiv>(a, row, first, out, rows, n);
  }
}

template <class V>
void binary(int op, const float* a, const float* b, float* out, int64_t n) {
  switch (Op(op)) {
    case Op::kAdd:
      return binary_loop<V, Op::kAdd>(a, b, out, n);
    case Op::kSub:
      return binary_loop<V, Op::kSub>(a, b, out, n);
    case Op::kMul:
      return binary_loop<V, Op::kMul>(a, b, out, n);
    default:
      return binary_loop<V, Op::kDiv>(a, b, out, n);
  }
}

template <class V>
void binary_scalar(int op, const float* a, float s, bool first, float* out, int64_t n) {
  switch (Op(op)) {
    case Op::kAdd:
      return scalar_loop<V, Op::kAdd>(a, s, first, out, n);
    case Op::kSub:
      return scalar_loop<V, Op::kSub>(a, s, first, out, n);
    case Op::kMul:
      return scalar_loop<V, Op::kMul>(a, s, first, out, n);
    default:
      return scalar_loop<V, Op::kDiv>(a, s, first, out, n);
  }
}

}  // namespace tessera::linalg::detail::vec_impl
