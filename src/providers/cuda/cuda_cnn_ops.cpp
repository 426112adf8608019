// The CUDA kernels for pooling, BatchNormalization and ConvTranspose (being written).
#include "providers/cuda/cuda_kernel.hpp"

namespace tessera::cuda {

void register_cuda_cnn_ops(CudaOpTable&) {}

}  // namespace tessera::cuda
