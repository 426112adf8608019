// The reduction family's pieces: the register functions of its files (called
// from register_cuda_reduce).
#pragma once
#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/reduce_launch.hpp"

namespace tessera::cuda {

// cuda_attention.cpp: Attention (23+).
void register_cuda_attention(CudaOpTable& t);

}  // namespace tessera::cuda
