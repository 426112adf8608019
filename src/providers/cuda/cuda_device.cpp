// Device discovery and the memory descriptions of the provider's devices.
#include <cuda_runtime_api.h>

#include <mutex>

#include "core/device.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_provider.hpp"

namespace tessera::cuda {

const CudaProbe& cuda_probe() {
  static const CudaProbe probe = [] {
    CudaProbe p;
    cudaRuntimeGetVersion(&p.runtime_version);
    cudaDriverGetVersion(&p.driver_version);  // 0 without a driver, not an error
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      p.why_not = str_cat("no CUDA device (cudaGetDeviceCount: ", cuda_status(e), ")");
      n = 0;
    } else if (n == 0) {
      p.why_not = "no CUDA device (cudaGetDeviceCount found 0)";
    }
    p.device_count = n;
    return p;
  }();
  return probe;
}

MemoryInfo cuda_memory_info(int device) {
  return make_memory_info("Cuda", DeviceType::kGPU, kNvidiaVendorId, device, MemoryType::kDefault,
                          256);
}

MemoryInfo cuda_pinned_memory_info(int device) {
  return make_memory_info("CudaPinned", DeviceType::kGPU, kNvidiaVendorId, device,
                          MemoryType::kHostAccessible, 256);
}

}  // namespace tessera::cuda
