// AVX2 tiles of igemm, for CPUs without AVX-512 VNNI.
//
// The pair tile (igemm_tile_avx2_pairs) takes each group's four bytes of A
// as they are (one 32-bit broadcast) against the panel's bytes: vpmaddubsw
// adds neighbouring products into int16 lanes, vpmaddwd with ones adds the
// two lanes of a column into its int32 sum, three instructions per 32
// products. vpmaddubsw saturates beyond 32767, so it runs only on panels
// that PackedBInt8::prepare_pairs made safe, adding back what it clipped.
//
// The int16 tile (igemm_tile_avx2) serves any panel: exact, since both
// operands are widened to int16 and vpmaddwd adds two products (at most
// 2 x 255 x 128) into each int32 lane, never saturating.
// The tile's rows of A are first widened once into a per-thread buffer, each
// group's four bytes as four int16 (one 64-bit broadcast a step). The panel
// then runs as eight chunks of 8 columns: the chunk's two widened B registers
// (4 columns x 4 k each) meet up to 6 rows, whose 12 accumulators stay in
// registers over the whole depth. Each int32 lane holds half of one column's
// four products per group until the end, where neighbouring lanes are added
// (vphaddd) and put back in column order.
#include <cstring>

#include "core/host_heap.hpp"
#include "linalg/cpu_isa.hpp"
#include "linalg/igemm_kernel.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg::detail {

#if defined(__x86_64__)
namespace {

#define TESSERA_AVX2 __attribute__((target("avx2")))

// Rows 0 .. R of one 8-column chunk (panel bytes from `b`, 256 a group) from
// the widened rows `aw` (`groups` words apart), raw sums into out (row
// stride 64).
template <int R>
TESSERA_AVX2 void chunk(int64_t groups, const int64_t* aw, const int8_t* b, int32_t* out) {
  __m256i acc[R][2];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int64_t g = 0; g < groups; ++g) {
    const int8_t* bg = b + g * 256;
    const __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bg)));
    const __m256i b1 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bg + 16)));
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256i a = _mm256_set1_epi64x(aw[r * groups + g]);  // (a0, a1, a2, a3) x 4
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(b0, a));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(b1, a));
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    // Lanes (c, c), (c+1, c+1) | (c+2, c+2), (c+3, c+3) of two registers:
    // hadd gives c, c+1, c+4, c+5 | c+2, c+3, c+6, c+7; reorder the 64-bit
    // quarters to c .. c+7.
    const __m256i sums = _mm256_hadd_epi32(acc[r][0], acc[r][1]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + r * 64),
                        _mm256_permute4x64_epi64(sums, 0xd8));
  }
}

using ChunkFn = void (*)(int64_t, const int64_t*, const int8_t*, int32_t*);
constexpr ChunkFn kChunks[kIgemmRows] = {&chunk<1>, &chunk<2>, &chunk<3>,
                                         &chunk<4>, &chunk<5>, &chunk<6>};
static_assert(kIgemmRows == 6, "one chunk function per row count");

// Row r's groups of four bytes as four int16 each, into w[r * groups ..].
TESSERA_AVX2 void widen_rows(int64_t groups, const uint8_t* a, int64_t lda, int rows, int64_t* w) {
  for (int r = 0; r < rows; ++r) {
    const uint8_t* ar = a + r * lda;
    int64_t* wr = w + r * groups;
    int64_t g = 0;
    for (; g + 4 <= groups; g += 4)  // 16 bytes -> 16 int16: four groups
      _mm256_storeu_si256(
          reinterpret_cast<__m256i*>(wr + g),
          _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ar + 4 * g))));
    for (; g < groups; ++g) {
      const uint8_t* a4 = ar + 4 * g;
      wr[g] = int64_t(a4[0]) | int64_t(a4[1]) << 16 | int64_t(a4[2]) << 32 | int64_t(a4[3]) << 48;
    }
  }
}

// Rows 0 .. R of one 8-column chunk of a prepared panel (bytes from `b`,
// 256 a group) from A's rows as they are (`lda` apart); raw sums into out
// (row stride 64).
template <int R>
TESSERA_AVX2 void pair_chunk(int64_t groups, const uint8_t* a, int64_t lda, const int8_t* b,
                             int32_t* out) {
  __m256i acc[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_si256();
  const __m256i ones = _mm256_set1_epi16(1);
  for (int64_t g = 0; g < groups; ++g) {
    const __m256i bv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + g * 256));
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      int32_t a4;
      std::memcpy(&a4, a + r * lda + 4 * g, 4);
      const __m256i pairs = _mm256_maddubs_epi16(_mm256_set1_epi32(a4), bv);
      acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(pairs, ones));
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + r * 64), acc[r]);
}

using PairChunkFn = void (*)(int64_t, const uint8_t*, int64_t, const int8_t*, int32_t*);
constexpr PairChunkFn kPairChunks[kIgemmRows] = {&pair_chunk<1>, &pair_chunk<2>, &pair_chunk<3>,
                                                 &pair_chunk<4>, &pair_chunk<5>, &pair_chunk<6>};

// The zero-point terms (igemm_kernel.hpp), in wrapping 32-bit arithmetic.
void add_terms(int rows, const IgemmTerms& t, int32_t* out) {
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < 64; ++j)
      out[r * 64 + j] = int32_t(uint32_t(out[r * 64 + j]) - t.zb[j] * t.row_term[r] -
                                t.za[r] * uint32_t(t.col_sums[j]));
}

}  // namespace

// 16 columns a step: the four rows' bytes interleaved into words by two
// rounds of unpacks, each word's signed bytes summed by vpmaddubsw against
// ones and vpmaddwd; the last width % 16 columns by the portable loop.
TESSERA_AVX2 void igemm_pack_words_avx2(const uint8_t* const r[4], int64_t width, uint32_t flip,
                                        int8_t* dst, int32_t* sums) {
  const __m128i flip_v = _mm_set1_epi32(int32_t(flip));
  const __m128i ones8 = _mm_set1_epi8(1), ones16 = _mm_set1_epi16(1);
  auto load = [](const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
  int64_t j = 0;
  for (; j + 16 <= width; j += 16) {
    const __m128i a = load(r[0] + j), b = load(r[1] + j), c = load(r[2] + j), d = load(r[3] + j);
    const __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
    const __m128i cd_lo = _mm_unpacklo_epi8(c, d), cd_hi = _mm_unpackhi_epi8(c, d);
    const __m128i w[4] = {_mm_unpacklo_epi16(ab_lo, cd_lo), _mm_unpackhi_epi16(ab_lo, cd_lo),
                          _mm_unpacklo_epi16(ab_hi, cd_hi), _mm_unpackhi_epi16(ab_hi, cd_hi)};
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {  // columns j + 4q .. j + 4q + 3
      const __m128i words = _mm_xor_si128(w[q], flip_v);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 4 * (j + 4 * q)), words);
      const __m128i sum4 = _mm_madd_epi16(_mm_maddubs_epi16(ones8, words), ones16);
      __m128i* s4 = reinterpret_cast<__m128i*>(sums + j + 4 * q);
      _mm_storeu_si128(s4, _mm_add_epi32(_mm_loadu_si128(s4), sum4));
    }
  }
  if (j < width) {
    const uint8_t* const rest[4] = {r[0] + j, r[1] + j, r[2] + j, r[3] + j};
    igemm_pack_words_portable(rest, width - j, flip, dst + 4 * j, sums + j);
  }
}

TESSERA_AVX2 void igemm_tile_avx2_pairs(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                                        const int8_t* panel, const IgemmPairFix* fixes,
                                        int64_t nfix, const IgemmTerms& t, int32_t* out) {
  const PairChunkFn run = kPairChunks[rows - 1];
  for (int c = 0; c < 8; ++c)  // 8 columns a chunk: bytes 32 c .. of each group
    run(groups, a, lda, panel + 32 * c, out + 8 * c);
  for (int64_t f = 0; f < nfix; ++f)  // what prepare_pairs clipped off
    for (int r = 0; r < rows; ++r)
      out[r * 64 + fixes[f].col] =
          int32_t(uint32_t(out[r * 64 + fixes[f].col]) +
                  uint32_t(a[r * lda + fixes[f].k]) * uint32_t(fixes[f].delta));
  add_terms(rows, t, out);
}

TESSERA_AVX2 void igemm_tile_avx2(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                                  const int8_t* panel, const IgemmTerms& t, int32_t* out) {
  static thread_local HostVector<int64_t> widened;
  if (widened.size() < size_t(rows * groups)) widened.resize(size_t(rows * groups));
  widen_rows(groups, a, lda, rows, widened.data());
  const ChunkFn run = kChunks[rows - 1];
  for (int c = 0; c < 8; ++c)  // 8 columns a chunk: bytes 32 c .. of each group
    run(groups, widened.data(), panel + 32 * c, out + 8 * c);
  add_terms(rows, t, out);
}

bool igemm_avx2_available() { return cpu_isa() >= Isa::kAvx2; }

#undef TESSERA_AVX2

#else

void igemm_tile_avx2(int64_t groups, const uint8_t* a, int64_t lda, int rows, const int8_t* panel,
                     const IgemmTerms& t, int32_t* out) {
  igemm_tile_portable(groups, a, lda, rows, panel, t, out);
}
void igemm_tile_avx2_pairs(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                           const int8_t* panel, const IgemmPairFix* fixes, int64_t nfix,
                           const IgemmTerms& t, int32_t* out) {
  igemm_tile_portable(groups, a, lda, rows, panel, t, out);
  for (int64_t f = 0; f < nfix; ++f)
    for (int r = 0; r < rows; ++r)
      out[r * 64 + fixes[f].col] =
          int32_t(uint32_t(out[r * 64 + fixes[f].col]) +
                  uint32_t(a[r * lda + fixes[f].k]) * uint32_t(fixes[f].delta));
}
void igemm_pack_words_avx2(const uint8_t* const r[4], int64_t width, uint32_t flip, int8_t* dst,
                           int32_t* sums) {
  igemm_pack_words_portable(r, width, flip, dst, sums);
}
bool igemm_avx2_available() { return false; }

#endif

}  // namespace tessera::linalg::detail
