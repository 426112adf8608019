#include "providers/cuda/cuda_call.hpp"

#include "core/error.hpp"
#include "providers/cuda/cublaslt_api.hpp"

namespace tessera::cuda {

std::string cuda_status(cudaError_t status) {
  return str_cat(cudaGetErrorName(status), " (", cudaGetErrorString(status), ")");
}

void check_cuda(cudaError_t status, const char* call, const std::string& where) {
  if (status == cudaSuccess) return;
  fail(status == cudaErrorMemoryAllocation ? ErrorCode::kOutOfMemory : ErrorCode::kEPFail, where,
       where.empty() ? "" : ": ", call, " failed: ", cuda_status(status));
}

void check_cublas(cublasStatus_t status, const char* call, const std::string& where) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const CublasLtApi* api = cublaslt_if_loaded();
  std::string text = api ? str_cat(api->status_name(status), " (", api->status_string(status), ")")
                         : str_cat("cublasStatus_t ", int(status));
  fail(status == CUBLAS_STATUS_ALLOC_FAILED ? ErrorCode::kOutOfMemory : ErrorCode::kEPFail, where,
       where.empty() ? "" : ": ", call, " failed: ", text);
}

void check_cudnn(cudnnStatus_t status, const char* call, const std::string& where) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof(detail));
  const bool oom = status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
                   status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED;
  fail(oom ? ErrorCode::kOutOfMemory : ErrorCode::kEPFail, where, where.empty() ? "" : ": ", call,
       " failed: ", cudnnGetErrorString(status), detail[0] ? str_cat(" (", detail, ")") : "");
}

}  // namespace tessera::cuda
