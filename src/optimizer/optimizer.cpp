#include "optimizer/optimizer.hpp"

#include "optimizer/passes.hpp"

namespace tessera::optimizer {

void optimize(ir::Model& model, GraphOptimizationLevel level, bool cpu_internal_fusions) {
  if (level == GraphOptimizationLevel::kDisableAll) return;
  ir::Graph& g = model.graph;
  // Basic: semantics-preserving clean-ups that every provider benefits from.
  // Folding a Shape can make its consumers constant and vice versa: repeat
  // while something changes (bounded, each round only removes nodes).
  eliminate_identities(g);
  for (int round = 0; round < 8; ++round) {
    size_t changed = fold_shapes(g) + fold_constants(model, g);
    changed += eliminate_identities(g);
    if (!changed) break;
  }
  eliminate_dead_nodes(g);
  if (level == GraphOptimizationLevel::kBasic) return;

  // Extended: fusions of standard patterns into single standard (or internal) ops.
  cancel_transposes(g);
  merge_reshapes(g);
  if (model.opset("") >= 9) fuse_matmul_add(g);
  fuse_gelu(model, g);
  fuse_layer_norm(model, g);
  eliminate_dead_nodes(g);
  if (level == GraphOptimizationLevel::kExtended) return;

  // All: layout-free CPU fusions into internal ops.
  fold_conv_batchnorm(g);
  if (cpu_internal_fusions) {
    fuse_conv_residual(model, g);  // first: it also takes the activation after the Add
    fuse_activations(model, g);
  }
  eliminate_dead_nodes(g);
}

}  // namespace tessera::optimizer
