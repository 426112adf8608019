// AVX2 tile of igemm, for CPUs without AVX-512 VNNI: exact, since both
// operands are widened to int16 and vpmaddwd adds two products (at most
// 2 x 255 x 128) into each int32 lane, never saturating (vpmaddubsw would).
// A 64-column panel runs as four chunks of 16 columns; each int32 lane holds
// half of one column's four products per group until the end, where
// neighbouring lanes are added (vphaddd) and put back in column order.
#include <cstring>

#include "linalg/cpu_isa.hpp"
#include "linalg/igemm_kernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg::detail {

#if defined(__x86_64__)
namespace {

// Rows r0 .. r0 + R of one 16-column chunk (panel bytes from `b`, 256 a
// group), raw sums into out (row stride 64).
template <int R>
__attribute__((target("avx2"))) void chunk(int64_t groups, const uint8_t* a, int64_t lda,
                                           const int8_t* b, int32_t* out) {
  __m256i acc[R][4];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 4; ++v) acc[r][v] = _mm256_setzero_si256();
  for (int64_t g = 0; g < groups; ++g) {
    const int8_t* bg = b + g * 256;
    // 16 columns x 4 k: four registers of 4 columns, widened to int16.
    __m256i bw[4];
    for (int v = 0; v < 4; ++v)
      bw[v] = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bg + 16 * v)));
    for (int r = 0; r < R; ++r) {
      const uint8_t* a4 = a + r * lda + 4 * g;
      // (a0, a1, a2, a3) as int16, repeated for each column.
      const int64_t pattern =
          int64_t(a4[0]) | int64_t(a4[1]) << 16 | int64_t(a4[2]) << 32 | int64_t(a4[3]) << 48;
      const __m256i aw = _mm256_set1_epi64x(pattern);
      for (int v = 0; v < 4; ++v)
        acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(bw[v], aw));
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 4; v += 2) {
      // Lanes (c, c), (c+1, c+1) | (c+2, c+2), (c+3, c+3) of two registers:
      // hadd gives c, c+1, c+4, c+5 | c+2, c+3, c+6, c+7; reorder the 64-bit
      // quarters to c .. c+7.
      const __m256i sums = _mm256_hadd_epi32(acc[r][v], acc[r][v + 1]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + r * 64 + 4 * v),
                          _mm256_permute4x64_epi64(sums, 0xd8));
    }
}

}  // namespace

__attribute__((target("avx2"))) void igemm_tile_avx2(int64_t groups, const uint8_t* a, int64_t lda,
                                                     int rows, const int8_t* panel,
                                                     const IgemmTerms& t, int32_t* out) {
  for (int c = 0; c < 4; ++c) {  // 16 columns a chunk: bytes 64 c .. of each group
    const int8_t* b = panel + 64 * c;
    int32_t* o = out + 16 * c;
    for (int r = 0; r < rows; r += 2) {
      if (rows - r >= 2)
        chunk<2>(groups, a + r * lda, lda, b, o + r * 64);
      else
        chunk<1>(groups, a + r * lda, lda, b, o + r * 64);
    }
  }
  // The zero-point terms (igemm_kernel.hpp), in wrapping 32-bit arithmetic.
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < 64; ++j)
      out[r * 64 + j] = int32_t(uint32_t(out[r * 64 + j]) - t.zb[j] * t.row_term[r] -
                                t.za[r] * uint32_t(t.col_sums[j]));
}

bool igemm_avx2_available() { return cpu_isa() >= Isa::kAvx2; }

#else

void igemm_tile_avx2(int64_t groups, const uint8_t* a, int64_t lda, int rows, const int8_t* panel,
                     const IgemmTerms& t, int32_t* out) {
  igemm_tile_portable(groups, a, lda, rows, panel, t, out);
}
bool igemm_avx2_available() { return false; }

#endif

}  // namespace tessera::linalg::detail
