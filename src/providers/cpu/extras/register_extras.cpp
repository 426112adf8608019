#include "providers/cpu/extras/extras_kernels.hpp"
#include "providers/cpu/kernel_families.hpp"

namespace tessera::cpu {

void register_extras_kernels(ep::KernelRegistry& r) {
  using D = DataType;
  r.add({"", "CumProd", 26, ep::kOpsetMax,
         {{"T", {0}, {D::kUInt32, D::kUInt64, D::kInt32, D::kInt64, D::kFloat16, D::kFloat,
                      D::kDouble, D::kBFloat16}},
          {"T2", {1}, {D::kInt32, D::kInt64}}}},
        make_cumprod_kernel);
  // Every element type but string (and undefined).
  std::vector<DataType> bitcast_types;
  for (int32_t t = 1; t <= kMaxDataType; ++t)
    if (t != int32_t(D::kString)) bitcast_types.push_back(static_cast<DataType>(t));
  r.add({"", "BitCast", 26, ep::kOpsetMax, {{"T1", {0}, bitcast_types}}}, make_bitcast_kernel);
  r.add({"", "SwiGLU", 28, ep::kOpsetMax,
         {{"T", {0, 1}, {D::kBFloat16, D::kFloat16, D::kFloat, D::kDouble}}}},
        make_swiglu_kernel);
  r.add({"", "DeformConv", 19, 21, {{"T", {0, 1, 2, 3, 4}, {D::kFloat16, D::kFloat, D::kDouble}}}},
        make_deform_conv_kernel);
  r.add({"", "DeformConv", 22, ep::kOpsetMax,
         {{"T", {0, 1, 2, 3, 4}, {D::kBFloat16, D::kFloat16, D::kFloat, D::kDouble}}}},
        make_deform_conv_kernel);
}

}  // namespace tessera::cpu
