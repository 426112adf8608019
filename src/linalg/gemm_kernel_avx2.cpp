// AVX2+FMA float micro-kernel: a 6x16 tile of C in 12 ymm registers.
// Partial tiles go through a small stack buffer (AVX2 has no cheap masked
// float stores of arbitrary width).
#include "linalg/cpu_isa.hpp"
#include "linalg/gemm_microkernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg::detail {

#if defined(__x86_64__)
namespace {

constexpr int kMR = 6;
constexpr int kNR = 16;

__attribute__((target("avx2,fma"))) void kernel_6x16(int64_t kc, const float* a, const float* b,
                                                     int64_t ldb, float* c, int64_t ldc, int64_t m,
                                                     int64_t n, bool accumulate,
                                                     const TileEpilogue* te) {
  __m256 acc[kMR][2];
#pragma GCC unroll 6
  for (int i = 0; i < kMR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int i = 0; i < kMR; ++i) {
      const __m256 av = _mm256_broadcast_ss(a + i);
      acc[i][0] = _mm256_fmadd_ps(av, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(av, b1, acc[i][1]);
    }
    a += kMR;
    b += ldb;
  }
  if (m == kMR && n == kNR) {
#pragma GCC unroll 6
    for (int i = 0; i < kMR; ++i) {
      float* row = c + i * ldc;
      if (accumulate) {
        acc[i][0] = _mm256_add_ps(_mm256_loadu_ps(row), acc[i][0]);
        acc[i][1] = _mm256_add_ps(_mm256_loadu_ps(row + 8), acc[i][1]);
      }
      _mm256_storeu_ps(row, acc[i][0]);
      _mm256_storeu_ps(row + 8, acc[i][1]);
    }
    if (te) apply_tile_epilogue(*te, c, ldc, m, n);
    return;
  }
  alignas(32) float tile[kMR][kNR];
#pragma GCC unroll 6
  for (int i = 0; i < kMR; ++i) {
    _mm256_store_ps(tile[i], acc[i][0]);
    _mm256_store_ps(tile[i] + 8, acc[i][1]);
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.f) + tile[i][j];
  if (te) apply_tile_epilogue(*te, c, ldc, m, n);
}

// One row times a 16-wide packed panel: each k step is only two FMAs, so
// four k steps in flight (eight chains) cover the FMA latency on both ports.
__attribute__((target("avx2,fma"))) void panel_gemv16(int64_t kc, const float* a, const float* b,
                                                      float* acc) {
  __m256 s[4][2];
#pragma GCC unroll 4
  for (int u = 0; u < 4; ++u) s[u][0] = s[u][1] = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + 3 < kc; k += 4) {
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) {
      const __m256 av = _mm256_broadcast_ss(a + k + u);
      const float* row = b + (k + u) * kNR;
      s[u][0] = _mm256_fmadd_ps(av, _mm256_loadu_ps(row), s[u][0]);
      s[u][1] = _mm256_fmadd_ps(av, _mm256_loadu_ps(row + 8), s[u][1]);
    }
  }
  for (; k < kc; ++k) {
    const __m256 av = _mm256_broadcast_ss(a + k);
    s[0][0] = _mm256_fmadd_ps(av, _mm256_loadu_ps(b + k * kNR), s[0][0]);
    s[0][1] = _mm256_fmadd_ps(av, _mm256_loadu_ps(b + k * kNR + 8), s[0][1]);
  }
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    const __m256 sum =
        _mm256_add_ps(_mm256_add_ps(s[0][h], s[1][h]), _mm256_add_ps(s[2][h], s[3][h]));
    _mm256_storeu_ps(acc + 8 * h, _mm256_add_ps(_mm256_loadu_ps(acc + 8 * h), sum));
  }
}

}  // namespace

bool panel_gemv16_avx2(int64_t kc, const float* a, const float* b, float* acc) {
  if (cpu_isa() < Isa::kAvx2) return false;
  panel_gemv16(kc, a, b, acc);
  return true;
}

bool sgemm_kernel_avx2(SgemmKernelInfo* out) {
  if (cpu_isa() < Isa::kAvx2) return false;
  *out = {"avx2_f32_6x16", kMR, kNR, kernel_6x16, nullptr, nullptr};
  return true;
}

#else
bool panel_gemv16_avx2(int64_t, const float*, const float*, float*) { return false; }
bool sgemm_kernel_avx2(SgemmKernelInfo*) { return false; }
#endif

}  // namespace tessera::linalg::detail
