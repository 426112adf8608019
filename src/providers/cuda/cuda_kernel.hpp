// The CUDA provider's kernels and their op table. Each kernel enqueues its
// work on the run's stream (KernelContext::stream(), which the provider's
// run_stream() made) and returns without waiting: the stream orders the
// nodes, the executor orders copies on it and waits at the run's end, and
// the run's allocator keeps freed memory from other runs until then. Called
// without a run stream, a kernel waits for its work. See docs/cuda.md,
// "Streams".
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ep/claim_query.hpp"
#include "ep/kernel_registry.hpp"
#include "ep/op_table.hpp"
#include "ep/provider_abilities.hpp"
#include "providers/cuda/cuda_env.hpp"
#include "providers/cuda/cuda_launch.hpp"

namespace tessera::cuda {

class CudaStream;

// What a kernel's queued work uses besides its inputs and outputs (cuBLASLt
// and cuDNN workspaces, library handles): held until the stream has finished
// with it, so the arena or a handle pool cannot hand it to another thread's
// run while it is still in use.
class Scratch {
 public:
  // On a run's stream, `allocator` is the run's (memory freed to it stays
  // the run's until its stream has passed it) and kept handles go to the
  // stream; without one, the kernel waits for its work before returning.
  explicit Scratch(std::shared_ptr<Allocator> allocator, CudaStream* run_stream = nullptr)
      : allocator_(std::move(allocator)), run_stream_(run_stream) {}
  void* bytes(size_t n);
  // Device memory reserved until the work queued so far is done and its
  // checks have run (what a deferred check reads back).
  void* lasting_bytes(size_t n);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  // A cuDNN or cuBLASLt handle for this kernel call: on a run stream, one
  // the stream already has idle (else a new lease), given back to the stream
  // when the call ends (CudaStream::take_handle says why that is safe);
  // without one, a lease kept until the queued work is done.
  HandlePool<cudnnHandle_t>::Lease cudnn(const CudaEnv& env);
  HandlePool<cublasLtHandle_t>::Lease cublaslt(const CudaEnv& env);
  // Keeps `p` until the queued work is done.
  void keep(std::shared_ptr<const void> p);
  // Runs `check` once the queued work is done: at the run stream's next
  // wait (its error fails the run there), else right after the node.
  void defer_check(std::function<void()> check);
  // Runs the deferred checks; for kernels called without a run stream, after
  // their work is done.
  void run_checks();

 private:
  std::shared_ptr<Allocator> allocator_;
  CudaStream* run_stream_;
  std::vector<std::function<void()>> checks_;
  std::vector<Tensor> held_;
  std::vector<std::shared_ptr<const void>> kept_;
  std::vector<std::pair<const void*, std::shared_ptr<void>>> handles_;  // back to the stream
  template <typename H>
  typename HandlePool<H>::Lease lease_from(HandlePool<H>& pool);
};

class CudaKernel : public ep::OpKernel {
 public:
  explicit CudaKernel(EnvPtr env) : env_(std::move(env)) {}
  void compute(ep::KernelContext& ctx) const final;

 protected:
  // Enqueues the node's work on `stream`; temporary device memory comes from
  // `scratch`.
  virtual void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const = 0;
  const CudaEnv& env() const { return *env_; }

 private:
  EnvPtr env_;
};

// The op table (src/ep/op_table.hpp). A table with a null env is only listed
// (tessera ops), never run.
using CudaOpTable = ep::OpTable<CudaEnv>;

// float, float16, bfloat16: what every kernel here serves.
extern const std::vector<DataType> kCudaFloats;
// The element type of a launcher; throws for any other type.
ElemType elem_type(DataType t);
// A constant scalar input read to the host at kernel creation (it lives in
// device memory by then), as float.
float constant_scalar(const ep::KernelInfo& info, size_t input);
// A claim check that accepts everything the type constraints allow.
std::string no_check(const ep::ClaimQuery&);

// A fused MatMul + bias Add (+ Relu) group (matmul_epilogue.hpp) as one
// cuBLASLt call with the bias (and Relu) in its epilogue.
std::unique_ptr<ep::OpKernel> make_matmul_epilogue(const EnvPtr& env, const ep::GraphView& view,
                                                   const ep::FusedGroup& group);

// Families (one file each).
void register_cuda_elementwise(CudaOpTable& t);
void register_cuda_norm(CudaOpTable& t);
void register_cuda_matmul(CudaOpTable& t);
void register_cuda_conv(CudaOpTable& t);
void register_cuda_shape_ops(CudaOpTable& t);
void register_cuda_views(CudaOpTable& t);
void register_cuda_cnn_ops(CudaOpTable& t);
void register_cuda_reduce(CudaOpTable& t);
void register_cuda_transformer_fusions(CudaOpTable& t);
void register_cuda_recurrent(CudaOpTable& t);
void register_cuda_index_ops(CudaOpTable& t);

}  // namespace tessera::cuda
