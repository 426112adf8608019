// Axis permutation, shared by Transpose and the kernels that are a reshape
// around one (DepthToSpace, SpaceToDepth).
#pragma once
#include <vector>

#include "core/tensor.hpp"
#include "core/thread_pool.hpp"

namespace tessera::cpu {

// y = x with its axes permuted: y.shape[k] == x.shape[perm[k]]. y is allocated
// by the caller (any element type; y may be a reshaped view of an output).
void transpose_into(const Tensor& x, const std::vector<int64_t>& perm, Tensor& y, ThreadPool& pool);

}  // namespace tessera::cpu
