// The CUDA execution provider ("CUDAExecutionProvider"). Built only when the
// CUDA toolkit and cuDNN 9 are found (cmake/cuda.cmake); the provider registry
// learns of it through the generated built_in_providers.inc, never by include.
// This header has no CUDA types, so tests and tools include it without the
// CUDA headers. Options: see cuda_options.hpp and docs/cuda.md.
#pragma once
#include <atomic>
#include <memory>
#include <string>

#include "core/allocator.hpp"
#include "ep/execution_provider.hpp"

namespace tessera::cuda {

std::shared_ptr<ep::ProviderFactory> make_cuda_provider_factory();

// What the CUDA runtime says about this machine, asked once per process.
struct CudaProbe {
  int device_count = 0;
  std::string why_not;      // when device_count is 0: the call and its status
  int runtime_version = 0;  // cudaRuntimeGetVersion, e.g. 13000
  int driver_version = 0;   // cudaDriverGetVersion; 0 when no driver is installed
};
const CudaProbe& cuda_probe();

// NVIDIA's PCI vendor id, in every MemoryInfo of this provider.
inline constexpr uint32_t kNvidiaVendorId = 0x10DE;
// Device memory of CUDA device `device` ("Cuda", GPU, 0x10DE, device, default).
MemoryInfo cuda_memory_info(int device);
// Page-locked host memory for that device: host-accessible, so host code reads
// it and no copy is inserted between it and the CPU.
MemoryInfo cuda_pinned_memory_info(int device);
// The pinned (cudaHostAlloc) allocator of a device; register it with
// Environment::register_allocator to allocate_tensor() in pinned memory.
std::shared_ptr<Allocator> cuda_pinned_allocator(int device);

// The raw cudaStream_t of a stream from create_stream() on CUDA memory, e.g.
// to pass as another session's user_compute_stream; kInvalidArgument for
// any other stream.
uintptr_t cuda_stream_handle(const ep::Stream* stream);

// The provider without the factory's device check, for tests of what it
// claims: get_capability() and its memory description need no GPU (running
// its kernels does). Options are validated as by the factory.
std::shared_ptr<ep::ExecutionProvider> make_cuda_provider_unchecked(
    const ep::ProviderOptions& options);

// Copies made by the provider's data transfers in this process (test hook).
struct CudaTransferCounts {
  std::atomic<int> h2d{0}, d2h{0}, d2d{0};
  void reset() { h2d = d2h = d2d = 0; }
  int total() const { return h2d + d2h + d2d; }
};
CudaTransferCounts& cuda_transfer_counts();
// The stream (a cudaStream_t's address) the last CUDA kernel of this process
// was enqueued on (test hook).
std::atomic<uintptr_t>& last_kernel_stream();

}  // namespace tessera::cuda
