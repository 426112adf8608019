// Status checks for CUDA runtime, cuBLASLt and cuDNN calls: a failure becomes
// a tessera::Error naming the call and the library's own status name and
// text. Kernels need not name their node: the executor adds it (and the
// inputs) to every error a kernel throws.
#pragma once
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

namespace tessera::cuda {

// kOutOfMemory for cudaErrorMemoryAllocation, kEPFail otherwise. `where`
// (optional) goes first, e.g. the provider and device.
void check_cuda(cudaError_t status, const char* call, const std::string& where = "");
void check_cublas(cublasStatus_t status, const char* call, const std::string& where = "");
void check_cudnn(cudnnStatus_t status, const char* call, const std::string& where = "");

// "cudaErrorNoDevice (no CUDA-capable device is detected)"
std::string cuda_status(cudaError_t status);

}  // namespace tessera::cuda
