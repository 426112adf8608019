// What the data-movement kernels' files share (cuda_shape_ops.cpp registers
// them all): their type lists, and reading a host input or an axis.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "providers/cuda/cuda_kernel.hpp"

namespace tessera::cuda {

// Every element type of 1, 2, 4 or 8 bytes (not strings, not the packed
// 4/2-bit types, not complex128): what the byte-moving kernels serve.
extern const std::vector<DataType> kCudaMovable;
// Every type but string: the views (cuda_views.cpp) only relabel the buffer.
extern const std::vector<DataType> kCudaAnyFixed;
// int32 and int64 (indices, Slice's starts...).
extern const std::vector<DataType> kCudaIndexTypes;

// Bytes per element of a kCudaMovable type.
int elem_bytes(DataType t);
// Input i (placed in host memory because the kernel lists it in its
// KernelDef's host_inputs) as int64 values; `what` names it in errors.
std::vector<int64_t> host_ints(const ep::KernelContext& ctx, size_t i, const char* what);
// `axis` in [-rank, rank) made non-negative; a failure names the node and `x`.
size_t normalized_axis(const ep::KernelContext& ctx, int64_t axis, const Shape& x);
// For claim checks: "" when `axis` is in [-rank, rank) or the rank is
// unknown, else why not.
std::string check_axis_range(int64_t axis, std::optional<size_t> rank);
// For claim checks: "" when input i's static rank is unknown or at most
// kMaxCopyRank, else why not.
std::string check_copy_rank(const ep::ClaimQuery& q, size_t i);

void register_cuda_copy_ops(CudaOpTable& t);  // Transpose, Slice, Expand, Where
void register_cuda_concat_split(CudaOpTable& t);
void register_cuda_gather(CudaOpTable& t);
void register_cuda_cast(CudaOpTable& t);

}  // namespace tessera::cuda
