// 8-bit integer matrix multiply on the CPU, row-major, exact in wrapping
// 32-bit arithmetic (what MatMulInteger's int32 output holds):
//   C[m][n] = sum_k (A[m][k] - za[m]) * (B[k][n] - zb[n])
// A and B hold int8 or uint8 values, each with its zero points (one for all
// rows/columns or one per row of A / column of B).
//
// The product runs as uint8 x int8 (what AVX-512 VNNI's vpdpbusd multiplies,
// four pairs summed per 32-bit lane): int8 A is offset by +128 into uint8,
// uint8 B by -128 into int8, and the offsets fold into the zero points, so
//   C = A'B' - zb'[n] * rowsum(A')[m] - za'[m] * colsum(B')[n] + K za'[m] zb'[n]
// with every term computed once per row or column. B is packed once (for a
// constant weight, at kernel creation) into panels of 64 columns and groups
// of 4 k values; a register tile of up to 6 rows x 64 columns accumulates
// over all of K. Machines without VNNI run the same layout through an AVX2
// tile (int16 operands, exact) or a portable loop.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/host_heap.hpp"
#include "core/thread_pool.hpp"

namespace tessera::linalg {

// Which inner loop runs the packed product.
enum class IgemmPath { kPortable, kAvx2, kVnni512 };

// The fastest path this CPU supports (VNNI needs AVX-512 F, BW and VNNI, and
// cpu_isa() at avx512; AVX2 cpu_isa() at avx2 or above: TESSERA_CPU_ISA caps
// this too).
IgemmPath igemm_best_path();

// One correction of the AVX2 pair tile (see PackedBInt8::prepare_pairs):
// the panel column `col` (0..63) of row `k` of B' holds delta less than B'
// does, so row m of the product gains A'[m][k] * delta.
struct IgemmPairFix {
  int32_t k, col, delta;
};

// B (K x N, row stride ldb, int8 or uint8) as the kernels read it.
class PackedBInt8 {
 public:
  static constexpr int64_t kPanel = 64;  // columns a panel

  PackedBInt8() = default;
  // `pool` (may be null) packs groups of rows in parallel.
  PackedBInt8(int64_t K, int64_t N, const void* b, int64_t ldb, bool b_signed,
              ThreadPool* pool = nullptr);
  // B made row by row: row(k, dst) writes row k's N bytes (a convolution's
  // im2col rows, straight from the image), four rows at a time into a small
  // buffer, so the full matrix is never stored. `pool` may be null.
  using RowSource = std::function<void(int64_t k, uint8_t* dst)>;
  PackedBInt8(int64_t K, int64_t N, bool b_signed, const RowSource& row, ThreadPool* pool);
  int64_t depth() const { return K_; }
  int64_t cols() const { return N_; }
  bool b_signed() const { return signed_; }
  // Panel p: groups of 4 k values, each kPanel columns x 4 bytes (column j's
  // four at j * 4); K is padded with zeros to a multiple of 4.
  const int8_t* panel(int64_t p) const { return data_.data() + p * groups() * kPanel * 4; }
  int64_t groups() const { return (K_ + 3) / 4; }
  int64_t panels() const { return (N_ + kPanel - 1) / kPanel; }
  // sum over k of B'[k][n] (B' = B, or B - 128 for uint8 B).
  const int32_t* col_sums() const { return sums_.data(); }

  // The AVX2 pair tile multiplies uint8 A' by int8 B' with vpmaddubsw,
  // which adds two neighbouring products (k = 4g, 4g+1 and 4g+2, 4g+3) into
  // a saturating int16: exact while |b0| + |b1| <= 128 for every such pair
  // (255 x 128 = 32640). prepare_pairs makes that so: pairs beyond it are
  // clipped to [-64, 64] each in a copy of the panels, and what was clipped
  // off is kept as corrections per panel, added to the tile's sums. Weights
  // of trained models break it in few pairs (0.01-0.4% in bart_int8's);
  // where more than 1 in 128 pairs do (uniform random bytes), nothing is
  // prepared and the AVX2 path keeps its int16 tile. Run for constant
  // weights, once (a B packed per call would pay the scan every call); not
  // thread-safe with products running on this B.
  void prepare_pairs();
  bool pairs_ready() const { return pairs_ready_; }
  const int8_t* pair_panel(int64_t p) const {
    return (pair_data_.size() ? pair_data_.data() : data_.data()) + p * groups() * kPanel * 4;
  }
  const IgemmPairFix* pair_fixes(int64_t p) const { return fixes_.data() + fix_start_[size_t(p)]; }
  int64_t pair_fix_count(int64_t p) const {
    return fix_start_[size_t(p) + 1] - fix_start_[size_t(p)];
  }

 private:
  // Packs every group: rows_of(g, scratch) gives group g's four rows (N
  // bytes each; rows past K hold B' = 0), made in `scratch` (4 N bytes, when
  // `make_rows`; null otherwise) or read in place. Defined (and
  // instantiated) in igemm.cpp.
  template <typename RowsOf>
  void pack(ThreadPool* pool, bool make_rows, const RowsOf& rows_of);

  int64_t K_ = 0, N_ = 0;
  bool signed_ = true;
  // In the host heap (as every per-call buffer here): a convolution packs
  // its image per call, and pages already faulted in cost nothing to reuse
  // (core/host_heap.hpp). Every byte is written by pack(), so it is not
  // zero-filled first.
  HostBuffer<int8_t> data_;
  HostVector<int32_t> sums_;
  // prepare_pairs' panels (empty: data_ needs no clipping) and corrections.
  bool pairs_ready_ = false;
  HostBuffer<int8_t> pair_data_;
  std::vector<IgemmPairFix> fixes_;
  std::vector<int64_t> fix_start_;
};

// A as the kernels read it: A' (uint8; int8 A plus 128, flipping the top
// bit), rows padded with zeros to whole groups of 4, and each row's sum. For
// a constant left operand (a convolution's filters), made once.
class PreparedAInt8 {
 public:
  PreparedAInt8() = default;
  PreparedAInt8(int64_t M, int64_t K, const void* a, int64_t lda, bool a_signed);
  int64_t rows() const { return M_; }
  int64_t depth() const { return K_; }
  bool a_signed() const { return signed_; }
  const uint8_t* row(int64_t m) const { return data_.data() + m * ld(); }
  int64_t ld() const { return (K_ + 3) / 4 * 4; }
  const uint32_t* row_sums() const { return sums_.data(); }

 private:
  int64_t M_ = 0, K_ = 0;
  bool signed_ = false;
  HostVector<uint8_t> data_;
  HostVector<uint32_t> sums_;
};

// Zero points: `values` holds `count` of them, count 1 (every row/column) or
// one per row of A (za) or column of B (zb). count 0: all zero.
struct ZeroPoints {
  const int32_t* values = nullptr;
  int64_t count = 0;
  int32_t at(int64_t i) const { return count == 0 ? 0 : values[count == 1 ? 0 : i]; }
};

// C (M x b.cols(), row stride ldc) = the product above of A (M x b.depth(),
// row stride lda, int8 if a_signed else uint8) and b. `pool` may be null.
void igemm(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
           const PackedBInt8& b, ZeroPoints zb, int32_t* c, int64_t ldc, ThreadPool* pool,
           IgemmPath path = igemm_best_path());

// The product handed out as it is finished: store(m, n0, width, values)
// gets row m's exact results for columns [n0, n0 + width), from any thread
// of `pool` (each (m, column run) once). For outputs of other layouts (a
// convolution's channel planes) or types (requantized 8-bit).
using IgemmStore = std::function<void(int64_t m, int64_t n0, int64_t width, const int32_t* values)>;
void igemm_each(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
                const PackedBInt8& b, ZeroPoints zb, const IgemmStore& store, ThreadPool* pool,
                IgemmPath path = igemm_best_path());

// igemm_each with a prepared A (its depth must be b's).
void igemm_each(const PreparedAInt8& a, ZeroPoints za, const PackedBInt8& b, ZeroPoints zb,
                const IgemmStore& store, ThreadPool* pool, IgemmPath path = igemm_best_path());

// The product requantized on its way out, as QLinearConv computes it (see
// linalg::requantize), row m of A giving row m of Y (bytes, row stride ldy):
//   Y[m][n] = clamp(round_half_even(float(C[m][n] + bias[m]) * mult[m] /
//             y_scale) + y_zero, lo, hi)
// bias is null or one per row; mult one per row. On VNNI the tile
// requantizes its accumulators in registers (no int32 round trip); the
// bytes are the same on every path.
struct IgemmRequantize {
  const int32_t* bias = nullptr;
  const float* mult = nullptr;
  float y_scale = 1.0f;
  int32_t y_zero = 0, lo = 0, hi = 255;
  uint8_t* y = nullptr;
  int64_t ldy = 0;
};
void igemm_requantize(const PreparedAInt8& a, ZeroPoints za, const PackedBInt8& b, ZeroPoints zb,
                      const IgemmRequantize& out, ThreadPool* pool,
                      IgemmPath path = igemm_best_path());

// The product dequantized on its way out, as MatMulInteger -> Cast(float) ->
// Mul(scale) (-> Add(bias)) computes it:
//   Y[m][n] = float(C[m][n]) * scale[n or 0] (+ bias[n])
// scale holds scale_count values (1, or one per column); bias is null or
// one per column.
struct IgemmToFloat {
  const float* scale = nullptr;
  int64_t scale_count = 1;
  const float* bias = nullptr;
};
void igemm_to_float(int64_t M, const void* a, int64_t lda, bool a_signed, ZeroPoints za,
                    const PackedBInt8& b, ZeroPoints zb, const IgemmToFloat& out, float* y,
                    int64_t ldy, ThreadPool* pool, IgemmPath path = igemm_best_path());

}  // namespace tessera::linalg
