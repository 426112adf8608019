// BatchNormalization in inference form (one output, training_mode 0):
// y = (x - mean) * scale / sqrt(var + epsilon) + B per channel (axis 1), for
// X of rank 2 and up. The per-channel factors are computed in float on the
// device, then one thread per element applies them. Scale/B and mean/var may
// have their own float types (opset 14's U, opset 15's T1 and T2).
#include "providers/cuda/cnn_launch.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_cnn_ops.hpp"

namespace tessera::cuda {

namespace {

class CudaBatchNorm : public CudaKernel {
 public:
  CudaBatchNorm(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), epsilon_(info.attr_float("epsilon", 1e-5f)) {
    if (info.opset() >= 14 && info.attr_int("training_mode", 0) != 0)
      info.fail_node("training_mode is not supported by the CUDA kernel");
    if (info.opset() < 9 && info.attr_int("spatial", 1) == 0)
      info.fail_node("spatial=0 is not supported by the CUDA kernel");
    for (size_t i = 1; i < info.num_outputs(); ++i)
      if (info.has_output(i))
        info.fail_node("output ", i, " (a training output) is not supported by the CUDA kernel");
  }

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() < 2) ctx.fail_node("X ", x.description(), " must be [N, C, ...]");
    const int64_t n = x.shape()[0], c = x.shape()[1], spatial = x.shape().size_from(2);
    static const char* const kNames[4] = {"scale", "B", "input_mean", "input_var"};
    const Tensor* p[4];
    for (size_t i = 0; i < 4; ++i) {
      p[i] = &ctx.required_input(i + 1);
      if (p[i]->num_elements() != c)
        ctx.fail_node(kNames[i], " ", p[i]->description(), " must have the ", c, " channels of X ",
                      x.description());
    }
    if (p[0]->dtype() != p[1]->dtype() || p[2]->dtype() != p[3]->dtype())
      ctx.fail_node("scale and B, and input_mean and input_var, must have the same types");
    Tensor& y = ctx.output(0, x.shape());
    if (y.num_elements() == 0) return;
    float* factors = static_cast<float*>(scratch.bytes(size_t(3 * c) * sizeof(float)));
    check_cuda(launch_batch_norm(elem_type(x.dtype()), elem_type(p[0]->dtype()),
                                 elem_type(p[2]->dtype()), x.raw_data(), p[0]->raw_data(),
                                 p[1]->raw_data(), p[2]->raw_data(), p[3]->raw_data(),
                                 y.mutable_raw_data(), factors, n, c, spatial, epsilon_, stream),
               "launch of the batch normalization kernels");
  }

 private:
  float epsilon_;
};

std::string check_batch_norm(const ep::ClaimQuery& q) {
  if (q.opset() >= 14 && q.attr_int("training_mode", 0) != 0)
    return "training_mode=1 (only inference is supported)";
  if (q.opset() < 9 && q.attr_int("spatial", 1) == 0)
    return "spatial=0 (per-element statistics) is not supported";
  for (size_t i = 1; i < q.node().outputs.size(); ++i)
    if (q.has_output(i))
      return str_cat("output ", i, " is used; only inference (one output) is supported");
  auto x = q.dims(0);
  if (x && x->size() < 2) return str_cat("X has rank ", x->size(), "; it must be [N, C, ...]");
  if (!x || !(*x)[1]) return "";
  // Statistics per channel only (not the per-element form of old opsets'
  // spatial=0, which the CPU provider also accepts in later ones).
  static const char* const kNames[4] = {"scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i <= 4; ++i) {
    auto p = q.dims(i);
    if (!p) continue;
    int64_t n = 1;
    bool known = true;
    for (const auto& d : *p) {
      known &= d.has_value();
      if (d) n *= *d;
    }
    if (known && n != *(*x)[1])
      return str_cat(kNames[i - 1], " has ", n, " elements, not the ", *(*x)[1],
                     " channels of X (per-channel statistics only)");
  }
  return "";
}

}  // namespace

void register_cuda_batch_norm(CudaOpTable& t) {
  // Opsets 7 and 8 differ from 9 only by `spatial` (declined when 0).
  t.add<CudaBatchNorm>({"", "BatchNormalization", 7, 13, {{"T", {0, 1, 2, 3, 4}, kCudaFloats}}},
                       check_batch_norm);
  t.add<CudaBatchNorm>({"",
                        "BatchNormalization",
                        14,
                        14,
                        {{"T", {0, 1, 2}, kCudaFloats}, {"U", {3, 4}, kCudaFloats}}},
                       check_batch_norm);
  t.add<CudaBatchNorm>(
      {"",
       "BatchNormalization",
       15,
       ep::kOpsetMax,
       {{"T", {0}, kCudaFloats}, {"T1", {1, 2}, kCudaFloats}, {"T2", {3, 4}, kCudaFloats}}},
      check_batch_norm);
}

}  // namespace tessera::cuda
