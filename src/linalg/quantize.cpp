#include "linalg/quantize.hpp"

#include <climits>
#include <cmath>

#include "linalg/cpu_isa.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg {

namespace {

// The kernels in use: cpu_isa(), or narrower after set_quantize_isa.
Isa g_isa = cpu_isa();

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

// round_half_even(x / scale) + zp clamped to [lo, hi]; NaN -> 0.
int32_t quantize_one(float x, float scale, float zp, float lo, float hi) {
  const float v = __builtin_nearbyintf(x / scale) + zp;  // nearest, ties to even
  if (std::isnan(v)) return 0;
  return int32_t(v < lo ? lo : v > hi ? hi : v);
}

template <typename Out>
void quantize_portable(const float* x, int64_t n, float scale, float zp, float lo, float hi,
                       Out* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = Out(quantize_one(x[i], scale, zp, lo, hi));
}

void requantize_portable(const int32_t* acc, int64_t n, int64_t bias, float mult, float ys,
                         int32_t yzp, int32_t lo, int32_t hi, uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) {
    const float real = float(int64_t(acc[i]) + bias) * mult;
    const float v = __builtin_nearbyintf(real / ys) + float(yzp);
    // (A NaN cannot arise from finite scales; it would clamp to lo.)
    const int32_t q = std::isnan(v) ? lo
                                    : int32_t(v < float(lo)   ? float(lo)
                                              : v > float(hi) ? float(hi)
                                                              : v);
    y[i] = uint8_t(q);
  }
}

void accumulate_tap_portable(const int16_t* src, int64_t stride, int64_t n, int32_t w,
                             uint32_t* acc) {
  for (int64_t i = 0; i < n; ++i) acc[i] += uint32_t(int32_t(src[i * stride]) * w);
}

void dequantize_portable(const uint8_t* x, bool is_signed, int64_t n, float scale, float zp,
                         float* y) {
  if (is_signed)
    for (int64_t i = 0; i < n; ++i) y[i] = (float(int8_t(x[i])) - zp) * scale;
  else
    for (int64_t i = 0; i < n; ++i) y[i] = (float(x[i]) - zp) * scale;
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
  // The lanes and the tail, through the portable loop (GCC 12's reduce
  // intrinsics trip -Wuninitialized).
  alignas(64) float lanes[32];
  _mm512_store_ps(lanes, mn);
  _mm512_store_ps(lanes + 16, mx);
  float lane_lo = 0.f, lane_hi = 0.f, tail_lo = 0.f, tail_hi = 0.f, unused = 0.f;
  min_max_portable(lanes, 16, &lane_lo, &unused);       // the minima
  min_max_portable(lanes + 16, 16, &unused, &lane_hi);  // the maxima
  min_max_portable(x + i, n - i, &tail_lo, &tail_hi);
  *lo = tail_lo < lane_lo ? tail_lo : lane_lo;
  *hi = tail_hi > lane_hi ? tail_hi : lane_hi;
}

template <typename Out>
__attribute__((target("avx512f"))) void quantize_avx512(const float* x, int64_t n, float scale,
                                                        float zp, float lo, float hi, Out* y) {
  const __m512 s = _mm512_set1_ps(scale);
  // x / scale is clamped to +-512 first, rounded to the nearest integer,
  // ties to even (the default rounding mode, as nearbyint uses), and
  // saturated in integers; NaN lanes are set to 0 at the end.
  const __m512 far_lo = _mm512_set1_ps(-512.f), far_hi = _mm512_set1_ps(512.f);
  const __m512i z = _mm512_set1_epi32(int(zp)), bottom = _mm512_set1_epi32(int(lo)),
                top = _mm512_set1_epi32(int(hi)), zero = _mm512_setzero_si512();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_div_ps(_mm512_loadu_ps(x + i), s);
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    v = _mm512_min_ps(_mm512_max_ps(v, far_lo), far_hi);
    __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(v), z);
    q = _mm512_mask_mov_epi32(_mm512_min_epi32(_mm512_max_epi32(q, bottom), top), nan, zero);
    // The low byte of each lane: the value for uint8, two's complement for int8.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(q));
  }
  quantize_portable(x + i, n - i, scale, zp, lo, hi, y + i);
}
__attribute__((target("avx512f,fma"))) void requantize_avx512(const int32_t* acc, int64_t n,
                                                              int64_t bias, float mult, float ys,
                                                              int32_t yzp, int32_t lo, int32_t hi,
                                                              uint8_t* y) {
  // acc + bias in double is exact (|sum| < 2^53), and rounding it to float
  // is rounding the exact sum, as float(int64) does; so is int32's when the
  // sum fits it.
  const __m512d b = _mm512_set1_pd(double(bias));
  const __m512 m = _mm512_set1_ps(mult), s = _mm512_set1_ps(ys);
  const __m512 far_lo = _mm512_set1_ps(-1e9f), far_hi = _mm512_set1_ps(1e9f);
  const __m512i z = _mm512_set1_epi32(yzp), bottom = _mm512_set1_epi32(lo),
                top = _mm512_set1_epi32(hi);
  int64_t i = 0;
  const bool bias_fits = bias >= INT32_MIN && bias <= INT32_MAX;
  const __m512i bi = _mm512_set1_epi32(int32_t(bias_fits ? bias : 0)),
                zero = _mm512_setzero_si512();
  // For sums that fit int32 and scales within [2^-40, 2^40], the division
  // by ys is a multiplication by its inverse corrected with one FMA
  // (Markstein: see igemm_kernel_vnni.cpp's requant16), the same float: no
  // overflow, underflow or subnormal can arise on the way. A division a
  // vector cost more than the rest of the loop on AVX-512 machines that
  // split 512-bit operations.
  auto moderate = [](float v) {
    const float mag = std::fabs(v);
    return mag >= 0x1p-40f && mag <= 0x1p40f;
  };
  const bool corrected = moderate(ys) && (mult == 0.0f || moderate(mult));
  const __m512 inv = _mm512_set1_ps(1.0f / ys);
  for (; i + 16 <= n; i += 16) {
    const __m512i a = _mm512_loadu_si512(acc + i);
    // acc + bias in int32, converted to float (rounded once, as from the
    // exact sum) unless a lane overflowed: then in double, as below.
    const __m512i sum = _mm512_add_epi32(a, bi);
    const __mmask16 overflow = _mm512_cmplt_epi32_mask(
        _mm512_and_si512(_mm512_xor_si512(a, sum), _mm512_xor_si512(bi, sum)), zero);
    __m512 real;
    if (bias_fits && overflow == 0) {
      real = _mm512_cvtepi32_ps(sum);
      if (corrected) {
        real = _mm512_mul_ps(real, m);
        const __m512 x0 = _mm512_mul_ps(real, inv);
        real = _mm512_fmadd_ps(_mm512_fnmadd_ps(x0, s, real), inv, x0);
        real = _mm512_min_ps(_mm512_max_ps(real, far_lo), far_hi);  // int32-safe
        __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(real), z);
        q = _mm512_min_epi32(_mm512_max_epi32(q, bottom), top);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(q));
        continue;
      }
    } else {
      const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i));
      const __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i + 8));
      const __m256 f0 = _mm512_cvtpd_ps(_mm512_add_pd(_mm512_cvtepi32_pd(a0), b));
      const __m256 f1 = _mm512_cvtpd_ps(_mm512_add_pd(_mm512_cvtepi32_pd(a1), b));
      real = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(f0)),
                                                 _mm256_castps_pd(f1), 1));
    }
    real = _mm512_div_ps(_mm512_mul_ps(real, m), s);
    real = _mm512_min_ps(_mm512_max_ps(real, far_lo), far_hi);  // int32-safe
    __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(real), z);
    q = _mm512_min_epi32(_mm512_max_epi32(q, bottom), top);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(q));
  }
  requantize_portable(acc + i, n - i, bias, mult, ys, yzp, lo, hi, y + i);
}
__attribute__((target("avx512f"))) void dequantize_avx512(const uint8_t* x, bool is_signed,
                                                          int64_t n, float scale, float zp,
                                                          float* y) {
  const __m512 s = _mm512_set1_ps(scale), z = _mm512_set1_ps(zp);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    const __m512i wide = is_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
    _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(wide), z), s));
  }
  dequantize_portable(x + i, is_signed, n - i, scale, zp, y + i);
}

// Stride 1: 16 int16 widened per step. Stride 2: 32 int16 loaded, the even
// ones (each 32-bit lane's low half) sign-extended in place.
__attribute__((target("avx512f,avx512bw"))) void accumulate_tap_avx512(const int16_t* src,
                                                                       int64_t stride, int64_t n,
                                                                       int32_t w, uint32_t* acc) {
  const __m512i wv = _mm512_set1_epi32(w);
  int64_t i = 0;
  if (stride == 1) {
    for (; i + 16 <= n; i += 16) {
      const __m512i x =
          _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
      const __m512i a = _mm512_loadu_si512(acc + i);
      _mm512_storeu_si512(acc + i, _mm512_add_epi32(a, _mm512_mullo_epi32(x, wv)));
    }
  } else if (stride == 2) {
    for (; i + 16 <= n; i += 16) {
      const __m512i pairs = _mm512_loadu_si512(src + 2 * i);
      const __m512i x = _mm512_srai_epi32(_mm512_slli_epi32(pairs, 16), 16);
      const __m512i a = _mm512_loadu_si512(acc + i);
      _mm512_storeu_si512(acc + i, _mm512_add_epi32(a, _mm512_mullo_epi32(x, wv)));
    }
  }
  accumulate_tap_portable(src + i * stride, stride, n - i, w, acc + i);
}
// 64 bytes a step: two 128-entry byte permutes (each picks by the low 7 bits
// from its half of the table), the index's top bit choosing between them.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookup_vbmi(const uint8_t* x, int64_t n,
                                                                        const uint8_t* table,
                                                                        uint8_t* y) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i v = _mm512_loadu_si512(x + i);
    const __m512i low = _mm512_permutex2var_epi8(t0, v, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, v, t3);
    _mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), low, high));
  }
  for (; i < n; ++i) y[i] = table[x[i]];
}

// The AVX2 forms of the loops above, eight lanes a step, for CPUs without
// AVX-512; each gives the portable loop's results bit for bit.
#define TESSERA_AVX2 __attribute__((target("avx2,fma")))

TESSERA_AVX2 void min_max_avx2(const float* x, int64_t n, float* lo, float* hi) {
  __m256 mn = _mm256_setzero_ps(), mx = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    mn = _mm256_min_ps(v, mn);  // a NaN in v leaves the running value (see min_max_avx512)
    mx = _mm256_max_ps(v, mx);
  }
  alignas(32) float lanes[16];
  _mm256_store_ps(lanes, mn);
  _mm256_store_ps(lanes + 8, mx);
  float lane_lo = 0.f, lane_hi = 0.f, tail_lo = 0.f, tail_hi = 0.f, unused = 0.f;
  min_max_portable(lanes, 8, &lane_lo, &unused);
  min_max_portable(lanes + 8, 8, &unused, &lane_hi);
  min_max_portable(x + i, n - i, &tail_lo, &tail_hi);
  *lo = tail_lo < lane_lo ? tail_lo : lane_lo;
  *hi = tail_hi > lane_hi ? tail_hi : lane_hi;
}

// The low byte of each of q's eight int32 lanes, stored as eight bytes.
TESSERA_AVX2 inline void store_low_bytes(__m256i q, void* y) {
  const __m256i pick =
      _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i b = _mm256_shuffle_epi8(q, pick);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(y),
                   _mm_unpacklo_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1)));
}

template <typename Out>
TESSERA_AVX2 void quantize_avx2(const float* x, int64_t n, float scale, float zp, float lo,
                                float hi, Out* y) {
  // As quantize_avx512: clamped to +-512, rounded to nearest even, saturated
  // in integers, NaN lanes 0.
  const __m256 s = _mm256_set1_ps(scale);
  const __m256 far_lo = _mm256_set1_ps(-512.f), far_hi = _mm256_set1_ps(512.f);
  const __m256i z = _mm256_set1_epi32(int(zp)), bottom = _mm256_set1_epi32(int(lo)),
                top = _mm256_set1_epi32(int(hi));
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_div_ps(_mm256_loadu_ps(x + i), s);
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    v = _mm256_min_ps(_mm256_max_ps(v, far_lo), far_hi);
    __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), z);
    q = _mm256_andnot_si256(nan, _mm256_min_epi32(_mm256_max_epi32(q, bottom), top));
    store_low_bytes(q, y + i);
  }
  quantize_portable(x + i, n - i, scale, zp, lo, hi, y + i);
}

TESSERA_AVX2 void requantize_avx2(const int32_t* acc, int64_t n, int64_t bias, float mult, float ys,
                                  int32_t yzp, int32_t lo, int32_t hi, uint8_t* y) {
  // As requantize_avx512: the sum in int32 unless a lane overflows (then in
  // double, exact), the division by ys as the corrected product by its
  // inverse where the scales allow.
  const __m256d b = _mm256_set1_pd(double(bias));
  const __m256 m = _mm256_set1_ps(mult), s = _mm256_set1_ps(ys);
  const __m256 far_lo = _mm256_set1_ps(-1e9f), far_hi = _mm256_set1_ps(1e9f);
  const __m256i z = _mm256_set1_epi32(yzp), bottom = _mm256_set1_epi32(lo),
                top = _mm256_set1_epi32(hi);
  const bool bias_fits = bias >= INT32_MIN && bias <= INT32_MAX;
  const __m256i bi = _mm256_set1_epi32(int32_t(bias_fits ? bias : 0));
  auto moderate = [](float v) {
    const float mag = std::fabs(v);
    return mag >= 0x1p-40f && mag <= 0x1p40f;
  };
  const bool corrected = moderate(ys) && (mult == 0.0f || moderate(mult));
  const __m256 inv = _mm256_set1_ps(1.0f / ys);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i));
    const __m256i sum = _mm256_add_epi32(a, bi);
    // Signed overflow: a and bias share a sign that the sum lacks.
    const int overflow = _mm256_movemask_ps(
        _mm256_castsi256_ps(_mm256_and_si256(_mm256_xor_si256(a, sum), _mm256_xor_si256(bi, sum))));
    __m256 real;
    if (bias_fits && overflow == 0) {
      real = _mm256_cvtepi32_ps(sum);
      if (corrected) {
        real = _mm256_mul_ps(real, m);
        const __m256 x0 = _mm256_mul_ps(real, inv);
        real = _mm256_fmadd_ps(_mm256_fnmadd_ps(x0, s, real), inv, x0);
        real = _mm256_min_ps(_mm256_max_ps(real, far_lo), far_hi);
        __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(real), z);
        store_low_bytes(_mm256_min_epi32(_mm256_max_epi32(q, bottom), top), y + i);
        continue;
      }
    } else {
      const __m128 f0 =
          _mm256_cvtpd_ps(_mm256_add_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(a)), b));
      const __m128 f1 =
          _mm256_cvtpd_ps(_mm256_add_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(a, 1)), b));
      real = _mm256_insertf128_ps(_mm256_castps128_ps256(f0), f1, 1);
    }
    real = _mm256_div_ps(_mm256_mul_ps(real, m), s);
    real = _mm256_min_ps(_mm256_max_ps(real, far_lo), far_hi);
    __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(real), z);
    store_low_bytes(_mm256_min_epi32(_mm256_max_epi32(q, bottom), top), y + i);
  }
  requantize_portable(acc + i, n - i, bias, mult, ys, yzp, lo, hi, y + i);
}

TESSERA_AVX2 void dequantize_avx2(const uint8_t* x, bool is_signed, int64_t n, float scale,
                                  float zp, float* y) {
  const __m256 s = _mm256_set1_ps(scale), z = _mm256_set1_ps(zp);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i));
    const __m256i wide = is_signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(wide), z), s));
  }
  dequantize_portable(x + i, is_signed, n - i, scale, zp, y + i);
}

TESSERA_AVX2 inline void add_products(__m256i x, __m256i w, uint32_t* acc) {
  __m256i* p = reinterpret_cast<__m256i*>(acc);
  _mm256_storeu_si256(p, _mm256_add_epi32(_mm256_loadu_si256(p), _mm256_mullo_epi32(x, w)));
}

// As accumulate_tap_avx512, eight lanes a step.
TESSERA_AVX2 void accumulate_tap_avx2(const int16_t* src, int64_t stride, int64_t n, int32_t w,
                                      uint32_t* acc) {
  const __m256i wv = _mm256_set1_epi32(w);
  int64_t i = 0;
  if (stride == 1) {
    for (; i + 8 <= n; i += 8)
      add_products(
          _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))), wv,
          acc + i);
  } else if (stride == 2) {
    for (; i + 8 <= n; i += 8) {
      const __m256i pairs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * i));
      add_products(_mm256_srai_epi32(_mm256_slli_epi32(pairs, 16), 16), wv, acc + i);
    }
  }
  accumulate_tap_portable(src + i * stride, stride, n - i, w, acc + i);
}
#undef TESSERA_AVX2

bool vbmi_available() {
  __builtin_cpu_init();
  static const bool cpu =
      __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  return cpu && g_isa == Isa::kAvx512;
}
#pragma GCC diagnostic pop
#endif

bool use_avx512() {
#if defined(__x86_64__)
  return g_isa == Isa::kAvx512;
#else
  return false;
#endif
}

bool use_avx2() {
#if defined(__x86_64__)
  return g_isa == Isa::kAvx2;
#else
  return false;
#endif
}

}  // namespace

Isa set_quantize_isa(Isa want) {
  const Isa was = g_isa;
  const Isa cpu = cpu_isa();
  g_isa = int(want) < int(cpu) ? want : cpu;
  return was;
}

void min_max_with_zero(const float* x, int64_t n, float* lo, float* hi) {
#if defined(__x86_64__)
  if (use_avx512()) return min_max_avx512(x, n, lo, hi);
  if (use_avx2()) return min_max_avx2(x, n, lo, hi);
#endif
  min_max_portable(x, n, lo, hi);
}

void quantize_u8(const float* x, int64_t n, float scale, float zero_point, uint8_t* y) {
#if defined(__x86_64__)
  if (use_avx512()) return quantize_avx512(x, n, scale, zero_point, 0.f, 255.f, y);
  if (use_avx2()) return quantize_avx2(x, n, scale, zero_point, 0.f, 255.f, y);
#endif
  quantize_portable(x, n, scale, zero_point, 0.f, 255.f, y);
}

void requantize(const int32_t* acc, int64_t n, int64_t bias, float multiplier, float y_scale,
                int32_t y_zero_point, int32_t lo, int32_t hi, uint8_t* y) {
#if defined(__x86_64__)
  if (use_avx512())
    return requantize_avx512(acc, n, bias, multiplier, y_scale, y_zero_point, lo, hi, y);
  if (use_avx2())
    return requantize_avx2(acc, n, bias, multiplier, y_scale, y_zero_point, lo, hi, y);
#endif
  requantize_portable(acc, n, bias, multiplier, y_scale, y_zero_point, lo, hi, y);
}

void accumulate_tap_s16(const int16_t* src, int64_t stride, int64_t n, int32_t w, uint32_t* acc) {
#if defined(__x86_64__)
  if (use_avx512()) return accumulate_tap_avx512(src, stride, n, w, acc);
  if (use_avx2()) return accumulate_tap_avx2(src, stride, n, w, acc);
#endif
  accumulate_tap_portable(src, stride, n, w, acc);
}

void dequantize_8bit(const uint8_t* x, bool is_signed, int64_t n, float scale, float zero_point,
                     float* y) {
#if defined(__x86_64__)
  if (use_avx512()) return dequantize_avx512(x, is_signed, n, scale, zero_point, y);
  if (use_avx2()) return dequantize_avx2(x, is_signed, n, scale, zero_point, y);
#endif
  dequantize_portable(x, is_signed, n, scale, zero_point, y);
}

void quantize_s8(const float* x, int64_t n, float scale, float zero_point, int8_t* y) {
#if defined(__x86_64__)
  if (use_avx512()) return quantize_avx512(x, n, scale, zero_point, -128.f, 127.f, y);
  if (use_avx2()) return quantize_avx2(x, n, scale, zero_point, -128.f, 127.f, y);
#endif
  quantize_portable(x, n, scale, zero_point, -128.f, 127.f, y);
}

void lookup_8bit(const uint8_t* x, int64_t n, const uint8_t* table, uint8_t* y) {
#if defined(__x86_64__)
  if (vbmi_available()) return lookup_vbmi(x, n, table, y);
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

}  // namespace tessera::linalg
