// AVX-512 VNNI tile of igemm: up to 6 rows x 64 columns of int32 sums in 24
// zmm registers; each group of 4 k values loads the panel's four 64-byte
// vectors once and, per row, broadcasts the row's 4 bytes into vpdpbusd
// (uint8 x int8, four products a lane, summed without saturation).
// Compiled for VNNI via the target attribute so the rest of the build stays
// generic.
#include <cstring>

#include "linalg/cpu_isa.hpp"
#include "linalg/igemm_kernel.hpp"
#include "linalg/requant_vnni.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera::linalg::detail {

#if defined(__x86_64__)
namespace {

// out -= zb[j] row_term[r] + za[r] col_sums[j], in wrapping 32-bit
// arithmetic (vpmulld keeps the low 32 bits).
template <int MR>
__attribute__((target("avx512f"), noinline)) void fix_tile(const IgemmTerms& t, int32_t* out) {
  __m512i zb[4], cs[4];
  for (int v = 0; v < 4; ++v) {
    zb[v] = _mm512_loadu_si512(t.zb + v * 16);
    cs[v] = _mm512_loadu_si512(t.col_sums + v * 16);
  }
  for (int r = 0; r < MR; ++r) {
    const __m512i rt = _mm512_set1_epi32(int(t.row_term[r])), za = _mm512_set1_epi32(int(t.za[r]));
    for (int v = 0; v < 4; ++v) {
      int32_t* o = out + r * 64 + v * 16;
      const __m512i fix =
          _mm512_add_epi32(_mm512_mullo_epi32(zb[v], rt), _mm512_mullo_epi32(za, cs[v]));
      _mm512_storeu_si512(o, _mm512_sub_epi32(_mm512_loadu_si512(o), fix));
    }
  }
}

// acc[r][v] += the raw sums of rows r < MR over columns 16 v .. 16 v + 16
// (v < V) of the panel at b, row r's bytes read from ar[r]: per group of 4
// k values the panel's V vectors are loaded once and each row's 4 bytes are
// broadcast into vpdpbusd.
template <int MR, int V>
[[gnu::always_inline]] inline __attribute__((target("avx512f,avx512bw,avx512vnni"))) void
accumulate_rows(int64_t groups, const uint8_t* const (&ar)[MR], const int8_t* b,
                __m512i (&acc)[MR][V]) {
  for (int64_t g = 0; g < groups; ++g) {
    const int8_t* bg = b + g * 256;
    __m512i bv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) bv[v] = _mm512_loadu_si512(bg + 64 * v);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      int32_t four;
      std::memcpy(&four, ar[r] + 4 * g, 4);
      const __m512i a4 = _mm512_set1_epi32(four);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], a4, bv[v]);
    }
  }
}

template <int MR, int V>
[[gnu::always_inline]] inline __attribute__((target("avx512f"))) void zero(__m512i (&acc)[MR][V]) {
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_si512();
}

// acc = the raw sums of rows r < MR of A (row r at a + r * lda) over the
// panel's first 16 V columns.
template <int MR, int V>
[[gnu::always_inline]] inline __attribute__((target("avx512f,avx512bw,avx512vnni"))) void
accumulate(int64_t groups, const uint8_t* a, int64_t lda, const int8_t* b, __m512i (&acc)[MR][V]) {
  const uint8_t* ar[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) ar[r] = a + r * lda;
  zero(acc);
  accumulate_rows(groups, ar, b, acc);
}

template <int MR>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void tile(int64_t groups, const uint8_t* a,
                                                                 int64_t lda, const int8_t* b,
                                                                 const IgemmTerms& t,
                                                                 int32_t* out) {
  __m512i acc[MR][4];
  accumulate<MR, 4>(groups, a, lda, b, acc);
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) _mm512_storeu_si512(out + r * 64 + v * 16, acc[r][v]);
  // The zero-point terms, over the stored tile (from L1): done in the loop
  // above, they pushed the 24 accumulators out of registers.
  fix_tile<MR>(t, out);
}

// GCC 12 flags the deliberately undefined pass-through operand inside its own
// AVX-512 intrinsics (_mm512_undefined_*) once they are inlined: a false
// positive, as in quantize.cpp.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
// Row r's accumulators, requantized into `width` bytes at y, after the
// folded offsets or the zero-point terms and the bias.
template <int V, int S>
__attribute__((target("avx512f,avx512bw,avx512vl,fma"))) inline void requant_row(
    const __m512i acc[V], const IgemmTerms& t, int r, const IgemmRequantRows& q,
    const RequantConsts& k, uint8_t* y, int width) {
  const __m512i rt = _mm512_set1_epi32(int(t.row_term[r])), za = _mm512_set1_epi32(int(t.za[r]));
  const __m512i bias = _mm512_set1_epi32(q.bias ? q.bias[r] : 0);
  const __m512i row_off = _mm512_set1_epi32(q.row_off ? q.row_off[r] : 0);
  const __m512 mult = _mm512_set1_ps(q.mult[r]);
  for (int v = 0; v < V; ++v) {
    const int left = width - 16 * v;
    if (left <= 0) break;
    __m512i sum;
    if (q.col_off) {
      sum = _mm512_add_epi32(_mm512_sub_epi32(acc[v], _mm512_loadu_si512(q.col_off + v * 16)),
                             row_off);
    } else {
      const __m512i zb = _mm512_loadu_si512(t.zb + v * 16);
      const __m512i cs = _mm512_loadu_si512(t.col_sums + v * 16);
      const __m512i fix = _mm512_add_epi32(_mm512_mullo_epi32(zb, rt), _mm512_mullo_epi32(za, cs));
      sum = _mm512_add_epi32(_mm512_sub_epi32(acc[v], fix), bias);
    }
    const __mmask16 m = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
    _mm_mask_storeu_epi8(y + 16 * v, m, requant16<S>(sum, mult, k));
  }
}

// MR rows x V vectors of 16 columns: a panel's last columns (a plane of
// 196 positions leaves 4) take only the vectors they need. (Accumulators
// started from the offsets instead of zero made GCC 12 copy them between
// registers on every step.)
template <int MR, int V, int S = kAnyClamp>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,fma"))) void tile_requant(
    int64_t groups, const uint8_t* a, int64_t lda, const int8_t* b, const IgemmTerms& t,
    const IgemmRequantRows& q, uint8_t* y, int64_t ldy, int width) {
  __m512i acc[MR][V];
  accumulate<MR, V>(groups, a, lda, b, acc);
  const RequantConsts k = requant_consts(q.y_scale, q.inv_scale, q.y_zero, q.lo, q.hi, q.saturate);
  if constexpr (S != kAnyClamp) {
    if (q.col_off) {
      // A full tile with the folded offsets: every row's offset and
      // multiplier read before the first store (byte stores may alias
      // them: the compiler reloaded q's fields after each), the column
      // offsets once, whole 16-byte stores.
      int32_t row_off[MR];
      float mult[MR];
#pragma GCC unroll 6
      for (int r = 0; r < MR; ++r) row_off[r] = q.row_off[r], mult[r] = q.mult[r];
      __m512i col[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) col[v] = _mm512_loadu_si512(q.col_off + 16 * v);
#pragma GCC unroll 6
      for (int r = 0; r < MR; ++r) {
        const __m512i ro = _mm512_set1_epi32(row_off[r]);
        const __m512 m = _mm512_set1_ps(mult[r]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v)
          _mm_storeu_si128(
              reinterpret_cast<__m128i*>(y + r * ldy + 16 * v),
              requant16<S>(_mm512_add_epi32(_mm512_sub_epi32(acc[r][v], col[v]), ro), m, k));
      }
      return;
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) requant_row<V, S>(acc[r], t, r, q, k, y + r * ldy, width);
}

// Columns j and j + 1 (the two 64-bit words of `pair`), where below width.
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline void store_pair(uint8_t* y, int64_t ldy,
                                                                            __mmask16 mask,
                                                                            int width, __m128i pair,
                                                                            int j) {
  if (j < width) _mm_mask_storeu_epi8(y + j * ldy, mask, pair);
  if (j + 1 < width) _mm_mask_storeu_epi8(y + (j + 1) * ldy, mask, _mm_unpackhi_epi64(pair, pair));
}

template <int L>
__attribute__((target("avx512f"))) inline __m128i lane(__m512i v) {
  if constexpr (L == 0) return _mm512_castsi512_si128(v);
  return _mm512_extracti32x4_epi32(v, L);
}

// Writes column j (j < width) of the tile's MR rows of bytes (rows[r]'s
// lane v: columns 16 v .. 16 v + 15) to y + j * ldy: an 8 x 64 byte
// transposition in three rounds of interleaves within each 128-bit lane
// (bytes, then pairs, then quads), after which each 64-bit word holds one
// column's 8 rows, stored with a mask of MR bytes.
template <int MR, int V>
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline void store_columns(
    const __m128i (&rows)[MR][V], uint8_t* y, int64_t ldy, int width) {
  __m512i r[8], t[8], u[8];
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_setzero_si512();
    if (i >= MR) continue;
    r[i] = _mm512_castsi128_si512(rows[i][0]);
    if constexpr (V > 1) r[i] = _mm512_inserti32x4(r[i], rows[i][1], 1);
    if constexpr (V > 2) r[i] = _mm512_inserti32x4(r[i], rows[i][2], 2);
    if constexpr (V > 3) r[i] = _mm512_inserti32x4(r[i], rows[i][3], 3);
  }
  for (int i = 0; i < 4; ++i) {  // rows 2i, 2i+1: columns 8h.. of each lane
    t[2 * i] = _mm512_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
  }
  for (int g = 0; g < 2; ++g)      // rows 4g .. 4g + 3
    for (int h = 0; h < 2; ++h) {  // columns 8h + 0..3 and 8h + 4..7 of each lane
      u[4 * g + 2 * h] = _mm512_unpacklo_epi16(t[4 * g + h], t[4 * g + 2 + h]);
      u[4 * g + 2 * h + 1] = _mm512_unpackhi_epi16(t[4 * g + h], t[4 * g + 2 + h]);
    }
  // u[4g + k]: rows 4g .. 4g + 3 of columns 4k .. 4k + 3 of each lane; then
  // w[q]: in each lane, columns 2q and 2q + 1, 8 rows each.
  __m512i w[8];
  for (int k = 0; k < 4; ++k) {
    w[2 * k] = _mm512_unpacklo_epi32(u[k], u[4 + k]);
    w[2 * k + 1] = _mm512_unpackhi_epi32(u[k], u[4 + k]);
  }
  const __mmask16 mask = __mmask16((1u << MR) - 1);
  for (int q = 0; q < 8; ++q) {
    store_pair(y, ldy, mask, width, lane<0>(w[q]), 2 * q);
    if constexpr (V > 1) store_pair(y, ldy, mask, width, lane<1>(w[q]), 16 + 2 * q);
    if constexpr (V > 2) store_pair(y, ldy, mask, width, lane<2>(w[q]), 32 + 2 * q);
    if constexpr (V > 3) store_pair(y, ldy, mask, width, lane<3>(w[q]), 48 + 2 * q);
  }
}

// The convolution tile: accumulators over every segment of the rows, then
// each column vector's 16 sums requantized (the same arithmetic as
// requant_row, with the column's multiplier) and the bytes written into the
// output channels' planes.
template <int MR, int V, int S = kAnyClamp>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,fma"))) void conv_tile(
    const IgemmConvRows& a, const int8_t* b, const IgemmColumnRequant& q, uint8_t* y, int64_t ldy,
    int width) {
  __m512i acc[MR][V];
  zero(acc);
  for (int64_t s = 0; s < a.segments; ++s) {
    const uint8_t* ar[MR];
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) ar[r] = a.rows[r] + a.seg_off[s];
    accumulate_rows(a.seg_groups, ar, b + s * a.seg_groups * 256, acc);
  }
  const RequantConsts k = requant_consts(q.y_scale, q.inv_scale, q.y_zero, q.lo, q.hi, q.saturate);
  __m128i bytes[MR][V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    const __m512 mult = _mm512_loadu_ps(q.mult + 16 * v);
    const __m512i col = _mm512_loadu_si512(q.col_off + 16 * v);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      __m512i sum = _mm512_sub_epi32(acc[r][v], col);
      if (q.row_off) sum = _mm512_sub_epi32(sum, _mm512_set1_epi32(q.row_off[r]));
      bytes[r][v] = requant16<S>(sum, mult, k);
    }
  }
  store_columns<MR, V>(bytes, y, ldy, width);
}

#pragma GCC diagnostic pop

}  // namespace

namespace {

// The instance of a requantizing tile (Tile::of<MR, V, S>) for a tile of
// `rows` rows and `vectors` 16-column vectors: full tiles (`full`: 6 rows,
// all 64 columns) with their clamping compiled in, the others reading it.
template <typename Tile>
constexpr auto pick_tile(int rows, int vectors, bool full, IgemmSaturate saturate) {
  if (full)
    return saturate == IgemmSaturate::kUnsigned8
               ? Tile::template of<6, 4, int(IgemmSaturate::kUnsigned8)>
           : saturate == IgemmSaturate::kSigned8
               ? Tile::template of<6, 4, int(IgemmSaturate::kSigned8)>
               : Tile::template of<6, 4, int(IgemmSaturate::kNone)>;
  auto by_vectors = [&]<int MR>() {
    return vectors == 1   ? Tile::template of<MR, 1, kAnyClamp>
           : vectors == 2 ? Tile::template of<MR, 2, kAnyClamp>
           : vectors == 3 ? Tile::template of<MR, 3, kAnyClamp>
                          : Tile::template of<MR, 4, kAnyClamp>;
  };
  return rows <= 1   ? by_vectors.template operator()<1>()
         : rows == 2 ? by_vectors.template operator()<2>()
         : rows == 3 ? by_vectors.template operator()<3>()
         : rows == 4 ? by_vectors.template operator()<4>()
         : rows == 5 ? by_vectors.template operator()<5>()
                     : by_vectors.template operator()<6>();
}

struct RequantTile {
  template <int MR, int V, int S>
  static constexpr auto of = tile_requant<MR, V, S>;
};
struct ConvTile {
  template <int MR, int V, int S>
  static constexpr auto of = conv_tile<MR, V, S>;
};

}  // namespace

void igemm_tile_requant_vnni512(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                                const int8_t* panel, const IgemmTerms& t, const IgemmRequantRows& q,
                                uint8_t* y, int64_t ldy, int width) {
  // Only a tile of all 64 columns may take the full path: it stores whole
  // 16-byte runs.
  pick_tile<RequantTile>(rows, (width + 15) / 16, rows == kIgemmRows && width == 64, q.saturate)(
      groups, a, lda, panel, t, q, y, ldy, width);
}

void igemm_conv_tile_vnni512(const IgemmConvRows& a, int rows, const int8_t* panel,
                             const IgemmColumnRequant& q, uint8_t* y, int64_t ldy, int width) {
  // (Its stores honour `width`: four vectors make a full tile.)
  const int vectors = (width + 15) / 16;
  pick_tile<ConvTile>(rows, vectors, rows == kIgemmRows && vectors == 4, q.saturate)(a, panel, q, y,
                                                                                     ldy, width);
}

void igemm_tile_vnni512(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                        const int8_t* panel, const IgemmTerms& t, int32_t* out) {
  switch (rows) {
    case 1:
      return tile<1>(groups, a, lda, panel, t, out);
    case 2:
      return tile<2>(groups, a, lda, panel, t, out);
    case 3:
      return tile<3>(groups, a, lda, panel, t, out);
    case 4:
      return tile<4>(groups, a, lda, panel, t, out);
    case 5:
      return tile<5>(groups, a, lda, panel, t, out);
    default:
      return tile<6>(groups, a, lda, panel, t, out);
  }
}

// Interleaves four rows of 64 bytes into 64 words: bytes of rows 0/1 and
// 2/3 pairwise (vpermt2b), then the pairs (vpermt2w).
__attribute__((target("avx512f,avx512bw,avx512vnni,avx512vbmi"))) void igemm_pack_words_vbmi(
    const uint8_t* const r[4], int64_t width, uint32_t flip, int8_t* dst, int32_t* sums) {
  // Byte picks (0-63 from the first row, 64-127 from the second) and word
  // picks (0-31, 32-63), made once.
  struct Picks {
    alignas(64) uint8_t lo8[64], hi8[64];
    alignas(64) uint16_t lo16[32], hi16[32];
    Picks() {
      for (int i = 0; i < 64; ++i) {
        lo8[i] = uint8_t((i % 2) * 64 + i / 2);
        hi8[i] = uint8_t((i % 2) * 64 + 32 + i / 2);
      }
      for (int i = 0; i < 32; ++i) {
        lo16[i] = uint16_t((i % 2) * 32 + i / 2);
        hi16[i] = uint16_t((i % 2) * 32 + 16 + i / 2);
      }
    }
  };
  static const Picks picks;
  const __mmask64 in = width >= 64 ? ~__mmask64(0) : (__mmask64(1) << width) - 1;
  const __m512i r0 = _mm512_maskz_loadu_epi8(in, r[0]), r1 = _mm512_maskz_loadu_epi8(in, r[1]);
  const __m512i r2 = _mm512_maskz_loadu_epi8(in, r[2]), r3 = _mm512_maskz_loadu_epi8(in, r[3]);
  const __m512i b_lo = _mm512_load_si512(picks.lo8), b_hi = _mm512_load_si512(picks.hi8);
  const __m512i w_lo = _mm512_load_si512(picks.lo16), w_hi = _mm512_load_si512(picks.hi16);
  const __m512i a01_lo = _mm512_permutex2var_epi8(r0, b_lo, r1);
  const __m512i a01_hi = _mm512_permutex2var_epi8(r0, b_hi, r1);
  const __m512i a23_lo = _mm512_permutex2var_epi8(r2, b_lo, r3);
  const __m512i a23_hi = _mm512_permutex2var_epi8(r2, b_hi, r3);
  const __m512i f = _mm512_set1_epi32(int(flip)), ones = _mm512_set1_epi8(1);
  const __m512i words[4] = {_mm512_xor_si512(_mm512_permutex2var_epi16(a01_lo, w_lo, a23_lo), f),
                            _mm512_xor_si512(_mm512_permutex2var_epi16(a01_lo, w_hi, a23_lo), f),
                            _mm512_xor_si512(_mm512_permutex2var_epi16(a01_hi, w_lo, a23_hi), f),
                            _mm512_xor_si512(_mm512_permutex2var_epi16(a01_hi, w_hi, a23_hi), f)};
  for (int v = 0; v < 4; ++v) {
    _mm512_storeu_si512(dst + 64 * v, words[v]);
    const int64_t left = width - 16 * v;
    if (left <= 0) break;
    const __mmask16 m = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
    // vpdpbusd of ones (uint8) and the words (int8): each word's byte sum.
    const __m512i s = _mm512_maskz_loadu_epi32(m, sums + 16 * v);
    _mm512_mask_storeu_epi32(sums + 16 * v, m, _mm512_dpbusd_epi32(s, ones, words[v]));
  }
}

bool igemm_vbmi_available() {
  __builtin_cpu_init();
  static const bool cpu = __builtin_cpu_supports("avx512vbmi");
  return cpu && igemm_vnni512_available();
}

bool igemm_vnni512_available() {
  __builtin_cpu_init();
  static const bool cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vnni");
  return cpu && cpu_isa() == Isa::kAvx512;
}

#else

void igemm_pack_words_vbmi(const uint8_t* const r[4], int64_t width, uint32_t flip, int8_t* dst,
                           int32_t* sums) {
  igemm_pack_words_portable(r, width, flip, dst, sums);
}
bool igemm_vbmi_available() { return false; }

void igemm_tile_vnni512(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                        const int8_t* panel, const IgemmTerms& t, int32_t* out) {
  igemm_tile_portable(groups, a, lda, rows, panel, t, out);
}
bool igemm_vnni512_available() { return false; }
void igemm_tile_requant_vnni512(int64_t, const uint8_t*, int64_t, int, const int8_t*,
                                const IgemmTerms&, const IgemmRequantRows&, uint8_t*, int64_t,
                                int) {}
void igemm_conv_tile_vnni512(const IgemmConvRows&, int, const int8_t*, const IgemmColumnRequant&,
                             uint8_t*, int64_t, int) {}

#endif

}  // namespace tessera::linalg::detail
