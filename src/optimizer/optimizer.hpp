// Provider-independent graph passes, grouped by optimization level.
#pragma once
#include "ir/graph.hpp"
#include "runtime/session_options.hpp"

namespace tessera::optimizer {

// Runs the passes of `level` and below, in order, on the top-level graph.
void optimize(ir::Model& model, GraphOptimizationLevel level);

}  // namespace tessera::optimizer
