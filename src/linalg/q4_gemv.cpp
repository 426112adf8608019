#include "linalg/q4_gemv.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/host_heap.hpp"
#include "core/thread_pool.hpp"
#include "linalg/cpu_isa.hpp"
#include "linalg/gemm.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg {

namespace {

constexpr int64_t kLanes = 16;  // outputs a panel

// A's rows zero-padded to whole blocks (the padded weights are zero nibbles,
// but 0 x a garbage float could be NaN), and, for the row kernels, each
// row's sum per block (for the zero points).
struct PaddedA {
  int64_t Kp = 0;
  HostVector<float> a;     // [M, Kp]
  HostVector<float> sums;  // [M, k_blocks]
};

PaddedA pad(const Q4Weights& w, int64_t M, const float* A, int64_t lda, bool with_sums) {
  PaddedA p;
  p.Kp = w.k_blocks * w.block;
  p.a.assign(size_t(M * p.Kp), 0.0f);
  if (with_sums) p.sums.assign(size_t(M * w.k_blocks), 0.0f);
  for (int64_t m = 0; m < M; ++m) {
    std::memcpy(p.a.data() + m * p.Kp, A + m * lda, size_t(w.K) * sizeof(float));
    if (!with_sums) continue;
    const float* row = A + m * lda;
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      float s = 0.0f;
      for (int64_t k = b * w.block; k < std::min(w.K, (b + 1) * w.block); ++k) s += row[k];
      p.sums[size_t(m * w.k_blocks + b)] = s;
    }
  }
  return p;
}

// Where panel p's block b starts: its nibble bytes, and its 16 scales and
// zero points.
inline const uint8_t* q_of(const Q4Weights& w, int64_t p, int64_t b) {
  return w.q.data() + ((p * w.k_blocks + b) * (w.block / 2)) * kLanes;
}
inline int64_t meta_of(const Q4Weights& w, int64_t p, int64_t b) {
  return (p * w.k_blocks + b) * kLanes;
}

// Panels [p0, p1) for M <= kQ4MaxRows rows, portable C++.
void rows_portable(const Q4Weights& w, int64_t M, const PaddedA& a, int64_t p0, int64_t p1,
                   float* Y, int64_t ldy) {
  for (int64_t p = p0; p < p1; ++p) {
    float acc[kQ4MaxRows][kLanes] = {};
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      float part[kQ4MaxRows][kLanes] = {};
      // Row by row: with the rows inside the pair loop, GCC 12 loaded the
      // values of two rows at once, reading one row past A's last.
      for (int64_t m = 0; m < M; ++m) {
        const uint8_t* q = q_of(w, p, b);
        const float* am = a.a.data() + m * a.Kp + b * w.block;
        for (int64_t j = 0; j < w.block / 2; ++j, q += kLanes)
          for (int i = 0; i < kLanes; ++i)
            part[m][i] += float(q[i] & 15) * am[2 * j] + float(q[i] >> 4) * am[2 * j + 1];
      }
      const int64_t meta = meta_of(w, p, b);
      for (int64_t m = 0; m < M; ++m) {
        const float sum = a.sums[size_t(m * w.k_blocks + b)];
        for (int i = 0; i < kLanes; ++i) {
          const float s = w.scale[size_t(meta + i)];
          acc[m][i] += s * (part[m][i] - float(w.zp[size_t(meta + i)]) * sum);
        }
      }
    }
    const int64_t n = std::min(kLanes, w.N - p * kLanes);
    for (int64_t m = 0; m < M; ++m)
      std::memcpy(Y + m * ldy + p * kLanes, acc[m], size_t(n) * sizeof(float));
  }
}

// Panel rows [p0, p1) dequantized into out [Kp, ldo] at column (p - p0) * 16:
// row k holds W[n, k] for the panels' outputs n.
void dequantize_portable(const Q4Weights& w, int64_t p0, int64_t p1, float* out, int64_t ldo) {
  for (int64_t p = p0; p < p1; ++p)
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      const uint8_t* q = q_of(w, p, b);
      const int64_t meta = meta_of(w, p, b);
      for (int64_t j = 0; j < w.block / 2; ++j, q += kLanes) {
        float* r0 = out + (b * w.block + 2 * j) * ldo + (p - p0) * kLanes;
        float* r1 = r0 + ldo;
        for (int i = 0; i < kLanes; ++i) {
          const float s = w.scale[size_t(meta + i)], zs = float(w.zp[size_t(meta + i)]) * s;
          r0[i] = float(q[i] & 15) * s - zs;
          r1[i] = float(q[i] >> 4) * s - zs;
        }
      }
    }
}

#if defined(__x86_64__)
// GCC 12 flags the deliberately undefined pass-through operand inside its own
// AVX-512 intrinsics (_mm512_undefined_*) once they are inlined: a false
// positive, as in quantize.cpp.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
__attribute__((target("avx512f"))) inline __m512 load_zero_points(const uint8_t* z) {
  return _mm512_cvtepi32_ps(
      _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(z))));
}

// AVX-512: 16 bytes become 16 lanes of the even k and 16 of the odd k, each
// multiplied by a broadcast value of A; a block's sum is scaled once.
template <int M>
__attribute__((target("avx512f"))) void rows_avx512(const Q4Weights& w, const PaddedA& a,
                                                    int64_t p0, int64_t p1, float* Y, int64_t ldy) {
  const __m512i low = _mm512_set1_epi32(15);
  for (int64_t p = p0; p < p1; ++p) {
    __m512 acc[M];
    for (int m = 0; m < M; ++m) acc[m] = _mm512_setzero_ps();
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      // Four chains a row (pair parity x low / high nibble): one chain would
      // wait on each multiply-add's latency.
      __m512 part[M][4];
      for (int m = 0; m < M; ++m)
        for (int c = 0; c < 4; ++c) part[m][c] = _mm512_setzero_ps();
      const uint8_t* q = q_of(w, p, b);
      const float* ab = a.a.data() + b * w.block;
      for (int64_t j = 0; j < w.block / 2; j += 2, q += 2 * kLanes)
        for (int u = 0; u < 2; ++u) {
          const __m512i v = _mm512_cvtepu8_epi32(
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + u * kLanes)));
          const __m512 lo = _mm512_cvtepi32_ps(_mm512_and_si512(v, low));
          const __m512 hi = _mm512_cvtepi32_ps(_mm512_srli_epi32(v, 4));
          for (int m = 0; m < M; ++m) {
            const float* ak = ab + m * a.Kp + 2 * (j + u);
            part[m][2 * u] = _mm512_fmadd_ps(lo, _mm512_set1_ps(ak[0]), part[m][2 * u]);
            part[m][2 * u + 1] = _mm512_fmadd_ps(hi, _mm512_set1_ps(ak[1]), part[m][2 * u + 1]);
          }
        }
      for (int m = 0; m < M; ++m)
        part[m][0] = _mm512_add_ps(_mm512_add_ps(part[m][0], part[m][1]),
                                   _mm512_add_ps(part[m][2], part[m][3]));
      const int64_t meta = meta_of(w, p, b);
      const __m512 s = _mm512_loadu_ps(w.scale.data() + meta);
      const __m512 zs = _mm512_mul_ps(load_zero_points(w.zp.data() + meta), s);
      for (int m = 0; m < M; ++m) {
        acc[m] = _mm512_fmadd_ps(part[m][0], s, acc[m]);
        acc[m] = _mm512_fnmadd_ps(zs, _mm512_set1_ps(a.sums[size_t(m * w.k_blocks + b)]), acc[m]);
      }
    }
    const int64_t n = std::min(kLanes, w.N - p * kLanes);
    const __mmask16 keep = n == kLanes ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
    for (int m = 0; m < M; ++m) _mm512_mask_storeu_ps(Y + m * ldy + p * kLanes, keep, acc[m]);
  }
}

__attribute__((target("avx512f"))) void dequantize_avx512(const Q4Weights& w, int64_t p0,
                                                          int64_t p1, float* out, int64_t ldo) {
  const __m512i low = _mm512_set1_epi32(15);
  for (int64_t p = p0; p < p1; ++p)
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      const int64_t meta = meta_of(w, p, b);
      const __m512 s = _mm512_loadu_ps(w.scale.data() + meta);
      const __m512 zs = _mm512_mul_ps(load_zero_points(w.zp.data() + meta), s);
      const uint8_t* q = q_of(w, p, b);
      float* r = out + b * w.block * ldo + (p - p0) * kLanes;
      for (int64_t j = 0; j < w.block / 2; ++j, q += kLanes, r += 2 * ldo) {
        const __m512i v =
            _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
        _mm512_storeu_ps(r, _mm512_fmsub_ps(_mm512_cvtepi32_ps(_mm512_and_si512(v, low)), s, zs));
        _mm512_storeu_ps(r + ldo,
                         _mm512_fmsub_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(v, 4)), s, zs));
      }
    }
}
#pragma GCC diagnostic pop

// AVX2: a panel is two halves of 8 lanes.
template <int M>
__attribute__((target("avx2,fma"))) void rows_avx2(const Q4Weights& w, const PaddedA& a, int64_t p0,
                                                   int64_t p1, float* Y, int64_t ldy) {
  const __m256i low = _mm256_set1_epi32(15);
  for (int64_t p = p0; p < p1; ++p) {
    __m256 acc[M][2];
    for (int m = 0; m < M; ++m) acc[m][0] = acc[m][1] = _mm256_setzero_ps();
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      // Low and high nibbles in separate chains (two a half), summed after.
      __m256 part[M][2][2];
      for (int m = 0; m < M; ++m)
        for (int h = 0; h < 2; ++h) part[m][h][0] = part[m][h][1] = _mm256_setzero_ps();
      const uint8_t* q = q_of(w, p, b);
      const float* ab = a.a.data() + b * w.block;
      for (int64_t j = 0; j < w.block / 2; ++j, q += kLanes)
        for (int h = 0; h < 2; ++h) {
          const __m256i v =
              _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + 8 * h)));
          const __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(v, low));
          const __m256 hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(v, 4));
          for (int m = 0; m < M; ++m) {
            part[m][h][0] =
                _mm256_fmadd_ps(lo, _mm256_set1_ps(ab[m * a.Kp + 2 * j]), part[m][h][0]);
            part[m][h][1] =
                _mm256_fmadd_ps(hi, _mm256_set1_ps(ab[m * a.Kp + 2 * j + 1]), part[m][h][1]);
          }
        }
      const int64_t meta = meta_of(w, p, b);
      for (int h = 0; h < 2; ++h) {
        const __m256 s = _mm256_loadu_ps(w.scale.data() + meta + 8 * h);
        const __m256 z = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(w.zp.data() + meta + 8 * h))));
        const __m256 zs = _mm256_mul_ps(z, s);
        for (int m = 0; m < M; ++m) {
          acc[m][h] = _mm256_fmadd_ps(_mm256_add_ps(part[m][h][0], part[m][h][1]), s, acc[m][h]);
          acc[m][h] =
              _mm256_fnmadd_ps(zs, _mm256_set1_ps(a.sums[size_t(m * w.k_blocks + b)]), acc[m][h]);
        }
      }
    }
    const int64_t n = std::min(kLanes, w.N - p * kLanes);
    for (int m = 0; m < M; ++m) {
      alignas(32) float lanes[kLanes];
      _mm256_store_ps(lanes, acc[m][0]);
      _mm256_store_ps(lanes + 8, acc[m][1]);
      std::memcpy(Y + m * ldy + p * kLanes, lanes, size_t(n) * sizeof(float));
    }
  }
}
#endif

// Calls f(std::integral_constant<int, M>{}) for M in 1 .. kQ4MaxRows.
template <typename F>
void with_rows(int64_t M, const F& f) {
  switch (M) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    default:
      return f(std::integral_constant<int, 4>{});
  }
}

void rows(const Q4Weights& w, int64_t M, const PaddedA& a, int64_t p0, int64_t p1, float* Y,
          int64_t ldy) {
#if defined(__x86_64__)
  const Isa isa = cpu_isa();
  if (isa == Isa::kAvx512)
    return with_rows(M, [&](auto r) { rows_avx512<decltype(r)::value>(w, a, p0, p1, Y, ldy); });
  if (isa == Isa::kAvx2)
    return with_rows(M, [&](auto r) { rows_avx2<decltype(r)::value>(w, a, p0, p1, Y, ldy); });
#endif
  rows_portable(w, M, a, p0, p1, Y, ldy);
}

}  // namespace

Q4Weights pack_q4(int64_t N, int64_t K, int64_t block, const uint8_t* q, const float* scales,
                  const uint8_t* zero_points) {
  Q4Weights w;
  w.N = N, w.K = K, w.block = block, w.k_blocks = (K + block - 1) / block;
  w.panels = (N + kLanes - 1) / kLanes;
  const int64_t blob = block / 2;
  w.q.assign(size_t(w.panels * w.k_blocks * blob * kLanes), 0);
  w.scale.assign(size_t(w.panels * w.k_blocks * kLanes), 0.0f);
  w.zp.assign(w.scale.size(), 0);
  for (int64_t n = 0; n < N; ++n) {
    const int64_t p = n / kLanes, i = n % kLanes;
    for (int64_t b = 0; b < w.k_blocks; ++b) {
      const uint8_t* src = q + (n * w.k_blocks + b) * blob;
      uint8_t* dst = w.q.data() + ((p * w.k_blocks + b) * blob) * kLanes + i;
      for (int64_t j = 0; j < blob; ++j) dst[j * kLanes] = src[j];
      const int64_t meta = (p * w.k_blocks + b) * kLanes + i;
      w.scale[size_t(meta)] = scales[n * w.k_blocks + b];
      w.zp[size_t(meta)] = zero_points ? zero_points[n * w.k_blocks + b] : 8;
    }
  }
  return w;
}

void q4_gemm(const Q4Weights& w, int64_t M, const float* A, int64_t lda, float* Y, int64_t ldy,
             ThreadPool* pool) {
  for (int64_t m0 = 0; m0 < M; m0 += kQ4MaxRows) {
    const int64_t n_rows = std::min(kQ4MaxRows, M - m0);
    const PaddedA a = pad(w, n_rows, A + m0 * lda, lda, /*with_sums=*/true);
    float* y = Y + m0 * ldy;
    auto body = [&](int64_t p0, int64_t p1) { rows(w, n_rows, a, p0, p1, y, ldy); };
    // A panel reads 8 K bytes of weights and does 16 K multiply-adds a row.
    const double cost = double(kLanes) * double(w.K) * double(n_rows + 1);
    if (pool)
      pool->parallel_for(w.panels, cost, body);
    else
      body(0, w.panels);
  }
}

void q4_gemm_dequantized(const Q4Weights& w, int64_t M, const float* A, int64_t lda, float* Y,
                         int64_t ldy, ThreadPool* pool) {
  // A packed once, for every chunk; padded first only when K ends inside a
  // block (the dequantized rows run to the block's end).
  const int64_t Kp = w.k_blocks * w.block;
  PaddedA padded;
  if (Kp != w.K) padded = pad(w, M, A, lda, /*with_sums=*/false);
  const PackedA packed =
      Kp != w.K ? PackedA(false, M, Kp, padded.a.data(), Kp) : PackedA(false, M, Kp, A, lda);
  // Chunks of 4 panels (64 outputs): 64 x K floats stay in L2 while the
  // SGEMM reads them in place (row k is W[n0 .. n0 + 64, k]).
  constexpr int64_t kChunk = 4, kWidth = kChunk * kLanes;
  const int64_t chunks = (w.panels + kChunk - 1) / kChunk;
  auto body = [&](int64_t c0, int64_t c1) {
    thread_local HostVector<float> buf;
    if (buf.size() < size_t(kWidth * Kp)) buf.resize(size_t(kWidth * Kp));
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t p0 = c * kChunk, p1 = std::min(w.panels, p0 + kChunk);
#if defined(__x86_64__)
      if (cpu_isa() == Isa::kAvx512)
        dequantize_avx512(w, p0, p1, buf.data(), kWidth);
      else
#endif
        dequantize_portable(w, p0, p1, buf.data(), kWidth);
      const int64_t n0 = p0 * kLanes, n1 = std::min(w.N, p1 * kLanes);
      sgemm_packed(packed, false, n1 - n0, buf.data(), kWidth, Y + n0, ldy);
    }
  };
  const double cost = double(M) * double(kWidth) * double(Kp) * 2.0;
  if (pool)
    pool->parallel_for(chunks, cost, body);
  else
    body(0, chunks);
}

}  // namespace tessera::linalg
