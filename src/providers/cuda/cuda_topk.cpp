// TopK (1+) on the device: k from the attribute (opsets 1-9) or a host input
// (10+), any axis, largest or smallest; the output is always sorted (the
// spec leaves the order free when sorted = 0). See topk_launch.hpp for the
// order and the two paths.
#include <limits>

#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_index_ops.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"
#include "providers/cuda/topk_launch.hpp"

namespace tessera::cuda {

namespace {

class CudaTopK : public CudaKernel {
 public:
  CudaTopK(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        opset_(info.opset()),
        k_attr_(info.attr_int("k", -1)),
        axis_(info.attr_int("axis", -1)),
        largest_(info.attr_int("largest", 1) != 0) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& x = ctx.required_input(0);
    const auto type = num_type_of(x.dtype());
    if (!type || x.dtype() == DataType::kBool)
      ctx.fail_node("the CUDA kernel does not order ", x.description());
    int64_t k = k_attr_;
    if (opset_ >= 10) {
      const std::vector<int64_t> kv = host_ints(ctx, 1, "K");
      if (kv.size() != 1) ctx.fail_node("K must hold one value, got ", kv.size());
      k = kv[0];
    }
    const size_t axis = normalized_axis(ctx, axis_, x.shape());
    const int64_t dim = x.shape()[axis];
    if (k < 0 || k > dim)
      ctx.fail_node("k = ", k, " is out of range [0, ", dim, "] for axis ", axis_, " of shape ",
                    x.shape().to_string());
    if (dim > std::numeric_limits<int32_t>::max() / 2)
      ctx.fail_node("axis ", axis, " of ", dim, " elements is too long for the CUDA kernel");
    std::vector<int64_t> dims = x.shape().dims();
    dims[axis] = k;
    Tensor& values = ctx.output(0, Shape(dims), x.dtype());
    Tensor& indices = ctx.output(1, Shape(dims), DataType::kInt64);
    const int64_t outer = x.shape().size_to(axis), inner = x.shape().size_from(axis + 1);
    if (k == 0 || outer * inner == 0) return;
    const int64_t bytes = topk_scratch_bytes(outer * inner, dim);
    void* work = bytes > 0 ? scratch.bytes(size_t(bytes)) : nullptr;
    check_cuda(
        launch_topk(*type, x.raw_data(), values.mutable_raw_data(), indices.mutable_data<int64_t>(),
                    outer, dim, inner, k, largest_, work, stream),
        "launch of the TopK kernels");
  }

 private:
  int64_t opset_, k_attr_, axis_;
  bool largest_;
};

std::string check_topk(const ep::ClaimQuery& q) {
  const auto rank = q.rank(0);
  if (rank && *rank == 0) return "the input is a scalar";
  return check_axis_range(q.attr_int("axis", -1), rank);
}

}  // namespace

void register_cuda_topk(CudaOpTable& t) {
  std::vector<DataType> types;
  for (DataType d : kCudaNumeric)
    if (d != DataType::kBool) types.push_back(d);
  t.add<CudaTopK>({"", "TopK", 1, 9, {{"T", {0}, types}}}, check_topk);
  t.add<CudaTopK>(
      {"", "TopK", 10, ep::kOpsetMax, {{"T", {0}, types}, {"K", {1}, {DataType::kInt64}}}, {1}},
      check_topk);
}

}  // namespace tessera::cuda
