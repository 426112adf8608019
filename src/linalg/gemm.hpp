// Dense matrix multiply on the CPU, row-major:
//   C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C
// op(X) is X or its transpose; lda/ldb/ldc are row strides of the stored
// matrices. beta == 0 ignores C's old contents (NaNs included), as BLAS does.
// The float path packs blocks of A and B and runs a register-tiled
// micro-kernel chosen once, at first use, by CPU features (AVX-512, AVX2+FMA,
// or portable); `pool` (may be null) splits C into blocks across threads.
#pragma once
#include <cstdint>

#include "core/thread_pool.hpp"

namespace tessera::linalg {

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
           const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
           int64_t ldc, ThreadPool* pool = nullptr);

void dgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
           const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
           int64_t ldc, ThreadPool* pool = nullptr);

// Name of the float micro-kernel in use, e.g. "avx512_f32_12x32" (for reports).
const char* sgemm_kernel_name();

}  // namespace tessera::linalg
