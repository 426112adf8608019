#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/random/random_kernels.hpp"

namespace tessera::cpu {

void register_random_kernels(ep::KernelRegistry& r) { rnd::register_random_basic(r); }

}  // namespace tessera::cpu
