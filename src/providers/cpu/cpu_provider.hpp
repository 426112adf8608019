// The CPU execution provider: the guaranteed fallback. Its kernels are grouped
// by family; each family registers its own table.
#pragma once
#include <memory>

#include "ep/execution_provider.hpp"

namespace tessera::cpu {

std::shared_ptr<ep::ProviderFactory> make_cpu_provider_factory();
// The registry with every CPU kernel (built once, shared by all CPU providers).
const ep::KernelRegistry& cpu_kernel_registry();

}  // namespace tessera::cpu
