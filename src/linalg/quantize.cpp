#include "linalg/quantize.hpp"

#include <cmath>

#include "linalg/cpu_isa.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg {

namespace {

// NaN compares false, so it leaves lo/hi alone (as the vector min/max do).
void min_max_portable(const float* x, int64_t n, float* lo, float* hi) {
  float mn = 0.f, mx = 0.f;
  for (int64_t i = 0; i < n; ++i) {
    mn = x[i] < mn ? x[i] : mn;
    mx = x[i] > mx ? x[i] : mx;
  }
  *lo = mn;
  *hi = mx;
}

uint8_t quantize_one(float x, float scale, float zp) {
  const float v = __builtin_nearbyintf(x / scale) + zp;  // nearest, ties to even
  if (!(v > 0.f)) return 0;                              // NaN too
  return v >= 255.f ? 255 : uint8_t(v);
}

void quantize_portable(const float* x, int64_t n, float scale, float zp, uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = quantize_one(x[i], scale, zp);
}

#if defined(__x86_64__)
// GCC 12 flags the deliberately undefined pass-through operand inside its own
// AVX-512 intrinsics (_mm512_undefined_*) once they are inlined: a false
// positive, as in vec_avx512.cpp.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
__attribute__((target("avx512f"))) void min_max_avx512(const float* x, int64_t n, float* lo,
                                                       float* hi) {
  __m512 mn = _mm512_setzero_ps(), mx = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    // min/max return their second operand when either is NaN: a NaN in v
    // leaves the running value.
    mn = _mm512_min_ps(v, mn);
    mx = _mm512_max_ps(v, mx);
  }
  // The lanes, then the tail, through the portable loop (GCC 12's reduce
  // intrinsics trip -Wuninitialized).
  alignas(64) float lanes[32];
  _mm512_store_ps(lanes, mn);
  _mm512_store_ps(lanes + 16, mx);
  float l = 0.f, h = 0.f, tl = 0.f, th = 0.f;
  min_max_portable(lanes, 16, &l, &th);
  min_max_portable(lanes + 16, 16, &tl, &h);
  min_max_portable(x + i, n - i, &tl, &th);
  *lo = tl < l ? tl : l;
  *hi = th > h ? th : h;
}

__attribute__((target("avx512f"))) void quantize_avx512(const float* x, int64_t n, float scale,
                                                        float zp, uint8_t* y) {
  const __m512 s = _mm512_set1_ps(scale);
  // x / scale is clamped to +-512 first (max(NaN, -512) is -512, so NaN
  // ends at 0), rounded to the nearest integer, ties to even (the default
  // rounding mode, as nearbyint uses), and saturated in integers.
  const __m512 far_lo = _mm512_set1_ps(-512.f), far_hi = _mm512_set1_ps(512.f);
  const __m512i z = _mm512_set1_epi32(int(zp)), zero = _mm512_setzero_si512(),
                top = _mm512_set1_epi32(255);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_div_ps(_mm512_loadu_ps(x + i), s);
    v = _mm512_min_ps(_mm512_max_ps(v, far_lo), far_hi);
    __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(v), z);
    q = _mm512_min_epi32(_mm512_max_epi32(q, zero), top);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(q));
  }
  quantize_portable(x + i, n - i, scale, zp, y + i);
}
#pragma GCC diagnostic pop
#endif

bool use_avx512() {
#if defined(__x86_64__)
  return cpu_isa() == Isa::kAvx512;
#else
  return false;
#endif
}

}  // namespace

void min_max_with_zero(const float* x, int64_t n, float* lo, float* hi) {
#if defined(__x86_64__)
  if (use_avx512()) return min_max_avx512(x, n, lo, hi);
#endif
  min_max_portable(x, n, lo, hi);
}

void quantize_u8(const float* x, int64_t n, float scale, float zero_point, uint8_t* y) {
#if defined(__x86_64__)
  if (use_avx512()) return quantize_avx512(x, n, scale, zero_point, y);
#endif
  quantize_portable(x, n, scale, zero_point, y);
}

}  // namespace tessera::linalg
