#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/reduce/reduce_kernels.hpp"

namespace tessera::cpu {

void register_reduce_kernels(ep::KernelRegistry& r) {
  // Every version of every op, with the spec's type constraints.
  static const std::vector<ep::KernelDef> kDefs = {
#include "providers/cpu/reduce/op_versions.inc"
  };
  FactoryMap f;
  add_reduce_factories(f);
  add_arg_minmax_factories(f);
  add_cumsum_factories(f);
  register_from_table(r, kDefs, f);
}

}  // namespace tessera::cpu
