// The CPU provider's graph transform (ep::GraphTransformer): after
// partitioning, the nodes assigned to the CPU become its own forms — 8-bit
// fused ops from QDQ patterns, com.tessera fused ops (FusedConv, FusedGemm,
// MultiHeadAttention, SkipLayerNormalization, BiasGelu, MatMulBias, ...), and
// the channel-blocked convolution layout with its Winograd choice, where this
// CPU's vector kernels run it. Each rewrite is a pass over the part's graph;
// the CPU-only ones are declared here, the pattern rewrites other providers
// may use too are in optimizer/passes.hpp.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/phase_timing.hpp"
#include "ep/provider_abilities.hpp"
#include "ir/graph.hpp"

namespace tessera::cpu {

// Runs every CPU transform of `options.level` on `part` (the whole model in a
// CPU-only session). Session config entries read: "session.disable_nchwc"
// and "session.disable_winograd" ("1" turns the blocked layout or its
// Winograd choice off), "session.winograd_4x4" ("1" lets layers take the
// faster, less accurate F(4x4, 3x3)), "session.cpu_half_as_float" ("0"
// keeps float16 and bfloat16 nodes in their types). Returns how many nodes
// changed.
size_t transform_for_cpu(ir::Model& part, const ep::TransformOptions& options,
                         std::vector<PhaseTiming>* timings = nullptr);
// Whether the session config (null: none) turns `key` off ("0" or "false");
// the session has checked the value.
bool config_off(const std::map<std::string, std::string>* config, const char* key);

// ---- the CPU-only passes ----
// Float16 and bfloat16 nodes of ops whose float32 result means the same,
// only more precisely (element-wise math, convolutions, products,
// normalizations, pools, reductions, shape and data-movement ops, and their
// contrib forms), computed in float32 instead: half values they make become
// float, their half inputs get one Cast to float each (constant weights
// read by no other node are converted instead, the half copy dropped), and
// a Cast back to the half type is made for each value a graph output, a
// subgraph or another node still reads as half, under the value's name, so
// graph inputs and outputs keep their names and types. Cast nodes that then
// cast a float to float go. Run first, so the fusions and the blocked
// layout treat the nodes as float32 ones.
size_t compute_half_in_float(ir::Model& model, ir::Graph& graph);
// Whether compute_half_in_float computes node n in float32: an allowlisted op
// with a float16 or bfloat16 input or output (types from `type_of`, kUndefined
// when unknown) that has a CPU kernel once those are float. The CPU provider
// claims such nodes even where no kernel takes the half types themselves
// (bfloat16 Conv before opset 22), since its transform makes them float.
bool computes_half_in_float(const ir::Model& model, const ir::Node& n,
                            const std::function<DataType(const std::string&)>& type_of);
// DequantizeLinear -> Conv -> QuantizeLinear (statically quantized, QDQ
// form) -> QLinearConv on the 8-bit tensors (DequantizeLinear of constant
// weights still unfolded).
size_t fuse_qdq_conv(ir::Graph& graph);
// DequantizeLinear -> MatMul (constant 2-D 8-bit weights) -> QuantizeLinear
// -> QLinearMatMul.
size_t fuse_qdq_matmul(ir::Graph& graph);
// MaxPool([Relu](DequantizeLinear(q))) -> [Relu](DequantizeLinear(MaxPool(q)))
// where every window holds an image element (exact; the pool on bytes).
size_t pool_quantized_values(ir::Model& model, ir::Graph& graph);
// QuantizeLinear(DequantizeLinear(q)) with equal scalar parameters -> q, and
// with a Relu between them -> Max(q, zero point) (exact).
size_t fuse_quantize_pairs(ir::Model& model, ir::Graph& graph);
// QuantizeLinear(act(DequantizeLinear(x))) on other parameters (act none, a
// Relu or a constant Clip): com.tessera QuantizedLookup(x, 256-byte table),
// one pass over bytes, the same bytes.
size_t fuse_quantize_lookups(ir::Model& model, ir::Graph& graph);
// DequantizeLinear -> Add -> [Relu] -> [QuantizeLinear] with per-tensor
// parameters (the residual join of 8-bit CNNs) -> com.tessera DequantizeAdd,
// one pass over the elements, the same values.
size_t fuse_dequantize_add(ir::Model& model, ir::Graph& graph);
// MatMulInteger -> Cast(float) -> Mul(scale) (-> Add(bias)), a dynamically
// quantized MatMul, -> com.tessera MatMulIntegerToFloat.
size_t fuse_matmul_integer_to_float(ir::Model& model, ir::Graph& graph);
// Runs chains of 2-D and 3-D Conv / FusedConv (constant float filter, group 1,
// small groups or depthwise), pools, Adds and Relus in the channel-blocked
// layout of linalg/nchwc.hpp (com.tessera NchwcConv, Nchwc*Pool), so
// convolutions read their activations in place instead of through im2col +
// GEMM; reorders only where a plain reader, a graph output or a subgraph
// needs a value, under its original name. Returns how many nodes it
// converted. Worth it only where the vector (AVX-512 or AVX2) kernels run:
// transform_for_cpu asks linalg::nchwc::fast_path_available(). With
// `winograd`, the 3x3 stride-1 ones with wide channels get algorithm
// "winograd_2x2", or "winograd_4x4" where `winograd_4x4` allows it
// (linalg::nchwc::winograd_tile).
size_t choose_conv_layout(ir::Model& model, ir::Graph& graph, bool winograd = true,
                          bool winograd_4x4 = false);
// A blocked 1x1 NchwcConv read only by a depthwise 3x3 NchwcConv ->
// com.tessera NchwcExpandDepthwise (run after choose_conv_layout).
size_t fuse_expand_depthwise(ir::Model& model, ir::Graph& graph);

}  // namespace tessera::cpu
