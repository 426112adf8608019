// The CUDA data-movement kernels: shared helpers and the registration of
// each file's ops (reshaping, strided copies, Concat/Split, Gather, Cast).
#include "providers/cuda/cuda_shape_ops.hpp"

#include "providers/cuda/shape_ops_launch.hpp"

namespace tessera::cuda {

namespace {

// Walks the DataType values themselves, not ep::types::kAll: that is another
// file's global, which may not be initialised yet when these are.
std::vector<DataType> types_where(bool (*keep)(DataType)) {
  std::vector<DataType> v;
  for (int32_t i = 1; i <= kMaxDataType; ++i)
    if (is_valid_data_type(i) && keep(DataType(i))) v.push_back(DataType(i));
  return v;
}

}  // namespace

const std::vector<DataType> kCudaMovable = types_where([](DataType t) {
  const int bits = data_type_bits(t);
  return t != DataType::kString && (bits == 8 || bits == 16 || bits == 32 || bits == 64);
});
const std::vector<DataType> kCudaAnyFixed =
    types_where([](DataType t) { return t != DataType::kString; });
const std::vector<DataType> kCudaIndexTypes = {DataType::kInt32, DataType::kInt64};

int elem_bytes(DataType t) {
  const int bits = data_type_bits(t);
  if (t == DataType::kString || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
    fail(ErrorCode::kNotImplemented, "the CUDA data-movement kernels move elements of 1, 2, 4 or ",
         "8 bytes, not ", data_type_name(t));
  return bits / 8;
}

std::vector<int64_t> host_ints(const ep::KernelContext& ctx, size_t i, const char* what) {
  const Tensor& t = ctx.required_input(i);
  if (!t.memory_info().host_accessible())
    ctx.fail_node("internal: input ", i, " (", what, ") is in ", t.memory_info().to_string(),
                  ", not in host memory as the kernel's host_inputs ask");
  if (t.rank() > 1) ctx.fail_node("input ", i, " (", what, ") must be 1-D, got ", t.description());
  return t.to_int64_vector();
}

size_t normalized_axis(const ep::KernelContext& ctx, int64_t axis, const Shape& x) {
  const int64_t r = int64_t(x.rank());
  if (axis < -r || axis >= r)
    ctx.fail_node("axis ", axis, " is out of range for input of shape ", x.to_string());
  return size_t(axis < 0 ? axis + r : axis);
}

std::string check_axis_range(int64_t axis, std::optional<size_t> rank) {
  if (!rank) return "";
  const int64_t r = int64_t(*rank);
  if (axis < -r || axis >= r) return str_cat("axis ", axis, " is out of range for rank ", *rank);
  return "";
}

std::string check_copy_rank(const ep::ClaimQuery& q, size_t i) {
  if (auto r = q.rank(i); r && *r > size_t(kMaxCopyRank))
    return str_cat("input ", i, " has rank ", *r, "; the CUDA kernel takes at most ", kMaxCopyRank);
  return "";
}

void register_cuda_shape_ops(CudaOpTable& t) {
  register_cuda_copy_ops(t);
  register_cuda_concat_split(t);
  register_cuda_gather(t);
  register_cuda_cast(t);
}

}  // namespace tessera::cuda
