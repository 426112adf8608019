#include "providers/cuda/cuda_kernel.hpp"

#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_provider.hpp"
#include "providers/cuda/cuda_transfer.hpp"

namespace tessera::cuda {

const std::vector<DataType> kCudaFloats = {DataType::kFloat, DataType::kFloat16,
                                           DataType::kBFloat16};

void* Scratch::bytes(size_t n) {
  if (n == 0) return nullptr;
  held_.emplace_back(DataType::kUInt8, Shape{int64_t(n)}, allocator_);
  return held_.back().mutable_raw_data();
}

void* Scratch::lasting_bytes(size_t n) {
  auto t = std::make_shared<Tensor>(DataType::kUInt8, Shape{int64_t(n)}, allocator_);
  void* p = t->mutable_raw_data();
  keep(std::move(t));
  return p;
}

void Scratch::defer_check(std::function<void()> check) {
  if (run_stream_)
    run_stream_->defer_check(std::move(check));
  else
    checks_.push_back(std::move(check));
}

void Scratch::run_checks() {
  for (const auto& check : checks_) check();
  checks_.clear();
}

Scratch::~Scratch() {
  for (auto& [pool, lease] : handles_) run_stream_->return_handle(pool, std::move(lease));
}

template <typename H>
typename HandlePool<H>::Lease Scratch::lease_from(HandlePool<H>& pool) {
  using Handle = std::remove_pointer_t<H>;
  if (!run_stream_) {
    typename HandlePool<H>::Lease lease = pool.lease();
    kept_.push_back(lease);
    return lease;
  }
  std::shared_ptr<Handle> lease = std::static_pointer_cast<Handle>(run_stream_->take_handle(&pool));
  if (!lease) lease = pool.lease();
  handles_.emplace_back(&pool, lease);
  return lease;
}

HandlePool<cudnnHandle_t>::Lease Scratch::cudnn(const CudaEnv& env) {
  return lease_from(env.cudnn_pool());
}

HandlePool<cublasLtHandle_t>::Lease Scratch::cublaslt(const CudaEnv& env) {
  return lease_from(env.cublaslt_pool());
}

void Scratch::keep(std::shared_ptr<const void> p) {
  if (run_stream_)
    run_stream_->keep(std::move(p));
  else
    kept_.push_back(std::move(p));
}

std::atomic<uintptr_t>& last_kernel_stream() {
  static std::atomic<uintptr_t> s{0};
  return s;
}

void CudaKernel::compute(ep::KernelContext& ctx) const {
  env_->set_device();
  if (auto* run_stream = dynamic_cast<CudaStream*>(ctx.stream())) {
    // The executor's run stream: queue and return. The run allocator keeps
    // memory freed now (scratch included) for this stream until the run's
    // end, and the stream holds the leased handles until its work is done.
    last_kernel_stream() = reinterpret_cast<uintptr_t>(run_stream->get());
    Scratch scratch(ctx.allocator(), run_stream);
    run(ctx, run_stream->get(), scratch);
    return;
  }
  // Called outside a run with streams (a test, say): finish before returning.
  cudaStream_t stream = env_->compute_stream();
  last_kernel_stream() = reinterpret_cast<uintptr_t>(stream);
  Scratch scratch(ctx.allocator());
  try {
    run(ctx, stream, scratch);
  } catch (...) {
    // Work queued before the failure still reads and writes buffers the
    // caller is about to free: let it finish first.
    cudaStreamSynchronize(stream);
    throw;
  }
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after the node's kernels)");
  scratch.run_checks();
}

ElemType elem_type(DataType t) {
  switch (t) {
    case DataType::kFloat:
      return ElemType::kF32;
    case DataType::kFloat16:
      return ElemType::kF16;
    case DataType::kBFloat16:
      return ElemType::kBF16;
    default:
      fail(ErrorCode::kNotImplemented, "the CUDA kernels take float, float16 and bfloat16, not ",
           data_type_name(t));
  }
}

float constant_scalar(const ep::KernelInfo& info, size_t input) {
  const Tensor* t = info.constant_input(input);
  if (!t) info.fail_node("input ", input, " must be a constant for the CUDA kernel");
  if (t->num_elements() != 1)
    info.fail_node("input ", input, " must be a scalar, got ", t->description());
  Tensor host = *t;
  if (!t->memory_info().host_accessible()) {
    host = Tensor(t->dtype(), t->shape());
    check_cuda(
        cudaMemcpy(host.mutable_raw_data(), t->raw_data(), t->byte_size(), cudaMemcpyDefault),
        "cudaMemcpy (reading a constant input to the host)");
  }
  return float(host.element_as_double(0));
}

std::string no_check(const ep::ClaimQuery&) { return ""; }

}  // namespace tessera::cuda
