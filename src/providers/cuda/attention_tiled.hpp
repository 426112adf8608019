// The tiled attention kernel (attention_tiled.cu), which launch_attention
// prefers where it fits.
#pragma once
#include <cuda_runtime_api.h>

#include "providers/cuda/attention_plan.hpp"
#include "providers/cuda/cuda_launch.hpp"

namespace tessera::cuda {

// Whether the tiled kernel takes `s` on the current device: head sizes up to
// 128, and a tile's scores over every key fitting in a block's shared memory.
bool attention_tiled_fits(const AttentionShape& s);

// As launch_attention (reduce_launch.hpp), for shapes attention_tiled_fits.
cudaError_t launch_attention_tiled(ElemType t, const void* q, const void* k, const void* v,
                                   const void* mask, void* y, const AttentionShape& s,
                                   cudaStream_t stream);

}  // namespace tessera::cuda
