// Reshape, Flatten, Squeeze, Unsqueeze and Identity: the output is the
// input's device buffer under a new shape (KernelContext::set_output with a
// view, as the CPU provider does), so nothing runs on the GPU. IO binding
// copies such an aliased result into a bound output itself.
#include "providers/cuda/cuda_shape_ops.hpp"

namespace tessera::cuda {

namespace {

// Shape of Reshape's output: 0 copies the input dim (unless allowzero), -1 is inferred.
Shape reshape_target(const ep::KernelContext& ctx, const Shape& in,
                     const std::vector<int64_t>& spec, bool allowzero) {
  std::vector<int64_t> dims(spec.size());
  int64_t infer_at = -1, known = 1;
  bool has_zero = false;
  auto bad = [&](const char* why) {
    ctx.fail_node("cannot reshape input of shape ", in.to_string(), " to ", Shape(spec).to_string(),
                  ": ", why);
  };
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == -1) {
      if (infer_at >= 0) bad("more than one -1");
      infer_at = int64_t(i);
      continue;
    }
    if (d == 0 && !allowzero) {
      if (i >= in.rank()) bad("0 refers to a dimension the input does not have");
      d = in[i];
    } else if (d < 0) {
      bad("negative dimension");
    }
    if (d == 0) has_zero = true;
    dims[i] = d;
    known *= d;
  }
  const int64_t total = in.num_elements();
  if (infer_at >= 0) {
    if (allowzero && has_zero) bad("allowzero with both 0 and -1");
    if (known == 0) {
      if (total != 0) bad("the element counts differ");
      dims[size_t(infer_at)] = 0;
    } else {
      if (total % known != 0) bad("the element counts differ");
      dims[size_t(infer_at)] = total / known;
    }
  } else if (known != total) {
    bad("the element counts differ");
  }
  return Shape(dims);
}

// The output is a view of input 0: no device work, so no stream to wait for.
class Relabel : public ep::OpKernel {
 protected:
  static void alias(ep::KernelContext& ctx, const Tensor& x, Shape shape) {
    ctx.set_output(0, Value(x.reshaped(std::move(shape))));
  }
};

class CudaReshape : public Relabel {
 public:
  CudaReshape(const ep::KernelInfo& info, const EnvPtr&)
      : allowzero_(info.attr_int("allowzero", 0) != 0) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    alias(ctx, x, reshape_target(ctx, x.shape(), host_ints(ctx, 1, "shape"), allowzero_));
  }

 private:
  bool allowzero_;
};

class CudaFlatten : public Relabel {
 public:
  CudaFlatten(const ep::KernelInfo& info, const EnvPtr&) : axis_(info.attr_int("axis", 1)) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const int64_t r = int64_t(x.rank());
    const int64_t axis = axis_ < 0 ? axis_ + r : axis_;
    if (axis < 0 || axis > r)
      ctx.fail_node("axis ", axis_, " is out of range for input of shape ", x.shape().to_string());
    alias(ctx, x, Shape{x.shape().size_to(size_t(axis)), x.shape().size_from(size_t(axis))});
  }

 private:
  int64_t axis_;
};

// Squeeze's and Unsqueeze's axes: the attribute before opset 13, input 1 from 13.
class AxesKernel : public Relabel {
 protected:
  explicit AxesKernel(const ep::KernelInfo& info)
      : from_attr_(info.opset() < 13), attr_(info.attr_ints("axes")) {}
  // The axes, and whether they were given at all.
  std::pair<std::vector<int64_t>, bool> axes(const ep::KernelContext& ctx) const {
    if (from_attr_) return {attr_, !attr_.empty()};
    if (!ctx.input(1)) return {{}, false};
    return {host_ints(ctx, 1, "axes"), true};
  }

 private:
  bool from_attr_;
  std::vector<int64_t> attr_;
};

class CudaSqueeze : public AxesKernel {
 public:
  CudaSqueeze(const ep::KernelInfo& info, const EnvPtr&) : AxesKernel(info) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const auto [axes, given] = this->axes(ctx);
    const size_t r = x.rank();
    std::vector<bool> drop(r, false);
    if (!given) {
      for (size_t k = 0; k < r; ++k) drop[k] = x.shape()[k] == 1;
    } else {
      for (int64_t a : axes) {
        const size_t k = normalized_axis(ctx, a, x.shape());
        if (x.shape()[k] != 1)
          ctx.fail_node("cannot squeeze axis ", a, " of shape ", x.shape().to_string(),
                        ": its size is not 1");
        drop[k] = true;
      }
    }
    std::vector<int64_t> dims;
    for (size_t k = 0; k < r; ++k)
      if (!drop[k]) dims.push_back(x.shape()[k]);
    alias(ctx, x, Shape(dims));
  }
};

class CudaUnsqueeze : public AxesKernel {
 public:
  CudaUnsqueeze(const ep::KernelInfo& info, const EnvPtr&) : AxesKernel(info) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const auto [axes, given] = this->axes(ctx);
    if (!given) ctx.fail_node("axes are required");
    const int64_t out_rank = int64_t(x.rank() + axes.size());
    std::vector<bool> inserted(size_t(out_rank), false);
    for (int64_t a : axes) {
      if (a < -out_rank || a >= out_rank)
        ctx.fail_node("axis ", a, " is out of range for output rank ", out_rank, " (input shape ",
                      x.shape().to_string(), ")");
      const size_t k = size_t(a < 0 ? a + out_rank : a);
      if (inserted[k]) ctx.fail_node("axis ", a, " is repeated");
      inserted[k] = true;
    }
    std::vector<int64_t> dims;
    size_t src = 0;
    for (size_t k = 0; k < size_t(out_rank); ++k)
      dims.push_back(inserted[k] ? 1 : x.shape()[src++]);
    alias(ctx, x, Shape(dims));
  }
};

class CudaIdentity : public ep::OpKernel {
 public:
  CudaIdentity(const ep::KernelInfo&, const EnvPtr&) {}
  void compute(ep::KernelContext& ctx) const override {
    ctx.set_output(0, Value(ctx.required_input(0)));
  }
};

std::string check_flatten(const ep::ClaimQuery& q) {
  const int64_t axis = q.attr_int("axis", 1);
  const auto rank = q.rank(0);
  if (rank && (axis < -int64_t(*rank) || axis > int64_t(*rank)))
    return str_cat("axis ", axis, " is out of range for rank ", *rank);
  return "";
}

// Identity 14+ also passes sequences and optionals, whose static type names
// only their element type: a tensor is known by its static rank.
std::string check_identity(const ep::ClaimQuery& q) {
  if (q.opset() >= 14 && !q.rank(0))
    return "input 0 may not be a tensor (its static rank is not known); the CUDA kernel passes "
           "tensors only";
  return "";
}

std::string check_unsqueeze(const ep::ClaimQuery& q) {
  if (q.opset() >= 13 && !q.has_input(1)) return "the axes input is missing";
  return "";
}

}  // namespace

void register_cuda_reshape_ops(CudaOpTable& t) {
  const ep::TypeConstraint any{"T", {0}, kCudaAnyFixed};
  const ep::TypeConstraint shape{"shape", {1}, {DataType::kInt64}};
  const ep::TypeConstraint axes{"axes", {1}, {DataType::kInt64}};
  // Reshape 5+: the shape is input 1 (before 5 it was an attribute).
  t.add<CudaReshape>({"", "Reshape", 5, ep::kOpsetMax, {any, shape}, {1}}, no_check);
  t.add<CudaFlatten>({"", "Flatten", 1, ep::kOpsetMax, {any}}, check_flatten);
  t.add<CudaSqueeze>({"", "Squeeze", 1, 12, {any}}, no_check);
  t.add<CudaSqueeze>({"", "Squeeze", 13, ep::kOpsetMax, {any, axes}, {1}}, no_check);
  t.add<CudaUnsqueeze>({"", "Unsqueeze", 1, 12, {any}}, check_unsqueeze);
  t.add<CudaUnsqueeze>({"", "Unsqueeze", 13, ep::kOpsetMax, {any, axes}, {1}}, check_unsqueeze);
  t.add<CudaIdentity>({"", "Identity", 1, ep::kOpsetMax, {any}}, check_identity);
}

}  // namespace tessera::cuda
