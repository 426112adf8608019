#include "providers/cuda/cuda_allocator.hpp"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/logging.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_provider.hpp"

namespace tessera::cuda {

namespace {

std::string device_name(int device) { return str_cat("CUDAExecutionProvider device ", device); }

// Freeing runs in destructors, some at process exit after the CUDA runtime
// has shut down (cudaErrorCudartUnloading): the memory is gone with the
// process then. Other failures are logged, never thrown from a destructor.
void report_free(cudaError_t e, const char* call, int device) {
  if (e == cudaSuccess || e == cudaErrorCudartUnloading) return;
  log(Severity::kWarning, "cuda", device_name(device), ": ", call, " failed: ", cuda_status(e));
  // Clear it, or the next kernel launch's cudaGetLastError would report it
  // and fail a node that did nothing wrong.
  cudaGetLastError();
}

}  // namespace

CudaAllocatorBase::CudaAllocatorBase(int device, MemoryInfo info)
    : device_(device), info_(std::move(info)) {
  info_.allocator_type = AllocatorType::kDevice;
}

CudaDeviceAllocator::CudaDeviceAllocator(int device)
    : CudaAllocatorBase(device, cuda_memory_info(device)) {}

void* CudaDeviceAllocator::alloc(size_t bytes) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice", device_name(device_));
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, std::max<size_t>(bytes, 1));
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear it: the device stays usable
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    fail(ErrorCode::kOutOfMemory, device_name(device_), ": cudaMalloc of ", bytes,
         " bytes failed: out of device memory (", free_bytes, " of ", total,
         " bytes free on the device)");
  }
  check_cuda(e, "cudaMalloc", device_name(device_));
  return p;
}

void CudaDeviceAllocator::free(void* p) {
  if (!p) return;
  cudaSetDevice(device_);
  report_free(cudaFree(p), "cudaFree", device_);
}

CudaPinnedAllocator::CudaPinnedAllocator(int device)
    : CudaAllocatorBase(device, cuda_pinned_memory_info(device)) {}

void* CudaPinnedAllocator::alloc(size_t bytes) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice", device_name(device_));
  void* p = nullptr;
  check_cuda(cudaHostAlloc(&p, std::max<size_t>(bytes, 1), cudaHostAllocPortable), "cudaHostAlloc",
             str_cat(device_name(device_), ", ", bytes, " bytes of pinned memory"));
  return p;
}

void CudaPinnedAllocator::free(void* p) {
  if (p) report_free(cudaFreeHost(p), "cudaFreeHost", device_);
}

std::shared_ptr<Allocator> cuda_pinned_allocator(int device) {
  static std::mutex mu;
  static std::unordered_map<int, std::shared_ptr<Allocator>> per_device;
  std::lock_guard<std::mutex> lock(mu);
  auto& a = per_device[device];
  if (!a) a = std::make_shared<CudaPinnedAllocator>(device);
  return a;
}

}  // namespace tessera::cuda
