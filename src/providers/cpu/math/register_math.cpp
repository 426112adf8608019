#include "core/error.hpp"
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

void register_from_table(ep::KernelRegistry& r, const std::vector<ep::KernelDef>& defs,
                         const FactoryMap& factories) {
  for (const auto& def : defs) {
    auto it = factories.find(def.op_type);
    check_code(it != factories.end(), ErrorCode::kFail, "CPU kernel table lists ", def.op_type,
               " but no kernel implements it");
    r.add(def, it->second);
  }
}

void register_math_kernels(ep::KernelRegistry& r) {
  // Every version of every op, with the spec's type constraints.
  static const std::vector<ep::KernelDef> kDefs = {
#include "providers/cpu/math/op_versions.inc"
  };
  FactoryMap f;
  add_binary_arith_factories(f);
  add_binary_logic_factories(f);
  add_variadic_factories(f);
  add_unary_factories(f);
  add_cast_factories(f);
  add_softmax_factories(f);
  add_det_factories(f);
  register_from_table(r, kDefs, f);
}

}  // namespace tessera::cpu
