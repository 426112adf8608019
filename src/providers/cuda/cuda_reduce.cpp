// The CUDA kernels for reductions: ReduceSum, ReduceMean, ReduceMax,
// ReduceMin, ReduceProd, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp and ArgMax/ArgMin; register_cuda_reduce also registers
// the family's other files (attention; RMSNormalization is in cuda_norm.cpp).
#include "providers/cuda/cuda_reduce.hpp"

#include <string>
#include <vector>

#include "ep/op_shape.hpp"
#include "ops/reduce_axes.hpp"
#include "providers/cuda/cuda_call.hpp"

namespace tessera::cuda {

namespace {

// The opset from which the op takes its axes as input 1 instead of an attribute.
int64_t axes_input_since(ReduceOp op) { return op == ReduceOp::kSum ? 13 : 18; }

class CudaReduce : public CudaKernel {
 public:
  CudaReduce(const ep::KernelInfo& info, const EnvPtr& env, ReduceOp op)
      : CudaKernel(env), op_(op), shape_(info) {}

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    // The axes (input 1 from opset 13 or 18) are in host memory (KernelDef::host_inputs).
    const Tensor* a = ctx.input(1);
    if (a && (a->dtype() != DataType::kInt64 || a->rank() > 1))
      ctx.fail_node("axes must be a 1-D int64 tensor, got ", a->description());
    const auto red = ops::reduction_of(
        ops::TensorShapeQuery(ctx.node(), shape_.opset(), shape_.schema(), {&x, a}));
    if (red->noop) {  // the input as it is
      Tensor& y = ctx.output(0, x.shape());
      if (x.byte_size() > 0)
        check_cuda(cudaMemcpyAsync(y.mutable_raw_data(), x.raw_data(), x.byte_size(),
                                   cudaMemcpyDeviceToDevice, stream),
                   "cudaMemcpyAsync (ReduceXxx with noop_with_empty_axes)");
      return;
    }
    Tensor& y = ctx.output(0, red->out);
    ReduceShape plan;
    if (!plan_reduce(x.shape().dims(), red->reduced, plan))
      ctx.fail_node("input ", x.description(), " has more than ", kMaxReduceRuns,
                    " alternating runs of kept and reduced dims");
    check_cuda(
        launch_reduce(op_, elem_type(x.dtype()), x.raw_data(), y.mutable_raw_data(), plan, stream),
        "launch of the reduction kernel");
  }

 private:
  ReduceOp op_;
  ep::OpShape shape_;
};

std::string check_reduce(const ep::ClaimQuery& q, ReduceOp op) {
  const auto rank = q.rank(0);
  if (rank && *rank > size_t(kMaxReduceRuns))
    return str_cat("the input has rank ", *rank, "; the CUDA kernel takes at most ",
                   kMaxReduceRuns);
  if (rank && q.opset() < axes_input_since(op)) {
    std::vector<bool> reduced;
    return ops::reduced_axes(q.attr_ints("axes"), *rank, reduced);
  }
  return "";
}

class CudaArgReduce : public CudaKernel {
 public:
  CudaArgReduce(const ep::KernelInfo& info, const EnvPtr& env, bool max)
      : CudaKernel(env),
        max_(max),
        shape_(info),
        axis_(shape_.schema().attr_int(info.node(), "axis")),
        last_(shape_.schema().attr_def("select_last_index") &&
              shape_.schema().attr_int(info.node(), "select_last_index") != 0) {}

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape out = shape_.output(ctx, {&x});  // checks axis
    const size_t axis = size_t(axis_ < 0 ? axis_ + int64_t(x.rank()) : axis_);
    Tensor& y = ctx.output(0, out, DataType::kInt64);
    if (y.num_elements() == 0) return;
    const int64_t len = x.shape()[axis];
    if (len == 0)
      ctx.fail_node("cannot take Arg", max_ ? "Max" : "Min", " over an empty axis of ",
                    x.description());
    check_cuda(launch_arg_reduce(max_, last_, elem_type(x.dtype()), x.raw_data(),
                                 y.mutable_data<int64_t>(), x.shape().size_to(axis), len,
                                 x.shape().size_from(axis + 1), stream),
               "launch of the ArgMax/ArgMin kernel");
  }

 private:
  bool max_;
  ep::OpShape shape_;
  int64_t axis_;
  bool last_;
};

std::string check_arg_reduce(const ep::ClaimQuery& q) {
  const auto rank = q.rank(0);
  if (!rank) return "";
  const int64_t r = int64_t(*rank), axis = q.attr_int("axis", 0);
  if (r == 0) return "the input is a scalar (ArgMax/ArgMin need an axis)";
  if (axis < -r || axis >= r) return str_cat("axis ", axis, " is out of range for rank ", r);
  return "";
}

void add_reduce(CudaOpTable& t, const char* op_type, ReduceOp op) {
  const auto factory = [op](const ep::KernelInfo& info,
                            const EnvPtr& env) -> std::unique_ptr<ep::OpKernel> {
    return std::make_unique<CudaReduce>(info, env, op);
  };
  const auto check = [op](const ep::ClaimQuery& q) { return check_reduce(q, op); };
  const int64_t since = axes_input_since(op);
  // Axes as an attribute, then as input 1, which the kernel reads on the host.
  t.add({"", op_type, 1, since - 1, {{"T", {0}, kCudaFloats}}}, factory, check);
  t.add({"", op_type, since, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}, {1}}, factory, check);
}

}  // namespace

void register_cuda_reduce(CudaOpTable& t) {
  add_reduce(t, "ReduceSum", ReduceOp::kSum);
  add_reduce(t, "ReduceMean", ReduceOp::kMean);
  add_reduce(t, "ReduceMax", ReduceOp::kMax);
  add_reduce(t, "ReduceMin", ReduceOp::kMin);
  add_reduce(t, "ReduceProd", ReduceOp::kProd);
  add_reduce(t, "ReduceSumSquare", ReduceOp::kSumSquare);
  add_reduce(t, "ReduceL1", ReduceOp::kL1);
  add_reduce(t, "ReduceL2", ReduceOp::kL2);
  add_reduce(t, "ReduceLogSum", ReduceOp::kLogSum);
  add_reduce(t, "ReduceLogSumExp", ReduceOp::kLogSumExp);
  const auto arg = [](bool max) {
    return [max](const ep::KernelInfo& info, const EnvPtr& env) -> std::unique_ptr<ep::OpKernel> {
      return std::make_unique<CudaArgReduce>(info, env, max);
    };
  };
  t.add({"", "ArgMax", 1, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}}, arg(true), check_arg_reduce);
  t.add({"", "ArgMin", 1, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}}, arg(false), check_arg_reduce);
  register_cuda_attention(t);
}

}  // namespace tessera::cuda
