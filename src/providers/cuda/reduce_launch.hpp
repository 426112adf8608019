// Entry points of reduce.cu, attention.cu and RMSNormalization (norm.cu), in
// plain types like cuda_launch.hpp: the Reduce* ops, ArgMax/ArgMin,
// RMSNormalization and the fused Attention kernel. Each launcher enqueues its
// kernels on `stream` and returns cudaGetLastError().
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

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

// How the attention mask's elements are stored.
enum class MaskKind : int { kNone, kBool, kF32, kF16, kBF16 };

// One Attention node's geometry. Q, K, V and Y are addressed as [batch,
// head, sequence, dim] through the strides below (dim contiguous), which
// covers both the 4-D [B, H, S, D] and the 3-D [B, S, H * D] layouts.
struct AttentionShape {
  int64_t batch = 0, q_heads = 0, kv_heads = 0, q_len = 0, kv_len = 0;
  int64_t head_size = 0, v_head_size = 0;
  // {batch, head, sequence} strides in elements.
  int64_t q_strides[3] = {}, k_strides[3] = {}, v_strides[3] = {}, y_strides[3] = {};
  float scale = 1.0f;
  float softcap = 0.0f;  // > 0: scores become softcap * tanh(score / softcap)
  bool causal = false;   // key j is masked for query i when j > i
  // Sliding window (opset 25): key j is masked when j < i - left or j > i + right
  // (-1: no limit).
  int64_t left_window = -1, right_window = -1;
  MaskKind mask_kind = MaskKind::kNone;
  // {batch, head, query, key} strides of the mask (0 where it broadcasts).
  int64_t mask_strides[4] = {};
  // Keys at or after this index are masked (a mask whose last dim is shorter
  // than the key count); INT64_MAX when it covers them all.
  int64_t mask_keys = INT64_MAX;
};

// Bytes of device scratch launch_attention needs (0 when the scores fit in
// shared memory).
size_t attention_scratch_bytes(const AttentionShape& s);

// Y = softmax(Q K^T * scale + mask) V per (batch, head, query row), K and V
// shared by q_heads / kv_heads query heads; rows whose keys are all masked
// give zeros. Q, K, V and Y have element type t; the mask, mask_kind.
cudaError_t launch_attention(ElemType t, const void* q, const void* k, const void* v,
                             const void* mask, void* y, const AttentionShape& s, void* scratch,
                             cudaStream_t stream);

}  // namespace tessera::cuda
