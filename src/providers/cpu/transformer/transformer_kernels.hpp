// Kernel factories of the transformer family; register_transformer.cpp lists them.
#pragma once
#include <memory>

#include "ep/kernel.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::OpKernel> make_einsum(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_attention(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_rotary_embedding(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_tensor_scatter(const ep::KernelInfo& info);
// com.tessera ops the optimizer's transformer fusions create (float; the
// registry runs half-precision nodes through half_via_float).
std::unique_ptr<ep::OpKernel> make_fused_multi_head_attention(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_skip_layer_norm(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_bias_gelu(const ep::KernelInfo& info);
// ONNX Runtime's com.microsoft Attention and EmbedLayerNormalization.
std::unique_ptr<ep::OpKernel> make_ms_attention(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_ms_embed_layer_norm(const ep::KernelInfo& info);
// Its language-model ops: GroupQueryAttention (with a key/value cache) and
// RotaryEmbedding (position_ids before the caches; a start position allowed).
std::unique_ptr<ep::OpKernel> make_ms_group_query_attention(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_ms_rotary_embedding(const ep::KernelInfo& info);

}  // namespace tessera::cpu
