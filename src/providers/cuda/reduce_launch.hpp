// Entry points of reduce.cu, attention.cu and RMSNormalization (norm.cu), in
// plain types like cuda_launch.hpp: the Reduce* ops, ArgMax/ArgMin,
// RMSNormalization and the fused Attention kernel. Each launcher enqueues its
// kernels on `stream` and returns cudaGetLastError().
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/attention_plan.hpp"
#include "providers/cuda/cuda_launch.hpp"
#include "providers/cuda/reduce_plan.hpp"

namespace tessera::cuda {

enum class ReduceOp : int {
  kSum,
  kMean,
  kMax,
  kMin,
  kProd,
  kL1,
  kL2,
  kLogSum,
  kLogSumExp,
  kSumSquare
};

cudaError_t launch_reduce(ReduceOp op, ElemType t, const void* x, void* y, const ReduceShape& s,
                          cudaStream_t stream);

// ArgMax (max = true) or ArgMin over the middle dim of x viewed as [outer,
// len, inner]; y gets outer * inner int64 indices. NaN counts as the extreme;
// ties go to the first index, or the last with `select_last`. len > 0.
cudaError_t launch_arg_reduce(bool max, bool select_last, ElemType t, const void* x, int64_t* y,
                              int64_t outer, int64_t len, int64_t inner, cudaStream_t stream);

// RMSNormalization of each row of `cols` contiguous elements:
// y = x / sqrt(mean(x^2) + eps) * scale[j % scale_n], where scale_n divides
// cols: Scale covers the row's trailing dims (all of them: scale_n = cols;
// none: a scalar, scale_n = 1).
cudaError_t launch_rms_norm(ElemType t, const void* x, const void* scale, int64_t scale_n, void* y,
                            int64_t rows, int64_t cols, float epsilon, cudaStream_t stream);

// The kernel that runs attention of element type t and shape s under the
// option `pick` (AttentionKernel's rules; asks the device what fits):
// resolved once per call, for the two functions below.
AttentionKernel choose_attention_kernel(ElemType t, const AttentionShape& s, AttentionKernel pick);

// Bytes of device scratch the `chosen` kernel needs (0 unless it is the row
// kernel and the scores do not fit in shared memory).
size_t attention_scratch_bytes(const AttentionShape& s, AttentionKernel chosen);

// Y = softmax(Q K^T * scale + mask) V per (batch, head, query row), K and V
// shared by q_heads / kv_heads query heads; rows whose keys are all masked
// give zeros. Q, K, V and Y have element type t; the mask, mask_kind. Runs
// the kernel choose_attention_kernel gave; `scratch` has
// attention_scratch_bytes for it.
cudaError_t launch_attention(ElemType t, const void* q, const void* k, const void* v,
                             const void* mask, void* y, const AttentionShape& s,
                             AttentionKernel chosen, void* scratch, cudaStream_t stream);

}  // namespace tessera::cuda
