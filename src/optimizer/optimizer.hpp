// Provider-independent graph passes, grouped by optimization level.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "core/phase_timing.hpp"
#include "ir/graph.hpp"
#include "runtime/session_options.hpp"

namespace tessera::optimizer {

// The com.tessera ops of fusions other providers may run too:
// fuse_attention's, fuse_skip_layer_norm's, fuse_bias_gelu's, and the
// FusedConv of fuse_conv_residual and fuse_activations (Conv only).
inline const std::vector<std::string> kSharedFusionOps = {
    "MultiHeadAttention", "SkipLayerNormalization", "BiasGelu", "FusedConv"};

struct OptimizeOptions {
  // Allows fusions into com.tessera ops that only the CPU provider runs; a
  // session that has other providers turns it off so their get_capability
  // still sees the standard ops.
  bool cpu_internal_fusions = true;
  // Fusions made without cpu_internal_fusions, named by the com.tessera op
  // each makes (one of kSharedFusionOps): a session lists those that every
  // provider it has besides the CPU runs (the CUDA provider runs all three),
  // so they see the fused op rather than the nodes it replaces. The CPU
  // provider runs it wherever they decline it.
  std::set<std::string> shared_fusions;
  // Allows choose_conv_layout (level all, with cpu_internal_fusions, where the
  // AVX-512 blocked kernels run). Off for "session.disable_nchwc" = "1".
  bool nchwc_layout = true;
  // Lets choose_conv_layout run 3x3 stride-1 layers as Winograd products
  // (a few ulps from a direct convolution). Off for
  // "session.disable_winograd" = "1".
  bool conv_winograd = true;
};

// Runs the passes of `level` and below, in order, on the top-level graph.
// With `timings`, each pass's time is added under "optimize: <pass name>".
void optimize(ir::Model& model, GraphOptimizationLevel level, const OptimizeOptions& options,
              std::vector<PhaseTiming>* timings = nullptr);

// The same with default options except `cpu_internal_fusions`.
void optimize(ir::Model& model, GraphOptimizationLevel level, bool cpu_internal_fusions = true,
              std::vector<PhaseTiming>* timings = nullptr);

}  // namespace tessera::optimizer
