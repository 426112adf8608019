#include "linalg/half_convert.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/float16.hpp"

namespace tessera::linalg {

namespace {

Isa usable(Isa want) { return want < cpu_isa_supported() ? want : cpu_isa_supported(); }

#if defined(__x86_64__)
bool has_f16c() {
  static const bool yes = __builtin_cpu_supports("f16c");
  return yes;
}

__attribute__((target("avx,f16c"))) int64_t to_halves_f16c(const float* x, uint16_t* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), h);
  }
  return i;
}

__attribute__((target("avx,f16c"))) int64_t to_floats_f16c(const uint16_t* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
  return i;
}
#endif

// BFloat16::from_float without its branch, so the loop vectorises.
[[gnu::always_inline]] inline void to_bfloats_body(const float* __restrict x,
                                                   uint16_t* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, x + i, 4);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (u >> 16) | 0x40u;
    y[i] = uint16_t((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
}

[[gnu::always_inline]] inline void from_bfloats_body(const uint16_t* __restrict x,
                                                     float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t u = uint32_t(x[i]) << 16;
    std::memcpy(y + i, &u, 4);
  }
}

void to_bfloats_generic(const float* x, uint16_t* y, int64_t n) { to_bfloats_body(x, y, n); }
void from_bfloats_generic(const uint16_t* x, float* y, int64_t n) { from_bfloats_body(x, y, n); }

#if defined(__x86_64__)
__attribute__((target("avx2"))) void to_bfloats_avx2(const float* x, uint16_t* y, int64_t n) {
  to_bfloats_body(x, y, n);
}
__attribute__((target("avx2"))) void from_bfloats_avx2(const uint16_t* x, float* y, int64_t n) {
  from_bfloats_body(x, y, n);
}
__attribute__((target("avx512f,avx512bw"))) void to_bfloats_avx512(const float* x, uint16_t* y,
                                                                   int64_t n) {
  to_bfloats_body(x, y, n);
}
__attribute__((target("avx512f,avx512bw"))) void from_bfloats_avx512(const uint16_t* x, float* y,
                                                                     int64_t n) {
  from_bfloats_body(x, y, n);
}
#endif

template <typename From, typename To>
using ConvertFn = void (*)(const From*, To*, int64_t);

ConvertFn<float, uint16_t> pick_to_bfloats(Isa isa) {
#if defined(__x86_64__)
  if (isa >= Isa::kAvx512) return to_bfloats_avx512;
  if (isa >= Isa::kAvx2) return to_bfloats_avx2;
#endif
  (void)isa;
  return to_bfloats_generic;
}

ConvertFn<uint16_t, float> pick_from_bfloats(Isa isa) {
#if defined(__x86_64__)
  if (isa >= Isa::kAvx512) return from_bfloats_avx512;
  if (isa >= Isa::kAvx2) return from_bfloats_avx2;
#endif
  (void)isa;
  return from_bfloats_generic;
}

}  // namespace

void floats_to_halves(const float* x, uint16_t* y, int64_t n, Isa isa) {
  int64_t i = 0;
#if defined(__x86_64__)
  if (usable(isa) != Isa::kPortable && has_f16c()) i = to_halves_f16c(x, y, n);
#else
  (void)isa;
#endif
  for (; i < n; ++i) y[i] = Float16::from_float(x[i]);
}

void halves_to_floats(const uint16_t* x, float* y, int64_t n, Isa isa) {
  int64_t i = 0;
#if defined(__x86_64__)
  if (usable(isa) != Isa::kPortable && has_f16c()) i = to_floats_f16c(x, y, n);
#else
  (void)isa;
#endif
  for (; i < n; ++i) y[i] = Float16::to_float(x[i]);
}

void floats_to_bfloats(const float* x, uint16_t* y, int64_t n, Isa isa) {
  pick_to_bfloats(usable(isa))(x, y, n);
}

void bfloats_to_floats(const uint16_t* x, float* y, int64_t n, Isa isa) {
  pick_from_bfloats(usable(isa))(x, y, n);
}

void floats_to_halves(const float* x, uint16_t* y, int64_t n) {
  floats_to_halves(x, y, n, cpu_isa());
}

void halves_to_floats(const uint16_t* x, float* y, int64_t n) {
  halves_to_floats(x, y, n, cpu_isa());
}

void floats_to_bfloats(const float* x, uint16_t* y, int64_t n) {
  static const ConvertFn<float, uint16_t> fn = pick_to_bfloats(cpu_isa());
  fn(x, y, n);
}

void bfloats_to_floats(const uint16_t* x, float* y, int64_t n) {
  static const ConvertFn<uint16_t, float> fn = pick_from_bfloats(cpu_isa());
  fn(x, y, n);
}

}  // namespace tessera::linalg
