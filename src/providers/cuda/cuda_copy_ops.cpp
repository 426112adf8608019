// Transpose, Slice, Expand and Where: each output element read from strided
// positions of its inputs (copy_plan.hpp), one kernel per node; a plan that
// merges into one contiguous run is a plain device-to-device copy, and a
// transpose that moves the innermost dim goes through shared-memory tiles.
#include "ep/op_shape.hpp"
#include "ops/shape_rules.hpp"
#include "providers/cuda/copy_plan.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"
#include "providers/cuda/shape_ops_launch.hpp"

namespace tessera::cuda {

namespace {

// y = x walked by operand 0 of `plan` (n elements of `bytes` bytes).
void strided_copy(const Tensor& x, Tensor& y, const CopyPlan& plan, cudaStream_t stream) {
  const int bytes = elem_bytes(x.dtype());
  const int64_t n = y.num_elements();
  if (n == 0) return;
  if (plan.rank == 1 && plan.strides[0][0] == 1) {
    const char* src = static_cast<const char*>(x.raw_data()) + plan.base[0] * bytes;
    check_cuda(cudaMemcpyAsync(y.mutable_raw_data(), src, size_t(n) * size_t(bytes),
                               cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync (a contiguous copy)");
    return;
  }
  check_cuda(launch_strided_copy(bytes, x.raw_data(), y.mutable_raw_data(), n, plan, stream),
             "launch of the strided copy kernel");
}

class CudaTranspose : public CudaKernel {
 public:
  CudaTranspose(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), shape_(info), perm_(shape_.schema().attr_ints(info.node(), "perm")) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape out = shape_.output(ctx, {&x});  // checks perm
    const size_t r = x.rank();
    std::vector<int64_t> perm = perm_;
    if (perm.size() != r) {  // no perm: the axes reversed
      perm.clear();
      for (size_t k = 0; k < r; ++k) perm.push_back(int64_t(r - 1 - k));
    }
    const std::vector<int64_t> in_strides = dense_strides(x.shape().dims());
    std::vector<int64_t> dims = out.dims(), strides(r);
    for (size_t k = 0; k < r; ++k)
      strides[k] = in_strides[size_t(perm[k] < 0 ? perm[k] + int64_t(r) : perm[k])];
    Tensor& y = ctx.output(0, out, x.dtype());
    const CopyPlan plan = plan_copy(dims, {{strides, 0, x.num_elements()}});
    if (const TilePlan tiles = plan_tiles(plan); tiles.rows > 0 && y.num_elements() > 0) {
      check_cuda(launch_tiled_transpose(elem_bytes(x.dtype()), x.raw_data(), y.mutable_raw_data(),
                                        tiles, stream),
                 "launch of the tiled transpose kernel");
      return;
    }
    strided_copy(x, y, plan, stream);
  }

 private:
  ep::OpShape shape_;
  std::vector<int64_t> perm_;
};

// The window (and so the output shape) is the one the schema's rule takes.
class CudaSlice : public CudaKernel {
 public:
  CudaSlice(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<const Tensor*> ins = {&x};
    for (size_t i = 1; i < ctx.num_inputs(); ++i) ins.push_back(ctx.input(i));  // host memory
    const auto w = ops::slice_window(
        ops::TensorShapeQuery(ctx.node(), shape_.opset(), shape_.schema(), std::move(ins)));
    if (!w) ctx.fail_node("starts, ends, axes and steps must be int32 or int64");
    const Shape& in = x.shape();
    const size_t r = in.rank();
    const std::vector<int64_t>&begin = w->begin, &step = w->step, &dims = w->dims;
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    if (y.num_elements() == 0) return;
    const std::vector<int64_t> in_strides = dense_strides(in.dims());
    CopyOperand src{std::vector<int64_t>(r), 0, x.num_elements()};
    for (size_t k = 0; k < r; ++k) {
      src.strides[k] = in_strides[k] * step[k];
      src.base += begin[k] * in_strides[k];
    }
    strided_copy(x, y, plan_copy(dims, {src}), stream);
  }

 private:
  ep::OpShape shape_;
};

class CudaExpand : public CudaKernel {
 public:
  CudaExpand(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape out = shape_.output(ctx, {&x, &ctx.required_input(1)});  // shape: host memory
    Tensor& y = ctx.output(0, out, x.dtype());
    strided_copy(x, y,
                 plan_copy(out.dims(), {{broadcast_strides(x.shape().dims(), out.dims()), 0,
                                         x.num_elements()}}),
                 stream);
  }

 private:
  ep::OpShape shape_;
};

class CudaWhere : public CudaKernel {
 public:
  CudaWhere(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& c = ctx.required_input(0);
    const Tensor& x = ctx.required_input(1);
    const Tensor& o = ctx.required_input(2);
    if (x.dtype() != o.dtype())
      ctx.fail_node("X is ", x.description(), " but Y is ", o.description(),
                    "; they must have one type");
    const Shape out = shape_.output(ctx, {&c, &x, &o});
    Tensor& y = ctx.output(0, out, x.dtype());
    if (y.num_elements() == 0) return;
    const auto operand = [&](const Tensor& t) {
      return CopyOperand{broadcast_strides(t.shape().dims(), out.dims()), 0, t.num_elements()};
    };
    const CopyPlan plan = plan_copy(out.dims(), {operand(c), operand(x), operand(o)});
    check_cuda(
        launch_where(elem_bytes(x.dtype()), static_cast<const uint8_t*>(c.raw_data()), x.raw_data(),
                     o.raw_data(), y.mutable_raw_data(), y.num_elements(), plan, stream),
        "launch of the Where kernel");
  }

 private:
  ep::OpShape shape_;
};

std::string check_transpose(const ep::ClaimQuery& q) {
  if (auto why = check_copy_rank(q, 0); !why.empty()) return why;
  const auto rank = q.rank(0);
  const std::vector<int64_t> perm = q.attr_ints("perm");
  if (!rank || perm.empty()) return "";
  const int64_t r = int64_t(*rank);
  std::vector<bool> seen(*rank, false);
  bool ok = int64_t(perm.size()) == r;
  for (size_t k = 0; ok && k < perm.size(); ++k) {
    const int64_t p = perm[k] < 0 ? perm[k] + r : perm[k];
    ok = p >= 0 && p < r && !seen[size_t(p)];
    if (ok) seen[size_t(p)] = true;
  }
  return ok ? ""
            : str_cat("perm ", Shape(perm).to_string(), " is not a permutation of ", r, " axes");
}

std::string check_slice(const ep::ClaimQuery& q) { return check_copy_rank(q, 0); }

std::string check_expand(const ep::ClaimQuery& q) {
  if (auto why = check_copy_rank(q, 0); !why.empty()) return why;
  if (auto d = q.dims(1); d && d->size() == 1 && (*d)[0] && *(*d)[0] > kMaxCopyRank)
    return str_cat("the shape has ", *(*d)[0], " dims; the CUDA kernel takes at most ",
                   kMaxCopyRank);
  return "";
}

std::string check_where(const ep::ClaimQuery& q) {
  for (size_t i = 0; i < 3; ++i)
    if (auto why = check_copy_rank(q, i); !why.empty()) return why;
  return "";
}

}  // namespace

void register_cuda_copy_ops(CudaOpTable& t) {
  const ep::TypeConstraint any{"T", {0}, kCudaMovable};
  const ep::TypeConstraint ind{"Tind", {1, 2, 3, 4}, kCudaIndexTypes};
  t.add<CudaTranspose>({"", "Transpose", 1, ep::kOpsetMax, {any}}, check_transpose);
  t.add<CudaSlice>({"", "Slice", 1, 9, {any}}, check_slice);
  t.add<CudaSlice>({"", "Slice", 10, ep::kOpsetMax, {any, ind}, {1, 2, 3, 4}}, check_slice);
  t.add<CudaExpand>(
      {"", "Expand", 8, ep::kOpsetMax, {any, {"shape", {1}, {DataType::kInt64}}}, {1}},
      check_expand);
  t.add<CudaWhere>(
      {"", "Where", 9, ep::kOpsetMax, {{"B", {0}, {DataType::kBool}}, {"T", {1, 2}, kCudaMovable}}},
      check_where);
}

}  // namespace tessera::cuda
