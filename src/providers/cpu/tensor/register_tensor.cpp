#include "ep/view_kernels.hpp"
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

void register_tensor_kernels(ep::KernelRegistry& r) {
  // Reshape, Flatten, Squeeze, Unsqueeze, Identity, Shape, Size: shared views.
  for (auto& e : ep::view_kernels(/*device=*/false)) r.add(std::move(e.def), std::move(e.factory));
  register_transpose_kernels(r);
  register_concat_split_kernels(r);
  register_slice_kernels(r);
  register_gather_kernels(r);
  register_scatter_kernels(r);
  register_expand_tile_kernels(r);
  register_pad_kernels(r);
  register_generator_kernels(r);
  register_select_kernels(r);
  register_sort_kernels(r);
  register_resize_kernels(r);
}

}  // namespace tessera::cpu
