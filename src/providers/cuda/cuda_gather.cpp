// Gather along any axis, int32 or int64 indices in device memory. The kernel
// checks each index on the device and records an out-of-range one in a flag
// that is read back after it, so a bad index fails the node by name instead
// of reading outside the data.
#include "ep/op_shape.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"
#include "providers/cuda/shape_ops_launch.hpp"

namespace tessera::cuda {

namespace {

class CudaGather : public CudaKernel {
 public:
  CudaGather(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), shape_(info), axis_(shape_.schema().attr_int(info.node(), "axis")) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    if (indices.dtype() != DataType::kInt32 && indices.dtype() != DataType::kInt64)
      ctx.fail_node("indices must be int32 or int64, got ", indices.description());
    const Shape out = shape_.output(ctx, {&data, &indices});  // checks axis
    const size_t axis = size_t(axis_ < 0 ? axis_ + int64_t(data.rank()) : axis_);
    Tensor& y = ctx.output(0, out, data.dtype());
    if (y.num_elements() == 0) return;
    const int64_t axis_dim = data.shape()[axis];
    auto* error = static_cast<GatherError*>(scratch.lasting_bytes(sizeof(GatherError)));
    check_cuda(cudaMemsetAsync(error, 0, sizeof(GatherError), stream),
               "cudaMemsetAsync (Gather's index error flag)");
    check_cuda(launch_gather(elem_bytes(data.dtype()), data.raw_data(), indices.raw_data(),
                             indices.dtype() == DataType::kInt64, y.mutable_raw_data(),
                             data.shape().size_to(axis), axis_dim, indices.num_elements(),
                             data.shape().size_from(axis + 1), error, stream),
               "launch of the Gather kernel");
    // Read back when the run next waits for its stream, not here: waiting
    // after each Gather would stall the queue (and break a capture). The
    // kernel skips bad indices, so nothing is read out of bounds meanwhile.
    scratch.defer_check([error, axis_dim, axis = axis_, shape = data.shape().to_string(),
                         node = ctx.node().describe()] {
      GatherError found{};
      check_cuda(cudaMemcpy(&found, error, sizeof(GatherError), cudaMemcpyDeviceToHost),
                 "cudaMemcpy (reading Gather's index error flag)");
      if (found.flag != 0)
        fail(ErrorCode::kInvalidArgument, node, ": index ", found.index, " is out of range [",
             -axis_dim, ", ", axis_dim - 1, "] for axis ", axis, " of data shape ", shape);
    });
  }

 private:
  ep::OpShape shape_;
  int64_t axis_;
};

std::string check_gather(const ep::ClaimQuery& q) {
  const auto rank = q.rank(0);
  if (rank && *rank == 0) return "the data is a scalar";
  return check_axis_range(q.attr_int("axis", 0), rank);
}

}  // namespace

void register_cuda_gather(CudaOpTable& t) {
  t.add<CudaGather>(
      {"", "Gather", 1, ep::kOpsetMax, {{"T", {0}, kCudaMovable}, {"Tind", {1}, kCudaIndexTypes}}},
      check_gather);
}

}  // namespace tessera::cuda
