#include "providers/cpu/control_flow/body_runs.hpp"

namespace tessera::cpu {

std::unique_ptr<ep::SubgraphIterations> start_iterations(const ep::SubgraphRunner& body) {
  const auto* iterated = dynamic_cast<const ep::IteratedSubgraphRunner*>(&body);
  return iterated ? iterated->start_iterations() : nullptr;
}

std::vector<Value> run_iteration(const ep::SubgraphRunner& body, const ep::KernelContext& ctx,
                                 std::vector<Value> inputs, ep::SubgraphIterations* iterations) {
  const auto* iterated = dynamic_cast<const ep::IteratedSubgraphRunner*>(&body);
  if (iterated && iterations) return iterated->run_iteration(ctx, std::move(inputs), *iterations);
  return body.run(ctx, std::move(inputs));
}

}  // namespace tessera::cpu
