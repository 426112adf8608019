// AVX-512 row-vector products over an unpacked matrix (gemm_microkernel.hpp
// has the contract). Compiled for avx512f via the target attribute so the
// rest of the build stays generic.
#include "linalg/cpu_isa.hpp"
#include "linalg/gemm_microkernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg::detail {

#if defined(__x86_64__)
namespace {

__mmask16 lanes(int64_t n) { return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1u); }

// GCC 12's avx512fintrin.h fills unused merge operands from variables it
// leaves undefined on purpose, which -Wmaybe-uninitialized reports.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
__attribute__((target("avx512f,fma"))) float hsum(__m512 v) { return _mm512_reduce_add_ps(v); }
#pragma GCC diagnostic pop

// Four rows per pass share each load of `a`, and two 16-wide k steps are in
// flight per row: eight independent FMA chains cover the FMA latency on both
// ports, where one chain per row waited on each FMA's result.
__attribute__((target("avx512f,fma"))) void dot_rows(int64_t kc, const float* a, const float* b,
                                                     int64_t ldb, int64_t n, float* out) {
  int64_t j = 0;
  for (; j + 3 < n; j += 4) {
    const float* r = b + j * ldb;
    __m512 s0[4], s1[4];
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) s0[u] = s1[u] = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k + 31 < kc; k += 32) {
      const __m512 a0 = _mm512_loadu_ps(a + k), a1 = _mm512_loadu_ps(a + k + 16);
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) {
        s0[u] = _mm512_fmadd_ps(a0, _mm512_loadu_ps(r + u * ldb + k), s0[u]);
        s1[u] = _mm512_fmadd_ps(a1, _mm512_loadu_ps(r + u * ldb + k + 16), s1[u]);
      }
    }
    for (; k < kc; k += 16) {
      const __mmask16 m = lanes(kc - k);
      const __m512 a0 = _mm512_maskz_loadu_ps(m, a + k);
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u)
        s0[u] = _mm512_fmadd_ps(a0, _mm512_maskz_loadu_ps(m, r + u * ldb + k), s0[u]);
    }
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) out[j + u] = hsum(_mm512_add_ps(s0[u], s1[u]));
  }
  for (; j < n; ++j) {
    const float* r = b + j * ldb;
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k + 31 < kc; k += 32) {
      s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + k), _mm512_loadu_ps(r + k), s0);
      s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + k + 16), _mm512_loadu_ps(r + k + 16), s1);
    }
    for (; k < kc; k += 16) {
      const __mmask16 m = lanes(kc - k);
      s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + k), _mm512_maskz_loadu_ps(m, r + k), s0);
    }
    out[j] = hsum(_mm512_add_ps(s0, s1));
  }
}

// 64 columns per pass live in four zmm sums, two k steps in flight (eight
// chains); narrower remainders use masked loads.
__attribute__((target("avx512f,fma"))) void axpy_rows(int64_t kc, const float* a, const float* b,
                                                      int64_t ldb, int64_t n, float* out) {
  for (int64_t j = 0; j < n; j += 64) {
    __mmask16 m[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) m[v] = lanes(n - j - 16 * v > 0 ? n - j - 16 * v : 0);
    __m512 s0[4], s1[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) s0[v] = s1[v] = _mm512_setzero_ps();
    const float* col = b + j;
    int64_t k = 0;
    for (; k + 1 < kc; k += 2) {
      const __m512 a0 = _mm512_set1_ps(a[k]), a1 = _mm512_set1_ps(a[k + 1]);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        s0[v] = _mm512_fmadd_ps(a0, _mm512_maskz_loadu_ps(m[v], col + k * ldb + 16 * v), s0[v]);
        s1[v] =
            _mm512_fmadd_ps(a1, _mm512_maskz_loadu_ps(m[v], col + (k + 1) * ldb + 16 * v), s1[v]);
      }
    }
    if (k < kc) {
      const __m512 a0 = _mm512_set1_ps(a[k]);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v)
        s0[v] = _mm512_fmadd_ps(a0, _mm512_maskz_loadu_ps(m[v], col + k * ldb + 16 * v), s0[v]);
    }
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v)
      _mm512_mask_storeu_ps(out + j + 16 * v, m[v], _mm512_add_ps(s0[v], s1[v]));
  }
}

}  // namespace

bool row_dot_rows_avx512(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t n,
                         float* out) {
  if (cpu_isa() < Isa::kAvx512) return false;
  dot_rows(kc, a, b, ldb, n, out);
  return true;
}

bool row_times_cols_avx512(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t n,
                           float* out) {
  if (cpu_isa() < Isa::kAvx512) return false;
  axpy_rows(kc, a, b, ldb, n, out);
  return true;
}

#else
bool row_dot_rows_avx512(int64_t, const float*, const float*, int64_t, int64_t, float*) {
  return false;
}
bool row_times_cols_avx512(int64_t, const float*, const float*, int64_t, int64_t, float*) {
  return false;
}
#endif

}  // namespace tessera::linalg::detail
