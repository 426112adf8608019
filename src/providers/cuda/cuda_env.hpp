// What every kernel of one provider shares: its options, its device, the
// stream kernels run on, and pools of cuBLASLt and cuDNN handles (a handle is
// used by one thread at a time; concurrent runs lease different ones).
#pragma once
#include <cudnn.h>

#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "providers/cuda/algo_cache.hpp"
#include "providers/cuda/cublaslt_api.hpp"
#include "providers/cuda/cuda_options.hpp"

namespace tessera::cuda {

// Handles created on demand and kept for reuse; lease() hands one out (to a
// run stream until its next wait, or to one kernel call until its queued
// work has finished).
template <typename H>
class HandlePool {
 public:
  HandlePool(std::function<H()> make, std::function<void(H)> destroy)
      : make_(std::move(make)), destroy_(std::move(destroy)) {}
  ~HandlePool() {
    for (H h : free_) destroy_(h);
  }
  // A handle; it goes back to the pool when the last copy of the lease is
  // released.
  using Lease = std::shared_ptr<std::remove_pointer_t<H>>;
  Lease lease() {
    H h = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        h = free_.back();
        free_.pop_back();
      }
    }
    if (!h) h = make_();
    return Lease(h, [this](H x) { give_back(x); });
  }

 private:
  void give_back(H h) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(h);
  }
  std::function<H()> make_;
  std::function<void(H)> destroy_;
  std::mutex mu_;
  std::vector<H> free_;
};

class CudaEnv {
 public:
  CudaEnv(CudaOptions options, int device);
  const CudaOptions& options() const { return options_; }
  int device() const { return device_; }
  // Makes the provider's device current on the calling thread.
  void set_device() const;
  // Where kernels run: the caller's stream (user_compute_stream), else the
  // calling thread's own default stream, so runs on different threads are
  // concurrent on the device.
  cudaStream_t compute_stream() const;
  // Where copies without a stream go (do_copy_in_default_stream).
  cudaStream_t copy_stream() const;
  // The handle pools; kernels lease through Scratch (cuda_kernel.hpp), which
  // reuses a handle along one stream.
  HandlePool<cublasLtHandle_t>& cublaslt_pool() const { return *lt_; }
  HandlePool<cudnnHandle_t>& cudnn_pool() const { return *cudnn_; }
  // Tuned algorithms: the cudnn_conv_algo_cache file's, or this env's own.
  AlgoCache& algo_cache() const { return *algo_cache_; }
  // What a tuned algorithm depends on besides the problem: the device's name
  // and compute capability, the cuDNN and CUDA runtime versions. Asked of
  // the device once.
  const std::string& device_signature() const;
  // "CUDAExecutionProvider device 0", for errors outside a node.
  std::string where() const;

 private:
  CudaOptions options_;
  int device_;
  std::unique_ptr<HandlePool<cublasLtHandle_t>> lt_;
  std::unique_ptr<HandlePool<cudnnHandle_t>> cudnn_;
  std::shared_ptr<AlgoCache> algo_cache_;
  mutable std::once_flag signature_once_;
  mutable std::string signature_;
};

using EnvPtr = std::shared_ptr<const CudaEnv>;

}  // namespace tessera::cuda
