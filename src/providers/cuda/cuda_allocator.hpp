// Device memory (cudaMalloc) and page-locked host memory (cudaHostAlloc) of
// one CUDA device. The provider wraps the device allocator in the project's
// arena (core/arena_allocator.hpp) with gpu_mem_limit and
// arena_extend_strategy.
#pragma once
#include "core/allocator.hpp"

namespace tessera::cuda {

class CudaDeviceAllocator : public Allocator {
 public:
  explicit CudaDeviceAllocator(int device);
  void* alloc(size_t bytes) override;
  void free(void* p) override;
  const MemoryInfo& info() const override { return info_; }

 private:
  int device_;
  MemoryInfo info_;
};

class CudaPinnedAllocator : public Allocator {
 public:
  explicit CudaPinnedAllocator(int device);
  void* alloc(size_t bytes) override;
  void free(void* p) override;
  const MemoryInfo& info() const override { return info_; }

 private:
  int device_;
  MemoryInfo info_;
};

}  // namespace tessera::cuda
