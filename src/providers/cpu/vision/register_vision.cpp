// The vision family's kernel table. ImageDecoder is not served (see the report:
// it needs the JPEG/PNG libraries linked into the build).
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/vision/vision_kernels.hpp"

namespace tessera::cpu {

void register_vision_kernels(ep::KernelRegistry& r) {
  using DT = DataType;
  using ep::KernelDef;
  using ep::kOpsetMax;
  namespace t = ep::types;
  const std::vector<DT> f = {DT::kFloat};
  r.add(KernelDef{"", "NonMaxSuppression", 10, kOpsetMax, {{"T", {0, 1, 3, 4}, f}}},
        make_non_max_suppression);
  const std::vector<DT> f3 = {DT::kFloat, DT::kFloat16, DT::kDouble};
  r.add(KernelDef{"", "RoiAlign", 10, 21, {{"T1", {0, 1}, f3}, {"T2", {2}, {DT::kInt64}}}},
        make_roi_align);
  r.add(
      KernelDef{
          "", "RoiAlign", 22, kOpsetMax, {{"T1", {0, 1}, t::kFloats}, {"T2", {2}, {DT::kInt64}}}},
      make_roi_align);
  // X may be any numeric type (interpolated in double, cast back); grid is float.
  std::vector<DT> x16 = t::join({t::kInts, f3, {DT::kBool}});
  r.add(KernelDef{"", "GridSample", 16, 21, {{"T1", {0}, x16}, {"T2", {1}, f3}}}, make_grid_sample);
  r.add(KernelDef{"",
                  "GridSample",
                  22,
                  kOpsetMax,
                  {{"T1", {0}, t::join({t::kInts, t::kFloats, {DT::kBool}})},
                   {"T2", {1}, t::kFloats}}},
        make_grid_sample);
  r.add(
      KernelDef{
          "", "AffineGrid", 20, kOpsetMax, {{"T1", {0}, t::kFloats}, {"T2", {1}, {DT::kInt64}}}},
      make_affine_grid);
  r.add(KernelDef{"", "Col2Im", 18, kOpsetMax, {{"T", {0}, t::join({t::kNumeric, {DT::kBool}})}}},
        make_col2im);
}

}  // namespace tessera::cpu
