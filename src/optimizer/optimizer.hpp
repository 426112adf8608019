// Provider-independent graph passes, grouped by optimization level.
#pragma once
#include <vector>

#include "core/phase_timing.hpp"
#include "ir/graph.hpp"
#include "runtime/session_options.hpp"

namespace tessera::optimizer {

// Runs the passes of `level` and below, in order, on the top-level graph.
// `cpu_internal_fusions` allows fusions into com.tessera ops that only the CPU
// provider runs; a session that has other providers turns it off so their
// get_capability still sees the standard ops.
// With `timings`, each pass's time is added under "optimize: <pass name>".
void optimize(ir::Model& model, GraphOptimizationLevel level, bool cpu_internal_fusions = true,
              std::vector<PhaseTiming>* timings = nullptr);

}  // namespace tessera::optimizer
