// Streams and copies of the CUDA provider. A CudaStream wraps a cudaStream_t
// of one device; the data transfer copies host->device, device->host and
// device->device with cudaMemcpyAsync, on the given stream (queued: complete
// at stream->synchronize()) or, without one, on the copy stream followed by a
// synchronisation (complete on return).
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ep/data_transfer.hpp"
#include "providers/cuda/cuda_env.hpp"

namespace tessera::cuda {

class CudaStream : public ep::Stream {
 public:
  // A new non-blocking stream on `device`, destroyed with this object.
  explicit CudaStream(int device);
  // `stream`, which this object does not own: on destruction, after its
  // work is done, it is handed to `release` (when given) instead of being
  // destroyed. A caller's stream, or one from a StreamPool.
  CudaStream(int device, cudaStream_t stream, std::function<void(cudaStream_t)> release);
  ~CudaStream() override;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  // Waits for the queued work, then drops what keep() held for it.
  void synchronize() override;
  cudaStream_t get() const { return stream_; }
  int device() const { return device_; }
  // Holds `p` (a library handle lease, say) until the work queued so far is
  // done: the next synchronize() or the destruction.
  void keep(std::shared_ptr<const void> p);
  // Runs `check` (which reads back what queued work wrote, Gather's index
  // flag say, and throws what it finds) right after the next synchronize(),
  // whose error it then is. While checks are being recorded it goes to the
  // recording instead (a captured run keeps its checks for each replay).
  void defer_check(std::function<void()> check);
  void record_checks();
  std::vector<std::function<void()>> take_recorded_checks();
  // Library handles (cuDNN, cuBLASLt) lent to this stream's kernels. Work
  // queued on one stream runs in order, so the stream's next kernel may use
  // a handle as soon as the last call with it has returned, while another
  // stream may not until that work is done. A run therefore needs one handle
  // of a kind per thread queueing at the same time, not one per kernel call.
  // take_handle gives an idle one lent from `pool` (null when there is none);
  // return_handle makes it idle again; all go back to their pools after the
  // next synchronize().
  std::shared_ptr<void> take_handle(const void* pool);
  void return_handle(const void* pool, std::shared_ptr<void> lease);

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
  bool owned_ = true;
  std::function<void(cudaStream_t)> release_;
  std::mutex mu_;  // kernels of one run may queue from several threads
  std::vector<std::shared_ptr<const void>> kept_;
  std::vector<std::pair<const void*, std::shared_ptr<void>>> idle_handles_;
  std::vector<std::function<void()>> checks_, recorded_checks_;
  bool recording_checks_ = false;
};

// Streams made once and lent to one run at a time: creating a stream per run
// would cost more than a small model's kernels.
class StreamPool : public std::enable_shared_from_this<StreamPool> {
 public:
  explicit StreamPool(int device) : device_(device) {}
  ~StreamPool();
  // A pooled stream (a new one when none is free); it comes back when the
  // CudaStream is destroyed.
  std::unique_ptr<CudaStream> lease();

 private:
  int device_;
  std::mutex mu_;
  std::vector<cudaStream_t> free_;
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

// `s` as the CUDA stream it must be; kInvalidArgument when another
// provider made it.
CudaStream& cuda_stream(ep::Stream& s);

// Whether `m` is memory of a CUDA device (not pinned host memory).
bool is_cuda_device_memory(const MemoryInfo& m);

}  // namespace tessera::cuda
