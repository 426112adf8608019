#include "providers/cpu/kernel_families.hpp"

namespace tessera::cpu {

void register_text_kernels(ep::KernelRegistry& r) { (void)r; }

}  // namespace tessera::cpu
