// AVX2 row-vector products over an unpacked matrix (gemm_microkernel.hpp has
// the contract). Compiled for avx2,fma via the target attribute so the rest
// of the build stays generic.
#include "linalg/cpu_isa.hpp"
#include "linalg/gemm_microkernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg::detail {

#if defined(__x86_64__)
namespace {

__attribute__((target("avx2,fma"))) float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Four rows per pass share each load of `a`, two 8-wide k steps in flight
// per row (eight FMA chains); the last kc % 8 values are summed in scalars.
__attribute__((target("avx2,fma"))) void dot_rows(int64_t kc, const float* a, const float* b,
                                                  int64_t ldb, int64_t n, float* out) {
  const int64_t kv = kc / 8 * 8;
  int64_t j = 0;
  for (; j + 3 < n; j += 4) {
    const float* r = b + j * ldb;
    __m256 s0[4], s1[4];
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) s0[u] = s1[u] = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 15 < kc; k += 16) {
      const __m256 a0 = _mm256_loadu_ps(a + k), a1 = _mm256_loadu_ps(a + k + 8);
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) {
        s0[u] = _mm256_fmadd_ps(a0, _mm256_loadu_ps(r + u * ldb + k), s0[u]);
        s1[u] = _mm256_fmadd_ps(a1, _mm256_loadu_ps(r + u * ldb + k + 8), s1[u]);
      }
    }
    if (k < kv) {
      const __m256 a0 = _mm256_loadu_ps(a + k);
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u)
        s0[u] = _mm256_fmadd_ps(a0, _mm256_loadu_ps(r + u * ldb + k), s0[u]);
    }
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) {
      float s = hsum(_mm256_add_ps(s0[u], s1[u]));
      for (int64_t t = kv; t < kc; ++t) s += a[t] * r[u * ldb + t];
      out[j + u] = s;
    }
  }
  for (; j < n; ++j) {
    const float* r = b + j * ldb;
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 15 < kc; k += 16) {
      s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(r + k), s0);
      s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k + 8), _mm256_loadu_ps(r + k + 8), s1);
    }
    if (k < kv) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(r + k), s0);
    float s = hsum(_mm256_add_ps(s0, s1));
    for (int64_t t = kv; t < kc; ++t) s += a[t] * r[t];
    out[j] = s;
  }
}

// 32 columns per pass in four ymm sums, two k steps in flight (eight
// chains); the last n % 32 columns go through the same loop 8 at a time,
// then in scalars.
__attribute__((target("avx2,fma"))) void axpy_rows(int64_t kc, const float* a, const float* b,
                                                   int64_t ldb, int64_t n, float* out) {
  int64_t j = 0;
  for (; j + 31 < n; j += 32) {
    __m256 s0[4], s1[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) s0[v] = s1[v] = _mm256_setzero_ps();
    const float* col = b + j;
    int64_t k = 0;
    for (; k + 1 < kc; k += 2) {
      const __m256 a0 = _mm256_broadcast_ss(a + k), a1 = _mm256_broadcast_ss(a + k + 1);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        s0[v] = _mm256_fmadd_ps(a0, _mm256_loadu_ps(col + k * ldb + 8 * v), s0[v]);
        s1[v] = _mm256_fmadd_ps(a1, _mm256_loadu_ps(col + (k + 1) * ldb + 8 * v), s1[v]);
      }
    }
    if (k < kc) {
      const __m256 a0 = _mm256_broadcast_ss(a + k);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v)
        s0[v] = _mm256_fmadd_ps(a0, _mm256_loadu_ps(col + k * ldb + 8 * v), s0[v]);
    }
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) _mm256_storeu_ps(out + j + 8 * v, _mm256_add_ps(s0[v], s1[v]));
  }
  for (; j + 7 < n; j += 8) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 1 < kc; k += 2) {
      s0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + k), _mm256_loadu_ps(b + k * ldb + j), s0);
      s1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + k + 1), _mm256_loadu_ps(b + (k + 1) * ldb + j),
                           s1);
    }
    if (k < kc)
      s0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + k), _mm256_loadu_ps(b + k * ldb + j), s0);
    _mm256_storeu_ps(out + j, _mm256_add_ps(s0, s1));
  }
  for (; j < n; ++j) {
    float s = 0.f;
    for (int64_t k = 0; k < kc; ++k) s += a[k] * b[k * ldb + j];
    out[j] = s;
  }
}

}  // namespace

bool row_dot_rows_avx2(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t n,
                       float* out) {
  if (cpu_isa() < Isa::kAvx2) return false;
  dot_rows(kc, a, b, ldb, n, out);
  return true;
}

bool row_times_cols_avx2(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t n,
                         float* out) {
  if (cpu_isa() < Isa::kAvx2) return false;
  axpy_rows(kc, a, b, ldb, n, out);
  return true;
}

#else
bool row_dot_rows_avx2(int64_t, const float*, const float*, int64_t, int64_t, float*) {
  return false;
}
bool row_times_cols_avx2(int64_t, const float*, const float*, int64_t, int64_t, float*) {
  return false;
}
#endif

}  // namespace tessera::linalg::detail
