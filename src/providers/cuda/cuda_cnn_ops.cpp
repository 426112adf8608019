// The CUDA kernels for pooling, BatchNormalization and ConvTranspose.
#include "providers/cuda/cuda_cnn_ops.hpp"

namespace tessera::cuda {

void register_cuda_cnn_ops(CudaOpTable& t) {
  register_cuda_pool(t);
  register_cuda_batch_norm(t);
  register_cuda_conv_transpose(t);
}

}  // namespace tessera::cuda
