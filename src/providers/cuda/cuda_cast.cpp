// Cast and CastLike between the types CUDA converts exactly as the CPU
// provider does (cast.cu); a cast to the same type is a device-to-device copy.
#include <optional>

#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"
#include "providers/cuda/shape_ops_launch.hpp"

namespace tessera::cuda {

namespace {

const std::vector<DataType> kCastTypes = {
    DataType::kFloat,  DataType::kFloat16, DataType::kBFloat16, DataType::kInt32,  DataType::kInt64,
    DataType::kBool,   DataType::kInt8,    DataType::kUInt8,    DataType::kDouble, DataType::kInt16,
    DataType::kUInt16, DataType::kUInt32,  DataType::kUInt64};

std::optional<CastType> cast_type(DataType t) {
  switch (t) {
    case DataType::kFloat:
      return CastType::kF32;
    case DataType::kFloat16:
      return CastType::kF16;
    case DataType::kBFloat16:
      return CastType::kBF16;
    case DataType::kInt32:
      return CastType::kI32;
    case DataType::kInt64:
      return CastType::kI64;
    case DataType::kBool:
      return CastType::kBool;
    case DataType::kInt8:
      return CastType::kI8;
    case DataType::kUInt8:
      return CastType::kU8;
    case DataType::kDouble:
      return CastType::kF64;
    case DataType::kInt16:
      return CastType::kI16;
    case DataType::kUInt16:
      return CastType::kU16;
    case DataType::kUInt32:
      return CastType::kU32;
    case DataType::kUInt64:
      return CastType::kU64;
    default:
      return std::nullopt;
  }
}

constexpr const char* kCastTypeList =
    "float, float16, bfloat16, double, bool and the 8- to 64-bit integers";

// y = x converted to `to` (already known to be one of the kernel's types).
void cast_to(ep::KernelContext& ctx, const Tensor& x, DataType to, cudaStream_t stream) {
  const auto from = cast_type(x.dtype());
  if (!from)
    ctx.fail_node("input ", x.description(), " is not one of the CUDA kernel's types (",
                  kCastTypeList, ")");
  Tensor& y = ctx.output(0, x.shape(), to);
  if (x.num_elements() == 0) return;
  if (x.dtype() == to) {
    check_cuda(cudaMemcpyAsync(y.mutable_raw_data(), x.raw_data(), x.byte_size(),
                               cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync (Cast to the same type)");
    return;
  }
  check_cuda(launch_cast(*from, *cast_type(to), x.raw_data(), y.mutable_raw_data(),
                         x.num_elements(), stream),
             "launch of the Cast kernel");
}

class CudaCast : public CudaKernel {
 public:
  CudaCast(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), to_(DataType(info.attr_int("to"))) {
    if (!cast_type(to_))
      info.fail_node("to=", int64_t(to_), " is not one of the CUDA kernel's types (", kCastTypeList,
                     ")");
  }
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    cast_to(ctx, ctx.required_input(0), to_, stream);
  }

 private:
  DataType to_;
};

// CastLike: the type of input 1 (whose values are not read) is the target.
class CudaCastLike : public CudaKernel {
 public:
  CudaCastLike(const ep::KernelInfo&, const EnvPtr& env) : CudaKernel(env) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& like = ctx.required_input(1);
    if (!cast_type(like.dtype()))
      ctx.fail_node("target_type ", like.description(), " is not one of the CUDA kernel's types (",
                    kCastTypeList, ")");
    cast_to(ctx, ctx.required_input(0), like.dtype(), stream);
  }
};

std::string check_cast(const ep::ClaimQuery& q) {
  const int64_t to = q.attr_int("to", 0);
  if (to < 1 || to > kMaxDataType || !is_valid_data_type(int32_t(to)))
    return str_cat("to=", to, " is not a data type");
  if (!cast_type(DataType(to)))
    return str_cat("Cast to ", data_type_name(DataType(to)), ": the CUDA kernel casts between ",
                   kCastTypeList, " only");
  return "";
}

}  // namespace

void register_cuda_cast(CudaOpTable& t) {
  // Opset 6 on: `to` is an int (a string before).
  t.add<CudaCast>({"", "Cast", 6, ep::kOpsetMax, {{"T1", {0}, kCastTypes}}}, check_cast);
  t.add<CudaCastLike>(
      {"", "CastLike", 15, ep::kOpsetMax, {{"T1", {0}, kCastTypes}, {"T2", {1}, kCastTypes}}},
      no_check);
}

}  // namespace tessera::cuda
