// The image/ kernel table: ImageDecoder (opset 20 onward).
#include "providers/cpu/image/image_kernels.hpp"
#include "providers/cpu/kernel_families.hpp"

namespace tessera::cpu {

void register_image_kernels(ep::KernelRegistry& r) {
  using DT = DataType;
  r.add(ep::KernelDef{"", "ImageDecoder", 20, ep::kOpsetMax, {{"T1", {0}, {DT::kUInt8}}}},
        &make_image_decoder);
}

}  // namespace tessera::cpu
