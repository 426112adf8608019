#include "linalg/half_convert.hpp"

#include <immintrin.h>

#include "core/float16.hpp"
#include "linalg/cpu_isa.hpp"

namespace tessera::linalg {

namespace {

bool has_f16c() {
  static const bool yes = cpu_isa() != Isa::kPortable && __builtin_cpu_supports("f16c");
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

}  // namespace

void floats_to_halves(const float* x, uint16_t* y, int64_t n) {
  int64_t i = has_f16c() ? to_halves_f16c(x, y, n) : 0;
  for (; i < n; ++i) y[i] = Float16::from_float(x[i]);
}

void halves_to_floats(const uint16_t* x, float* y, int64_t n) {
  int64_t i = has_f16c() ? to_floats_f16c(x, y, n) : 0;
  for (; i < n; ++i) y[i] = Float16::to_float(x[i]);
}

}  // namespace tessera::linalg
