// QuantizeLinear and DequantizeLinear on the GPU, per tensor or along one
// axis, between float/float16/bfloat16 and int8, uint8, int16, uint16 (and
// int32 for DequantizeLinear). Blocked scales, the `precision` attribute and
// float8/4-bit types are left to the CPU provider.
#include <algorithm>

#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_math_ops.hpp"

namespace tessera::cuda {

namespace {

const std::vector<DataType> kScaleTypes = {DataType::kFloat, DataType::kFloat16,
                                           DataType::kBFloat16};
const std::vector<DataType> kQuantTypes = {DataType::kInt8, DataType::kUInt8, DataType::kInt16,
                                           DataType::kUInt16};

// Which scale each element takes: (i / inner) % channels.
struct ScaleWalk {
  int64_t channels = 1, inner = 1;
};

// The walk for `scale` (one value, or one per element of x's `axis`) and the
// zero point's check (as many values as the scale); failures name the node.
ScaleWalk scale_walk(const ep::KernelContext& ctx, const Tensor& x, const Tensor& scale,
                     const Tensor* zero, int64_t axis) {
  if (zero && zero->num_elements() != scale.num_elements())
    ctx.fail_node("zero point ", zero->description(), " has not as many values as scale ",
                  scale.description());
  if (scale.num_elements() == 1 && scale.rank() <= 1) return {};
  if (scale.rank() != 1)
    ctx.fail_node("scale ", scale.description(),
                  " is neither one value nor one per element of an axis; the CUDA kernel takes no "
                  "blocked scales");
  const int64_t r = int64_t(x.rank());
  if (axis < -r || axis >= r)
    ctx.fail_node("axis ", axis, " is out of range for x ", x.description());
  const size_t a = size_t(axis < 0 ? axis + r : axis);
  if (scale.shape()[0] != x.shape()[a])
    ctx.fail_node("scale ", scale.description(), " does not have one value per element of axis ",
                  axis, " of x ", x.description());
  const int64_t inner = x.shape().size_from(a + 1);
  return {x.shape()[a], inner > 0 ? inner : 1};
}

class CudaQuantize : public CudaKernel {
 public:
  CudaQuantize(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        axis_(info.attr_int("axis", 1)),
        output_dtype_(DataType(info.attr_int("output_dtype", 0))) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& scale = ctx.required_input(1);
    const Tensor* zero = ctx.input(2);
    if (scale.dtype() != x.dtype())
      ctx.fail_node("scale ", scale.description(), " is not of x's type ", x.description(),
                    "; the CUDA kernel takes one type");
    DataType out = zero ? zero->dtype() : output_dtype_;
    if (out == DataType::kUndefined) out = ctx.output_type(0);
    if (out == DataType::kUndefined) out = DataType::kUInt8;
    const ScaleWalk w = scale_walk(ctx, x, scale, zero, axis_);
    const auto yt = math_type(out);
    if (!yt)
      ctx.fail_node("output type ", data_type_name(out), " is not one the CUDA kernel takes");
    Tensor& y = ctx.output(0, x.shape(), out);
    const cudaError_t e =
        launch_quantize(math_type_of(ctx, x, "x"), *yt, x.raw_data(), scale.raw_data(),
                        zero ? zero->raw_data() : nullptr, y.mutable_raw_data(), x.num_elements(),
                        w.channels, w.inner, stream);
    if (e == cudaErrorInvalidValue)
      ctx.fail_node("x ", x.description(), " to ", data_type_name(out),
                    " is not a pairing the CUDA kernel takes");
    check_cuda(e, "launch of the QuantizeLinear kernel");
  }

 private:
  int64_t axis_;
  DataType output_dtype_;
};

class CudaDequantize : public CudaKernel {
 public:
  CudaDequantize(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), axis_(info.attr_int("axis", 1)) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& scale = ctx.required_input(1);
    const Tensor* zero = ctx.input(2);
    if (zero && zero->dtype() != x.dtype())
      ctx.fail_node("zero point ", zero->description(), " is not of x's type ", x.description());
    const ScaleWalk w = scale_walk(ctx, x, scale, zero, axis_);
    Tensor& y = ctx.output(0, x.shape(), scale.dtype());
    const cudaError_t e =
        launch_dequantize(math_type_of(ctx, x, "x"), math_type_of(ctx, scale, "scale"),
                          x.raw_data(), scale.raw_data(), zero ? zero->raw_data() : nullptr,
                          y.mutable_raw_data(), x.num_elements(), w.channels, w.inner, stream);
    if (e == cudaErrorInvalidValue)
      ctx.fail_node("x ", x.description(), " with scale ", scale.description(),
                    " is not a pairing the CUDA kernel takes");
    check_cuda(e, "launch of the DequantizeLinear kernel");
  }

 private:
  int64_t axis_;
};

// What both ops decline: blocked scales (an attribute, or a scale of rank
// above 1).
std::string check_scale(const ep::ClaimQuery& q) {
  if (const int64_t b = q.attr_int("block_size", 0); b != 0)
    return str_cat("block_size ", b, ": the CUDA kernel takes no blocked scales");
  if (auto r = q.rank(1); r && *r > 1)
    return str_cat("the scale has rank ", *r, ": the CUDA kernel takes no blocked scales");
  return "";
}

std::string check_quantize(const ep::ClaimQuery& q) {
  if (q.attr_int("precision", 0) != 0) return "the precision attribute is set";
  const int64_t out = q.attr_int("output_dtype", 0);
  if (out != 0 &&
      std::find(kQuantTypes.begin(), kQuantTypes.end(), DataType(out)) == kQuantTypes.end())
    return str_cat("output_dtype ", out,
                   ": the CUDA kernel quantizes to int8, uint8, int16 and "
                   "uint16 only");
  return check_scale(q);
}

std::string check_dequantize(const ep::ClaimQuery& q) {
  if (const int64_t out = q.attr_int("output_dtype", 0); out != 0)
    return str_cat("output_dtype ", out, " is set: the CUDA kernel writes the scale's type");
  return check_scale(q);
}

}  // namespace

void register_cuda_quantize(CudaOpTable& t) {
  t.add<CudaQuantize>({"",
                       "QuantizeLinear",
                       10,
                       ep::kOpsetMax,
                       {{"T1", {0, 1}, kScaleTypes}, {"T2", {2}, kQuantTypes}}},
                      check_quantize);
  t.add<CudaDequantize>({"",
                         "DequantizeLinear",
                         10,
                         ep::kOpsetMax,
                         {{"T", {0, 2}, ep::types::join({kQuantTypes, {DataType::kInt32}})},
                          {"T2", {1}, kScaleTypes}}},
                        check_dequantize);
}

}  // namespace tessera::cuda
