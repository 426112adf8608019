#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/sequence/sequence_kernels.hpp"

namespace tessera::cpu {

void register_sequence_kernels(ep::KernelRegistry& r) {
  seq::register_sequence_basic(r);
  seq::register_split_concat(r);
  seq::register_sequence_map(r);
  seq::register_optional(r);
}

}  // namespace tessera::cpu
