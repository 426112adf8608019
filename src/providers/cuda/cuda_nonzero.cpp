// NonZero (9+): its output's size depends on the data, so the kernel counts
// the nonzero elements per chunk on the device, waits for the stream once to
// read the counts (the one synchronisation), and then writes the
// coordinates in order. That wait cannot be recorded in a CUDA graph: a run
// being captured fails the capture with a message naming the node, and runs
// of those shapes go uncaptured (docs/cuda.md, "CUDA graphs").
#include <memory>

#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_index_ops.hpp"

namespace tessera::cuda {

namespace {

class CudaNonZero : public CudaKernel {
 public:
  CudaNonZero(const ep::KernelInfo&, const EnvPtr& env) : CudaKernel(env) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& x = ctx.required_input(0);
    const auto type = num_type_of(x.dtype());
    if (!type) ctx.fail_node("the CUDA kernel does not test ", x.description());
    if (x.rank() > size_t(kMaxIndexRank))
      ctx.fail_node("input of rank ", x.rank(), "; the CUDA kernel takes at most ", kMaxIndexRank);
    const int64_t n = x.num_elements();
    const int64_t chunks = (n + kNonZeroChunk - 1) / kNonZeroChunk;
    auto offsets = std::make_shared<std::vector<int64_t>>(size_t(chunks), 0);
    int64_t total = 0;
    if (n > 0) {
      cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
      check_cuda(cudaStreamIsCapturing(stream, &capturing), "cudaStreamIsCapturing");
      if (capturing != cudaStreamCaptureStatusNone)
        ctx.fail_node(
            "NonZero's output size is read back from the device, which a CUDA graph "
            "cannot record");
      auto* counts = static_cast<int32_t*>(scratch.bytes(size_t(chunks) * sizeof(int32_t)));
      check_cuda(launch_nonzero_count(*type, x.raw_data(), n, counts, stream),
                 "launch of the NonZero count kernel");
      std::vector<int32_t> host(static_cast<size_t>(chunks));
      check_cuda(cudaMemcpyAsync(host.data(), counts, host.size() * sizeof(int32_t),
                                 cudaMemcpyDeviceToHost, stream),
                 "cudaMemcpyAsync (NonZero's counts)");
      check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (NonZero's counts)");
      for (size_t c = 0; c < host.size(); ++c) {
        (*offsets)[c] = total;
        total += host[c];
      }
    }
    const int64_t rank = int64_t(x.rank());
    Tensor& y = ctx.output(0, Shape{rank, total}, DataType::kInt64);
    if (total == 0 || rank == 0) return;
    auto* device_offsets = static_cast<int64_t*>(scratch.bytes(offsets->size() * sizeof(int64_t)));
    check_cuda(cudaMemcpyAsync(device_offsets, offsets->data(), offsets->size() * sizeof(int64_t),
                               cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync (NonZero's offsets)");
    scratch.keep(offsets);  // the host source of the queued copy
    NonZeroDims dims;
    dims.rank = int(rank);
    for (size_t k = 0; k < x.rank(); ++k) dims.dims[k] = x.shape()[k];
    check_cuda(launch_nonzero_write(*type, x.raw_data(), n, device_offsets, dims, total,
                                    y.mutable_data<int64_t>(), stream),
               "launch of the NonZero write kernel");
  }
};

std::string check_nonzero(const ep::ClaimQuery& q) {
  if (auto r = q.rank(0); r && *r > size_t(kMaxIndexRank))
    return str_cat("input of rank ", *r, "; the CUDA kernel takes at most ", kMaxIndexRank);
  return "";
}

}  // namespace

void register_cuda_nonzero(CudaOpTable& t) {
  t.add<CudaNonZero>({"", "NonZero", 9, ep::kOpsetMax, {{"T", {0}, kCudaNumeric}}}, check_nonzero);
}

}  // namespace tessera::cuda
