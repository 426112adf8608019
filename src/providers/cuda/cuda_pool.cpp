// MaxPool and AveragePool (1-D to 3-D; pads, strides, dilations, ceil_mode,
// auto_pad, count_include_pad) by a hand-written kernel, one thread per
// output: cuDNN's pooling has neither asymmetric pads nor dilations. Output
// sizes follow the CPU provider (src/providers/cpu/nn/nn_common.cpp). Also
// GlobalAveragePool and GlobalMaxPool, one block per (n, c) plane.
#include <climits>

#include "ops/window.hpp"
#include "providers/cuda/cnn_launch.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_cnn_ops.hpp"

namespace tessera::cuda {

namespace {

bool known_auto_pad(const std::string& a) {
  return a == "NOTSET" || a == "SAME_UPPER" || a == "SAME_LOWER" || a == "VALID";
}

class CudaPool : public CudaKernel {
 public:
  CudaPool(const ep::KernelInfo& info, const EnvPtr& env, bool max)
      : CudaKernel(env),
        auto_pad_(info.attr_string("auto_pad", "NOTSET")),
        kernel_(info.attr_ints("kernel_shape")),
        strides_(info.attr_ints("strides")),
        pads_(info.attr_ints("pads")),
        dilations_(info.attr_ints("dilations")),
        ceil_mode_(info.attr_int("ceil_mode", 0) != 0) {
    if (auto_pad_.empty()) auto_pad_ = "NOTSET";
    if (!known_auto_pad(auto_pad_))
      info.fail_node("auto_pad '", auto_pad_, "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
    if (kernel_.empty() || kernel_.size() > 3)
      info.fail_node("kernel_shape needs 1 to 3 dims for the CUDA kernel, got ", kernel_.size());
    kind_ = max                                          ? PoolKind::kMax
            : info.attr_int("count_include_pad", 0) != 0 ? PoolKind::kAverageIncludePad
                                                         : PoolKind::kAverageExcludePad;
    if (max && info.num_outputs() > 1 && info.has_output(1))
      info.fail_node("the Indices output is not supported by the CUDA kernel");
  }

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const size_t r = kernel_.size();
    if (x.rank() != r + 2)
      ctx.fail_node("X ", x.description(), " must have rank ", r + 2, " for kernel_shape of ", r,
                    " dims");
    PoolGeometry g = geometry(ctx, x.shape());
    std::vector<int64_t> yd = {x.shape()[0], x.shape()[1]};
    for (size_t i = 0; i < r; ++i) yd.push_back(g.out[3 - r + i]);
    Tensor& y = ctx.output(0, Shape(yd));
    if (y.num_elements() == 0) return;
    check_cuda(
        launch_pool(kind_, elem_type(x.dtype()), x.raw_data(), y.mutable_raw_data(), g, stream),
        "launch of the pooling kernel");
  }

 private:
  // Output sizes and pads as the CPU provider resolves them; spatial dim i
  // goes to slot 3 - r + i, so missing leading slots keep their size 1.
  PoolGeometry geometry(const ep::KernelContext& ctx, const Shape& x) const {
    const size_t r = kernel_.size();
    auto per_dim = [&](const std::vector<int64_t>& v, const char* name) {
      if (v.empty()) return std::vector<int64_t>(r, 1);
      if (v.size() != r) ctx.fail_node(name, " needs ", r, " values, got ", v.size());
      for (int64_t e : v)
        if (e < 1) ctx.fail_node(name, " must be positive, got ", e);
      return v;
    };
    const auto strides = per_dim(strides_, "strides");
    const auto dilations = per_dim(dilations_, "dilations");
    std::vector<int64_t> pb(r, 0), pe(r, 0);
    if (auto_pad_ == "NOTSET" && !pads_.empty()) {
      if (pads_.size() != 2 * r) ctx.fail_node("pads needs ", 2 * r, " values, got ", pads_.size());
      for (size_t i = 0; i < r; ++i) {
        pb[i] = pads_[i];
        pe[i] = pads_[r + i];
        if (pb[i] < 0 || pe[i] < 0) ctx.fail_node("pads must not be negative");
      }
    }
    auto fits = [&](int64_t v, const char* what) {
      if (v < INT_MIN / 4 || v > INT_MAX / 4)
        ctx.fail_node(what, " ", v, " is too large for the CUDA pooling kernel");
      return int(v);
    };
    for (int64_t k : kernel_)
      if (k < 1) ctx.fail_node("kernel_shape must be positive");
    // The window rule every provider and the optimizer size pools with.
    const ops::WindowSpec spec{auto_pad_, kernel_, strides, dilations, pads_, ceil_mode_};
    ops::WindowDims d;
    try {
      d = ops::window_dims(std::vector<int64_t>(x.dims().begin() + 2, x.dims().end()), spec);
    } catch (const Error& e) {
      ctx.fail_node(e.what(), " (X ", x.to_string(), ")");
    }
    PoolGeometry g;
    g.planes = x[0] * x[1];
    for (size_t i = 0; i < r; ++i) {
      const int64_t in = x[2 + i], s = strides[i], out = d.out[i];
      pb[i] = d.pads_begin[i];
      pe[i] = d.pads_end[i];
      const size_t slot = 3 - r + i;
      g.in[slot] = fits(in, "a spatial dim");
      g.out[slot] = fits(out, "an output dim");
      g.kernel[slot] = fits(kernel_[i], "kernel_shape");
      g.stride[slot] = fits(s, "a stride");
      g.dilation[slot] = fits(dilations[i], "a dilation");
      g.pad_begin[slot] = fits(pb[i], "a pad");
      g.pad_end[slot] = fits(pe[i], "a pad");
    }
    return g;
  }

  std::string auto_pad_;
  std::vector<int64_t> kernel_, strides_, pads_, dilations_;
  bool ceil_mode_;
  PoolKind kind_;
};

std::string check_pool(const ep::ClaimQuery& q) {
  const auto kernel = q.attr_ints("kernel_shape");
  if (kernel.empty()) return "kernel_shape is missing";
  if (kernel.size() > 3)
    return str_cat(kernel.size(), "-D pooling; the CUDA kernel takes 1-D to 3-D");
  const size_t n = kernel.size();
  if (auto rank = q.rank(0); rank && *rank != n + 2)
    return str_cat("X has rank ", *rank, " but kernel_shape has ", n, " dims");
  std::string auto_pad = q.attr_string("auto_pad", "NOTSET");
  if (auto_pad.empty()) auto_pad = "NOTSET";
  if (!known_auto_pad(auto_pad))
    return str_cat("auto_pad '", auto_pad, "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  for (int64_t k : kernel)
    if (k < 1) return "kernel_shape has a non-positive size";
  for (const char* name : {"strides", "dilations"}) {
    const auto v = q.attr_ints(name);
    if (!v.empty() && v.size() != n) return str_cat(name, " has ", v.size(), " values, not ", n);
    for (int64_t e : v)
      if (e < 1) return str_cat(name, " has a non-positive value");
  }
  const auto pads = q.attr_ints("pads");
  if (auto_pad == "NOTSET" && !pads.empty() && pads.size() != 2 * n)
    return str_cat("pads has ", pads.size(), " values, not ", 2 * n);
  for (int64_t p : pads)
    if (p < 0) return "negative pads";
  if (q.node().op_type == "MaxPool" && q.has_output(1))
    return "the Indices output is not supported by the CUDA kernel";
  return "";
}

class CudaGlobalPool : public CudaKernel {
 public:
  CudaGlobalPool(const ep::KernelInfo&, const EnvPtr& env, bool max) : CudaKernel(env), max_(max) {}

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() < 2) ctx.fail_node("X ", x.description(), " must be [N, C, ...]");
    std::vector<int64_t> yd(x.rank(), 1);
    yd[0] = x.shape()[0];
    yd[1] = x.shape()[1];
    Tensor& y = ctx.output(0, Shape(yd));
    const int64_t planes = yd[0] * yd[1], n = x.shape().size_from(2);
    if (planes == 0) return;
    if (max_ && n == 0)
      ctx.fail_node("cannot take the max over the empty spatial dims of ", x.description());
    check_cuda(launch_global_pool(max_, elem_type(x.dtype()), x.raw_data(), y.mutable_raw_data(),
                                  planes, n, stream),
               "launch of the global pooling kernel");
  }

 private:
  bool max_;
};

std::string check_global_pool(const ep::ClaimQuery& q) {
  if (auto rank = q.rank(0); rank && *rank < 2)
    return str_cat("X has rank ", *rank, "; it must be [N, C, ...]");
  return "";
}

template <typename K>
CudaOpTable::Factory make(bool max) {
  return [max](const ep::KernelInfo& info, const EnvPtr& env) -> std::unique_ptr<ep::OpKernel> {
    return std::make_unique<K>(info, env, max);
  };
}

}  // namespace

void register_cuda_pool(CudaOpTable& t) {
  t.add({"", "MaxPool", 1, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}}, make<CudaPool>(true),
        check_pool);
  t.add({"", "AveragePool", 1, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}}, make<CudaPool>(false),
        check_pool);
  t.add({"", "GlobalMaxPool", 1, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}},
        make<CudaGlobalPool>(true), check_global_pool);
  t.add({"", "GlobalAveragePool", 1, ep::kOpsetMax, {{"T", {0}, kCudaFloats}}},
        make<CudaGlobalPool>(false), check_global_pool);
}

}  // namespace tessera::cuda
