// What the indexing, fill and layout kernels' files share
// (cuda_index_ops.cpp registers them all): the element types they compute
// in, and reading an out-of-range index flag back after the run.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/index_ops_launch.hpp"

namespace tessera::cuda {

// float, float16, bfloat16, double, int32, int64: the types the scatter
// reductions and CumSum compute in.
extern const std::vector<DataType> kCudaArithmetic;
// Every float (but the 8-bit ones) and integer type, and bool: the types a
// scatter's reductions combine in.
extern const std::vector<DataType> kCudaNumeric;
// The NumType of `t`, or nullopt when no computing kernel serves it.
std::optional<NumType> num_type_of(DataType t);

// Device memory for an IndexError, zeroed on `stream`, checked when the run
// next waits for its stream: a bad index then fails the node, naming `what`
// (which indices) and the bad value with the dim it indexes. Waiting after
// each node instead would stall the queue and break CUDA graph capture.
// `negative_ok`: whether the valid range the message gives starts at -dim
// (indices counted from the end) or at 0.
IndexError* deferred_index_check(const ep::KernelContext& ctx, cudaStream_t stream,
                                 Scratch& scratch, const std::string& what,
                                 bool negative_ok = true);

// A float attribute's value (a fill value) in element type `t`, as bytes;
// a nonzero value in a type without a conversion here fails the node.
uint64_t scalar_bits(const ep::KernelContext& ctx, DataType t, double v);

// Copies `x` into `y` on the device (both of one byte size), unless they are
// one buffer.
void copy_device(const Tensor& x, Tensor& y, cudaStream_t stream);

void register_cuda_gather_scatter(CudaOpTable& t);  // GatherElements, GatherND, Scatter*
void register_cuda_fill_ops(CudaOpTable& t);        // ConstantOfShape, Range, Trilu, OneHot, CumSum
void register_cuda_layout_ops(CudaOpTable& t);      // Tile, Pad, DepthToSpace, SpaceToDepth
void register_cuda_topk(CudaOpTable& t);
void register_cuda_nonzero(CudaOpTable& t);
void register_cuda_roi_align(CudaOpTable& t);
void register_cuda_resize(CudaOpTable& t);

}  // namespace tessera::cuda
