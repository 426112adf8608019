// Attention (opset 23+) on float tensors through SGEMM: the common case of a
// prefill or encoder step, with no KV cache, softcap, window or extra outputs.
#pragma once
#include "core/tensor.hpp"
#include "ep/kernel.hpp"

namespace tessera::cpu {

// Shapes of one Attention call, heads split out: Q [B, QH, Sq, D], K [B, KH,
// T, D], V [B, KH, T, VD], each stored either 4-D that way or 3-D as [B, S,
// heads * size] (three_d).
struct AttentionDims {
  int64_t B = 0, QH = 0, KH = 0, Sq = 0, T = 0, D = 0, VD = 0;
  bool three_d = false;
};

// Y = softmax(scale * Q K^T + mask, causal rows top-left aligned) V, per
// (batch, head) pair: two SGEMMs and a vector softmax per row, Q, K, V read in
// place in either layout, Y written in Q's. mask (optional) is float (added)
// or bool (false masks), broadcast to [B, QH, Sq, T] with a last dimension of
// T or 1. A row with every score masked is zeros.
void attention_sgemm(ep::KernelContext& ctx, const AttentionDims& dims, const Tensor& q,
                     const Tensor& k, const Tensor& v, const Tensor* mask, float scale, bool causal,
                     Tensor& y);

}  // namespace tessera::cpu
