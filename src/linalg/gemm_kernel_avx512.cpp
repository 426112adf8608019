// AVX-512 float micro-kernel: an MR x (16*NV) tile of C lives in zmm
// registers; each k step loads NV B vectors and broadcasts MR A values.
// Compiled for avx512f via the target attribute so the rest of the build
// stays generic.
#include "linalg/cpu_isa.hpp"
#include "linalg/gemm_microkernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg::detail {

#if defined(__x86_64__)
namespace {

// How many k steps before the end of the k loop the kernel starts C's lines
// on their way: about 600 cycles of FMAs, several L3 latencies, yet late
// enough that the kc x NR panel of B streaming through L1 does not evict them.
constexpr int64_t kCAhead = 48;

template <int MR, int NV>
__attribute__((target("avx512f,fma,prfchw"))) void kernel(int64_t kc, const float* a,
                                                          const float* b, int64_t ldb, float* c,
                                                          int64_t ldc, int64_t m, int64_t n,
                                                          bool accumulate, const TileEpilogue* te) {
  constexpr int NR = 16 * NV;
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
  const int64_t last_col = (n < NR ? n : NR) - 1;
  int64_t k = 0;
#pragma GCC unroll 2
  for (int part = 0; part < 2; ++part) {
    const int64_t end = part == 1 ? kc : kc > kCAhead ? kc - kCAhead : 0;
#pragma GCC unroll 2
    for (; k < end; ++k) {
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
    if (part == 0) {
      // Every line of the tile's rows (read when accumulating, written
      // either way), with write intent, and of the residual the epilogue
      // adds. A row that does not start on a line spans one line more,
      // hence its last column too.
      const float* res = te ? te->residual : nullptr;
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i) {
        if (i >= m) break;
        const float* row = c + i * ldc;
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
          if (16 * v <= last_col) __builtin_prefetch(row + 16 * v, 1, 3);
        __builtin_prefetch(row + last_col, 1, 3);
        if (res) {
          const float* r = res + i * te->ldr;
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            if (16 * v <= last_col) __builtin_prefetch(r + 16 * v, 0, 3);
          __builtin_prefetch(r + last_col, 0, 3);
        }
      }
    }
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

#define TESSERA_AVX512_INLINE __attribute__((target("avx512f"), always_inline)) inline

__mmask16 first_lanes(int64_t n) {
  return n >= 16 ? __mmask16(0xffff) : n > 0 ? __mmask16((1u << n) - 1) : __mmask16(0);
}

// 16 k of a 6-row A panel: the rows' 16-float runs r[i] + k (nk of them
// valid), times alpha, transposed into 6 * nk floats of d, k-major. The rows
// are interleaved in pairs (one 64-bit element = rows 2p and 2p+1 at one k),
// then each output vector picks its pairs from the three interleaved rows.
TESSERA_AVX512_INLINE void pack_a6_step(const float* const* r, int64_t rows, int64_t k, int64_t nk,
                                        __m512 alpha, float* d) {
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  // Output vector v of 8 pairs (k, pair p) in k-major order: the pairs from
  // rows 0-1 and 2-3 (indices 0-7 and 8-15 of a two-source permute), then
  // those from rows 4-5 blended in where `from45` is set.
  const __m512i pick01_23[3] = {_mm512_setr_epi64(0, 8, 0, 1, 9, 0, 2, 10),
                                _mm512_setr_epi64(0, 3, 11, 0, 4, 12, 0, 5),
                                _mm512_setr_epi64(13, 0, 6, 14, 0, 7, 15, 0)};
  const __m512i pick45[3] = {_mm512_setr_epi64(0, 0, 0, 0, 0, 1, 0, 0),
                             _mm512_setr_epi64(2, 0, 0, 3, 0, 0, 4, 0),
                             _mm512_setr_epi64(0, 5, 0, 0, 6, 0, 0, 7)};
  const __mmask8 from45[3] = {0x24, 0x49, 0x92};
  const __mmask16 lm = first_lanes(nk);
  __m512 x[6];
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i)
    x[i] =
        i < rows ? _mm512_mul_ps(alpha, _mm512_maskz_loadu_ps(lm, r[i] + k)) : _mm512_setzero_ps();
  __m512d pairs[3][2];  // [row pair][k 0-7, k 8-15]
#pragma GCC unroll 3
  for (int p = 0; p < 3; ++p) {
    pairs[p][0] = _mm512_castps_pd(_mm512_permutex2var_ps(x[2 * p], lo, x[2 * p + 1]));
    pairs[p][1] = _mm512_castps_pd(_mm512_permutex2var_ps(x[2 * p], hi, x[2 * p + 1]));
  }
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h)
#pragma GCC unroll 3
    for (int v = 0; v < 3; ++v) {
      const __m512d t = _mm512_permutex2var_pd(pairs[0][h], pick01_23[v], pairs[1][h]);
      const __m512 o =
          _mm512_castpd_ps(_mm512_mask_permutexvar_pd(t, from45[v], pick45[v], pairs[2][h]));
      const int64_t at = 16 * (3 * h + v);  // of the 96 floats of 16 k
      if (nk == 16)
        _mm512_storeu_ps(d + at, o);
      else if (6 * nk > at)
        _mm512_mask_storeu_ps(d + at, first_lanes(6 * nk - at), o);
    }
}

__attribute__((target("avx512f"))) void pack_a_6(bool trans, const float* a, int64_t lda,
                                                 int64_t rows, int64_t kc, float alpha,
                                                 float* dst) {
  const __m512 va = _mm512_set1_ps(alpha);
  if (trans) {  // each k's 6 values are contiguous
    const __mmask16 lm = first_lanes(rows);
    for (int64_t k = 0; k < kc; ++k)
      _mm512_mask_storeu_ps(dst + 6 * k, 0x3f,
                            _mm512_mul_ps(va, _mm512_maskz_loadu_ps(lm, a + k * lda)));
    return;
  }
  const float* r[6];
  for (int i = 0; i < 6; ++i) r[i] = a + (i < rows ? i : 0) * lda;
  int64_t k = 0;
  for (; k + 16 <= kc; k += 16) pack_a6_step(r, rows, k, 16, va, dst + 6 * k);
  if (k < kc) pack_a6_step(r, rows, k, kc - k, va, dst + 6 * k);
}

// Transposes the 16 x 16 block x[row][col] in place into x[col][row]: pairs
// of rows interleaved (32-bit, then 64-bit) transpose each 128-bit lane's
// 4 x 4 blocks, then the lanes of four vectors are transposed as 4 x 4 blocks.
// (The all-lanes maskz forms: GCC 12's plain forms trip -Wmaybe-uninitialized.)
TESSERA_AVX512_INLINE __m512 unpack_lo(__m512 a, __m512 b) {
  return _mm512_maskz_unpacklo_ps(0xffff, a, b);
}
TESSERA_AVX512_INLINE __m512 unpack_hi(__m512 a, __m512 b) {
  return _mm512_maskz_unpackhi_ps(0xffff, a, b);
}
TESSERA_AVX512_INLINE __m512 unpack_lo64(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(0xff, _mm512_castps_pd(a), _mm512_castps_pd(b)));
}
TESSERA_AVX512_INLINE __m512 unpack_hi64(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(0xff, _mm512_castps_pd(a), _mm512_castps_pd(b)));
}
template <int kImm>
TESSERA_AVX512_INLINE __m512 lanes(__m512 a, __m512 b) {
  return _mm512_maskz_shuffle_f32x4(0xffff, a, b, kImm);
}

TESSERA_AVX512_INLINE void transpose16(__m512* x) {
  __m512 t[16];
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    const __m512 ab_lo = unpack_lo(x[4 * g], x[4 * g + 1]),
                 ab_hi = unpack_hi(x[4 * g], x[4 * g + 1]);
    const __m512 cd_lo = unpack_lo(x[4 * g + 2], x[4 * g + 3]),
                 cd_hi = unpack_hi(x[4 * g + 2], x[4 * g + 3]);
    // t[4g + c]: within each 128-bit lane L, column 4L + c of rows 4g..4g+3.
    t[4 * g + 0] = unpack_lo64(ab_lo, cd_lo);
    t[4 * g + 1] = unpack_hi64(ab_lo, cd_lo);
    t[4 * g + 2] = unpack_lo64(ab_hi, cd_hi);
    t[4 * g + 3] = unpack_hi64(ab_hi, cd_hi);
  }
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    // v0 = lanes 0-1 of row groups 0 and 1, v1 = their lanes 2-3; v2, v3 for groups 2 and 3.
    const __m512 v0 = lanes<0x44>(t[c], t[4 + c]), v1 = lanes<0xee>(t[c], t[4 + c]);
    const __m512 v2 = lanes<0x44>(t[8 + c], t[12 + c]), v3 = lanes<0xee>(t[8 + c], t[12 + c]);
    x[c] = lanes<0x88>(v0, v2);
    x[4 + c] = lanes<0xdd>(v0, v2);
    x[8 + c] = lanes<0x88>(v1, v3);
    x[12 + c] = lanes<0xdd>(v1, v3);
  }
}

__attribute__((target("avx512f"))) void pack_b_64(bool trans, const float* b, int64_t ldb,
                                                  int64_t cols, int64_t kc, float* dst) {
  if (!trans) {  // each k's 64 values are contiguous
    if (cols == 64) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* s = b + k * ldb;
        float* d = dst + 64 * k;
        _mm512_storeu_ps(d, _mm512_loadu_ps(s));
        _mm512_storeu_ps(d + 16, _mm512_loadu_ps(s + 16));
        _mm512_storeu_ps(d + 32, _mm512_loadu_ps(s + 32));
        _mm512_storeu_ps(d + 48, _mm512_loadu_ps(s + 48));
      }
      return;
    }
    const __mmask16 m[4] = {first_lanes(cols), first_lanes(cols - 16), first_lanes(cols - 32),
                            first_lanes(cols - 48)};
    for (int64_t k = 0; k < kc; ++k)
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v)
        _mm512_storeu_ps(dst + 64 * k + 16 * v, _mm512_maskz_loadu_ps(m[v], b + k * ldb + 16 * v));
    return;
  }
  // Column j of the panel is contiguous in k: 16 columns x 16 k at a time,
  // transposed in registers.
  for (int64_t j0 = 0; j0 < 64; j0 += 16) {
    const int64_t nj = cols - j0;
    if (nj <= 0) {
      for (int64_t k = 0; k < kc; ++k) _mm512_storeu_ps(dst + 64 * k + j0, _mm512_setzero_ps());
      continue;
    }
    for (int64_t k0 = 0; k0 < kc; k0 += 16) {
      const int64_t nk = kc - k0 < 16 ? kc - k0 : 16;
      const __mmask16 km = first_lanes(nk);
      __m512 x[16];
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j)
        x[j] = j < nj ? _mm512_maskz_loadu_ps(km, b + (j0 + j) * ldb + k0) : _mm512_setzero_ps();
      transpose16(x);
      for (int64_t k = 0; k < nk; ++k) _mm512_storeu_ps(dst + 64 * (k0 + k) + j0, x[k]);
    }
  }
}

}  // namespace

// Four accumulators per k step would chain each FMA on the previous one's
// 4-cycle latency; two k steps in flight (eight chains) keep both FMA ports
// busy while B streams through.
__attribute__((target("avx512f,fma"))) void panel_gemv64(int64_t kc, const float* a, const float* b,
                                                         float* acc) {
  __m512 s0[4], s1[4];
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) {
    s0[v] = _mm512_loadu_ps(acc + 16 * v);
    s1[v] = _mm512_setzero_ps();
  }
  int64_t k = 0;
  for (; k + 1 < kc; k += 2) {
    const __m512 a0 = _mm512_set1_ps(a[k]), a1 = _mm512_set1_ps(a[k + 1]);
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      s0[v] = _mm512_fmadd_ps(a0, _mm512_loadu_ps(b + k * 64 + 16 * v), s0[v]);
      s1[v] = _mm512_fmadd_ps(a1, _mm512_loadu_ps(b + (k + 1) * 64 + 16 * v), s1[v]);
    }
  }
  if (k < kc) {
    const __m512 a0 = _mm512_set1_ps(a[k]);
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v)
      s0[v] = _mm512_fmadd_ps(a0, _mm512_loadu_ps(b + k * 64 + 16 * v), s0[v]);
  }
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) _mm512_storeu_ps(acc + 16 * v, _mm512_add_ps(s0[v], s1[v]));
}

bool panel_gemv64_avx512(int64_t kc, const float* a, const float* b, float* acc) {
  if (cpu_isa() < Isa::kAvx512) return false;
  panel_gemv64(kc, a, b, acc);
  return true;
}

bool sgemm_kernel_avx512(SgemmKernelInfo* out) {
  if (cpu_isa() < Isa::kAvx512) return false;
  // 6x64 needs only 6 broadcasts per 24 FMAs; it measured fastest on Zen 4.
  // On Zen 5 it runs at the FMA peak with its A and B panels streaming from
  // L2, and 14x32, 12x32 and 8x48 (B panel kept in L1) were no faster.
  *out = {"avx512_f32_6x64", 6, 64, kernel_6x64, pack_a_6, pack_b_64};
  return true;
}

#else
bool panel_gemv64_avx512(int64_t, const float*, const float*, float*) { return false; }
bool sgemm_kernel_avx512(SgemmKernelInfo*) { return false; }
#endif

}  // namespace tessera::linalg::detail
