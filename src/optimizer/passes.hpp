// The individual graph passes. Each returns how many nodes it changed.
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.hpp"
#include "optimizer/def_use.hpp"

namespace tessera::ep {
class KernelRegistry;
}

namespace tessera::optimizer {

// ---- basic ----
// Removes Identity nodes (and inference-mode Dropout without a mask output)
// whose output is not a graph output, rewiring their consumers to the input.
size_t eliminate_identities(ir::Graph& graph);
// Removes nodes none of whose outputs is used by another node, a subgraph or
// the graph outputs.
size_t eliminate_dead_nodes(ir::Graph& graph);
// Runs nodes whose inputs are all constants once, with `kernels` (a host
// provider's; null: only Shape and Size fold), and
// stores their outputs as initializers (random ops, control flow, results
// over 64 MiB and graph outputs excepted); Shape / Size of a value whose
// shape is static (ShapeInferrer) become initializers too. With
// `keep_dequantize`, DequantizeLinear nodes stay (for the providers' 8-bit
// fusions, which read them).
size_t fold_constants(ir::Model& model, ir::Graph& graph, const ep::KernelRegistry* kernels,
                      bool keep_dequantize = false);
// Records in value_info the static shape of each value that follows exactly
// from the graph input shapes and constants: full, or partial where some
// dims are unknown (see shape_inference.cpp); returns how many it added, for
// the passes that read declared shapes (ranks, last dims, channel counts).
size_t infer_static_shapes(const ir::Model& model, ir::Graph& graph);
// Drops a node that repeats an earlier one (same ONNX op, inputs and
// attributes; not random ops, nor nodes with tensor or graph attributes),
// its readers reading the earlier node's outputs. Graph outputs and values
// subgraphs read are kept.
size_t eliminate_common_subexpressions(ir::Graph& graph);

// ---- extended ----
// Transpose(Transpose(x)) -> one Transpose, or nothing when they cancel.
size_t cancel_transposes(ir::Graph& graph);
// Reshape(Reshape(x, s1), s2) -> Reshape(x, s2) for a constant s2 without 0s.
size_t merge_reshapes(ir::Graph& graph);
// MatMul(A, B) + C -> Gemm for 2-D A, constant 2-D B and a [N] / [1, N] bias.
size_t fuse_matmul_add(ir::Graph& graph);
// The Erf-based GELU chain -> Gelu (com.tessera Gelu below opset 20).
size_t fuse_gelu(ir::Model& model, ir::Graph& graph);
// The spelled-out layer norm -> LayerNormalization (com.tessera below opset 17).
size_t fuse_layer_norm(ir::Model& model, ir::Graph& graph);
// Pad with zeros on the spatial axes, read only by a Conv -> the Conv with
// the pads added to its own (pad_conv_fusion.cpp).
size_t fuse_pad_conv(ir::Model& model, ir::Graph& graph);

// ---- all ----
// Conv + inference BatchNormalization -> Conv with folded weights and bias.
size_t fold_conv_batchnorm(ir::Model& model, ir::Graph& graph);
// The per-channel affine map of an inference BatchNormalization over m
// channels, y = (x - mean) * s + beta with s = gamma / sqrt(var + eps), in
// double; nullopt unless `bn` is in inference form (no training outputs or
// mode, spatial statistics) with constant float statistics of m values.
struct BnAffine {
  std::vector<double> s, mean, beta;
};
std::optional<BnAffine> bn_affine(const DefUse& v, const ir::Node& bn, int64_t m, int64_t opset);
// Conv + Add [+ activation] -> com.tessera FusedConv with the residual as input 3.
// `extended` as in fuse_activations.
size_t fuse_conv_residual(ir::Model& model, ir::Graph& graph, bool extended = false);
// Conv / Gemm + Relu, LeakyRelu or constant Clip -> com.tessera FusedConv /
// FusedGemm (FusedConv only, without `gemm`); with `extended` (the CPU
// provider's own fusions) also Sigmoid, HardSigmoid, HardSwish and
// x * Sigmoid(x) (activation_match.hpp).
size_t fuse_activations(ir::Model& model, ir::Graph& graph, bool gemm = true,
                        bool extended = false);
// torch's multi-head attention block (Reshape/Transpose head splits, scaled
// Q.K^T, optional additive mask, Softmax, .V, head merge) -> com.tessera
// MultiHeadAttention. With `packed_qkv`, Q, K and V that are the three parts
// of one Split (or three Slices) of a packed projection are read from that
// tensor in place (attribute packed_qkv = 1). With `seq_first`, also
// torchvision's sequence-first form (ViT's nn.MultiheadAttention; attribute
// seq_first = 1, which only the CPU provider runs).
size_t fuse_attention(ir::Model& model, ir::Graph& graph, bool packed_qkv, bool seq_first);
// Add (+ a MatMul's bias Add) + LayerNormalization over the last axis ->
// com.tessera SkipLayerNormalization.
size_t fuse_skip_layer_norm(ir::Model& model, ir::Graph& graph);
// MatMul's bias Add + exact Gelu -> com.tessera BiasGelu.
size_t fuse_bias_gelu(ir::Model& model, ir::Graph& graph);
// MatMul(A, constant float B [K, N]) + constant bias [N] (-> an activation)
// for A of any rank -> com.tessera MatMulBias (CPU-only sessions; after
// fuse_bias_gelu, which takes the Adds before a Gelu).
size_t fuse_matmul_bias(ir::Model& model, ir::Graph& graph);

}  // namespace tessera::optimizer
