// Gemm and MatMul. Float types run through linalg::sgemm (float16/bfloat16
// via float buffers), double through dgemm, integers through plain loops.
// A constant 2-D float B (weights: BERT's MatMuls, a torch Linear's Gemm with
// transB=1) is packed once at kernel creation, so runs skip re-packing it,
// and the packed copy is shared by the sessions that share the weights.
#include <algorithm>
#include <optional>

#include "ep/op_shape.hpp"
#include "linalg/gemm.hpp"
#include "providers/cpu/fused/fused_activation.hpp"
#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu::nn {

namespace {

void gemm_any(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
              int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
              ThreadPool* pool) {
  linalg::sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, pool);
}
void gemm_any(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A,
              int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc,
              ThreadPool* pool) {
  linalg::dgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, pool);
}
// Integers: wrap-around arithmetic, as the spec's integer Gemm/MatMul imply.
template <typename T>
void gemm_int(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
              const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    T* c = C + i * ldc;
    for (int64_t j = 0; j < N; ++j) c[j] = beta == T(0) ? T(0) : T(c[j] * beta);
    for (int64_t k = 0; k < K; ++k) {
      const T a = T(alpha * (ta ? A[k * lda + i] : A[i * lda + k]));
      for (int64_t j = 0; j < N; ++j) c[j] = T(c[j] + a * (tb ? B[j * ldb + k] : B[k * ldb + j]));
    }
  }
}

template <typename Fn>
void dispatch_int(DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kInt32:
      fn.template operator()<int32_t>();
      break;
    case DataType::kInt64:
      fn.template operator()<int64_t>();
      break;
    case DataType::kUInt32:
      fn.template operator()<uint32_t>();
      break;
    case DataType::kUInt64:
      fn.template operator()<uint64_t>();
      break;
    case DataType::kInt8:
      fn.template operator()<int8_t>();
      break;
    case DataType::kUInt8:
      fn.template operator()<uint8_t>();
      break;
    case DataType::kInt16:
      fn.template operator()<int16_t>();
      break;
    case DataType::kUInt16:
      fn.template operator()<uint16_t>();
      break;
    default:
      fail(ErrorCode::kInvalidArgument, "unsupported element type ", data_type_name(t));
  }
}

bool is_float_family(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         t == DataType::kBFloat16;
}

// op(B) packed for linalg::sgemm_packed_b when input 1 is a constant 2-D
// float, float16 or bfloat16 tensor; null otherwise (the run then packs per
// call, and reports shape errors as usual). Shared with the other kernels
// (of any session) that pack the same constant the same way.
std::shared_ptr<const linalg::PackedB> pack_constant_b(const ep::KernelInfo& info, bool trans) {
  const Tensor* b = info.num_inputs() > 1 ? info.constant_input(1) : nullptr;
  if (!b || b->rank() != 2) return nullptr;
  const DataType t = b->dtype();
  if (t != DataType::kFloat && t != DataType::kFloat16 && t != DataType::kBFloat16) return nullptr;
  return info.prepacked<linalg::PackedB>(1, "cpu.sgemm.packed_b", {trans ? 1 : 0}, [&] {
    std::vector<float> store;
    const float* p = to_compute<float>(*b, store);
    const int64_t rows = b->shape()[0], cols = b->shape()[1];
    const int64_t K = trans ? cols : rows, N = trans ? rows : cols;
    return linalg::PackedB(trans, K, N, p, cols);
  });
}

// The packed B when it matches this run's product (it always does for a
// constant input; the check guards against a caller feeding something else).
const linalg::PackedB* usable(const std::shared_ptr<const linalg::PackedB>& pb, const Tensor& B,
                              int64_t K, int64_t N) {
  if (!pb || B.rank() != 2 || B.dtype() == DataType::kDouble) return nullptr;
  return pb->depth() == K && pb->cols() == N ? pb.get() : nullptr;
}

class GemmKernel : public ep::OpKernel {
 public:
  explicit GemmKernel(const ep::KernelInfo& info)
      : shape_(info),
        ta_(shape_.schema().attr_int(info.node(), "transA") != 0),
        tb_(shape_.schema().attr_int(info.node(), "transB") != 0),
        alpha_(shape_.schema().attr_float(info.node(), "alpha")),
        beta_(shape_.schema().attr_float(info.node(), "beta")),
        packed_b_(pack_constant_b(info, tb_)) {}

  // A packed B is all a float-family run reads of input 1.
  bool reads_constant_data(size_t i) const override { return i != 1 || !packed_b_; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& A = ctx.required_input(0);
    const Tensor& B = ctx.required_input(1);
    const Tensor* C = ctx.input(2);
    const Shape y_shape = shape_.output(ctx, {&A, &B, C});  // checks ranks, K and C
    const int64_t M = y_shape[0], N = y_shape[1], K = ta_ ? A.shape()[0] : A.shape()[1];
    // C broadcasts one way to [M, N].
    int64_t c_rows = 0, c_cols = 0;  // strides into C (0 = broadcast)
    if (C) {
      const auto& cd = C->shape().dims();
      const int64_t cm = cd.size() == 2 ? cd[0] : 1;
      const int64_t cn = cd.empty() ? 1 : cd.back();
      c_cols = cn == 1 ? 0 : 1;
      c_rows = cm == 1 ? 0 : cn;
    }
    Tensor& Y = ctx.output(0, y_shape);
    const DataType dt = A.dtype();
    if (is_float_family(dt)) {
      const linalg::PackedB* pb = usable(packed_b_, B, K, N);
      dispatch_compute(dt, [&]<typename T>() {
        std::vector<T> sa, sb, sc;
        const T* a = to_compute<T>(A, sa);
        ComputeOutput<T> y(Y);
        T* yp = y.data();
        T beta = T(0);
        if (C && beta_ != 0.f) {
          const T* c = to_compute<T>(*C, sc);
          for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) yp[i * N + j] = T(beta_) * c[i * c_rows + j * c_cols];
          beta = T(1);
        }
        bool done = false;
        if constexpr (std::is_same_v<T, float>) {
          if (pb) {
            linalg::sgemm_packed_b(ta_, M, alpha_, a, ta_ ? M : K, *pb, beta, yp, N,
                                   &ctx.thread_pool());
            done = true;
          }
        }
        if (!done)
          gemm_any(ta_, tb_, M, N, K, T(alpha_), a, ta_ ? M : K, to_compute<T>(B, sb), tb_ ? K : N,
                   beta, yp, N, &ctx.thread_pool());
        y.finish();
      });
      return;
    }
    dispatch_int(dt, [&]<typename T>() {
      T* yp = Y.mutable_data<T>();
      T beta = T(0);
      if (C && beta_ != 0.f) {
        const T* c = C->data<T>();
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) yp[i * N + j] = T(T(beta_) * c[i * c_rows + j * c_cols]);
        beta = T(1);
      }
      gemm_int<T>(ta_, tb_, M, N, K, T(alpha_), A.data<T>(), ta_ ? M : K, B.data<T>(), tb_ ? K : N,
                  beta, yp, N);
    });
  }

 private:
  ep::OpShape shape_;
  bool ta_, tb_;
  float alpha_, beta_;
  std::shared_ptr<const linalg::PackedB> packed_b_;
};

// MatMul, and ONNX Runtime's com.microsoft FusedMatMul / TransposeMatMul:
// alpha * op(A) op(B), op transposing the last two axes where transA /
// transB say so (the batch-axis transposes, transBatchA / transBatchB, are
// not supported and rejected at creation).
class MatMulKernel : public ep::OpKernel {
 public:
  explicit MatMulKernel(const ep::KernelInfo& info)
      : shape_(info),
        ta_(attr(info, "transA") != 0),
        tb_(attr(info, "transB") != 0),
        alpha_(shape_.schema().attr_def("alpha") ? shape_.schema().attr_float(info.node(), "alpha")
                                                 : 1.0f),
        packed_b_(ta_ ? nullptr : pack_constant_b(info, tb_)) {
    if (attr(info, "transBatchA") != 0 || attr(info, "transBatchB") != 0)
      info.fail_node("transBatchA / transBatchB are not supported");
  }

  bool reads_constant_data(size_t i) const override { return i != 1 || !packed_b_; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& A = ctx.required_input(0);
    const Tensor& B = ctx.required_input(1);
    const Shape y_shape = shape_.output(ctx, {&A, &B});  // checks ranks, K and the batch dims
    std::vector<int64_t> ad = A.shape().dims(), bd = B.shape().dims();
    const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
    if (a_vec) ad.insert(ad.begin(), 1);
    if (b_vec) bd.push_back(1);
    // A 1-D operand is a row (A) or a column (B) and is never transposed.
    const bool ta = ta_ && !a_vec, tb = tb_ && !b_vec;
    const int64_t M = ad[ad.size() - (ta ? 1 : 2)], K = ad[ad.size() - (ta ? 2 : 1)];
    const int64_t N = bd[bd.size() - (tb ? 2 : 1)];
    const int64_t lda = ta ? M : K, ldb = tb ? K : N;
    // Broadcast the batch dims.
    const size_t ab = ad.size() - 2, bb = bd.size() - 2;
    const size_t nb = std::max(ab, bb);
    std::vector<int64_t> batch(nb), astr(nb, 0), bstr(nb, 0);
    int64_t as = M * K, bs = K * N;
    for (size_t i = nb; i-- > 0;) {
      const int64_t da = i + ab >= nb ? ad[i + ab - nb] : 1;
      const int64_t db = i + bb >= nb ? bd[i + bb - nb] : 1;
      batch[i] = std::max(da, db);
      if (da == 0 || db == 0) batch[i] = 0;
      astr[i] = da == 1 ? 0 : as;
      bstr[i] = db == 1 ? 0 : bs;
      as *= da;
      bs *= db;
    }
    Tensor& Y = ctx.output(0, y_shape);
    int64_t nbatch = 1;
    for (int64_t d : batch) nbatch *= d;
    if (Y.num_elements() == 0) return;
    // When only A has batch dims, its rows stack into one (batch*M) x K GEMM.
    bool fold = nbatch > 1 && !ta;
    for (size_t i = 0; i < nb; ++i) fold = fold && bstr[i] == 0;
    auto offsets = [&](int64_t bi, int64_t& ao, int64_t& bo) {
      ao = bo = 0;
      for (size_t i = nb; i-- > 0;) {
        const int64_t idx = bi % batch[i];
        bi /= batch[i];
        ao += idx * astr[i];
        bo += idx * bstr[i];
      }
    };
    const DataType dt = A.dtype();
    if (is_float_family(dt)) {
      // A 2-D B has no batch dims, so A's batch rows stack into one product.
      const linalg::PackedB* pb = usable(packed_b_, B, K, N);
      dispatch_compute(dt, [&]<typename T>() {
        std::vector<T> sa, sb;
        const T* a = to_compute<T>(A, sa);
        ComputeOutput<T> y(Y);
        T* yp = y.data();
        ThreadPool* pool = &ctx.thread_pool();
        if constexpr (std::is_same_v<T, float>) {
          if (pb) {
            linalg::sgemm_packed_b(false, nbatch * M, alpha_, a, K, *pb, 0.f, yp, N, pool);
            y.finish();
            return;
          }
        }
        const T* b = to_compute<T>(B, sb);
        bool a_dense = true;  // A's batch is contiguous in order (no broadcast in A)
        for (size_t i = 0; i < nb; ++i) a_dense = a_dense && (astr[i] != 0 || batch[i] == 1);
        if (fold && a_dense) {
          gemm_any(false, tb, nbatch * M, N, K, T(alpha_), a, K, b, ldb, T(0), yp, N, pool);
        } else if (double(M) * N * K >= 1e5 || nbatch == 1) {
          for (int64_t bi = 0; bi < nbatch; ++bi) {
            int64_t ao, bo;
            offsets(bi, ao, bo);
            gemm_any(ta, tb, M, N, K, T(alpha_), a + ao, lda, b + bo, ldb, T(0), yp + bi * M * N, N,
                     pool);
          }
        } else {  // many small products: one per task
          pool->parallel_for(nbatch, 2.0 * double(M) * N * K, [&](int64_t b0, int64_t b1) {
            for (int64_t bi = b0; bi < b1; ++bi) {
              int64_t ao, bo;
              offsets(bi, ao, bo);
              gemm_any(ta, tb, M, N, K, T(alpha_), a + ao, lda, b + bo, ldb, T(0), yp + bi * M * N,
                       N, nullptr);
            }
          });
        }
        y.finish();
      });
      return;
    }
    dispatch_int(dt, [&]<typename T>() {
      const T* a = A.data<T>();
      const T* b = B.data<T>();
      T* yp = Y.mutable_data<T>();
      for (int64_t bi = 0; bi < nbatch; ++bi) {
        int64_t ao, bo;
        offsets(bi, ao, bo);
        gemm_int<T>(ta, tb, M, N, K, T(1), a + ao, lda, b + bo, ldb, T(0), yp + bi * M * N, N);
      }
    });
  }

 private:
  // transA, ..., which only com.microsoft's ops have (0 for MatMul).
  int64_t attr(const ep::KernelInfo& info, const char* name) const {
    return shape_.schema().attr_def(name) ? shape_.schema().attr_int(info.node(), name) : 0;
  }

  ep::OpShape shape_;
  bool ta_, tb_;
  float alpha_;
  std::shared_ptr<const linalg::PackedB> packed_b_;
};

// com.tessera MatMulBias: act(A B + bias) for A [..., K], a constant float
// B [K, N] (packed at creation) and bias [N]. A's rows stack into one GEMM;
// the bias is its epilogue's residual with row stride 0, so it and the
// activation are added to each tile while it is in cache.
class MatMulBiasKernel : public ep::OpKernel {
 public:
  explicit MatMulBiasKernel(const ep::KernelInfo& info)
      : act_(parse_fused_activation(info)), packed_b_(pack_constant_b(info, false)) {
    const Tensor* b = info.constant_input(1);
    if (!b || b->dtype() != DataType::kFloat || b->rank() != 2 || !packed_b_)
      info.fail_node("B must be a constant float [K, N] initializer (it is packed at creation)");
  }

  bool reads_constant_data(size_t i) const override { return i != 1; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& A = ctx.required_input(0);
    const Tensor& B = ctx.required_input(1);
    const Tensor& bias = ctx.required_input(2);
    if (A.rank() == 0) ctx.fail_node("A must have rank >= 1, got a scalar");
    const int64_t K = A.shape()[A.rank() - 1], N = B.shape()[1];
    if (B.shape()[0] != K)
      ctx.fail_node("inner dimensions differ: A ", A.shape().to_string(), " and B ",
                    B.shape().to_string());
    if (bias.dtype() != DataType::kFloat || bias.rank() != 1 || bias.shape()[0] != N)
      ctx.fail_node("bias ", bias.shape().to_string(), " must be float [", N, "]");
    std::vector<int64_t> yd = A.shape().dims();
    yd.back() = N;
    Tensor& Y = ctx.output(0, Shape(yd));
    if (Y.num_elements() == 0) return;
    const linalg::PackedB* pb = usable(packed_b_, B, K, N);
    if (!pb) ctx.fail_node("internal: packed B does not match B ", B.shape().to_string());
    float* y = Y.mutable_data<float>();
    const int64_t rows = Y.num_elements() / N;
    linalg::Epilogue ep;
    ep.residual = bias.data<float>();
    ep.ldr = 0;
    ep.act = act_;
    if (K == 0) {  // no products: the bias, activated
      for (int64_t r = 0; r < rows; ++r) std::fill(y + r * N, y + (r + 1) * N, 0.f);
      linalg::apply_epilogue(ep, 0, rows, 0, N, y, N);
      return;
    }
    linalg::sgemm_packed_b(false, rows, 1.f, A.data<float>(), K, *pb, 0.f, y, N, &ctx.thread_pool(),
                           &ep);
  }

 private:
  linalg::ActivationSpec act_;
  std::shared_ptr<const linalg::PackedB> packed_b_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_gemm(const ep::KernelInfo& info) {
  return std::make_unique<GemmKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_matmul(const ep::KernelInfo& info) {
  return std::make_unique<MatMulKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_matmul_bias(const ep::KernelInfo& info) {
  return std::make_unique<MatMulBiasKernel>(info);
}

}  // namespace tessera::cpu::nn
