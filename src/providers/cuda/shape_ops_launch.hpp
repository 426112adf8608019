// The data-movement kernels' entry points (shape_ops.cu, cast.cu), in plain
// types so host files need only cuda_runtime_api.h. As in cuda_launch.hpp,
// each launcher enqueues its kernels on `stream` and returns
// cudaGetLastError(). Byte-moving kernels take the element size (1, 2, 4 or 8
// bytes) instead of a type: they serve every fixed-size element type.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/copy_plan.hpp"

namespace tessera::cuda {

// y[i] = x[offset of i under operand 0 of the plan], n = the plan's element
// count (Transpose, Slice, Expand).
cudaError_t launch_strided_copy(int elem_bytes, const void* x, void* y, int64_t n,
                                const CopyPlan& plan, cudaStream_t stream);

// The strided copy of a transpose, in tiles (plan_tiles, a plan with rows).
cudaError_t launch_tiled_transpose(int elem_bytes, const void* x, void* y, const TilePlan& plan,
                                   cudaStream_t stream);

// Where: y[i] = cond[off0(i)] ? x[off1(i)] : other[off2(i)]; cond holds bools
// (one byte each, nonzero is true).
cudaError_t launch_where(int elem_bytes, const uint8_t* cond, const void* x, const void* other,
                         void* y, int64_t n, const CopyPlan& plan, cudaStream_t stream);

// Gather along one axis, the data seen as [outer, axis_dim, inner] and the
// output as [outer, num_indices, inner]. Negative indices count from the end.
// An index outside [-axis_dim, axis_dim) is skipped (its output elements are
// left unwritten) and recorded in `error`, which the caller zeroes first and
// reads back after the kernel.
struct GatherError {
  int64_t index;  // one of the out-of-range indices
  int32_t flag;   // nonzero when any index was out of range
};
cudaError_t launch_gather(int elem_bytes, const void* data, const void* indices,
                          bool indices_are_int64, void* y, int64_t outer, int64_t axis_dim,
                          int64_t num_indices, int64_t inner, GatherError* error,
                          cudaStream_t stream);

// Cast's element types (the ones CUDA converts exactly as the CPU provider does).
enum class CastType : int {
  kF32,
  kF16,
  kBF16,
  kI32,
  kI64,
  kBool,
  kI8,
  kU8,
  kF64,
  kI16,
  kU16,
  kU32,
  kU64
};
// y[i] = x[i] converted: to float, float16 and bfloat16 through float,
// rounding to nearest even (overflow gives infinity), to double exactly from
// floats; floats to integers drop the fraction (NaN gives 0, values beyond
// int64 saturate to it; uint64 also holds up to its own limit) and then keep
// the low bits, as integers to narrower integers do; anything to bool is
// x != 0; bool to anything is 0 or 1.
cudaError_t launch_cast(CastType from, CastType to, const void* x, void* y, int64_t n,
                        cudaStream_t stream);

}  // namespace tessera::cuda
