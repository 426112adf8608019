// Requantization of 16 exact int32 sums into bytes in AVX-512 registers, as
// linalg::requantize computes it (the reference's two roundings), shared by
// the 8-bit tiles (igemm_kernel_vnni.cpp) and the depthwise kernel
// (depthwise_vnni.cpp). Inline, with target attributes: include only from
// files that dispatch on the CPU (x86-64).
#pragma once
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#include "linalg/igemm_kernel.hpp"

namespace tessera::linalg::detail {

// GCC 12 flags the deliberately undefined pass-through operand inside its own
// AVX-512 intrinsics (_mm512_undefined_*) once they are inlined: a false
// positive, as in quantize.cpp.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// The requantization's constants, broadcast once a tile.
struct RequantConsts {
  __m512 inv, ys, bottom, top;
  __m512i z;
  IgemmSaturate saturate;
};

__attribute__((target("avx512f"))) inline RequantConsts requant_consts(float y_scale,
                                                                       float inv_scale,
                                                                       int32_t y_zero, int32_t lo,
                                                                       int32_t hi,
                                                                       IgemmSaturate saturate) {
  return {_mm512_set1_ps(inv_scale),          _mm512_set1_ps(y_scale),
          _mm512_set1_ps(float(lo - y_zero)), _mm512_set1_ps(float(hi - y_zero)),
          _mm512_set1_epi32(y_zero),          saturate};
}

// 16 exact sums (bias included) requantized into 16 bytes. The division by
// y_scale is a multiplication by its inverse corrected with one fused
// multiply-add (Markstein): with inv = RN(1 / y_scale) and x = RN(real * inv)
// within an ulp of the quotient, the remainder real - x * y_scale is exact
// in an FMA and x + remainder * inv rounds to the correctly rounded
// quotient, the float the reference's division gives. The driver keeps
// every scale within [2^-40, 2^40] (no overflow, underflow or subnormal on
// the way). Clamping: before the rounding to [lo - z, hi - z] in float
// (which equals clamping after it: integer bounds, and keeps the conversion
// in range), or, for a whole 8-bit range with every quotient below 2^30 in
// size (IgemmSaturate), by the saturating narrowings themselves.
// S: the clamping (an IgemmSaturate) fixed at compile time, or kAnyClamp to
// read k.saturate (edge tiles): a branch per vector cost the full tiles of
// shallow products (K of 16-64) a tenth of their time.
constexpr int kAnyClamp = -1;

template <int S>
__attribute__((target("avx512f,avx512bw,fma"))) inline __m128i requant16(__m512i sum, __m512 mult,
                                                                         const RequantConsts& k) {
  const __m512 real = _mm512_mul_ps(_mm512_cvtepi32_ps(sum), mult);
  const __m512 x0 = _mm512_mul_ps(real, k.inv);
  const __m512 rem = _mm512_fnmadd_ps(x0, k.ys, real);  // real - x0 * ys, exact
  __m512 x = _mm512_fmadd_ps(rem, k.inv, x0);
  const IgemmSaturate mode = S == kAnyClamp ? k.saturate : IgemmSaturate(S);
  if (mode == IgemmSaturate::kNone) {
    x = _mm512_min_ps(_mm512_max_ps(x, k.bottom), k.top);
    return _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(x), k.z));
  }
  const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(x), k.z);
  if (mode == IgemmSaturate::kUnsigned8)
    return _mm512_cvtusepi32_epi8(_mm512_max_epi32(q, _mm512_setzero_si512()));
  return _mm512_cvtsepi32_epi8(q);
}

#pragma GCC diagnostic pop

}  // namespace tessera::linalg::detail
#endif
