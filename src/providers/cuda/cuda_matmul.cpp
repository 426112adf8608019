// MatMul and Gemm through cuBLASLt. Tensors are row-major; cuBLASLt is
// column-major, so each product is run transposed: D^T = op(B)^T op(A)^T,
// which reads the row-major buffers as they are. Gemm's C becomes the bias
// epilogue when it is one row (beta = 1), otherwise it is broadcast into the
// output and accumulated (beta * C).
#include <algorithm>
#include <map>
#include <mutex>

#include "ep/op_shape.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/matmul_epilogue.hpp"
#include "providers/cuda/matmul_plan.hpp"

namespace tessera::cuda {

namespace {

// One (strided-batched) product in row-major terms:
// D[m,n] = alpha * op(A)[m,k] op(B)[k,n] (+ beta * C, C in D's layout) (+ bias[n]).
struct Gemm {
  DataType type = DataType::kFloat;
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* d = nullptr;
  const void* c = nullptr;
  const void* bias = nullptr;
  bool relu = false;  // max(0, .) after the bias, in the epilogue
  float alpha = 1, beta = 0;
  int64_t batch = 1, stride_a = 0, stride_b = 0;  // elements
};

cudaDataType_t cuda_type(DataType t) {
  switch (t) {
    case DataType::kFloat16:
      return CUDA_R_16F;
    case DataType::kBFloat16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
  }
}

// The largest power of two up to 256 dividing the address and every batch step.
int64_t alignment(const void* p, int64_t stride_bytes) {
  int64_t a = 256;
  const auto addr = int64_t(reinterpret_cast<uintptr_t>(p));
  while (a > 1 && (addr % a != 0 || (stride_bytes && stride_bytes % a != 0))) a /= 2;
  return a;
}

class LtGemm {
 public:
  void run(const CudaEnv& env, const Gemm& g, const ep::KernelContext& ctx, cudaStream_t stream,
           Scratch& scratch) const {
    const CublasLtApi& lt = cublaslt();
    auto handle = scratch.cublaslt(env);
    const size_t es = data_type_storage_bytes(g.type, 1);
    const cudaDataType_t dt = cuda_type(g.type);
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    if (g.type == DataType::kFloat && env.options().prefer_fp16)
      compute = CUBLAS_COMPUTE_32F_FAST_16F;
    else if (g.type == DataType::kFloat && env.options().use_tf32)
      compute = CUBLAS_COMPUTE_32F_FAST_TF32;

    cublasLtMatmulDesc_t desc = nullptr;
    check_cublas(lt.matmul_desc_create(&desc, compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
    DescGuard desc_guard{lt, desc};
    // cuBLASLt's A is our B and its B our A (the transposed product).
    const cublasOperation_t op_a = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    set_desc(lt, desc, CUBLASLT_MATMUL_DESC_TRANSA, op_a);
    set_desc(lt, desc, CUBLASLT_MATMUL_DESC_TRANSB, op_b);
    if (g.bias || g.relu) {
      const cublasLtEpilogue_t epilogue =
          g.bias ? (g.relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS)
                 : CUBLASLT_EPILOGUE_RELU;
      set_desc(lt, desc, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue);
      if (g.bias) set_desc(lt, desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, g.bias);
    }
    // Stored shapes, column-major: our B [k,n] is n x k (ld n), or [n,k] -> k x n.
    Layouts l(lt);
    l.a = layout(lt, dt, g.trans_b ? g.k : g.n, g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n,
                 g.batch, g.stride_b);
    l.b = layout(lt, dt, g.trans_a ? g.m : g.k, g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k,
                 g.batch, g.stride_a);
    l.d = layout(lt, dt, g.n, g.m, g.n, g.batch, g.m * g.n);

    const int64_t align_a = alignment(g.b, g.stride_b * int64_t(es));
    const int64_t align_b = alignment(g.a, g.stride_a * int64_t(es));
    const int64_t align_d = alignment(g.d, g.m * g.n * int64_t(es));
    const int64_t align_c = g.c ? alignment(g.c, g.m * g.n * int64_t(es)) : align_d;
    const std::vector<int64_t> key = {int64_t(g.type),
                                      g.trans_a,
                                      g.trans_b,
                                      g.m,
                                      g.n,
                                      g.k,
                                      g.batch,
                                      g.stride_a,
                                      g.stride_b,
                                      g.c != nullptr,
                                      g.bias ? alignment(g.bias, 0) : 0,
                                      g.relu,
                                      align_a,
                                      align_b,
                                      align_c,
                                      align_d,
                                      int64_t(compute)};
    cublasLtMatmulHeuristicResult_t best{};
    if (!cached(key, best)) {
      cublasLtMatmulPreference_t pref = nullptr;
      check_cublas(lt.preference_create(&pref), "cublasLtMatmulPreferenceCreate");
      PrefGuard pref_guard{lt, pref};
      const uint64_t max_ws = kMaxWorkspace;
      check_cublas(lt.preference_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws,
                                     sizeof(max_ws)),
                   "cublasLtMatmulPreferenceSetAttribute");
      const std::pair<cublasLtMatmulPreferenceAttributes_t, int64_t> aligns[] = {
          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a},
          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b},
          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_c},
          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_d}};
      for (const auto& [attr, value] : aligns) {
        const uint32_t v = uint32_t(value);
        check_cublas(lt.preference_set(pref, attr, &v, sizeof(v)),
                     "cublasLtMatmulPreferenceSetAttribute");
      }
      int returned = 0;
      check_cublas(
          lt.algo_get_heuristic(handle.get(), desc, l.a, l.b, l.d, l.d, pref, 1, &best, &returned),
          "cublasLtMatmulAlgoGetHeuristic");
      if (returned == 0)
        ctx.fail_node("cuBLASLt has no algorithm for this product (", g.m, "x", g.k, " by ", g.k,
                      "x", g.n, ", batch ", g.batch, ", ", data_type_name(g.type), ")");
      remember(key, best);
    }
    void* workspace = scratch.bytes(best.workspaceSize);
    const float alpha = g.alpha, beta = g.c ? g.beta : 0.0f;
    check_cublas(lt.matmul(handle.get(), desc, &alpha, g.b, l.a, g.a, l.b, &beta, g.c ? g.c : g.d,
                           l.d, g.d, l.d, &best.algo, workspace, best.workspaceSize, stream),
                 "cublasLtMatmul");
  }

 private:
  static constexpr uint64_t kMaxWorkspace = 32u << 20;  // what cuBLASLt suggests for Hopper

  struct DescGuard {
    const CublasLtApi& lt;
    cublasLtMatmulDesc_t h;
    ~DescGuard() { lt.matmul_desc_destroy(h); }
  };
  struct PrefGuard {
    const CublasLtApi& lt;
    cublasLtMatmulPreference_t h;
    ~PrefGuard() { lt.preference_destroy(h); }
  };
  struct Layouts {
    explicit Layouts(const CublasLtApi& api) : lt(api) {}
    ~Layouts() {
      for (auto h : {a, b, d})
        if (h) lt.layout_destroy(h);
    }
    const CublasLtApi& lt;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  };

  template <typename V>
  static void set_desc(const CublasLtApi& lt, cublasLtMatmulDesc_t d,
                       cublasLtMatmulDescAttributes_t attr, const V& value) {
    check_cublas(lt.matmul_desc_set(d, attr, &value, sizeof(value)),
                 "cublasLtMatmulDescSetAttribute");
  }

  static cublasLtMatrixLayout_t layout(const CublasLtApi& lt, cudaDataType_t t, int64_t rows,
                                       int64_t cols, int64_t ld, int64_t batch, int64_t stride) {
    cublasLtMatrixLayout_t l = nullptr;
    check_cublas(lt.layout_create(&l, t, uint64_t(rows), uint64_t(cols), ld),
                 "cublasLtMatrixLayoutCreate");
    if (batch > 1) {
      const int32_t count = int32_t(batch);
      try {
        check_cublas(lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
                     "cublasLtMatrixLayoutSetAttribute");
        check_cublas(
            lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
            "cublasLtMatrixLayoutSetAttribute");
      } catch (...) {
        lt.layout_destroy(l);  // not yet in the caller's Layouts
        throw;
      }
    }
    return l;
  }

  bool cached(const std::vector<int64_t>& key, cublasLtMatmulHeuristicResult_t& out) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = algos_.find(key);
    if (it == algos_.end()) return false;
    out = it->second;
    return true;
  }
  void remember(const std::vector<int64_t>& key, const cublasLtMatmulHeuristicResult_t& r) const {
    std::lock_guard<std::mutex> lock(mu_);
    algos_[key] = r;
  }

  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, cublasLtMatmulHeuristicResult_t> algos_;
};

class CudaMatMul : public CudaKernel {
 public:
  CudaMatMul(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    const Shape out = shape_.output(ctx, {&a, &b});  // checks ranks, K and the batch dims
    const MatMulPlan p = plan_matmul(a.shape(), b.shape());
    Tensor& y = ctx.output(0, out);
    if (y.num_elements() == 0) return;
    if (p.k == 0) {  // an empty sum
      check_cuda(cudaMemsetAsync(y.mutable_raw_data(), 0, y.byte_size(), stream),
                 "cudaMemsetAsync");
      return;
    }
    Gemm g;
    g.type = a.dtype();
    g.m = p.m;
    g.n = p.n;
    g.k = p.k;
    const size_t es = data_type_storage_bytes(a.dtype(), 1);
    if (p.offsets_a.empty()) {
      g.a = a.raw_data();
      g.b = b.raw_data();
      g.d = y.mutable_raw_data();
      g.batch = p.batch;
      g.stride_a = p.stride_a;
      g.stride_b = p.stride_b;
      gemm_.run(env(), g, ctx, stream, scratch);
      return;
    }
    for (size_t i = 0; i < p.offsets_a.size(); ++i) {
      g.a = static_cast<const char*>(a.raw_data()) + size_t(p.offsets_a[i]) * es;
      g.b = static_cast<const char*>(b.raw_data()) + size_t(p.offsets_b[i]) * es;
      g.d = static_cast<char*>(y.mutable_raw_data()) + i * size_t(p.m * p.n) * es;
      gemm_.run(env(), g, ctx, stream, scratch);
    }
  }

 private:
  ep::OpShape shape_;
  LtGemm gemm_;
};

class CudaGemm : public CudaKernel {
 public:
  CudaGemm(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        shape_(info),
        trans_a_(shape_.schema().attr_int(info.node(), "transA") != 0),
        trans_b_(shape_.schema().attr_int(info.node(), "transB") != 0),
        alpha_(shape_.schema().attr_float(info.node(), "alpha")),
        beta_(shape_.schema().attr_float(info.node(), "beta")) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    const Tensor* c = ctx.input(2);
    const Shape out = shape_.output(ctx, {&a, &b, c});  // checks ranks, K and C
    Gemm g;
    g.type = a.dtype();
    g.trans_a = trans_a_;
    g.trans_b = trans_b_;
    g.m = trans_a_ ? a.shape()[1] : a.shape()[0];
    g.k = trans_a_ ? a.shape()[0] : a.shape()[1];
    g.n = trans_b_ ? b.shape()[0] : b.shape()[1];
    Tensor& y = ctx.output(0, out);
    if (y.num_elements() == 0) return;
    const bool use_c = c && beta_ != 0.0f && c->num_elements() > 0;
    const bool one_row =
        use_c && c->rank() > 0 && c->num_elements() == g.n && c->shape().dims().back() == g.n;
    if (use_c && !(one_row && beta_ == 1.0f && g.k > 0)) {
      // C broadcast into Y, then Y = alpha * A B + beta * Y.
      const BroadcastPlan plan = plan_broadcast(c->shape(), c->shape(), out);
      check_cuda(launch_broadcast_copy(int(data_type_storage_bytes(c->dtype(), 1)), c->raw_data(),
                                       y.mutable_raw_data(), y.num_elements(), plan, stream),
                 "launch of the broadcast copy (Gemm's C)");
      g.c = y.raw_data();
      g.beta = beta_;
    } else if (use_c) {
      g.bias = c->raw_data();
    }
    if (g.k == 0) {  // alpha * (empty sum) + beta * C
      if (!use_c)
        check_cuda(cudaMemsetAsync(y.mutable_raw_data(), 0, y.byte_size(), stream),
                   "cudaMemsetAsync");
      else if (beta_ != 1.0f)
        ctx.fail_node("K = 0 with beta ", beta_, " != 1 is not supported by the CUDA kernel");
      return;
    }
    g.a = a.raw_data();
    g.b = b.raw_data();
    g.d = y.mutable_raw_data();
    g.alpha = alpha_;
    gemm_.run(env(), g, ctx, stream, scratch);
  }

 private:
  ep::OpShape shape_;
  bool trans_a_, trans_b_;
  float alpha_, beta_;
  LtGemm gemm_;
};

// A MatMul + bias Add (+ Relu) group (matmul_epilogue.hpp): B is a 2-D
// constant, so the product is one GEMM with A's batch folded into M, and the
// bias (and Relu) run in cuBLASLt's epilogue.
class CudaMatMulEpilogue : public CudaKernel {
 public:
  CudaMatMulEpilogue(const EnvPtr& env, size_t a, size_t b, size_t bias, bool relu)
      : CudaKernel(env), a_(a), b_(b), bias_(bias), relu_(relu) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& a = ctx.required_input(a_);
    const Tensor& b = ctx.required_input(b_);
    const Tensor& bias = ctx.required_input(bias_);
    const MatMulPlan p = plan_matmul(a.shape(), b.shape());
    if (b.rank() != 2 || p.batch != 1 || !p.offsets_a.empty() || p.k == 0)
      ctx.fail_node("internal: the fused MatMul needs a 2-D B with K > 0, got A ", a.description(),
                    " and B ", b.description());
    if (bias.num_elements() != p.n || bias.dtype() != a.dtype() || b.dtype() != a.dtype())
      ctx.fail_node("the bias ", bias.description(), " must be ", p.n, " values of A's type (",
                    data_type_name(a.dtype()), "), and B ", b.description(), " of that type too");
    Tensor& y = ctx.output(0, p.out);
    if (y.num_elements() == 0) return;
    Gemm g;
    g.type = a.dtype();
    g.m = p.m;
    g.n = p.n;
    g.k = p.k;
    g.a = a.raw_data();
    g.b = b.raw_data();
    g.d = y.mutable_raw_data();
    g.bias = bias.raw_data();
    g.relu = relu_;
    gemm_.run(env(), g, ctx, stream, scratch);
  }

 private:
  size_t a_, b_, bias_;
  bool relu_;
  LtGemm gemm_;
};

std::string check_gemm(const ep::ClaimQuery& q) {
  for (size_t i = 0; i < 2; ++i)
    if (auto r = q.rank(i); r && *r != 2) return str_cat("input ", i, " has rank ", *r, ", not 2");
  return "";
}

}  // namespace

std::unique_ptr<ep::OpKernel> make_matmul_epilogue(const EnvPtr& env, const ep::GraphView& view,
                                                   const ep::FusedGroup& group) {
  const MatMulEpilogue e = epilogue_of_group(view, group.nodes);
  auto index = [&](const std::string& name) {
    const auto& ins = group.node.inputs;
    auto it = std::find(ins.begin(), ins.end(), name);
    if (it == ins.end())
      fail(ErrorCode::kInvalidArgument, "CUDAExecutionProvider: internal: fused group ",
           group.node.name, " does not read '", name, "'");
    return size_t(it - ins.begin());
  };
  return std::make_unique<CudaMatMulEpilogue>(env, index(e.a), index(e.b), index(e.bias), e.relu);
}

void register_cuda_matmul(CudaOpTable& t) {
  t.add<CudaMatMul>({"", "MatMul", 1, ep::kOpsetMax, {{"T", {0, 1}, kCudaFloats}}}, no_check);
  t.add<CudaGemm>({"", "Gemm", 7, ep::kOpsetMax, {{"T", {0, 1, 2}, kCudaFloats}}}, check_gemm);
}

}  // namespace tessera::cuda
