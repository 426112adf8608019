// AVX-512 float micro-kernel: an MR x (16*NV) tile of C lives in zmm
// registers; each k step loads NV B vectors and broadcasts MR A values.
// Compiled for avx512f via the target attribute so the rest of the build
// stays generic.
#include "linalg/gemm_microkernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg::detail {

#if defined(__x86_64__)
namespace {

template <int MR, int NV>
__attribute__((target("avx512f,fma"))) void kernel(int64_t kc, const float* a, const float* b,
                                                   int64_t ldb, float* c, int64_t ldc, int64_t m,
                                                   int64_t n, bool accumulate,
                                                   const TileEpilogue* te) {
  constexpr int NR = 16 * NV;
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
      // C is touched only after the k loop; start its lines on the way now.
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (accumulate && i < m) {
      _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + NR - 1), _MM_HINT_T0);
    }
  }
#pragma GCC unroll 2
  for (int64_t k = 0; k < kc; ++k) {
    _mm_prefetch(reinterpret_cast<const char*>(b + 8 * ldb), _MM_HINT_T0);
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_loadu_ps(b + 16 * v);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 av = _mm512_set1_ps(a[i]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(av, bv[v], acc[i][v]);
    }
    a += MR;
    b += ldb;
  }
  if (accumulate) {  // C's earlier K slices (or beta * C) first, as the scalar order has it
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      if (i >= m) break;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const int64_t left = n - 16 * v;
        const __mmask16 mk = left >= 16 ? __mmask16(0xffff)
                             : left > 0 ? __mmask16((1u << left) - 1)
                                        : 0;
        acc[i][v] = _mm512_add_ps(_mm512_maskz_loadu_ps(mk, c + i * ldc + 16 * v), acc[i][v]);
      }
    }
  }
  if (te) {
    // v < lo ? lo : v, then v > hi ? hi : v: a NaN compares false and passes, as in Relu/Clip.
    const __m512 lo = _mm512_set1_ps(te->lo), hi = _mm512_set1_ps(te->hi);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      if (i >= m) break;
      const __m512 bias = _mm512_set1_ps(te->bias ? te->bias[i] : 0.f);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        __m512 r = _mm512_add_ps(acc[i][v], bias);
        if (te->residual) {
          const int64_t left = n - 16 * v;
          const __mmask16 mk = left >= 16 ? __mmask16(0xffff)
                               : left > 0 ? __mmask16((1u << left) - 1)
                                          : 0;
          r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(mk, te->residual + i * te->ldr + 16 * v));
        }
        r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(r, lo, _CMP_LT_OQ), r, lo);
        acc[i][v] = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(r, hi, _CMP_GT_OQ), r, hi);
      }
    }
  }
  if (m == MR && n == NR) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) _mm512_storeu_ps(c + i * ldc + 16 * v, acc[i][v]);
    return;
  }
  __mmask16 mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const int64_t left = n - 16 * v;
    mask[v] = left >= 16 ? __mmask16(0xffff) : left > 0 ? __mmask16((1u << left) - 1) : 0;
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (i >= m) break;
    float* row = c + i * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      if (mask[v]) _mm512_mask_storeu_ps(row + 16 * v, mask[v], acc[i][v]);
  }
}

// The 6x64 tile, narrowed to the 16-column vectors that hold any of the n
// columns: a ragged last panel (a 14x14 feature map's 196 columns leave 4 in
// the last 64-wide panel) then costs one vector per row, not four. The packed
// panel layout is the same (row stride ldb), so only the loads change.
__attribute__((target("avx512f,fma"))) void kernel_6x64(int64_t kc, const float* a, const float* b,
                                                        int64_t ldb, float* c, int64_t ldc,
                                                        int64_t m, int64_t n, bool accumulate,
                                                        const TileEpilogue* te) {
  if (n > 48)
    kernel<6, 4>(kc, a, b, ldb, c, ldc, m, n, accumulate, te);
  else if (n > 32)
    kernel<6, 3>(kc, a, b, ldb, c, ldc, m, n, accumulate, te);
  else if (n > 16)
    kernel<6, 2>(kc, a, b, ldb, c, ldc, m, n, accumulate, te);
  else
    kernel<6, 1>(kc, a, b, ldb, c, ldc, m, n, accumulate, te);
}

}  // namespace

bool sgemm_kernel_avx512(SgemmKernelInfo* out) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("fma")) return false;
  // 6x64 needs only 6 broadcasts per 24 FMAs; it measured fastest on Zen 4.
  *out = {"avx512_f32_6x64", 6, 64, kernel_6x64};
  return true;
}

#else
bool sgemm_kernel_avx512(SgemmKernelInfo*) { return false; }
#endif

}  // namespace tessera::linalg::detail
