// The CUDA kernels for reductions, RMSNormalization and attention (being written).
#include "providers/cuda/cuda_kernel.hpp"

namespace tessera::cuda {

void register_cuda_reduce(CudaOpTable&) {}

}  // namespace tessera::cuda
