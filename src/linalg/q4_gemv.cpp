#include "linalg/q4_gemv.hpp"

#include <algorithm>
#include <cstring>

#include "core/host_heap.hpp"
#include "core/thread_pool.hpp"
#include "linalg/cpu_isa.hpp"
#include "linalg/gemm.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg {

namespace {

// A's rows as the kernels read them: each run of 32 values reordered to its
// 16 even-indexed values, then its 16 odd ones (byte j of a run holds q[2j]
// in its low nibble and q[2j + 1] in its high one), zero past K; and each
// row's sum per block (for the zero points).
struct PreparedA {
  HostVector<float> a;     // [M, k_blocks * block]
  HostVector<float> sums;  // [M, k_blocks]
};

PreparedA prepare(const Q4Weights& w, int64_t M, const float* A, int64_t lda) {
  const int64_t Kp = w.k_blocks * w.block;
  PreparedA p;
  p.a.assign(size_t(M * Kp), 0.0f);
  p.sums.assign(size_t(M * w.k_blocks), 0.0f);
  for (int64_t m = 0; m < M; ++m) {
    const float* src = A + m * lda;
    float* dst = p.a.data() + m * Kp;
    float* sums = p.sums.data() + m * w.k_blocks;
    for (int64_t k0 = 0; k0 < w.K; k0 += 32, dst += 32) {
      const int64_t n = std::min<int64_t>(32, w.K - k0);
      float sum = 0.0f;
      for (int64_t j = 0; j < n; ++j) {
        dst[(j & 1) * 16 + (j >> 1)] = src[k0 + j];
        sum += src[k0 + j];
      }
      sums[k0 / w.block] += sum;
    }
  }
  return p;
}

// Outputs [n0, n1) for M <= kQ4MaxRows rows, portable C++.
void q4_rows_portable(const Q4Weights& w, int64_t M, const PreparedA& p, int64_t n0, int64_t n1,
                      float* Y, int64_t ldy) {
  const int64_t Kp = w.k_blocks * w.block, blob = w.block / 2;
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const float* a = p.a.data() + m * Kp;
      float acc = 0.0f;
      for (int64_t b = 0; b < w.k_blocks; ++b) {
        const uint8_t* q = w.q.data() + (n * w.k_blocks + b) * blob;
        float part = 0.0f;
        for (int64_t run = 0; run < w.block / 32; ++run) {
          const float* ar = a + b * w.block + run * 32;
          for (int j = 0; j < 16; ++j) {
            const uint8_t v = q[run * 16 + j];
            part += float(v & 15) * ar[j] + float(v >> 4) * ar[16 + j];
          }
        }
        const int64_t sb = n * w.k_blocks + b;
        acc += w.scale[size_t(sb)] *
               (part - float(w.zp[size_t(sb)]) * p.sums[size_t(m * w.k_blocks + b)]);
      }
      Y[m * ldy + n] = acc;
    }
}

#if defined(__x86_64__)
// GCC 12 flags the deliberately undefined pass-through operand inside its own
// AVX-512 intrinsics (_mm512_undefined_*) once they are inlined: a false
// positive, as in quantize.cpp.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
// The same with AVX-512: 16 bytes (32 weights) become two vectors of 16
// floats, multiplied into each row's block sum; one multiply-add per block
// applies the scale.
template <int M>
__attribute__((target("avx512f"))) void q4_rows_avx512(const Q4Weights& w, const PreparedA& p,
                                                       int64_t n0, int64_t n1, float* Y,
                                                       int64_t ldy) {
  const int64_t Kp = w.k_blocks * w.block, blob = w.block / 2, runs = w.block / 32;
  const __m512i low = _mm512_set1_epi32(15);
  for (int64_t n = n0; n < n1; ++n) {
    __m512 acc[M];
    for (int m = 0; m < M; ++m) acc[m] = _mm512_setzero_ps();
    const uint8_t* q = w.q.data() + n * w.k_blocks * blob;
    const float* sc = w.scale.data() + n * w.k_blocks;
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      __m512 part[M];
      for (int m = 0; m < M; ++m) part[m] = _mm512_setzero_ps();
      for (int64_t run = 0; run < runs; ++run, q += 16) {
        const __m512i v =
            _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
        const __m512 lo = _mm512_cvtepi32_ps(_mm512_and_si512(v, low));
        const __m512 hi = _mm512_cvtepi32_ps(_mm512_srli_epi32(v, 4));
        const int64_t off = b * w.block + run * 32;
        for (int m = 0; m < M; ++m) {
          const float* a = p.a.data() + m * Kp + off;
          part[m] = _mm512_fmadd_ps(lo, _mm512_loadu_ps(a), part[m]);
          part[m] = _mm512_fmadd_ps(hi, _mm512_loadu_ps(a + 16), part[m]);
        }
      }
      const __m512 s = _mm512_set1_ps(sc[b]);
      for (int m = 0; m < M; ++m) acc[m] = _mm512_fmadd_ps(part[m], s, acc[m]);
    }
    // The zero points' term, 16 blocks at a time: acc -= z * s * sum(A).
    const uint8_t* zp = w.zp.data() + n * w.k_blocks;
    for (int64_t b = 0; b < w.k_blocks; b += 16) {
      const int64_t left = w.k_blocks - b;
      const __mmask16 k = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      alignas(16) uint8_t tail[16] = {};
      const uint8_t* z = zp + b;
      if (left < 16) z = static_cast<const uint8_t*>(std::memcpy(tail, z, size_t(left)));
      const __m512 zs = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
                                          _mm_loadu_si128(reinterpret_cast<const __m128i*>(z)))),
                                      _mm512_maskz_loadu_ps(k, sc + b));
      for (int m = 0; m < M; ++m)
        acc[m] = _mm512_fnmadd_ps(zs, _mm512_maskz_loadu_ps(k, p.sums.data() + m * w.k_blocks + b),
                                  acc[m]);
    }
    for (int m = 0; m < M; ++m) Y[m * ldy + n] = _mm512_reduce_add_ps(acc[m]);
  }
}

#pragma GCC diagnostic pop

// AVX2: each 16 bytes as two halves of 8 (bytes j < 8 hold the run's even
// values 0..7 and odd 0..7; bytes 8..15 the rest).
template <int M>
__attribute__((target("avx2,fma"))) void q4_rows_avx2(const Q4Weights& w, const PreparedA& p,
                                                      int64_t n0, int64_t n1, float* Y,
                                                      int64_t ldy) {
  const int64_t Kp = w.k_blocks * w.block, blob = w.block / 2, runs = w.block / 32;
  const __m256i low = _mm256_set1_epi32(15);
  for (int64_t n = n0; n < n1; ++n) {
    __m256 acc[M];
    for (int m = 0; m < M; ++m) acc[m] = _mm256_setzero_ps();
    const uint8_t* q = w.q.data() + n * w.k_blocks * blob;
    const float* sc = w.scale.data() + n * w.k_blocks;
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      __m256 part[M];
      for (int m = 0; m < M; ++m) part[m] = _mm256_setzero_ps();
      for (int64_t run = 0; run < runs; ++run, q += 16) {
        const int64_t off = b * w.block + run * 32;
        for (int half = 0; half < 2; ++half) {
          const __m256i v =
              _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + 8 * half)));
          const __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(v, low));
          const __m256 hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(v, 4));
          for (int m = 0; m < M; ++m) {
            const float* a = p.a.data() + m * Kp + off + 8 * half;
            part[m] = _mm256_fmadd_ps(lo, _mm256_loadu_ps(a), part[m]);
            part[m] = _mm256_fmadd_ps(hi, _mm256_loadu_ps(a + 16), part[m]);
          }
        }
      }
      const __m256 s = _mm256_set1_ps(sc[b]);
      for (int m = 0; m < M; ++m) acc[m] = _mm256_fmadd_ps(part[m], s, acc[m]);
    }
    // The zero points' term, 8 blocks at a time, then one by one.
    const uint8_t* zp = w.zp.data() + n * w.k_blocks;
    int64_t b = 0;
    for (; b + 8 <= w.k_blocks; b += 8) {
      const __m256 zs = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(
                                          reinterpret_cast<const __m128i*>(zp + b)))),
                                      _mm256_loadu_ps(sc + b));
      for (int m = 0; m < M; ++m)
        acc[m] = _mm256_fnmadd_ps(zs, _mm256_loadu_ps(p.sums.data() + m * w.k_blocks + b), acc[m]);
    }
    for (int m = 0; m < M; ++m) {
      float zero_term = 0.0f;
      const float* sums = p.sums.data() + m * w.k_blocks;
      for (int64_t t = b; t < w.k_blocks; ++t) zero_term += float(zp[t]) * sc[t] * sums[t];
      alignas(32) float lanes[8];
      _mm256_store_ps(lanes, acc[m]);
      float total = 0.0f;
      for (float l : lanes) total += l;
      Y[m * ldy + n] = total - zero_term;
    }
  }
}

void q4_rows_avx2_any(const Q4Weights& w, int64_t M, const PreparedA& p, int64_t n0, int64_t n1,
                      float* Y, int64_t ldy) {
  switch (M) {
    case 1:
      return q4_rows_avx2<1>(w, p, n0, n1, Y, ldy);
    case 2:
      return q4_rows_avx2<2>(w, p, n0, n1, Y, ldy);
    case 3:
      return q4_rows_avx2<3>(w, p, n0, n1, Y, ldy);
    default:
      return q4_rows_avx2<4>(w, p, n0, n1, Y, ldy);
  }
}

void q4_rows_avx512_any(const Q4Weights& w, int64_t M, const PreparedA& p, int64_t n0, int64_t n1,
                        float* Y, int64_t ldy) {
  switch (M) {
    case 1:
      return q4_rows_avx512<1>(w, p, n0, n1, Y, ldy);
    case 2:
      return q4_rows_avx512<2>(w, p, n0, n1, Y, ldy);
    case 3:
      return q4_rows_avx512<3>(w, p, n0, n1, Y, ldy);
    default:
      return q4_rows_avx512<4>(w, p, n0, n1, Y, ldy);
  }
}
#endif

// Rows [n0, n1) of W dequantized into out [(n1 - n0), k_blocks * block], in
// the permuted order of PreparedA (each run of 32: even values, then odd).
void dequantize_portable(const Q4Weights& w, int64_t n0, int64_t n1, float* out) {
  const int64_t Kp = w.k_blocks * w.block, blob = w.block / 2;
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      const int64_t sb = n * w.k_blocks + b;
      const float s = w.scale[size_t(sb)], zs = float(w.zp[size_t(sb)]) * s;
      const uint8_t* q = w.q.data() + sb * blob;
      float* o = out + (n - n0) * Kp + b * w.block;
      for (int64_t run = 0; run < w.block / 32; ++run, q += 16, o += 32)
        for (int j = 0; j < 16; ++j) {
          o[j] = float(q[j] & 15) * s - zs;
          o[16 + j] = float(q[j] >> 4) * s - zs;
        }
    }
}

#if defined(__x86_64__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
__attribute__((target("avx512f"))) void dequantize_avx512(const Q4Weights& w, int64_t n0,
                                                          int64_t n1, float* out) {
  const int64_t Kp = w.k_blocks * w.block, blob = w.block / 2;
  const __m512i low = _mm512_set1_epi32(15);
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      const int64_t sb = n * w.k_blocks + b;
      const __m512 s = _mm512_set1_ps(w.scale[size_t(sb)]);
      const __m512 zs = _mm512_set1_ps(float(w.zp[size_t(sb)]) * w.scale[size_t(sb)]);
      const uint8_t* q = w.q.data() + sb * blob;
      float* o = out + (n - n0) * Kp + b * w.block;
      for (int64_t run = 0; run < w.block / 32; ++run, q += 16, o += 32) {
        const __m512i v =
            _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
        _mm512_storeu_ps(o, _mm512_fmsub_ps(_mm512_cvtepi32_ps(_mm512_and_si512(v, low)), s, zs));
        _mm512_storeu_ps(o + 16,
                         _mm512_fmsub_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(v, 4)), s, zs));
      }
    }
}
#pragma GCC diagnostic pop
#endif

}  // namespace

void q4_gemm(const Q4Weights& w, int64_t M, const float* A, int64_t lda, float* Y, int64_t ldy,
             ThreadPool* pool) {
  for (int64_t m0 = 0; m0 < M; m0 += kQ4MaxRows) {
    const int64_t rows = std::min(kQ4MaxRows, M - m0);
    const PreparedA p = prepare(w, rows, A + m0 * lda, lda);
    float* y = Y + m0 * ldy;
    auto body = [&](int64_t n0, int64_t n1) {
#if defined(__x86_64__)
      if (cpu_isa() == Isa::kAvx512) return q4_rows_avx512_any(w, rows, p, n0, n1, y, ldy);
      if (cpu_isa() == Isa::kAvx2) return q4_rows_avx2_any(w, rows, p, n0, n1, y, ldy);
#endif
      q4_rows_portable(w, rows, p, n0, n1, y, ldy);
    };
    // Each output reads K / 2 bytes of weights and does K multiply-adds a row.
    const double cost = double(w.K) * double(rows + 1);
    if (pool)
      pool->parallel_for(w.N, cost, body);
    else
      body(0, w.N);
  }
}

void q4_gemm_dequantized(const Q4Weights& w, int64_t M, const float* A, int64_t lda, float* Y,
                         int64_t ldy, ThreadPool* pool) {
  const PreparedA p = prepare(w, M, A, lda);
  const int64_t Kp = w.k_blocks * w.block;
  // A packed once for every panel's product.
  const PackedA packed(false, M, Kp, p.a.data(), Kp);
  // Panels of 64 outputs: 64 x K floats stay in L2 while the SGEMM reads them.
  constexpr int64_t kPanel = 64;
  const int64_t panels = (w.N + kPanel - 1) / kPanel;
  auto body = [&](int64_t t0, int64_t t1) {
    thread_local HostVector<float> panel;
    if (panel.size() < size_t(kPanel * Kp)) panel.resize(size_t(kPanel * Kp));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n0 = t * kPanel, n1 = std::min(w.N, n0 + kPanel);
#if defined(__x86_64__)
      if (cpu_isa() == Isa::kAvx512)
        dequantize_avx512(w, n0, n1, panel.data());
      else
#endif
        dequantize_portable(w, n0, n1, panel.data());
      sgemm_packed(packed, true, n1 - n0, panel.data(), Kp, Y + n0, ldy);
    }
  };
  const double cost = double(M) * double(kPanel) * double(Kp) * 2.0;
  if (pool)
    pool->parallel_for(panels, cost, body);
  else
    body(0, panels);
}

}  // namespace tessera::linalg
