// Streams and copies of the CUDA provider. A CudaStream wraps a cudaStream_t
// of one device; the data transfer copies host->device, device->host and
// device->device with cudaMemcpyAsync, on the given stream (queued: complete
// at stream->synchronize()) or, without one, on the copy stream followed by a
// synchronisation (complete on return).
#pragma once
#include <cuda_runtime_api.h>

#include "ep/data_transfer.hpp"
#include "providers/cuda/cuda_env.hpp"

namespace tessera::cuda {

class CudaStream : public ep::Stream {
 public:
  // A new non-blocking stream on `device`, destroyed with this object.
  explicit CudaStream(int device);
  ~CudaStream() override;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  void synchronize() override;
  cudaStream_t get() const { return stream_; }
  int device() const { return device_; }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
};

class CudaDataTransfer : public ep::DataTransfer {
 public:
  explicit CudaDataTransfer(EnvPtr env) : env_(std::move(env)) {}
  // Any CUDA device memory on one side, and host-accessible or CUDA device
  // memory on the other.
  bool can_copy(const MemoryInfo& src, const MemoryInfo& dst) const override;
  void copy_tensors(const std::vector<const Tensor*>& src, const std::vector<Tensor*>& dst,
                    ep::Stream* stream) const override;

 private:
  EnvPtr env_;
};

// Whether `m` is memory of a CUDA device (not pinned host memory).
bool is_cuda_device_memory(const MemoryInfo& m);

}  // namespace tessera::cuda
