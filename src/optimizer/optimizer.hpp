// Provider-independent graph passes, grouped by optimization level. They know
// no provider and no instruction set: what a provider makes of its nodes is
// its own graph transform, after partitioning (ep::GraphTransformer).
#pragma once
#include <set>
#include <string>
#include <vector>

#include "core/phase_timing.hpp"
#include "ir/graph.hpp"
#include "optimizer/level.hpp"

namespace tessera::ep {
class KernelRegistry;
}

namespace tessera::optimizer {

// The com.tessera ops of pattern fusions several providers run:
// fuse_attention's, fuse_skip_layer_norm's, fuse_bias_gelu's, and the
// FusedConv of fuse_conv_residual and fuse_activations (Conv only).
inline const std::vector<std::string> kSharedFusionOps = {
    "MultiHeadAttention", "SkipLayerNormalization", "BiasGelu", "FusedConv"};

struct OptimizeOptions {
  // Fusions made before partitioning, named by the com.tessera op each makes
  // (one of kSharedFusionOps): a session lists those that every provider it
  // has besides the CPU runs (the CUDA provider runs all of them), so they
  // see the fused op rather than the nodes it replaces. Empty for a
  // CPU-only session: the CPU provider's transform makes them.
  std::set<std::string> shared_fusions;
  // The kernels constant folding runs nodes with: a provider's that runs on
  // the host (the session hands its CPU provider's). Null: only Shape and
  // Size of static shapes fold.
  const ep::KernelRegistry* fold_kernels = nullptr;
};

// Runs the passes of `level` and below, in order, on the top-level graph.
// With `timings`, each pass's time is added under "optimize: <pass name>".
void optimize(ir::Model& model, GraphOptimizationLevel level, const OptimizeOptions& options = {},
              std::vector<PhaseTiming>* timings = nullptr);

// After the providers' transforms: folds what is still constant (the
// DequantizeLinear of weights that no provider fused). Returns how many
// nodes it folded.
size_t fold_constants_after_transforms(ir::Model& model, const ep::KernelRegistry* kernels,
                                       std::vector<PhaseTiming>* timings = nullptr);

}  // namespace tessera::optimizer
