// Which of the optimizer's fusions into com.tessera ops a session with other
// providers than the CPU makes: those whose op every one of them runs
// (optimizer::kSharedFusionOps), so they see the fused op rather than the
// nodes it replaces. Tests use it to optimize a model as such a session does.
#pragma once
#include <set>
#include <string>

#include "runtime/graph_plan.hpp"

namespace tessera::runtime {

// Empty when the CPU provider is alone (its graph transform makes every
// fusion, and more, on the nodes it runs).
std::set<std::string> shared_fusions(const Providers& providers);

}  // namespace tessera::runtime
