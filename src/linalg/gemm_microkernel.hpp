// Internal to linalg/: the float GEMM micro-kernel contract. A kernel adds
// the product of one packed A panel (kc x MR, k-major: a[k*MR + i]) and one
// packed B panel (kc x NR, k-major: b[k*NR + j]) into the top-left m x n
// corner of C (m <= MR, n <= NR), or stores it there when `accumulate` is
// false (the first K slice of a beta == 0 product: no pass to zero C first).
// B's k-th row starts at b + k*ldb: ldb == NR for a packed panel, or the row
// stride of an unpacked row-major B whose NR columns are all in bounds;
// packed panels are zero-padded.
#pragma once
#include <cstdint>

namespace tessera::linalg::detail {

// The epilogue of a finished tile (after its last K slice), applied by the
// kernel while the tile is in registers: bias per row, the residual, then a
// clamp to [lo, hi] (Relu, Clip, or none with infinite bounds), each written
// so a NaN passes through as in the ONNX ops. Null when there is none.
struct TileEpilogue {
  const float* bias;      // bias[i] for tile row i, or null
  const float* residual;  // residual[i * ldr + j], or null
  int64_t ldr;
  float lo, hi;
};

using SgemmMicroKernel = void (*)(int64_t kc, const float* a, const float* b, int64_t ldb, float* c,
                                  int64_t ldc, int64_t m, int64_t n, bool accumulate,
                                  const TileEpilogue* te);

// For kernels without an in-register version: applies `te` to the stored tile.
void apply_tile_epilogue(const TileEpilogue& te, float* c, int64_t ldc, int64_t m, int64_t n);

// Optional packers matched to a kernel's MR and NR (null: the portable loops
// in gemm.cpp). pack_a writes one MR-tall panel (kc x MR, k-major) of alpha *
// op(A) rows [0, rows) from `a`, the address of that block's first element
// (op(A)[i][k] is a[i * lda + k], or a[k * lda + i] when `trans`), and zeros
// for rows [rows, MR). pack_b writes one NR-wide panel (kc x NR) of op(B)
// columns [0, cols) from `b` (op(B)[k][j] is b[k * ldb + j], or b[j * ldb + k]
// when `trans`), and zeros for columns [cols, NR).
using SgemmPackA = void (*)(bool trans, const float* a, int64_t lda, int64_t rows, int64_t kc,
                            float alpha, float* dst);
using SgemmPackB = void (*)(bool trans, const float* b, int64_t ldb, int64_t cols, int64_t kc,
                            float* dst);

struct SgemmKernelInfo {
  const char* name;
  int mr, nr;
  SgemmMicroKernel fn;
  SgemmPackA pack_a;
  SgemmPackB pack_b;
};

// acc[0, 64) += sum over k < kc of a[k] * b[k * 64 + j]: one row of op(A)
// times one packed 64-wide B panel (a product with M == 1, where the 6x64
// tile would spend five of its six rows on padding). False when this build
// or CPU has no AVX-512; the caller then loops itself.
bool panel_gemv64_avx512(int64_t kc, const float* a, const float* b, float* acc);
// The same for the AVX2 kernel's 16-wide panels.
bool panel_gemv16_avx2(int64_t kc, const float* a, const float* b, float* acc);

// A row vector times an unpacked matrix, for a product with M == 1 whose B
// is not prepacked (packing would copy as many values as the product reads).
// row_dot_rows: out[j] = sum over k < kc of a[k] * b[j * ldb + k] for j < n
// (B transposed: each output is a dot product with one of B's rows).
// row_times_cols: out[j] = sum over k < kc of a[k] * b[k * ldb + j].
// Both overwrite out; false when this build or CPU has no such ISA.
bool row_dot_rows_avx512(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t n,
                         float* out);
bool row_dot_rows_avx2(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t n,
                       float* out);
bool row_times_cols_avx512(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t n,
                           float* out);
bool row_times_cols_avx2(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t n,
                         float* out);

// Each returns false when this build or CPU cannot run it.
bool sgemm_kernel_avx512(SgemmKernelInfo* out);
bool sgemm_kernel_avx2(SgemmKernelInfo* out);
SgemmKernelInfo sgemm_kernel_generic();

}  // namespace tessera::linalg::detail

#include "core/thread_pool.hpp"
#include "linalg/epilogue.hpp"

namespace tessera::linalg::detail {
// sgemm with a given micro-kernel (tests run every kernel the CPU supports).
void sgemm_with(const SgemmKernelInfo& kern, bool ta, bool tb, int64_t M, int64_t N, int64_t K,
                float alpha, const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                float* C, int64_t ldc, ThreadPool* pool, const Epilogue* epilogue = nullptr);
// The kernel a PackedA made without naming one is packed for.
const SgemmKernelInfo& sgemm_best_kernel();
}  // namespace tessera::linalg::detail
