// The CUDA provider's kernels and their op table. Each kernel enqueues its
// work on the compute stream (the run's "cuda.compute_stream" entry, else the
// env's) and the base class waits for it before
// compute() returns: the executor runs nodes synchronously today (no stream
// in the KernelContext yet), and the values a kernel wrote may be read by the
// next node on another thread (parallel execution mode) or freed into the
// arena right after. See docs/cuda.md, "Streams".
#pragma once
#include <cuda_runtime_api.h>

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

// What a kernel's queued work uses besides its inputs and outputs (cuBLASLt
// and cuDNN workspaces, library handles): held until the stream has finished
// with it, so the arena or a handle pool cannot hand it to another thread's
// run while it is still in use.
class Scratch {
 public:
  explicit Scratch(std::shared_ptr<Allocator> allocator) : allocator_(std::move(allocator)) {}
  void* bytes(size_t n);
  // Keeps `p` (a leased library handle) until the queued work is done.
  void keep(std::shared_ptr<const void> p) { kept_.push_back(std::move(p)); }

 private:
  std::shared_ptr<Allocator> allocator_;
  std::vector<Tensor> held_;
  std::vector<std::shared_ptr<const void>> kept_;
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

}  // namespace tessera::cuda
