// One registration function per kernel family; each lives in its family's folder.
#pragma once
#include "ep/kernel_registry.hpp"

namespace tessera::cpu {

void register_math_kernels(ep::KernelRegistry& r);          // math/: element-wise, Gemm-free math
void register_nn_kernels(ep::KernelRegistry& r);            // nn/: conv, pool, norm, gemm, matmul
void register_tensor_kernels(ep::KernelRegistry& r);        // tensor/: shape and data movement
void register_reduce_kernels(ep::KernelRegistry& r);        // reduce/: reductions, arg min/max
void register_control_flow_kernels(ep::KernelRegistry& r);  // control_flow/: If, Loop, Scan

}  // namespace tessera::cpu
