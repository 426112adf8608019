// Softmax, LogSoftmax, LayerNormalization and RMSNormalization: row kernels
// over the last dims.
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/reduce_launch.hpp"

namespace tessera::cuda {

namespace {

// Rows and row length when the trailing dims from `axis` on form each row.
std::pair<int64_t, int64_t> rows_cols(const Shape& s, size_t axis) {
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < s.rank(); ++d) (d < axis ? rows : cols) *= s[d];
  return {rows, cols};
}

size_t normalized_axis(const ep::KernelContext& ctx, int64_t axis, size_t rank) {
  const int64_t r = int64_t(rank);
  if (axis < -r || axis >= r) ctx.fail_node("axis ", axis, " is out of range for rank ", rank);
  return size_t(axis < 0 ? axis + r : axis);
}

class CudaSoftmax : public CudaKernel {
 public:
  CudaSoftmax(const ep::KernelInfo& info, const EnvPtr& env, bool log)
      : CudaKernel(env),
        log_(log),
        flatten_(info.opset() < 13),
        axis_(info.attr_int("axis", info.opset() < 13 ? 1 : -1)) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() == 0) ctx.fail_node("the input is a scalar; Softmax needs at least one dim");
    const size_t axis = normalized_axis(ctx, axis_, x.rank());
    // Opset 13 on: one axis, which the CUDA kernel needs to be the last.
    // Before: the dims from `axis` on are flattened into each row.
    if (!flatten_ && axis != x.rank() - 1)
      ctx.fail_node("axis ", axis_, " is not the last axis of ", x.description(),
                    "; the CUDA kernel normalizes the last axis only");
    auto [rows, cols] = rows_cols(x.shape(), axis);
    Tensor& y = ctx.output(0, x.shape());
    check_cuda(launch_softmax(elem_type(x.dtype()), x.raw_data(), y.mutable_raw_data(), rows, cols,
                              log_, stream),
               "launch of the softmax kernel");
  }

 private:
  bool log_, flatten_;
  int64_t axis_;
};

std::string check_softmax(const ep::ClaimQuery& q) {
  auto rank = q.rank(0);
  if (rank && *rank == 0) return "the input is a scalar";
  const int64_t axis = q.attr_int("axis", q.opset() < 13 ? 1 : -1);
  if (rank && (axis < -int64_t(*rank) || axis >= int64_t(*rank)))
    return str_cat("axis ", axis, " is out of range for rank ", *rank);
  if (q.opset() < 13 || axis == -1) return "";
  if (!rank) return str_cat("axis ", axis, " may not be the last axis (the rank is not known)");
  if (axis != int64_t(*rank) - 1)
    return str_cat("axis ", axis, " is not the last axis (rank ", *rank,
                   "); the CUDA kernel normalizes the last axis only");
  return "";
}

// LayerNormalization and RMSNormalization: an axis, an epsilon, and
// statistics in float (stash_type 1).
class CudaRowNorm : public CudaKernel {
 protected:
  CudaRowNorm(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        axis_(info.attr_int("axis", -1)),
        epsilon_(info.attr_float("epsilon", 1e-5f)) {
    if (info.attr_int("stash_type", 1) != 1)
      info.fail_node("stash_type ", info.attr_int("stash_type", 1),
                     " is not supported (the CUDA kernel computes statistics in float)");
  }
  int64_t axis_;
  float epsilon_;
};

class CudaLayerNorm : public CudaRowNorm {
 public:
  CudaLayerNorm(const ep::KernelInfo& info, const EnvPtr& env) : CudaRowNorm(info, env) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& scale = ctx.required_input(1);
    const Tensor* bias = ctx.input(2);
    if (x.rank() == 0) ctx.fail_node("the input is a scalar");
    const size_t axis = normalized_axis(ctx, axis_, x.rank());
    auto [rows, cols] = rows_cols(x.shape(), axis);
    for (const Tensor* t : {&scale, bias})
      if (t && (t->num_elements() != cols || t->dtype() != x.dtype()))
        ctx.fail_node(t == &scale ? "Scale " : "B ", t->description(), " must have the ", cols,
                      " elements of the normalized dims of ", x.description(),
                      " (the CUDA kernel does not broadcast it)");
    Tensor& y = ctx.output(0, x.shape());
    // Mean and InvStdDev keep X's leading dims and 1 for each normalized one.
    Shape stat_shape = x.shape();
    for (size_t d = axis; d < x.rank(); ++d) stat_shape[d] = 1;
    float* mean = nullptr;
    float* inv_std = nullptr;
    if (ctx.has_output(1)) mean = ctx.output(1, stat_shape, DataType::kFloat).mutable_data<float>();
    if (ctx.has_output(2))
      inv_std = ctx.output(2, stat_shape, DataType::kFloat).mutable_data<float>();
    check_cuda(launch_layer_norm(elem_type(x.dtype()), x.raw_data(), scale.raw_data(),
                                 bias ? bias->raw_data() : nullptr, y.mutable_raw_data(), mean,
                                 inv_std, rows, cols, epsilon_, stream),
               "launch of the layer normalization kernel");
  }
};

std::string check_layer_norm(const ep::ClaimQuery& q) {
  if (int64_t st = q.attr_int("stash_type", 1); st != 1)
    return str_cat("stash_type ", st, " is not supported (statistics are computed in float)");
  auto rank = q.rank(0);
  if (rank && *rank == 0) return "the input is a scalar";
  return "";
}

// Elements of Scale when it covers trailing dims of X's normalized dims
// [axis, rank) exactly (leading 1s aside), so element j of a row takes
// Scale[j % n]; 0 when it does not.
int64_t trailing_scale_elements(const Shape& x, size_t axis, const Shape& scale) {
  size_t r = scale.rank();
  while (r > 0 && scale[scale.rank() - r] == 1) --r;  // leading 1s
  if (r > x.rank() - axis) return 0;
  int64_t n = 1;
  for (size_t i = 0; i < r; ++i) {
    const int64_t d = scale[scale.rank() - 1 - i];
    if (d != x[x.rank() - 1 - i]) return 0;
    n *= d;
  }
  return n;
}

class CudaRmsNorm : public CudaRowNorm {
 public:
  CudaRmsNorm(const ep::KernelInfo& info, const EnvPtr& env) : CudaRowNorm(info, env) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& scale = ctx.required_input(1);
    if (x.rank() == 0) ctx.fail_node("the input is a scalar");
    const size_t axis = normalized_axis(ctx, axis_, x.rank());
    auto [rows, cols] = rows_cols(x.shape(), axis);
    if (scale.dtype() != x.dtype())
      ctx.fail_node("Scale ", scale.description(), " must have X's element type (",
                    data_type_name(x.dtype()), ") for the CUDA kernel");
    const int64_t scale_n = trailing_scale_elements(x.shape(), axis, scale.shape());
    if (scale_n == 0 && cols > 0)
      ctx.fail_node("Scale ", scale.description(), " must match trailing dims of the normalized ",
                    "dims of ", x.description(), " (the CUDA kernel broadcasts it only so)");
    Tensor& y = ctx.output(0, x.shape());
    check_cuda(launch_rms_norm(elem_type(x.dtype()), x.raw_data(), scale.raw_data(), scale_n,
                               y.mutable_raw_data(), rows, cols, epsilon_, stream),
               "launch of the RMS normalization kernel");
  }
};

std::string check_rms_norm(const ep::ClaimQuery& q) {
  if (int64_t st = q.attr_int("stash_type", 1); st != 1)
    return str_cat("stash_type ", st, " is not supported (statistics are computed in float)");
  auto rank = q.rank(0);
  if (!rank) return "";
  if (*rank == 0) return "the input is a scalar";
  const int64_t r = int64_t(*rank), axis = q.attr_int("axis", -1);
  if (axis < -r || axis >= r) return str_cat("axis ", axis, " is out of range for rank ", r);
  // Scale against X's trailing dims, where both are known.
  auto xd = q.dims(0), sd = q.dims(1);
  if (!xd || !sd) return "";
  const size_t norm_dims = size_t(axis < 0 ? -axis : r - axis);
  size_t n = sd->size();
  while (n > 0 && (*sd)[sd->size() - n] == int64_t(1)) --n;
  if (n > norm_dims) return str_cat("Scale has more dims than the ", norm_dims, " normalized dims");
  for (size_t i = 0; i < n; ++i) {
    const auto& s = (*sd)[sd->size() - 1 - i];
    const auto& x = (*xd)[xd->size() - 1 - i];
    if (s && x && *s != *x)
      return str_cat("Scale dim ", *s, " does not equal X's dim ", *x,
                     "; the CUDA kernel broadcasts Scale only over leading dims of a row");
  }
  return "";
}

}  // namespace

void register_cuda_norm(CudaOpTable& t) {
  const auto softmax = [](bool log) {
    return [log](const ep::KernelInfo& info, const EnvPtr& env) -> std::unique_ptr<ep::OpKernel> {
      return std::make_unique<CudaSoftmax>(info, env, log);
    };
  };
  t.add({"", "Softmax", 1, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}}, softmax(false),
        check_softmax);
  t.add({"", "LogSoftmax", 1, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}}, softmax(true),
        check_softmax);
  t.add<CudaLayerNorm>(
      {"", "LayerNormalization", 17, ep::kOpsetMax, {{"T", {0, 1, 2}, kCudaFloats}}},
      check_layer_norm);
  // What the optimizer fuses into for models below opset 17: the same op
  // (opset-17 semantics) in Tessera's domain.
  t.add<CudaLayerNorm>(
      {"com.tessera", "LayerNormalization", 1, ep::kOpsetMax, {{"T", {0, 1, 2}, kCudaFloats}}},
      check_layer_norm);
  t.add<CudaRmsNorm>({"",
                      "RMSNormalization",
                      23,
                      ep::kOpsetMax,
                      {{"T", {0}, kCudaFloats}, {"V", {1}, kCudaFloats}}},
                     check_rms_norm);
}

}  // namespace tessera::cuda
