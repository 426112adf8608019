// TopK's entry points (topk.cu), in plain types so host files need only
// cuda_runtime_api.h. As in cuda_launch.hpp, each launcher enqueues its
// kernels on `stream` and returns cudaGetLastError().
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/index_ops_launch.hpp"

namespace tessera::cuda {

// Rows of up to this many elements are sorted by one block in shared memory.
inline constexpr int64_t kTopKRowInShared = 2048;

// The smallest power of two >= n (n >= 1).
inline int64_t topk_padded(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// Bytes of device scratch launch_topk needs for rows of `dim` elements
// (none when they fit in shared memory).
inline int64_t topk_scratch_bytes(int64_t rows, int64_t dim) {
  const int64_t p = topk_padded(dim);
  return p <= kTopKRowInShared ? 0 : rows * p * int64_t(sizeof(uint64_t) + sizeof(int32_t));
}

// TopK of x seen as [outer, dim, inner] along dim: values [outer, k, inner]
// (x's type) and int64 indices, best first. The order: larger values first
// when `largest` (smaller otherwise), NaN above every number (first when
// largest, last when smallest), -0 equal to +0, ties by lower index.
// `scratch` holds topk_scratch_bytes(outer * inner, dim) bytes. dim < 2^31.
cudaError_t launch_topk(NumType type, const void* x, void* values, int64_t* indices, int64_t outer,
                        int64_t dim, int64_t inner, int64_t k, bool largest, void* scratch,
                        cudaStream_t stream);

}  // namespace tessera::cuda
