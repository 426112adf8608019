// The inner loops of igemm (igemm.hpp): one register tile of the raw
// product A'B' over a packed B panel, for the driver in igemm.cpp.
#pragma once
#include <cmath>
#include <cstdint>

#include "linalg/igemm.hpp"

namespace tessera::linalg::detail {

constexpr int kIgemmRows = 6;  // rows of A a tile

// The zero-point terms of one tile (igemm.hpp's formula): per row r,
// row_term[r] = rowsum(A')[r] - K za'[r] and za[r] = za'[r]; per column j
// (all 64, zeros past the matrix), zb[j] = zb'[j] and col_sums[j] =
// colsum(B')[j].
struct IgemmTerms {
  const uint32_t* row_term;
  const uint32_t* za;
  const uint32_t* zb;
  const int32_t* col_sums;
};

// out[r * 64 + j] = sum over g < groups, i < 4 of a[r * lda + 4g + i] *
// panel[(g * 64 + j) * 4 + i] - zb[j] row_term[r] - za[r] col_sums[j]
// (wrapping), for r < rows (1 to kIgemmRows) and j < 64. a's rows hold
// groups * 4 bytes (uint8); the panel is PackedBInt8's (int8).
using IgemmTile = void (*)(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                           const int8_t* panel, const IgemmTerms& t, int32_t* out);

void igemm_tile_portable(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                         const int8_t* panel, const IgemmTerms& t, int32_t* out);
// AVX2 (int16 operands, vpmaddwd; igemm_kernel_avx2.cpp); where the CPU has it.
void igemm_tile_avx2(int64_t groups, const uint8_t* a, int64_t lda, int rows, const int8_t* panel,
                     const IgemmTerms& t, int32_t* out);
bool igemm_avx2_available();
// AVX2 with vpmaddubsw on a panel prepared by PackedBInt8::prepare_pairs
// (every pair of neighbouring bytes within 128 in size), then its `nfix`
// corrections; the same results as the other tiles.
void igemm_tile_avx2_pairs(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                           const int8_t* panel, const IgemmPairFix* fixes, int64_t nfix,
                           const IgemmTerms& t, int32_t* out);
// AVX-512 VNNI (vpdpbusd); only where the CPU has it.
void igemm_tile_vnni512(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                        const int8_t* panel, const IgemmTerms& t, int32_t* out);
// Whether this build has the VNNI tile and the CPU runs it.
bool igemm_vnni512_available();

// How a requantizing tile clamps: in float before rounding (any bounds), or
// by the saturating narrowing to uint8 / int8, for bounds that are the whole
// type and quotients known to stay below 2^30 in size (every |mult| /
// |y_scale| below 1/2, since |sum + bias| <= 2^31): two operations fewer
// per 16 values.
enum class IgemmSaturate { kNone, kUnsigned8, kSigned8 };

// Picks the clamping for these bounds and multipliers (count of them).
inline IgemmSaturate igemm_saturate_for(int32_t lo, int32_t hi, float y_scale, const float* mult,
                                        int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (!(std::fabs(mult[i]) < 0.5f * std::fabs(y_scale))) return IgemmSaturate::kNone;
  if (lo == 0 && hi == 255) return IgemmSaturate::kUnsigned8;
  if (lo == -128 && hi == 127) return IgemmSaturate::kSigned8;
  return IgemmSaturate::kNone;
}

// The requantization of one tile's rows, as linalg::requantize computes it
// (real = float(sum + bias[r]) * mult[r], y = clamp(round_half_even(real /
// y_scale) + y_zero, lo, hi), one byte each), done on the accumulators
// before they leave the registers. The caller guarantees every sum + bias
// fits int32 (|bias| <= 2^30 and K <= 16384), y_scale is a normal float
// and inv_scale = 1 / y_scale rounded.
struct IgemmRequantRows {
  const int32_t* bias;  // one per row (of the tile's rows)
  const float* mult;    // one per row
  float y_scale, inv_scale;
  int32_t y_zero, lo, hi;
  // When every row has one zero point and every column another, the zero-
  // point terms and the bias fold into row_off[r] (bias - zb' row_term) and
  // col_off[j] (za' col_sums), both wrapping: sum = raw + row_off - col_off,
  // two vector adds instead of two multiplies. Null otherwise (then bias and
  // IgemmTerms are used).
  const int32_t* row_off = nullptr;
  const int32_t* col_off = nullptr;
  IgemmSaturate saturate = IgemmSaturate::kNone;
};

// The VNNI tile (rows <= kIgemmRows, width <= 64 columns) with the terms of
// IgemmTerms and then IgemmRequantRows applied: row r's bytes go to
// y + r * ldy. Only where igemm_vnni512_available().
void igemm_tile_requant_vnni512(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                                const int8_t* panel, const IgemmTerms& t, const IgemmRequantRows& q,
                                uint8_t* y, int64_t ldy, int width);

// The convolution tile of igemm_conv.hpp (the image as A, read in place):
// row r (an output position, r < rows <= kIgemmRows) holds its K bytes in
// `segments` runs of 4 seg_groups bytes, at rows[r] + seg_off[s]; the
// panel's groups of 4 k follow the same order.
struct IgemmConvRows {
  const uint8_t* const* rows;
  const int64_t* seg_off;
  int64_t segments, seg_groups;
};
// Its requantization, per column (output channel): sum = raw - col_off[j]
// - row_off[r] (wrapping; row_off null: none), then as IgemmRequantRows
// with mult[j]. col_off and mult hold the panel's 64 columns.
struct IgemmColumnRequant {
  const int32_t* col_off;
  const int32_t* row_off;
  const float* mult;
  float y_scale, inv_scale;
  int32_t y_zero, lo, hi;
  IgemmSaturate saturate;
};
// Row r's byte for column j goes to y[j * ldy + r] (j < width <= 64): the
// output channels' planes. Only where igemm_vnni512_available().
void igemm_conv_tile_vnni512(const IgemmConvRows& a, int rows, const int8_t* panel,
                             const IgemmColumnRequant& q, uint8_t* y, int64_t ldy, int width);

// Packs one group of four B rows (r[0..3], `width` <= 64 columns each) into
// a panel's group: column j's four bytes as one word at dst + 4 j, each
// XORed with `flip` (0x80808080 for uint8 B), and adds each word's four
// signed bytes to sums[j].
using IgemmPackWords = void (*)(const uint8_t* const r[4], int64_t width, uint32_t flip,
                                int8_t* dst, int32_t* sums);
void igemm_pack_words_portable(const uint8_t* const r[4], int64_t width, uint32_t flip, int8_t* dst,
                               int32_t* sums);
// AVX-512 VBMI (byte interleaves) + VNNI (the sums); where the CPU has both.
void igemm_pack_words_vbmi(const uint8_t* const r[4], int64_t width, uint32_t flip, int8_t* dst,
                           int32_t* sums);
bool igemm_vbmi_available();
// AVX2 (byte unpacks, vpmaddubsw for the sums); where igemm_avx2_available().
void igemm_pack_words_avx2(const uint8_t* const r[4], int64_t width, uint32_t flip, int8_t* dst,
                           int32_t* sums);

}  // namespace tessera::linalg::detail
