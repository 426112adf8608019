// Attention's geometry, in plain types (shared by the host code,
// attention.cu and the no-GPU plan tests).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::cuda {

// Which fused attention kernel runs (the provider option attention_kernel).
// kAuto: the tensor-core kernel for float16/bfloat16 where it fits and its
// grid fills the GPU, else the tiled kernel where it fits, else the row
// kernel. A kernel named runs wherever it fits; elsewhere the next in that
// order does.
enum class AttentionKernel : int { kAuto, kTensorCores, kTiled, kRows };

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

// Fills the geometry of `s` (sizes, heads, the strides of Q, K, V and Y, and
// the mask's strides and key limit when `mask` gives its dims) from the dims
// of Q, K and V, which are all 3-D ([B, S, heads * D], with the head counts
// q_heads and kv_heads) or all 4-D ([B, heads, S, D]). Returns "" or why
// they do not fit together. Leaves scale, softcap, causal, the windows and
// mask_kind alone.
std::string plan_attention(const std::vector<int64_t>& q, const std::vector<int64_t>& k,
                           const std::vector<int64_t>& v, const std::vector<int64_t>* mask,
                           int64_t q_heads, int64_t kv_heads, AttentionShape& s);

}  // namespace tessera::cuda
