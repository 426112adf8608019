// Device memory (cudaMalloc) and page-locked host memory (cudaHostAlloc) of
// one CUDA device. The provider wraps the device allocator in the project's
// arena (core/arena_allocator.hpp) with gpu_mem_limit and
// arena_extend_strategy.
#pragma once
#include "core/allocator.hpp"

namespace tessera::cuda {

// What both allocators keep: the device, and the memory they hand out
// (described as device-allocated, so the session wraps neither in a CPU arena).
class CudaAllocatorBase : public Allocator {
 public:
  const MemoryInfo& info() const override { return info_; }

 protected:
  CudaAllocatorBase(int device, MemoryInfo info);
  int device_;
  MemoryInfo info_;
};

class CudaDeviceAllocator : public CudaAllocatorBase {
 public:
  explicit CudaDeviceAllocator(int device);
  void* alloc(size_t bytes) override;
  void free(void* p) override;
};

class CudaPinnedAllocator : public CudaAllocatorBase {
 public:
  explicit CudaPinnedAllocator(int device);
  void* alloc(size_t bytes) override;
  void free(void* p) override;
};

}  // namespace tessera::cuda
