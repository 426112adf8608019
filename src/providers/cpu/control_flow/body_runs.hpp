// Running a Loop's or Scan's body once per iteration: through the runner's
// iterated ability where it has one (the body's values keep their memory from
// one iteration to the next), else through plain runs.
#pragma once
#include <memory>
#include <vector>

#include "ep/kernel.hpp"
#include "ep/subgraph_iterations.hpp"

namespace tessera::cpu {

// The state of one series of runs of `body`, or null when it has none.
std::unique_ptr<ep::SubgraphIterations> start_iterations(const ep::SubgraphRunner& body);

// One iteration: with `iterations` (from start_iterations) a run of the series.
std::vector<Value> run_iteration(const ep::SubgraphRunner& body, const ep::KernelContext& ctx,
                                 std::vector<Value> inputs, ep::SubgraphIterations* iterations);

}  // namespace tessera::cpu
