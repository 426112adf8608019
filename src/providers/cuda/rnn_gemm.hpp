// The float32 products of the recurrent kernels through cuBLASLt:
// D[m, n] = A[m, k] * B[n, k]^T, row-major with contiguous rows, for `batch`
// products at fixed strides (one per direction). A product's descriptors
// and algorithm are made once per run and called once per time step, so a
// step costs one cublasLtMatmul call on the host.
#pragma once
#include <cublasLt.h>

#include <map>
#include <mutex>
#include <vector>

#include "providers/cuda/cublaslt_api.hpp"
#include "providers/cuda/cuda_kernel.hpp"

namespace tessera::cuda {

struct RnnGemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1, stride_a = 0, stride_b = 0, stride_d = 0;  // elements
};

// The algorithms found for each shape and alignment, shared by a kernel's runs.
class RnnGemmCache {
 public:
  bool find(const std::vector<int64_t>& key, cublasLtMatmulHeuristicResult_t& out) const;
  void remember(const std::vector<int64_t>& key, const cublasLtMatmulHeuristicResult_t& r) const;

 private:
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, cublasLtMatmulHeuristicResult_t> algos_;
};

// One product shape on fixed buffers: `a`, `b` and `d` are the pointers its
// calls use (their alignment picks the algorithm); each call may pass others
// of the same alignment.
class RnnGemm {
 public:
  RnnGemm(const CudaEnv& env, const RnnGemmCache& cache, const ep::KernelContext& ctx,
          const RnnGemmShape& shape, const float* a, const float* b, float* d, Scratch& scratch);
  ~RnnGemm();
  RnnGemm(const RnnGemm&) = delete;
  RnnGemm& operator=(const RnnGemm&) = delete;
  // Queues D = A * B^T on `stream`.
  void run(const float* a, const float* b, float* d, cudaStream_t stream) const;

 private:
  void release();  // the descriptors, also when the constructor fails

  const CublasLtApi& lt_;
  HandlePool<cublasLtHandle_t>::Lease handle_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, ld_ = nullptr;
  cublasLtMatmulHeuristicResult_t algo_{};
  void* workspace_ = nullptr;
};

}  // namespace tessera::cuda
