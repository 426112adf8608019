// An optional ability of a SubgraphRunner: running one body many times in a
// row (Loop and Scan iterations) with state carried from one run to the next,
// so the runner can reuse the memory of the previous iteration's values.
// Control-flow kernels ask for it with dynamic_cast and fall back to
// SubgraphRunner::run where a runner lacks it.
#pragma once
#include <memory>
#include <vector>

#include "core/value.hpp"

namespace tessera::ep {

class KernelContext;

// What a runner carries between the runs of one series; owned by the kernel
// for the length of one compute.
class SubgraphIterations {
 public:
  virtual ~SubgraphIterations() = default;
};

class IteratedSubgraphRunner {
 public:
  virtual ~IteratedSubgraphRunner() = default;
  // State for one series of runs of this body within one compute of the
  // calling kernel.
  virtual std::unique_ptr<SubgraphIterations> start_iterations() const = 0;
  // One run of the series begun with start_iterations(); the outputs are
  // as SubgraphRunner::run's.
  virtual std::vector<Value> run_iteration(const KernelContext& caller, std::vector<Value> inputs,
                                           SubgraphIterations& iterations) const = 0;
};

}  // namespace tessera::ep
