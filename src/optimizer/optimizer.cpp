#include "optimizer/optimizer.hpp"

#include "optimizer/cast_elimination.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

// The passes of `level` over `g`, the model's graph or a control-flow body.
void optimize_graph(ir::Model& model, ir::Graph& g, GraphOptimizationLevel level,
                    const OptimizeOptions& options, PhaseTimer& timer) {
  // Bodies first (Loop, Scan, If branches, at any depth): they get the same
  // passes as the main graph, so a model whose work sits in a body (a
  // decoder's generation Loop, layers inside If branches) is folded and
  // fused like one without. What a body stops reading from outside then
  // frees the enclosing graph's passes. A body may be shared with the model
  // the caller passed in (subgraphs are held by shared pointers), so each is
  // copied before it changes.
  for (auto& n : g.nodes)
    for (auto& a : n.attributes) {
      if (a.g) {
        a.g = std::make_shared<ir::Graph>(*a.g);
        optimize_graph(model, *a.g, level, options, timer);
      }
      for (auto& sub : a.graphs) {
        sub = std::make_shared<ir::Graph>(*sub);
        optimize_graph(model, *sub, level, options, timer);
      }
    }
  // Each pass is timed under its own name ("optimize: fold_constants").
  auto run = [&](const char* name, auto&& pass) -> size_t {
    return timer.time(std::string("optimize: ") + name, pass);
  };
  // Basic: semantics-preserving clean-ups that every provider benefits from.
  // Folding a Shape can make its consumers constant and vice versa: repeat
  // while something changes (bounded, each round only removes nodes).
  // DequantizeLinear of constant weights stays for the providers' 8-bit
  // fusions (fold_constants_after_transforms folds what they leave).
  run("eliminate_identities", [&] { return eliminate_identities(g); });
  for (int round = 0; round < 8; ++round) {
    size_t changed = run("fold_constants", [&] {
      return fold_constants(model, g, options.fold_kernels,
                            /*keep_dequantize=*/true);
    });
    changed += run("eliminate_identities", [&] { return eliminate_identities(g); });
    changed +=
        run("eliminate_redundant_casts", [&] { return eliminate_redundant_casts(model, g); });
    changed +=
        run("eliminate_common_subexpressions", [&] { return eliminate_common_subexpressions(g); });
    if (!changed) break;
  }
  run("eliminate_dead_nodes", [&] { return eliminate_dead_nodes(g); });
  run("infer_static_shapes", [&] { return infer_static_shapes(model, g); });
  if (level == GraphOptimizationLevel::kBasic) return;

  // Extended: fusions of standard patterns into single standard ops.
  run("cancel_transposes", [&] { return cancel_transposes(g); });
  run("merge_reshapes", [&] { return merge_reshapes(g); });
  if (model.opset("") >= 9) run("fuse_matmul_add", [&] { return fuse_matmul_add(g); });
  run("fuse_gelu", [&] { return fuse_gelu(model, g); });
  run("fuse_layer_norm", [&] { return fuse_layer_norm(model, g); });
  run("fuse_pad_conv", [&] { return fuse_pad_conv(model, g); });
  run("eliminate_dead_nodes", [&] { return eliminate_dead_nodes(g); });
  if (level == GraphOptimizationLevel::kExtended) return;

  // All: folds of standard ops, then the fusions into com.tessera ops that
  // every provider of the session runs (shared_fusions). Each provider's own
  // rewrites come after partitioning (ep::GraphTransformer).
  run("fold_conv_batchnorm", [&] { return fold_conv_batchnorm(model, g); });
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
  run("eliminate_dead_nodes", [&] { return eliminate_dead_nodes(g); });
}

}  // namespace

void optimize(ir::Model& model, GraphOptimizationLevel level, const OptimizeOptions& options,
              std::vector<PhaseTiming>* timings) {
  if (level == GraphOptimizationLevel::kDisableAll) return;
  PhaseTimer timer(timings);
  optimize_graph(model, model.graph, level, options, timer);
}

size_t fold_constants_after_transforms(ir::Model& model, const ep::KernelRegistry* kernels,
                                       std::vector<PhaseTiming>* timings) {
  return PhaseTimer(timings).time("optimize: fold_constants after transforms",
                                  [&] { return fold_constants(model, model.graph, kernels); });
}

}  // namespace tessera::optimizer
