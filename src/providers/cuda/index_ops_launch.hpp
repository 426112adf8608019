// The indexing and fill kernels' entry points (index_ops.cu), in plain types
// so host files need only cuda_runtime_api.h. As in cuda_launch.hpp, each
// launcher enqueues its kernels on `stream` and returns cudaGetLastError().
// Kernels that only move elements take the element size (1, 2, 4 or 8
// bytes); those that compute take a NumType.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace tessera::cuda {

inline constexpr int kMaxIndexRank = 8;

// The element types the computing kernels (scatter reductions, CumSum, Range)
// do arithmetic in: half types in float, the others in their own type (bool
// as C++ does: a sum or maximum is an or, a product or minimum an and).
enum class NumType : int {
  kF32,
  kF16,
  kBF16,
  kF64,
  kI8,
  kU8,
  kI16,
  kU16,
  kI32,
  kU32,
  kI64,
  kU64,
  kBool
};
enum class ScatterReduction : int { kNone, kAdd, kMul, kMax, kMin };

// An index found out of range on the device: the kernels skip it (nothing is
// read or written out of bounds) and record it here; the caller zeroes this
// first and reads it back after the kernel.
struct IndexError {
  int64_t index;  // one of the bad indices
  int64_t dim;    // the size of the dim it indexes
  int32_t flag;   // nonzero when any index was out of range
};

// GatherElements and ScatterElements: the indices' dims (which are the
// output's, or the updates'), the data's strides and the indexed axis.
struct ElementsPlan {
  int rank = 0;
  int axis = 0;
  int64_t dims[kMaxIndexRank] = {};
  int64_t data_strides[kMaxIndexRank] = {};
  int64_t axis_dim = 0;
};
// y[i] = data[the coordinates of i with axis coordinate indices[i]], n = the
// indices' element count.
cudaError_t launch_gather_elements(int elem_bytes, const void* data, const void* indices,
                                   bool indices_are_int64, void* y, int64_t n,
                                   const ElementsPlan& plan, IndexError* error,
                                   cudaStream_t stream);
// y (already holding data) at the coordinates of update i with axis
// coordinate indices[i] gets updates[i], or is combined with it by
// `reduction` (computed in `type`; ignored for kNone, which moves bytes).
cudaError_t launch_scatter_elements(int elem_bytes, NumType type, ScatterReduction reduction,
                                    const void* indices, bool indices_are_int64,
                                    const void* updates, void* y, int64_t n,
                                    const ElementsPlan& plan, IndexError* error,
                                    cudaStream_t stream);

// GatherND and ScatterND: tuples of m int64 indices into dims b .. b+m-1 of
// the data (b = batch_dims), each selecting a slice of `slice` elements.
struct NdPlan {
  int m = 0;
  int64_t dims[kMaxIndexRank] = {};     // the data's indexed dims
  int64_t strides[kMaxIndexRank] = {};  // their strides in the data
  int64_t tuples_per_batch = 1;         // index tuples in each batch
  int64_t batch_stride = 0;             // data elements per batch
  int64_t slice = 1;                    // elements per selected slice
};
// y[(t * slice) + s] = data[batch(t) * batch_stride + offset(tuple t) + s]
// for the n = tuples * slice output elements.
cudaError_t launch_gather_nd(int elem_bytes, const void* data, const int64_t* indices, void* y,
                             int64_t n, const NdPlan& plan, IndexError* error, cudaStream_t stream);
// y (already holding data) at offset(tuple t) + s gets updates[t * slice + s]
// (combined by `reduction` as for ScatterElements); batch_dims is 0.
cudaError_t launch_scatter_nd(int elem_bytes, NumType type, ScatterReduction reduction,
                              const int64_t* indices, const void* updates, void* y, int64_t n,
                              const NdPlan& plan, IndexError* error, cudaStream_t stream);

// Trilu over [batch, rows, cols]: elements with col - row above k (upper =
// false) or below k (upper = true) become zero bytes, the rest are copied.
cudaError_t launch_trilu(int elem_bytes, const void* x, void* y, int64_t batch, int64_t rows,
                         int64_t cols, int64_t k, bool upper, cudaStream_t stream);

// OneHot: y [outer, depth, inner] is values[1] where the index at [outer,
// inner] (negative ones counted from depth; float ones truncated to
// integers) equals the depth coordinate, else values[0]; values is in device
// memory.
enum class OneHotIndex : int { kI32, kI64, kF32 };
cudaError_t launch_one_hot(int elem_bytes, const void* indices, OneHotIndex index_type,
                           const void* values, void* y, int64_t outer, int64_t depth, int64_t inner,
                           cudaStream_t stream);

// CumSum along the middle dim of [outer, dim, inner].
cudaError_t launch_cumsum(NumType type, const void* x, void* y, int64_t outer, int64_t dim,
                          int64_t inner, bool exclusive, bool reverse, cudaStream_t stream);

// Pad: per axis of the output, its dim, the input's stride, and the input
// range [lo, lo + len) that output coordinates pb .. pb + len - 1 read;
// the others read per `mode` or are the fill value.
enum class PadMode : int { kConstant, kReflect, kEdge, kWrap };
struct PadPlan {
  int rank = 0;
  PadMode mode = PadMode::kConstant;
  int64_t out_dims[kMaxIndexRank] = {};
  int64_t in_strides[kMaxIndexRank] = {};
  int64_t lo[kMaxIndexRank] = {};
  int64_t len[kMaxIndexRank] = {};
  int64_t pb[kMaxIndexRank] = {};
};
// The fill value is read from `fill` (device memory, one element) when it is
// not null, else it is the low elem_bytes bytes of `fill_bits`.
cudaError_t launch_pad(int elem_bytes, const void* x, const void* fill, uint64_t fill_bits, void* y,
                       int64_t n, const PadPlan& plan, cudaStream_t stream);

// y[i] = the low elem_bytes bytes of `bits`, for n elements.
cudaError_t launch_fill(int elem_bytes, uint64_t bits, void* y, int64_t n, cudaStream_t stream);

// Range: integers y[i] = start + i * delta (in int64); floats y[i] =
// fstart + i * fdelta computed in double and rounded once.
cudaError_t launch_range(NumType type, int64_t start, int64_t delta, double fstart, double fdelta,
                         void* y, int64_t n, cudaStream_t stream);

// NonZero in two passes over chunks of kNonZeroChunk elements: the count of
// nonzero elements per chunk (counts[ceil(n / chunk)]), then, with each
// chunk's exclusive prefix of those counts in `offsets`, the coordinates of
// each nonzero element in order: y[d * total + position] = its coordinate
// in dim d of `dims` (rank of them; none for a scalar).
inline constexpr int kNonZeroChunk = 1024;
struct NonZeroDims {
  int rank = 0;
  int64_t dims[kMaxIndexRank] = {};
};
cudaError_t launch_nonzero_count(NumType type, const void* x, int64_t n, int32_t* counts,
                                 cudaStream_t stream);
cudaError_t launch_nonzero_write(NumType type, const void* x, int64_t n, const int64_t* offsets,
                                 const NonZeroDims& dims, int64_t total, int64_t* y,
                                 cudaStream_t stream);

}  // namespace tessera::cuda
