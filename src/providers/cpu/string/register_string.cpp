#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/string/string_kernels.hpp"

namespace tessera::cpu {

void register_string_kernels(ep::KernelRegistry& r) {
  text::register_string_basic(r);
  text::register_regex(r);
}

}  // namespace tessera::cpu
