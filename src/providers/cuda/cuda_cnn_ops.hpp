// The CNN family's registration, one function per file (cuda_pool.cpp,
// cuda_batch_norm.cpp, cuda_conv_transpose.cpp), called by
// register_cuda_cnn_ops.
#pragma once
#include "providers/cuda/cuda_kernel.hpp"

namespace tessera::cuda {

void register_cuda_pool(CudaOpTable& t);
void register_cuda_batch_norm(CudaOpTable& t);
void register_cuda_conv_transpose(CudaOpTable& t);

}  // namespace tessera::cuda
