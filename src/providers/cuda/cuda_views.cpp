// Reshape, Flatten, Squeeze, Unsqueeze, Identity, Shape and Size on the GPU:
// the CPU provider's kernels, which only make views and read dims, so a
// reshape costs no copy and Shape reads no device memory. Their shape and
// axes inputs and Shape/Size's outputs are host values.
#include "providers/cpu/tensor/view_kernels.hpp"
#include "providers/cuda/cuda_kernel.hpp"

namespace tessera::cuda {

void register_cuda_views(CudaOpTable& t) {
  for (auto& e : cpu::view_kernels(/*device=*/true))
    t.add(
        std::move(e.def),
        [f = std::move(e.factory)](const ep::KernelInfo& info, const EnvPtr&) { return f(info); },
        no_check);
}

}  // namespace tessera::cuda
