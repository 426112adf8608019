// com.tessera SkipLayerNormalization and BiasGelu, the optimizer's fusions
// of a transformer block's residual Add (and the bias Add of the projection
// before it) into the LayerNormalization after it, and of a bias Add into the
// exact Gelu after it (src/optimizer/skip_layer_norm_fusion.cpp). The session
// makes them for a CUDA session because this provider runs them: one kernel
// each where the standard ops took two or three, and no sum written out.
#include "ops/broadcast.hpp"
#include "providers/cuda/broadcast_plan.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_kernel.hpp"

namespace tessera::cuda {

namespace {

// A 1-D parameter of exactly n elements and X's type (gamma, beta, bias),
// or null when the optional input is omitted.
const void* row_param(const ep::KernelContext& ctx, size_t i, DataType t, int64_t n,
                      const char* name, bool required) {
  const Tensor* p = ctx.input(i);
  if (!p) {
    if (required) ctx.fail_node(name, " is required");
    return nullptr;
  }
  if (p->dtype() != t || p->num_elements() != n)
    ctx.fail_node(name, " ", p->description(), " must be ", data_type_name(t), " with ", n,
                  " elements (the last axis of the input)");
  return p->raw_data();
}

// Y = LayerNormalization(X + Skip (+ Bias), Gamma, Beta) over the last axis.
class CudaSkipLayerNorm : public CudaKernel {
 public:
  CudaSkipLayerNorm(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), epsilon_(info.attr_float("epsilon", 1e-5f)) {}

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& skip = ctx.required_input(1);
    if (skip.dtype() != x.dtype())
      ctx.fail_node("input and skip must have one type, got ", x.description(), " and ",
                    skip.description());
    const Shape shape =
        x.shape() == skip.shape() ? x.shape() : ops::broadcast_shapes({x.shape(), skip.shape()});
    if (shape.rank() == 0) ctx.fail_node("input must have at least one axis, got a scalar");
    const int64_t n = shape[shape.rank() - 1];
    const void* gamma = row_param(ctx, 2, x.dtype(), n, "gamma", true);
    const void* beta = row_param(ctx, 3, x.dtype(), n, "beta", false);
    const void* bias = row_param(ctx, 4, x.dtype(), n, "bias", false);
    Tensor& y = ctx.output(0, shape);
    const ElemType t = elem_type(x.dtype());
    const int64_t count = shape.num_elements();
    const void* xs = x.raw_data();
    const void* ss = skip.raw_data();
    // Shapes that differ only in leading 1s share one layout; any other
    // broadcast is summed first, as the Add this replaces would.
    if (x.num_elements() != count || skip.num_elements() != count) {
      void* sum = scratch.bytes(data_type_storage_bytes(x.dtype(), size_t(count)));
      check_cuda(launch_binary(BinaryOp::kAdd, t, xs, ss, sum, count,
                               plan_broadcast(x.shape(), skip.shape(), shape), stream),
                 "launch of the residual sum");
      xs = sum;
      ss = nullptr;
    }
    const int64_t rows = n == 0 ? 0 : count / n;
    check_cuda(launch_skip_layer_norm(t, xs, ss, bias, gamma, beta, y.mutable_raw_data(), rows, n,
                                      epsilon_, stream),
               "launch of the skip layer normalization kernel");
  }

 private:
  float epsilon_;
};

// Y = Gelu(X + Bias) (exact erf form), Bias 1-D along X's last axis.
class CudaBiasGelu : public CudaKernel {
 public:
  CudaBiasGelu(const ep::KernelInfo&, const EnvPtr& env) : CudaKernel(env) {}

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() == 0) ctx.fail_node("input must have at least one axis, got a scalar");
    const int64_t n = x.shape()[x.rank() - 1];
    const void* bias = row_param(ctx, 1, x.dtype(), n, "bias", true);
    Tensor& y = ctx.output(0, x.shape());
    check_cuda(launch_bias_gelu(elem_type(x.dtype()), x.raw_data(), bias, y.mutable_raw_data(),
                                x.num_elements(), n, stream),
               "launch of the bias Gelu kernel");
  }
};

// Both need an axis to normalize along or add the bias to.
std::string check_not_scalar(const ep::ClaimQuery& q) {
  auto rank = q.rank(0);
  if (rank && *rank == 0) return "the input is a scalar";
  return "";
}

}  // namespace

void register_cuda_transformer_fusions(CudaOpTable& t) {
  t.add<CudaSkipLayerNorm>({"com.tessera",
                            "SkipLayerNormalization",
                            1,
                            ep::kOpsetMax,
                            {{"T", {0, 1, 2, 3, 4}, kCudaFloats}}},
                           check_not_scalar);
  t.add<CudaBiasGelu>({"com.tessera", "BiasGelu", 1, ep::kOpsetMax, {{"T", {0, 1}, kCudaFloats}}},
                      check_not_scalar);
}

}  // namespace tessera::cuda
