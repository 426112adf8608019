// Turns a provider selection policy into a provider list, from the
// (provider, device) pairs the environment lists.
#pragma once
#include <vector>

#include "runtime/environment.hpp"

namespace tessera::runtime {

// Providers in priority order; the CPU provider is always last. Each
// provider appears once (for its first matching device).
std::vector<ProviderSpec> select_providers(ProviderSelectionPolicy policy,
                                           const std::vector<EpDevice>& devices);

}  // namespace tessera::runtime
