// The ai.onnx.preview kernel table (experimental ops, opset 1, unversioned).
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/preview/preview_kernels.hpp"

namespace tessera::cpu {

void register_preview_kernels(ep::KernelRegistry& r) {
  using DT = DataType;
  using ep::KernelDef;
  using ep::kOpsetMax;
  const std::string d = "ai.onnx.preview";
  r.add(KernelDef{d, "FlexAttention", 1, kOpsetMax,
                  {{"T1", {0, 1, 2}, {DT::kFloat, DT::kDouble, DT::kFloat16, DT::kBFloat16}}}},
        &make_flex_attention);
}

}  // namespace tessera::cpu
