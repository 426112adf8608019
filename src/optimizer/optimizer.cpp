#include "optimizer/optimizer.hpp"

#include "optimizer/passes.hpp"

namespace tessera::optimizer {

void optimize(ir::Model& model, GraphOptimizationLevel level) {
  if (level == GraphOptimizationLevel::kDisableAll) return;
  // Basic: semantics-preserving clean-ups that every provider benefits from.
  eliminate_identities(model.graph);
  eliminate_dead_nodes(model.graph);
}

}  // namespace tessera::optimizer
