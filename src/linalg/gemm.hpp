// Dense matrix multiply on the CPU, row-major:
//   C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C
// op(X) is X or its transpose; lda/ldb/ldc are row strides of the stored
// matrices. beta == 0 ignores C's old contents (NaNs included), as BLAS does.
// The float path packs blocks of A and B and runs a register-tiled
// micro-kernel chosen once, at first use, by CPU features (AVX-512, AVX2+FMA,
// or portable); `pool` (may be null) splits C into blocks across threads.
// An optional epilogue (bias, residual, activation) runs on each finished
// tile of C while it is still in cache.
#pragma once
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "core/host_heap.hpp"
#include "core/thread_pool.hpp"
#include "linalg/epilogue.hpp"

namespace tessera::linalg {

namespace detail {
struct SgemmKernelInfo;

// Storage for packed panels: 64-byte aligned, so a panel row's vector loads
// never straddle two lines (std::vector's memory is only 16-byte aligned; a
// split load cost the kernel 3-4%), and large panels in the host heap.
using PanelStore = HostVector<float>;
}  // namespace detail

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
           ThreadPool* pool = nullptr, const Epilogue* epilogue = nullptr);

void dgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
           const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
           int64_t ldc, ThreadPool* pool = nullptr);

// op(A) packed once into the micro-kernel's panel layout, for a left operand
// that is used many times (a convolution's filters, a Gemm's constant A):
// products with it skip packing A. Packed for the kernel this CPU uses.
class PackedA {
 public:
  PackedA() = default;
  PackedA(bool trans, int64_t M, int64_t K, const float* A, int64_t lda);
  // For tests: packed for a given kernel, which must outlive this object.
  PackedA(const detail::SgemmKernelInfo& kern, bool trans, int64_t M, int64_t K, const float* A,
          int64_t lda);
  int64_t rows() const { return M_; }
  int64_t depth() const { return K_; }
  bool empty() const { return kern_ == nullptr; }
  const detail::SgemmKernelInfo& kernel() const { return *kern_; }
  // The packed panel for rows [i, i+MR) and the K slice starting at pc.
  const float* panel(int64_t pc, int64_t i) const;

 private:
  const detail::SgemmKernelInfo* kern_ = nullptr;
  int64_t M_ = 0, K_ = 0, mpad_ = 0;
  detail::PanelStore data_;
};

// C[M,N] = A * op(B) for a packed A (C's old contents ignored), then the
// epilogue on every tile.
void sgemm_packed(const PackedA& A, bool trans_b, int64_t N, const float* B, int64_t ldb, float* C,
                  int64_t ldc, ThreadPool* pool = nullptr, const Epilogue* epilogue = nullptr);

// op(B) packed once into the micro-kernel's NR-wide panel layout, for a right
// operand that is used many times (a MatMul's or Gemm's constant weights):
// products with it skip packing B, which otherwise costs a copy of all of B
// on every call. Packed for the kernel this CPU uses.
class PackedB {
 public:
  PackedB() = default;
  PackedB(bool trans, int64_t K, int64_t N, const float* B, int64_t ldb);
  // For tests: packed for a given kernel, which must outlive this object.
  PackedB(const detail::SgemmKernelInfo& kern, bool trans, int64_t K, int64_t N, const float* B,
          int64_t ldb);
  int64_t depth() const { return K_; }
  int64_t cols() const { return N_; }
  bool empty() const { return kern_ == nullptr; }
  const detail::SgemmKernelInfo& kernel() const { return *kern_; }
  // The packed panel for columns [j, j+NR) and the K slice starting at pc.
  const float* panel(int64_t pc, int64_t j) const;

 private:
  const detail::SgemmKernelInfo* kern_ = nullptr;
  int64_t K_ = 0, N_ = 0, npad_ = 0;
  detail::PanelStore data_;
};

// C[M,N] = alpha * op(A) * B + beta * C for a packed B, then the epilogue on
// every tile (beta == 0 ignores C's old contents).
void sgemm_packed_b(bool trans_a, int64_t M, float alpha, const float* A, int64_t lda,
                    const PackedB& B, float beta, float* C, int64_t ldc, ThreadPool* pool = nullptr,
                    const Epilogue* epilogue = nullptr);

// Name of the float micro-kernel in use, e.g. "avx512_f32_12x32" (for reports).
const char* sgemm_kernel_name();

}  // namespace tessera::linalg
