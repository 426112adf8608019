// The indexing, fill and layout kernels: what their files share, and the
// registration of each file's ops.
#include "providers/cuda/cuda_index_ops.hpp"

#include <cstring>

#include "core/float16.hpp"
#include "providers/cuda/cuda_call.hpp"

namespace tessera::cuda {

const std::vector<DataType> kCudaArithmetic = {DataType::kFloat,    DataType::kFloat16,
                                               DataType::kBFloat16, DataType::kDouble,
                                               DataType::kInt32,    DataType::kInt64};
const std::vector<DataType> kCudaNumeric = {
    DataType::kFloat, DataType::kFloat16, DataType::kBFloat16, DataType::kDouble, DataType::kInt8,
    DataType::kUInt8, DataType::kInt16,   DataType::kUInt16,   DataType::kInt32,  DataType::kUInt32,
    DataType::kInt64, DataType::kUInt64,  DataType::kBool};

std::optional<NumType> num_type_of(DataType t) {
  switch (t) {
    case DataType::kFloat:
      return NumType::kF32;
    case DataType::kFloat16:
      return NumType::kF16;
    case DataType::kBFloat16:
      return NumType::kBF16;
    case DataType::kDouble:
      return NumType::kF64;
    case DataType::kInt8:
      return NumType::kI8;
    case DataType::kUInt8:
      return NumType::kU8;
    case DataType::kInt16:
      return NumType::kI16;
    case DataType::kUInt16:
      return NumType::kU16;
    case DataType::kInt32:
      return NumType::kI32;
    case DataType::kUInt32:
      return NumType::kU32;
    case DataType::kInt64:
      return NumType::kI64;
    case DataType::kUInt64:
      return NumType::kU64;
    case DataType::kBool:
      return NumType::kBool;
    default:
      return std::nullopt;
  }
}

IndexError* deferred_index_check(const ep::KernelContext& ctx, cudaStream_t stream,
                                 Scratch& scratch, const std::string& what, bool negative_ok) {
  auto* error = static_cast<IndexError*>(scratch.lasting_bytes(sizeof(IndexError)));
  check_cuda(cudaMemsetAsync(error, 0, sizeof(IndexError), stream),
             "cudaMemsetAsync (an index error flag)");
  scratch.defer_check([error, what, negative_ok, node = ctx.node().describe()] {
    IndexError found{};
    check_cuda(cudaMemcpy(&found, error, sizeof(IndexError), cudaMemcpyDeviceToHost),
               "cudaMemcpy (reading an index error flag)");
    if (found.flag != 0)
      fail(ErrorCode::kInvalidArgument, node, ": ", what, ": index ", found.index,
           " is out of range [", negative_ok ? -found.dim : 0, ", ", found.dim - 1, "]");
  });
  return error;
}

// A float attribute's value in element type `t`, as bytes.
uint64_t scalar_bits(const ep::KernelContext& ctx, DataType t, double v) {
  uint64_t bits = 0;
  auto put = [&](auto x) { std::memcpy(&bits, &x, sizeof(x)); };
  switch (t) {
    case DataType::kFloat:
      put(float(v));
      break;
    case DataType::kDouble:
      put(v);
      break;
    case DataType::kFloat16:
      put(Float16(float(v)).bits);
      break;
    case DataType::kBFloat16:
      put(BFloat16(float(v)).bits);
      break;
    case DataType::kBool:
      put(uint8_t(v != 0));
      break;
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kInt16:
    case DataType::kUInt16:
    case DataType::kInt32:
    case DataType::kUInt32:
    case DataType::kInt64:
      put(int64_t(v));  // the low bytes are the narrower type's value
      break;
    case DataType::kUInt64:
      put(uint64_t(v));
      break;
    default:
      if (v != 0)
        ctx.fail_node("a fill value of ", v, " in ", data_type_name(t),
                      " is not supported by the CUDA kernel");
  }
  return bits;
}

void copy_device(const Tensor& x, Tensor& y, cudaStream_t stream) {
  if (x.byte_size() == 0 || x.raw_data() == y.raw_data()) return;
  check_cuda(cudaMemcpyAsync(y.mutable_raw_data(), x.raw_data(), x.byte_size(),
                             cudaMemcpyDeviceToDevice, stream),
             "cudaMemcpyAsync (the data a scatter updates)");
}

void register_cuda_index_ops(CudaOpTable& t) {
  register_cuda_gather_scatter(t);
  register_cuda_fill_ops(t);
  register_cuda_layout_ops(t);
  register_cuda_topk(t);
  register_cuda_resize(t);
  register_cuda_nonzero(t);
  register_cuda_roi_align(t);
}

}  // namespace tessera::cuda
