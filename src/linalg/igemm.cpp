#include "linalg/igemm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <mutex>

#include "linalg/igemm_kernel.hpp"
#include "linalg/igemm_tiles.hpp"
#include "linalg/quantize.hpp"

namespace tessera::linalg {

namespace detail {

void igemm_tile_portable(int64_t groups, const uint8_t* a, int64_t lda, int rows,
                         const int8_t* panel, const IgemmTerms& t, int32_t* out) {
  for (int r = 0; r < rows; ++r) {
    uint32_t acc[64] = {};  // wrapping, as vpdpbusd's lanes do
    const uint8_t* ar = a + r * lda;
    for (int64_t g = 0; g < groups; ++g) {
      const uint8_t* a4 = ar + 4 * g;
      const int8_t* bg = panel + g * 256;
      for (int j = 0; j < 64; ++j)
        acc[j] += uint32_t(int32_t(a4[0]) * bg[4 * j] + int32_t(a4[1]) * bg[4 * j + 1] +
                           int32_t(a4[2]) * bg[4 * j + 2] + int32_t(a4[3]) * bg[4 * j + 3]);
    }
    for (int j = 0; j < 64; ++j)
      out[r * 64 + j] =
          int32_t(acc[j] - t.zb[j] * t.row_term[r] - t.za[r] * uint32_t(t.col_sums[j]));
  }
}

void igemm_pack_words_portable(const uint8_t* const r[4], int64_t width, uint32_t flip, int8_t* dst,
                               int32_t* sums) {
  for (int64_t j = 0; j < width; ++j) {
    const uint32_t word = (uint32_t(r[0][j]) | uint32_t(r[1][j]) << 8 | uint32_t(r[2][j]) << 16 |
                           uint32_t(r[3][j]) << 24) ^
                          flip;
    std::memcpy(dst + 4 * j, &word, 4);
    sums[j] += int8_t(word) + int8_t(word >> 8) + int8_t(word >> 16) + int8_t(word >> 24);
  }
}

}  // namespace detail

IgemmPath igemm_best_path() {
  if (detail::igemm_vnni512_available()) return IgemmPath::kVnni512;
  return detail::igemm_avx2_available() ? IgemmPath::kAvx2 : IgemmPath::kPortable;
}

template <typename RowsOf>
void PackedBInt8::pack(ThreadPool* pool, bool make_rows, const RowsOf& rows_of) {
  // int8 B is taken as it is; uint8 B as B - 128 (flipping the top bit of
  // each byte: here of four at once).
  const uint32_t flip = signed_ ? 0u : 0x80808080u;
  data_ = HostBuffer<int8_t>(size_t(panels() * groups() * kPanel * 4));
  sums_.assign(size_t(panels() * kPanel), 0);  // zeros past N: whole panels for the tiles
  std::mutex sums_mu;
  const bool vbmi = detail::igemm_vbmi_available();
  const detail::IgemmPackWords pack_words = vbmi ? detail::igemm_pack_words_vbmi
                                            : detail::igemm_avx2_available()
                                                ? detail::igemm_pack_words_avx2
                                                : detail::igemm_pack_words_portable;
  // The VBMI packer writes whole 64-column groups (zeros past N); the AVX2
  // and portable ones only `width` columns, so the last panel's rest is
  // cleared.
  const int64_t tail = N_ % kPanel;
  if (!vbmi && tail)
    for (int64_t g = 0; g < groups(); ++g)
      std::memset(data_.data() + ((panels() - 1) * groups() + g) * kPanel * 4 + tail * 4, 0,
                  size_t((kPanel - tail) * 4));
  // Each task packs whole groups into every panel, and adds its column sums
  // to the total at its end.
  auto run = [&](int64_t g0, int64_t g1) {
    HostBuffer<uint8_t> scratch(make_rows ? size_t(4 * N_) : 0);
    HostVector<int32_t> sums(size_t(N_), 0);
    for (int64_t g = g0; g < g1; ++g) {
      const std::array<const uint8_t*, 4> rows = rows_of(g, scratch.data());
      for (int64_t p = 0; p < panels(); ++p) {
        const int64_t n0 = p * kPanel, width = std::min(kPanel, N_ - n0);
        const uint8_t* const r[4] = {rows[0] + n0, rows[1] + n0, rows[2] + n0, rows[3] + n0};
        pack_words(r, width, flip, data_.data() + (p * groups() + g) * kPanel * 4,
                   sums.data() + n0);
      }
    }
    std::lock_guard<std::mutex> lock(sums_mu);
    for (int64_t j = 0; j < N_; ++j) sums_[size_t(j)] += sums[size_t(j)];
  };
  if (pool)
    pool->parallel_for(groups(), double(4 * N_), run);
  else
    run(0, groups());
}

void PackedBInt8::prepare_pairs() {
  pairs_ready_ = false;
  pair_data_ = HostBuffer<int8_t>();
  fixes_.clear();
  fix_start_.assign(size_t(panels() + 1), 0);
  // Columns past N (the last panel's rest) are never read back: not counted
  // nor clipped.
  auto width = [&](int64_t p) { return std::min(kPanel, N_ - p * kPanel); };
  auto pair_at = [&](const int8_t* d, int64_t p, int64_t g, int64_t j, int h) {
    return d + ((p * groups() + g) * kPanel + j) * 4 + 2 * h;
  };
  auto too_large = [](const int8_t* v) { return std::abs(int(v[0])) + std::abs(int(v[1])) > 128; };
  const int64_t pairs = N_ * groups() * 2;
  // Counted first: most B need no copy at all.
  int64_t bad = 0;
  for (int64_t p = 0; p < panels(); ++p)
    for (int64_t g = 0; g < groups(); ++g)
      for (int64_t j = 0; j < width(p); ++j)
        for (int h = 0; h < 2; ++h) bad += too_large(pair_at(data_.data(), p, g, j, h));
  // Beyond 1 in 128 the corrections (a multiply-add per row each) would
  // cost a fifth of what the tile saves.
  if (bad * 128 > pairs) return;
  if (bad > 0) {
    pair_data_ = HostBuffer<int8_t>(data_.size());
    std::memcpy(pair_data_.data(), data_.data(), data_.size());
    fixes_.reserve(size_t(2 * bad));
    for (int64_t p = 0; p < panels(); ++p) {
      for (int64_t g = 0; g < groups(); ++g)
        for (int64_t j = 0; j < width(p); ++j)
          for (int h = 0; h < 2; ++h) {
            int8_t* v = pair_data_.data() + (pair_at(data_.data(), p, g, j, h) - data_.data());
            if (!too_large(v)) continue;
            for (int i = 0; i < 2; ++i) {
              const int clipped = std::clamp(int(v[i]), -64, 64);
              if (clipped != v[i])
                fixes_.push_back({int32_t(4 * g + 2 * h + i), int32_t(j), int(v[i]) - clipped});
              v[i] = int8_t(clipped);
            }
          }
      fix_start_[size_t(p) + 1] = int64_t(fixes_.size());
    }
  }
  pairs_ready_ = true;
}

PackedBInt8::PackedBInt8(int64_t K, int64_t N, const void* b, int64_t ldb, bool b_signed,
                         ThreadPool* pool)
    : K_(K), N_(N), signed_(b_signed) {
  // B's rows are read in place; rows past K (to a whole group) read a row
  // of B' = 0.
  const HostVector<uint8_t> pad(size_t(N), b_signed ? 0 : 0x80);
  const auto* b8 = static_cast<const uint8_t*>(b);
  pack(pool, /*make_rows=*/false, [&](int64_t g, uint8_t*) {
    std::array<const uint8_t*, 4> rows;
    for (int i = 0; i < 4; ++i)
      rows[size_t(i)] = 4 * g + i < K ? b8 + (4 * g + i) * ldb : pad.data();
    return rows;
  });
}

PackedBInt8::PackedBInt8(int64_t K, int64_t N, bool b_signed, const RowSource& row,
                         ThreadPool* pool)
    : K_(K), N_(N), signed_(b_signed) {
  pack(pool, /*make_rows=*/true, [&](int64_t g, uint8_t* scratch) {
    std::array<const uint8_t*, 4> rows;
    for (int i = 0; i < 4; ++i) {
      uint8_t* r = scratch + i * N;
      if (4 * g + i < K)
        row(4 * g + i, r);
      else
        std::memset(r, b_signed ? 0 : 0x80, size_t(N));  // rows past K: B' = 0
      rows[size_t(i)] = r;
    }
    return rows;
  });
}

PreparedAInt8::PreparedAInt8(int64_t M, int64_t K, const void* a, int64_t lda, bool a_signed)
    : M_(M), K_(K), signed_(a_signed) {
  const auto* a8 = static_cast<const uint8_t*>(a);
  const uint8_t flip = a_signed ? 0x80 : 0;
  data_.assign(size_t(M * ld()), 0);
  sums_.assign(size_t(M), 0);
  for (int64_t m = 0; m < M; ++m) {
    const uint8_t* src = a8 + m * lda;
    uint8_t* dst = data_.data() + m * ld();
    uint32_t sum = 0;
    for (int64_t k = 0; k < K; ++k) {
      dst[k] = src[k] ^ flip;
      sum += dst[k];
    }
    sums_[size_t(m)] = sum;
  }
}

namespace {

// A' as the driver reads it: rows `ld` apart from `rows`, and their sums.
struct ARows {
  int64_t M;
  const uint8_t* rows;
  int64_t ld;
  const uint32_t* sums;
  bool a_signed;
};

// The zero-point terms of a product (igemm.hpp's formula), per row of A and
// per column of B.
struct ProductTerms {
  HostVector<uint32_t> row_term;  // rowsum(A')[m] - K * za'[m]
  HostVector<uint32_t> za_p;      // za'[m] = za[m] + 128 for int8 A
  HostVector<uint32_t> zb_p;      // zb'[n] = zb[n] - 128 for uint8 B; whole panels
  ProductTerms(const ARows& a, ZeroPoints za, const PackedBInt8& b, ZeroPoints zb)
      : row_term(size_t(a.M)), za_p(size_t(a.M)), zb_p(size_t(b.panels() * PackedBInt8::kPanel)) {
    const uint32_t oa = a.a_signed ? 128u : 0u;
    for (int64_t m = 0; m < a.M; ++m) {
      za_p[size_t(m)] = uint32_t(za.at(m)) + oa;
      row_term[size_t(m)] = a.sums[m] - uint32_t(b.depth()) * za_p[size_t(m)];
    }
    const uint32_t ob = b.b_signed() ? 0u : 128u;
    for (int64_t n = 0; n < b.cols(); ++n) zb_p[size_t(n)] = uint32_t(zb.at(n)) - ob;
  }
  detail::IgemmTerms tile(int64_t m0, int64_t n0, const PackedBInt8& b) const {
    return {row_term.data() + m0, za_p.data() + m0, zb_p.data() + n0, b.col_sums() + n0};
  }
};

// The driver of igemm, igemm_each and igemm_to_float: store(m, n0, width,
// values) gets each finished run of a row's exact int32 results.
template <typename Store>
void igemm_prepared(const ARows& a, ZeroPoints za, const PackedBInt8& b, ZeroPoints zb,
                    ThreadPool* pool, IgemmPath path, const Store& store) {
  if (a.M <= 0 || b.cols() <= 0) return;
  const ProductTerms terms(a, za, b, zb);
  const detail::IgemmTile tile = path == IgemmPath::kVnni512 ? detail::igemm_tile_vnni512
                                 : path == IgemmPath::kAvx2  ? detail::igemm_tile_avx2
                                                             : detail::igemm_tile_portable;
  // On AVX2, the pair tile where B was prepared for it.
  const bool pairs = path == IgemmPath::kAvx2 && b.pairs_ready() && detail::igemm_avx2_available();
  detail::for_each_tile(
      a.M, b, pool, [&](int64_t p, int64_t m0, int rows, int64_t n0, int64_t width) {
        alignas(64) int32_t raw[detail::kIgemmRows * PackedBInt8::kPanel];
        // C = A'B' - zb'[n] * (rowsum(A')[m] - K za'[m]) - za'[m] colsum(B')[n],
        // in wrapping 32-bit arithmetic, in the tile.
        if (pairs)
          detail::igemm_tile_avx2_pairs(b.groups(), a.rows + m0 * a.ld, a.ld, rows, b.pair_panel(p),
                                        b.pair_fixes(p), b.pair_fix_count(p), terms.tile(m0, n0, b),
                                        raw);
        else
          tile(b.groups(), a.rows + m0 * a.ld, a.ld, rows, b.panel(p), terms.tile(m0, n0, b), raw);
        for (int r = 0; r < rows; ++r) store(m0 + r, n0, width, raw + r * PackedBInt8::kPanel);
      });
}

// The driver on a raw A: uint8 A of whole groups is read in place, other A
// is prepared (flipped, padded) for this call.
template <typename Store>
void igemm_rows(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
                const PackedBInt8& b, ZeroPoints zb, ThreadPool* pool, IgemmPath path,
                const Store& store) {
  const int64_t K = b.depth();
  if (M <= 0 || b.cols() <= 0) return;
  if (!a_signed && K % 4 == 0) {
    const auto* a8 = static_cast<const uint8_t*>(a);
    HostVector<uint32_t> sums(static_cast<size_t>(M));
    for (int64_t m = 0; m < M; ++m) {
      uint32_t sum = 0;
      for (int64_t k = 0; k < K; ++k) sum += a8[m * lda + k];
      sums[size_t(m)] = sum;
    }
    igemm_prepared({M, a8, lda, sums.data(), false}, za, b, zb, pool, path, store);
    return;
  }
  const PreparedAInt8 prepared(M, K, a, lda, a_signed);
  igemm_prepared({M, prepared.row(0), prepared.ld(), prepared.row_sums(), a_signed}, za, b, zb,
                 pool, path, store);
}

}  // namespace

void igemm(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
           const PackedBInt8& b, ZeroPoints zb, int32_t* c, int64_t ldc, ThreadPool* pool,
           IgemmPath path) {
  igemm_rows(M, a, lda, a_signed, za, b, zb, pool, path,
             [&](int64_t m, int64_t n0, int64_t width, const int32_t* v) {
               std::memcpy(c + m * ldc + n0, v, size_t(width) * sizeof(int32_t));
             });
}

void igemm_each(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
                const PackedBInt8& b, ZeroPoints zb, const IgemmStore& store, ThreadPool* pool,
                IgemmPath path) {
  igemm_rows(M, a, lda, a_signed, za, b, zb, pool, path, store);
}

void igemm_each(const PreparedAInt8& a, ZeroPoints za, const PackedBInt8& b, ZeroPoints zb,
                const IgemmStore& store, ThreadPool* pool, IgemmPath path) {
  if (a.rows() <= 0) return;
  igemm_prepared({a.rows(), a.row(0), a.ld(), a.row_sums(), a.a_signed()}, za, b, zb, pool, path,
                 store);
}

void igemm_requantize(const PreparedAInt8& a, ZeroPoints za, const PackedBInt8& b, ZeroPoints zb,
                      const IgemmRequantize& out, ThreadPool* pool, IgemmPath path) {
  if (a.rows() <= 0 || b.cols() <= 0) return;
  const ARows rows{a.rows(), a.row(0), a.ld(), a.row_sums(), a.a_signed()};
  const bool fused =
      path == IgemmPath::kVnni512 && detail::igemm_vnni512_available() &&
      detail::requant_in_registers_fits(b.depth(), out.y_scale, out.mult, out.bias, a.rows());
  if (!fused) {
    igemm_prepared(rows, za, b, zb, pool, path,
                   [&](int64_t m, int64_t n0, int64_t width, const int32_t* v) {
                     requantize(v, width, out.bias ? out.bias[m] : 0, out.mult[m], out.y_scale,
                                out.y_zero, out.lo, out.hi, out.y + m * out.ldy + n0);
                   });
    return;
  }
  const ProductTerms terms(rows, za, b, zb);
  const float inv = 1.0f / out.y_scale;
  // One zero point for all rows of A and one for all columns of B (a
  // convolution's usual case): the terms fold into a per-row and a
  // per-column offset (see IgemmRequantRows).
  auto uniform = [](ZeroPoints z, int64_t n) {
    for (int64_t i = 1; i < z.count && i < n; ++i)
      if (z.values[i] != z.values[0]) return false;
    return true;
  };
  HostVector<int32_t> row_off, col_off;
  if (uniform(za, a.rows()) && uniform(zb, b.cols())) {
    const uint32_t zb0 = terms.zb_p[0], za0 = terms.za_p[0];
    row_off.resize(size_t(a.rows()));
    for (int64_t m = 0; m < a.rows(); ++m)
      row_off[size_t(m)] =
          int32_t(uint32_t(out.bias ? out.bias[m] : 0) - zb0 * terms.row_term[size_t(m)]);
    col_off.resize(terms.zb_p.size());
    for (size_t n = 0; n < col_off.size(); ++n)
      col_off[n] = int32_t(za0 * uint32_t(b.col_sums()[n]));
  }
  const detail::IgemmSaturate saturate =
      detail::igemm_saturate_for(out.lo, out.hi, out.y_scale, out.mult, a.rows());
  detail::for_each_tile(
      a.rows(), b, pool, [&](int64_t p, int64_t m0, int nrows, int64_t n0, int64_t width) {
        const detail::IgemmRequantRows q{out.bias ? out.bias + m0 : nullptr,
                                         out.mult + m0,
                                         out.y_scale,
                                         inv,
                                         out.y_zero,
                                         out.lo,
                                         out.hi,
                                         row_off.empty() ? nullptr : row_off.data() + m0,
                                         col_off.empty() ? nullptr : col_off.data() + n0,
                                         saturate};
        detail::igemm_tile_requant_vnni512(b.groups(), a.row(m0), a.ld(), nrows, b.panel(p),
                                           terms.tile(m0, n0, b), q, out.y + m0 * out.ldy + n0,
                                           out.ldy, int(width));
      });
}

void igemm_to_float(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
                    const PackedBInt8& b, ZeroPoints zb, const IgemmToFloat& out, float* y,
                    int64_t ldy, ThreadPool* pool, IgemmPath path) {
  igemm_rows(M, a, lda, a_signed, za, b, zb, pool, path,
             [&](int64_t m, int64_t n0, int64_t width, const int32_t* v) {
               float* yr = y + m * ldy + n0;
               const float* bias = out.bias ? out.bias + n0 : nullptr;
               if (out.scale_count == 1) {
                 const float s = out.scale[0];
                 for (int64_t j = 0; j < width; ++j) yr[j] = float(v[j]) * s;
               } else {
                 const float* s = out.scale + n0;
                 for (int64_t j = 0; j < width; ++j) yr[j] = float(v[j]) * s[j];
               }
               if (bias)
                 for (int64_t j = 0; j < width; ++j) yr[j] += bias[j];
             });
}

}  // namespace tessera::linalg
