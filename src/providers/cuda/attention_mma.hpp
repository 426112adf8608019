// The tensor-core attention kernel (attention_mma.cu), which launch_attention
// prefers for float16 and bfloat16 where it fits.
#pragma once
#include <cuda_runtime_api.h>

#include "providers/cuda/attention_plan.hpp"
#include "providers/cuda/cuda_launch.hpp"

namespace tessera::cuda {

// Whether the tensor-core kernel takes `s` in element type t on the current
// device: float16 or bfloat16, head sizes multiples of 16 up to 128, and
// the block's scores over every key fitting in its shared memory.
bool attention_mma_fits(ElemType t, const AttentionShape& s);

// Whether its grid (a block per 64 queries of each batch and head) has at
// least a block per multiprocessor of the current device. Measured on an
// H200 (132 multiprocessors), BERT-base's attention per layer: at batch 1
// (24 blocks) the tiled kernel's 48 blocks took 68 us against this one's 90;
// at batch 32 (768 blocks) this one took 185 against 252.
bool attention_mma_fills_device(const AttentionShape& s);

// As launch_attention (reduce_launch.hpp), for what attention_mma_fits.
cudaError_t launch_attention_mma(ElemType t, const void* q, const void* k, const void* v,
                                 const void* mask, void* y, const AttentionShape& s,
                                 cudaStream_t stream);

}  // namespace tessera::cuda
