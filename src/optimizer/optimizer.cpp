#include "optimizer/optimizer.hpp"

#include "linalg/nchwc.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

void optimize(ir::Model& model, GraphOptimizationLevel level, bool cpu_internal_fusions,
              std::vector<PhaseTiming>* timings) {
  OptimizeOptions o;
  o.cpu_internal_fusions = cpu_internal_fusions;
  optimize(model, level, o, timings);
}

void optimize(ir::Model& model, GraphOptimizationLevel level, const OptimizeOptions& options,
              std::vector<PhaseTiming>* timings) {
  const bool cpu_internal_fusions = options.cpu_internal_fusions;
  if (level == GraphOptimizationLevel::kDisableAll) return;
  ir::Graph& g = model.graph;
  PhaseTimer timer(timings);
  // Each pass is timed under its own name ("optimize: fold_constants").
  auto run = [&](const char* name, auto&& pass) -> size_t {
    return timer.time(std::string("optimize: ") + name, pass);
  };
  // Basic: semantics-preserving clean-ups that every provider benefits from.
  // Folding a Shape can make its consumers constant and vice versa: repeat
  // while something changes (bounded, each round only removes nodes).
  run("eliminate_identities", [&] { return eliminate_identities(g); });
  // Before folding, which would dequantize the weights into float ones.
  if (level == GraphOptimizationLevel::kAll && cpu_internal_fusions) {
    run("fuse_qdq_conv", [&] { return fuse_qdq_conv(g); });
    run("fuse_qdq_matmul", [&] { return fuse_qdq_matmul(g); });
  }
  for (int round = 0; round < 8; ++round) {
    size_t changed = run("fold_constants", [&] { return fold_constants(model, g); });
    changed += run("eliminate_identities", [&] { return eliminate_identities(g); });
    changed +=
        run("eliminate_common_subexpressions", [&] { return eliminate_common_subexpressions(g); });
    if (!changed) break;
  }
  run("eliminate_dead_nodes", [&] { return eliminate_dead_nodes(g); });
  run("infer_static_shapes", [&] { return infer_static_shapes(model, g); });
  if (level == GraphOptimizationLevel::kBasic) return;

  // Extended: fusions of standard patterns into single standard (or internal) ops.
  run("cancel_transposes", [&] { return cancel_transposes(g); });
  run("merge_reshapes", [&] { return merge_reshapes(g); });
  if (model.opset("") >= 9) run("fuse_matmul_add", [&] { return fuse_matmul_add(g); });
  run("fuse_gelu", [&] { return fuse_gelu(model, g); });
  run("fuse_layer_norm", [&] { return fuse_layer_norm(model, g); });
  run("eliminate_dead_nodes", [&] { return eliminate_dead_nodes(g); });
  if (level == GraphOptimizationLevel::kExtended) return;

  // All: layout-free CPU fusions into internal ops.
  run("fold_conv_batchnorm", [&] { return fold_conv_batchnorm(g); });
  if (cpu_internal_fusions) {
    // First: it also takes the activation after the Add.
    run("fuse_conv_residual", [&] { return fuse_conv_residual(model, g, /*extended=*/true); });
    run("fuse_activations",
        [&] { return fuse_activations(model, g, /*gemm=*/true, /*extended=*/true); });
    run("fuse_attention",
        [&] { return fuse_attention(model, g, /*packed_qkv=*/true, /*seq_first=*/true); });
    run("fuse_skip_layer_norm", [&] { return fuse_skip_layer_norm(model, g); });
    run("fuse_bias_gelu", [&] { return fuse_bias_gelu(model, g); });
    run("fuse_matmul_bias", [&] { return fuse_matmul_bias(model, g); });
    run("fuse_matmul_integer_to_float", [&] { return fuse_matmul_integer_to_float(model, g); });
    run("pool_quantized_values", [&] { return pool_quantized_values(model, g); });
    run("fuse_quantize_pairs", [&] { return fuse_quantize_pairs(model, g); });
    run("fuse_quantize_lookups", [&] { return fuse_quantize_lookups(model, g); });
    run("fuse_dequantize_add", [&] { return fuse_dequantize_add(model, g); });
    // Last: it converts the FusedConvs made above (residual and activation
    // included). The blocked kernels pay off only where vector kernels
    // (AVX-512, or AVX2 with FMA) run them.
    if (options.nchwc_layout && linalg::nchwc::fast_path_available()) {
      run("choose_conv_layout",
          [&] { return choose_conv_layout(model, g, options.conv_winograd); });
      run("fuse_expand_depthwise", [&] { return fuse_expand_depthwise(model, g); });
    }
  } else {
    const auto& shared = options.shared_fusions;
    // Packed too: the CUDA kernel reads Q, K and V from the projection in
    // place, as the CPU's does, which saves BERT-base a Split (copying the
    // whole projection) per layer.
    if (shared.count("MultiHeadAttention"))
      run("fuse_attention",
          [&] { return fuse_attention(model, g, /*packed_qkv=*/true, /*seq_first=*/false); });
    if (shared.count("SkipLayerNormalization"))
      run("fuse_skip_layer_norm", [&] { return fuse_skip_layer_norm(model, g); });
    if (shared.count("BiasGelu")) run("fuse_bias_gelu", [&] { return fuse_bias_gelu(model, g); });
    if (shared.count("FusedConv")) {
      run("fuse_conv_residual", [&] { return fuse_conv_residual(model, g); });
      run("fuse_activations", [&] { return fuse_activations(model, g, /*gemm=*/false); });
    }
  }
  run("eliminate_dead_nodes", [&] { return eliminate_dead_nodes(g); });
}

}  // namespace tessera::optimizer
