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

}  // namespace tessera::cpu
