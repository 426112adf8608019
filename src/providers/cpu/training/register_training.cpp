// The ai.onnx.preview.training kernel table (opset 1). Gradient is not served:
// it needs graph differentiation, not a kernel.
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/training/training_kernels.hpp"

namespace tessera::cpu {

void register_training_kernels(ep::KernelRegistry& r) {
  using DT = DataType;
  using ep::KernelDef;
  using ep::kOpsetMax;
  const std::string d = "ai.onnx.preview.training";
  const std::vector<DT> f = {DT::kFloat, DT::kDouble};
  for (auto [op, make] : {std::pair{"Adagrad", &make_adagrad}, std::pair{"Adam", &make_adam},
                          std::pair{"Momentum", &make_momentum}})
    r.add(KernelDef{d, op, 1, kOpsetMax,
                    {{"T1", {0}, f}, {"T2", {1}, {DT::kInt64}}, {"T3", {2}, f, true}}},
          make);
}

}  // namespace tessera::cpu
