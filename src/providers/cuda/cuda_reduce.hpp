// The reduction family's pieces: the register functions of its files (called
// from register_cuda_reduce) and the host-side reduction plan (tested
// without a GPU).
#pragma once
#include <vector>

#include "core/shape.hpp"
#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/reduce_launch.hpp"

namespace tessera::cuda {

// cuda_attention.cpp: Attention (23+).
void register_cuda_attention(CudaOpTable& t);

// The runs of kept and reduced dims of `in` (reduced[d] says whether dim d
// is reduced): size-1 dims dropped, neighbouring dims of the same kind
// merged. Returns false (and leaves `out` unspecified) when there are more
// than kMaxReduceRuns runs of one kind.
bool plan_reduce(const Shape& in, const std::vector<bool>& reduced, ReduceShape& out);

}  // namespace tessera::cuda
