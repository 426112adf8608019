// The transformer family's kernel table.
#include "providers/cpu/half_via_float.hpp"
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

void register_transformer_kernels(ep::KernelRegistry& r) {
  using DT = DataType;
  using ep::KernelDef;
  using ep::kOpsetMax;
  namespace t = ep::types;
  r.add(KernelDef{"", "Einsum", 12, kOpsetMax, {{"T", {0}, t::kNumeric, true}}}, make_einsum);
  std::vector<DT> mask = t::join({t::kInts, t::kFloats, {DT::kBool}});
  r.add(KernelDef{"",
                  "Attention",
                  23,
                  kOpsetMax,
                  {{"T1", {0, 1, 4}, t::kFloats},
                   {"T2", {2, 5}, t::kFloats},
                   {"U", {3}, mask},
                   {"I", {6}, {DT::kInt64}}}},
        make_attention);
  r.add(KernelDef{"",
                  "RotaryEmbedding",
                  23,
                  kOpsetMax,
                  {{"T", {0, 1, 2}, {DT::kFloat, DT::kFloat16, DT::kBFloat16}},
                   {"M", {3}, {DT::kInt64}}}},
        make_rotary_embedding);
  std::vector<DT> any;
  for (DT d : t::kAll)
    if (!is_sub_byte_type(d)) any.push_back(d);
  r.add(
      KernelDef{"", "TensorScatter", 24, kOpsetMax, {{"T", {0, 1}, any}, {"I", {2}, {DT::kInt64}}}},
      make_tensor_scatter);
  // Fused ops of the optimizer's transformer passes. Their kernels are
  // float; half-precision nodes run them through float conversions (the
  // fallback for a CUDA session's half-precision fusions).
  const std::string dom = "com.tessera";
  const std::vector<DT> floats = {DT::kFloat, DT::kFloat16, DT::kBFloat16};
  r.add(KernelDef{dom,
                  "MultiHeadAttention",
                  1,
                  kOpsetMax,
                  {{"T", {0, 1, 2, 3}, floats}, {"M", {4}, {DT::kBool}}}},
        float_or_half_via_float(make_fused_multi_head_attention));
  r.add(KernelDef{dom, "SkipLayerNormalization", 1, kOpsetMax, {{"T", {0, 1, 2, 3, 4}, floats}}},
        float_or_half_via_float(make_skip_layer_norm));
  r.add(KernelDef{dom, "BiasGelu", 1, kOpsetMax, {{"T", {0, 1}, floats}}},
        float_or_half_via_float(make_bias_gelu));
  // ONNX Runtime's fused transformer ops (models its optimizer wrote); the
  // rest of its com.microsoft ops run as bodies (ops/contrib_bodies.cpp).
  const std::string ms = "com.microsoft";
  r.add(KernelDef{ms,
                  "Attention",
                  1,
                  kOpsetMax,
                  {{"T", {0, 1, 2, 5}, floats}, {"M", {3, 6}, {DT::kInt32}}}},
        float_or_half_via_float(make_ms_attention));
  r.add(KernelDef{ms,
                  "GroupQueryAttention",
                  1,
                  kOpsetMax,
                  {{"T", {0, 1, 2, 3, 4, 7, 8, 10, 11}, floats}, {"M", {5, 6}, {DT::kInt32}}}},
        float_or_half_via_float(make_ms_group_query_attention));
  r.add(KernelDef{ms,
                  "RotaryEmbedding",
                  1,
                  kOpsetMax,
                  {{"T", {0, 2, 3}, floats}, {"M", {1}, {DT::kInt64}}}},
        make_ms_rotary_embedding);
  // Input 0 is the int32 ids, so the half form is registered on its own.
  r.add(KernelDef{ms,
                  "EmbedLayerNormalization",
                  1,
                  kOpsetMax,
                  {{"T", {2, 3, 4, 5, 6}, {DT::kFloat}}, {"T1", {0, 1, 7, 8}, {DT::kInt32}}}},
        make_ms_embed_layer_norm);
  r.add(KernelDef{ms,
                  "EmbedLayerNormalization",
                  1,
                  kOpsetMax,
                  {{"T", {2, 3, 4, 5, 6}, {DT::kFloat16}}, {"T1", {0, 1, 7, 8}, {DT::kInt32}}}},
        half_via_float(make_ms_embed_layer_norm));
}

}  // namespace tessera::cpu
