#include "providers/cuda/cuda_transfer.hpp"

#include "core/logging.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_provider.hpp"

namespace tessera::cuda {

bool is_cuda_device_memory(const MemoryInfo& m) {
  return m.device_type == DeviceType::kGPU && m.vendor_id == kNvidiaVendorId &&
         m.mem_type == MemoryType::kDefault;
}

CudaStream::CudaStream(int device) : device_(device) {
  const std::string where = str_cat("CUDAExecutionProvider device ", device);
  check_cuda(cudaSetDevice(device), "cudaSetDevice", where);
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags", where);
}

CudaStream::CudaStream(int device, cudaStream_t stream, std::function<void(cudaStream_t)> release)
    : device_(device), stream_(stream), owned_(false), release_(std::move(release)) {}

CudaStream::~CudaStream() {
  // Queued work finishes first (the runtime's contract for released streams);
  // a failure nobody synchronised for is logged, not lost.
  cudaSetDevice(device_);
  cudaError_t e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess && e != cudaErrorCudartUnloading)
    log(Severity::kWarning, "cuda", "CUDAExecutionProvider device ", device_,
        ": a stream released with failed work: cudaStreamSynchronize: ", cuda_status(e));
  checks_.clear();  // nobody is left to hear what they would find
  kept_.clear();
  idle_handles_.clear();
  if (owned_)
    cudaStreamDestroy(stream_);
  else if (release_)
    release_(stream_);
}

void CudaStream::synchronize() {
  const std::string where = str_cat("CUDAExecutionProvider device ", device_, " stream");
  check_cuda(cudaSetDevice(device_), "cudaSetDevice", where);
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", where);
  std::vector<std::shared_ptr<const void>> done;
  std::vector<std::pair<const void*, std::shared_ptr<void>>> handles;
  std::vector<std::function<void()>> checks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    checks.swap(checks_);
    // Held memory (a flag a check reads) goes only after the checks.
    done.swap(kept_);
    handles.swap(idle_handles_);
  }
  for (const auto& check : checks) check();
}

void CudaStream::keep(std::shared_ptr<const void> p) {
  std::lock_guard<std::mutex> lock(mu_);
  kept_.push_back(std::move(p));
}

std::shared_ptr<void> CudaStream::take_handle(const void* pool) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = idle_handles_.begin(); it != idle_handles_.end(); ++it)
    if (it->first == pool) {
      std::shared_ptr<void> lease = std::move(it->second);
      idle_handles_.erase(it);
      return lease;
    }
  return nullptr;
}

void CudaStream::return_handle(const void* pool, std::shared_ptr<void> lease) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_handles_.emplace_back(pool, std::move(lease));
}

void CudaStream::defer_check(std::function<void()> check) {
  std::lock_guard<std::mutex> lock(mu_);
  (recording_checks_ ? recorded_checks_ : checks_).push_back(std::move(check));
}

void CudaStream::record_checks() {
  std::lock_guard<std::mutex> lock(mu_);
  recording_checks_ = true;
  recorded_checks_.clear();
}

std::vector<std::function<void()>> CudaStream::take_recorded_checks() {
  std::lock_guard<std::mutex> lock(mu_);
  recording_checks_ = false;
  return std::move(recorded_checks_);
}

StreamPool::~StreamPool() {
  for (cudaStream_t s : free_) cudaStreamDestroy(s);
}

std::unique_ptr<CudaStream> StreamPool::lease() {
  cudaStream_t s = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    }
  }
  if (!s) {
    const std::string where = str_cat("CUDAExecutionProvider device ", device_);
    check_cuda(cudaSetDevice(device_), "cudaSetDevice", where);
    check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags",
               where);
  }
  // The pool outlives the stream even when its provider is gone first.
  return std::make_unique<CudaStream>(device_, s, [pool = shared_from_this()](cudaStream_t x) {
    std::lock_guard<std::mutex> lock(pool->mu_);
    pool->free_.push_back(x);
  });
}

CudaStream& cuda_stream(ep::Stream& s) {
  auto* cs = dynamic_cast<CudaStream*>(&s);
  check(cs != nullptr, "CUDAExecutionProvider: a stream that is not a CUDA stream (made by ",
        "another provider) was given where a CUDA stream is needed");
  return *cs;
}

bool CudaDataTransfer::can_copy(const MemoryInfo& src, const MemoryInfo& dst) const {
  const bool s = is_cuda_device_memory(src), d = is_cuda_device_memory(dst);
  return (s && (d || dst.host_accessible())) || (d && src.host_accessible());
}

void CudaDataTransfer::copy_tensors(const std::vector<const Tensor*>& src,
                                    const std::vector<Tensor*>& dst, ep::Stream* stream) const {
  check(src.size() == dst.size(), env_->where(), ": copy_tensors: ", src.size(), " sources but ",
        dst.size(), " destinations");
  cudaStream_t s = env_->copy_stream();
  if (stream) {
    auto* cs = dynamic_cast<CudaStream*>(stream);
    check(cs != nullptr, env_->where(),
          ": copy_tensors was given a stream that is not a CUDA stream (made by another "
          "provider); use create_stream() of this device's memory");
    s = cs->get();
  }
  env_->set_device();
  auto& counts = cuda_transfer_counts();
  for (size_t i = 0; i < src.size(); ++i) {
    const Tensor& a = *src[i];
    Tensor& b = *dst[i];
    check(a.dtype() == b.dtype() && a.shape() == b.shape(), env_->where(), ": copy ", i, ": ",
          a.description(), " cannot be copied into ", b.description());
    check(a.dtype() != DataType::kString, env_->where(), ": copy ", i,
          ": string tensors cannot live in CUDA device memory");
    const bool from_dev = is_cuda_device_memory(a.memory_info());
    const bool to_dev = is_cuda_device_memory(b.memory_info());
    check(can_copy(a.memory_info(), b.memory_info()), env_->where(), ": copy ", i, ": cannot copy ",
          a.memory_info().to_string(), " to ", b.memory_info().to_string());
    (from_dev && to_dev ? counts.d2d : from_dev ? counts.d2h : counts.h2d)++;
    if (a.byte_size() == 0) continue;
    // The direction follows from the pointers (unified addressing), which
    // also covers copies between two devices.
    check_cuda(
        cudaMemcpyAsync(b.mutable_raw_data(), a.raw_data(), a.byte_size(), cudaMemcpyDefault, s),
        "cudaMemcpyAsync",
        str_cat(env_->where(), ", copy ", i, " (", a.description(), " from ",
                a.memory_info().to_string(), " to ", b.memory_info().to_string(), ")"));
  }
  if (!stream) check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize", env_->where());
}

CudaTransferCounts& cuda_transfer_counts() {
  static CudaTransferCounts c;
  return c;
}

}  // namespace tessera::cuda
