// cuBLASLt is column-major: the row-major D = A * B^T is run as
// D^T = B * A^T, with our B (stored [n, k]) as its transposed A and our A
// (stored [m, k]) as its B, so no buffer is moved.
#include "providers/cuda/rnn_gemm.hpp"

#include "providers/cuda/cublaslt_api.hpp"
#include "providers/cuda/cuda_call.hpp"

namespace tessera::cuda {

namespace {

constexpr uint64_t kMaxWorkspace = 32u << 20;

// The largest power of two up to 256 dividing the address and every batch step.
int64_t alignment(const void* p, int64_t stride_bytes) {
  int64_t a = 256;
  const auto addr = int64_t(reinterpret_cast<uintptr_t>(p));
  while (a > 1 && (addr % a != 0 || (stride_bytes && stride_bytes % a != 0))) a /= 2;
  return a;
}

cublasLtMatrixLayout_t make_layout(const CublasLtApi& lt, int64_t rows, int64_t cols, int64_t ld,
                                   int64_t batch, int64_t stride) {
  cublasLtMatrixLayout_t l = nullptr;
  check_cublas(lt.layout_create(&l, CUDA_R_32F, uint64_t(rows), uint64_t(cols), ld),
               "cublasLtMatrixLayoutCreate");
  if (batch > 1) {
    const int32_t count = int32_t(batch);
    const cublasStatus_t s1 =
        lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count));
    const cublasStatus_t s2 =
        lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride));
    if (s1 != CUBLAS_STATUS_SUCCESS || s2 != CUBLAS_STATUS_SUCCESS) {
      lt.layout_destroy(l);
      check_cublas(s1 != CUBLAS_STATUS_SUCCESS ? s1 : s2, "cublasLtMatrixLayoutSetAttribute");
    }
  }
  return l;
}

}  // namespace

bool RnnGemmCache::find(const std::vector<int64_t>& key,
                        cublasLtMatmulHeuristicResult_t& out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = algos_.find(key);
  if (it == algos_.end()) return false;
  out = it->second;
  return true;
}

void RnnGemmCache::remember(const std::vector<int64_t>& key,
                            const cublasLtMatmulHeuristicResult_t& r) const {
  std::lock_guard<std::mutex> lock(mu_);
  algos_[key] = r;
}

RnnGemm::RnnGemm(const CudaEnv& env, const RnnGemmCache& cache, const ep::KernelContext& ctx,
                 const RnnGemmShape& g, const float* a, const float* b, float* d, Scratch& scratch)
    : lt_(cublaslt()), handle_(scratch.cublaslt(env)) {
  // Same math as MatMul's float32 products under the provider's options.
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (env.options().prefer_fp16)
    compute = CUBLAS_COMPUTE_32F_FAST_16F;
  else if (env.options().use_tf32)
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  try {
    check_cublas(lt_.matmul_desc_create(&desc_, compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
    check_cublas(lt_.matmul_desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof(op_t)),
                 "cublasLtMatmulDescSetAttribute");
    check_cublas(lt_.matmul_desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof(op_n)),
                 "cublasLtMatmulDescSetAttribute");
    la_ = make_layout(lt_, g.k, g.n, g.k, g.batch, g.stride_b);  // B stored [n, k]: k x n
    lb_ = make_layout(lt_, g.k, g.m, g.k, g.batch, g.stride_a);  // A stored [m, k]: k x m
    ld_ = make_layout(lt_, g.n, g.m, g.n, g.batch, g.stride_d);

    const int64_t align_a = alignment(b, g.stride_b * 4), align_b = alignment(a, g.stride_a * 4),
                  align_d = alignment(d, g.stride_d * 4);
    const std::vector<int64_t> key = {
        g.m,        g.n,     g.k,     g.batch, g.stride_a,      g.stride_b,
        g.stride_d, align_a, align_b, align_d, int64_t(compute)};
    if (!cache.find(key, algo_)) {
      cublasLtMatmulPreference_t pref = nullptr;
      check_cublas(lt_.preference_create(&pref), "cublasLtMatmulPreferenceCreate");
      struct PrefGuard {
        const CublasLtApi& lt;
        cublasLtMatmulPreference_t p;
        ~PrefGuard() { lt.preference_destroy(p); }
      } guard{lt_, pref};
      check_cublas(lt_.preference_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                      &kMaxWorkspace, sizeof(kMaxWorkspace)),
                   "cublasLtMatmulPreferenceSetAttribute");
      const std::pair<cublasLtMatmulPreferenceAttributes_t, int64_t> aligns[] = {
          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a},
          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b},
          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_d},
          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_d}};
      for (const auto& [attr, value] : aligns) {
        const uint32_t v = uint32_t(value);
        check_cublas(lt_.preference_set(pref, attr, &v, sizeof(v)),
                     "cublasLtMatmulPreferenceSetAttribute");
      }
      int returned = 0;
      check_cublas(lt_.algo_get_heuristic(handle_.get(), desc_, la_, lb_, ld_, ld_, pref, 1, &algo_,
                                          &returned),
                   "cublasLtMatmulAlgoGetHeuristic");
      if (returned == 0)
        ctx.fail_node("cuBLASLt has no algorithm for the recurrent product (", g.m, "x", g.k,
                      " by ", g.k, "x", g.n, ", batch ", g.batch, ")");
      cache.remember(key, algo_);
    }
    // One workspace for every call: the calls follow each other on one stream.
    workspace_ = scratch.bytes(algo_.workspaceSize);
  } catch (...) {
    release();
    throw;
  }
}

RnnGemm::~RnnGemm() { release(); }

void RnnGemm::release() {
  for (auto l : {la_, lb_, ld_})
    if (l) lt_.layout_destroy(l);
  la_ = lb_ = ld_ = nullptr;
  if (desc_) lt_.matmul_desc_destroy(desc_);
  desc_ = nullptr;
}

void RnnGemm::run(const float* a, const float* b, float* d, cudaStream_t stream) const {
  const float alpha = 1.0f, beta = 0.0f;
  check_cublas(lt_.matmul(handle_.get(), desc_, &alpha, b, la_, a, lb_, &beta, d, ld_, d, ld_,
                          &algo_.algo, workspace_, algo_.workspaceSize, stream),
               "cublasLtMatmul");
}

}  // namespace tessera::cuda
