// Conv (1-D to 3-D) through cuDNN's convolution API: groups, strides,
// dilations, pads (uneven ones on a bordered copy of X), auto_pad, bias. The algorithm is chosen
// once per input shape (cudnn_conv_algo_search: EXHAUSTIVE times the candidates on the GPU,
// HEURISTIC asks cuDNN's heuristics, DEFAULT takes implicit precomputed GEMM) and kept with the
// shape's descriptors; float16 and bfloat16 take HEURISTIC under EXHAUSTIVE (cudnn_util.hpp). cuDNN
// 9 marks this API deprecated (its graph API replaces it); it is still shipped and supported.
#include <algorithm>
#include <map>
#include <mutex>

#include "ops/window.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_kernel.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"
#include "providers/cuda/cudnn_util.hpp"
#include "providers/cuda/index_ops_launch.hpp"

namespace tessera::cuda {

namespace {

// Pads, strides and dilations resolved for one input shape.
struct Window {
  std::vector<int64_t> pad_begin, pad_end, strides, dilations, kernel, out;
};

// With pads that differ at the two ends of an axis (cuDNN pads both alike),
// X is first copied into a zero-bordered buffer of `padded` dims
// (`pad_plan`), and the convolution runs on that with no padding.
struct Descriptors : ConvDescriptors {
  Shape out;
  bool pre_pad = false;
  Shape padded;
  PadPlan pad_plan;
};

// The zero-bordered copy of X that a convolution with uneven pads reads.
PadPlan border_plan(const Shape& x, const std::vector<int64_t>& begin,
                    const std::vector<int64_t>& end, Shape& padded) {
  PadPlan p;
  p.rank = int(x.rank());
  p.mode = PadMode::kConstant;
  std::vector<int64_t> dims = x.dims();
  for (size_t i = 0; i < begin.size(); ++i) dims[i + 2] += begin[i] + end[i];
  padded = Shape(dims);
  int64_t stride = 1;
  for (int k = p.rank - 1; k >= 0; --k) {
    const size_t i = size_t(k);
    p.out_dims[k] = dims[i];
    p.in_strides[k] = stride;
    stride *= x[i];
    p.lo[k] = 0;
    p.len[k] = x[i];
    p.pb[k] = i >= 2 ? begin[i - 2] : 0;
  }
  return p;
}

// com.tessera FusedConv's activation (the optimizer's fuse_activations and
// fuse_conv_residual): what runs after the convolution, its bias and the
// residual Z.
struct Activation {
  bool on = false;
  UnaryOp op = UnaryOp::kRelu;
  float alpha = 0, beta = 0;  // LeakyRelu's slope; Clip's bounds
};

Activation activation_of(const ep::KernelInfo& info) {
  Activation a;
  const std::string kind = info.attr_string("activation", "");
  if (kind.empty()) return a;
  const std::vector<float> params = info.attr_floats("activation_params");
  a.on = true;
  if (kind == "Relu") {
    a.op = UnaryOp::kRelu;
  } else if (kind == "LeakyRelu" && params.size() == 1) {
    a.op = UnaryOp::kLeakyRelu;
    a.alpha = params[0];
  } else if (kind == "Clip" && params.size() == 2) {
    a.op = UnaryOp::kClip;
    a.alpha = params[0];
    a.beta = params[1];
  } else {
    info.fail_node("activation '", kind, "' with ", params.size(),
                   " parameters is not one the CUDA kernel runs (Relu, LeakyRelu [alpha], "
                   "Clip [min, max])");
  }
  return a;
}

// Conv, and com.tessera FusedConv: the same convolution, then + Z (input 3)
// and the activation. Relu with a bias runs as one cuDNN call
// (cudnnConvolutionBiasActivationForward: act(conv(x) + z + bias)); the rest,
// or where cuDNN does not support that call for the chosen algorithm, as the
// convolution then one kernel that adds the bias and Z and applies the
// activation.
class CudaConv : public CudaKernel {
 public:
  CudaConv(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        auto_pad_(info.attr_string("auto_pad", "NOTSET")),
        group_(info.attr_int("group", 1)),
        kernel_shape_(info.attr_ints("kernel_shape")),
        pads_(info.attr_ints("pads")),
        strides_(info.attr_ints("strides")),
        dilations_(info.attr_ints("dilations")),
        fused_(info.node().domain == "com.tessera"),
        act_(fused_ ? activation_of(info) : Activation()) {
    search_ = conv_search_for(*env, info);
    if (group_ < 1) info.fail_node("group ", group_, " must be at least 1");
    if (act_.on && act_.op == UnaryOp::kRelu) {
      cudnnActivationDescriptor_t a = nullptr;
      check_cudnn(cudnnCreateActivationDescriptor(&a), "cudnnCreateActivationDescriptor");
      relu_.reset(a, [](cudnnActivationDescriptor_t p) { cudnnDestroyActivationDescriptor(p); });
      // NaN stays NaN, as ONNX's Relu has it.
      check_cudnn(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0),
                  "cudnnSetActivationDescriptor");
    }
  }

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    const Tensor* b = ctx.input(2);
    if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
      ctx.fail_node("X ", x.description(), " and W ", w.description(),
                    " must both have rank 3, 4 or 5");
    if (x.shape()[1] != w.shape()[1] * group_ || w.shape()[0] % group_ != 0)
      ctx.fail_node("channels do not match: X ", x.description(), ", W ", w.description(),
                    ", group ", group_);
    if (b && (b->rank() != 1 || b->shape()[0] != w.shape()[0]))
      ctx.fail_node("B ", b->description(), " must have the ", w.shape()[0], " output channels");
    auto handle = scratch.cudnn(env());
    check_cudnn(cudnnSetStream(handle.get(), stream), "cudnnSetStream");
    std::shared_ptr<const Descriptors> d = descriptors(ctx, handle.get(), x, w, stream);
    const Tensor* z = fused_ ? ctx.input(3) : nullptr;
    if (z && (z->shape() != d->out || z->dtype() != x.dtype()))
      ctx.fail_node("Z ", z->description(), " must have the output's shape ", d->out.to_string(),
                    " and X's type");
    Tensor& y = ctx.output(0, d->out);
    if (y.num_elements() == 0) return;
    if (x.num_elements() == 0)
      ctx.fail_node("X ", x.description(), " is empty but Y ", y.description(),
                    " is not; the CUDA kernel needs a non-empty X");
    const void* xp = x.raw_data();
    if (d->pre_pad) {
      void* bordered =
          scratch.bytes(size_t(d->padded.num_elements()) * size_t(elem_bytes(x.dtype())));
      pad_into(*d, x, bordered, stream);
      xp = bordered;
    }
    void* workspace = scratch.bytes(d->workspace);
    const float one = 1.0f, zero = 0.0f;
    // float32 only: the type the optimizer makes FusedConv in (other types
    // take the separate steps below, whose half-precision support is Conv's).
    if (relu_ && b && x.dtype() == DataType::kFloat) {
      // y = relu(conv(x) + 1 * z + bias); without Z, z is y itself scaled by 0.
      const cudnnStatus_t st = cudnnConvolutionBiasActivationForward(
          handle.get(), &one, d->x, xp, d->w, w.raw_data(), d->conv,
          cudnnConvolutionFwdAlgo_t(d->algo), workspace, d->workspace, z ? &one : &zero, d->y,
          z ? z->raw_data() : y.raw_data(), d->bias, b->raw_data(), relu_.get(), d->y,
          y.mutable_raw_data());
      if (st == CUDNN_STATUS_SUCCESS) return;
      if (st != CUDNN_STATUS_NOT_SUPPORTED)
        check_cudnn(st, "cudnnConvolutionBiasActivationForward");
    }
    check_cudnn(cudnnConvolutionForward(handle.get(), &one, d->x, xp, d->w, w.raw_data(), d->conv,
                                        cudnnConvolutionFwdAlgo_t(d->algo), workspace, d->workspace,
                                        &zero, d->y, y.mutable_raw_data()),
                "cudnnConvolutionForward");
    if (b || z || act_.on) {
      const int64_t c = d->out[1];
      check_cuda(launch_channel_epilogue(elem_type(y.dtype()), y.mutable_raw_data(),
                                         b ? b->raw_data() : nullptr, z ? z->raw_data() : nullptr,
                                         y.num_elements(), c, y.num_elements() / (d->out[0] * c),
                                         act_.on, act_.op, act_.alpha, act_.beta, stream),
                 "launch of Conv's bias/residual/activation kernel");
    }
  }

 private:
  Window window(const ep::KernelContext& ctx, const Shape& x, const Shape& w) const {
    const size_t n = x.rank() - 2;
    Window win;
    win.kernel.assign(w.dims().begin() + 2, w.dims().end());
    if (!kernel_shape_.empty() && kernel_shape_ != win.kernel)
      ctx.fail_node("kernel_shape does not match W ", w.to_string());
    win.strides = strides_.empty() ? std::vector<int64_t>(n, 1) : strides_;
    win.dilations = dilations_.empty() ? std::vector<int64_t>(n, 1) : dilations_;
    if (win.strides.size() != n || win.dilations.size() != n)
      ctx.fail_node("strides and dilations need ", n, " values");
    if (auto_pad_ == "NOTSET" && !pads_.empty() && pads_.size() != 2 * n)
      ctx.fail_node("pads needs ", 2 * n, " values");
    for (size_t i = 0; i < n; ++i)
      if (win.strides[i] < 1 || win.dilations[i] < 1)
        ctx.fail_node("strides and dilations must be positive");
    // The window rule every provider and the optimizer size convolutions with.
    const ops::WindowSpec spec{auto_pad_, win.kernel, win.strides, win.dilations, pads_, false};
    ops::WindowDims d;
    try {
      d = ops::window_dims(std::vector<int64_t>(x.dims().begin() + 2, x.dims().end()), spec);
    } catch (const Error& e) {
      ctx.fail_node(e.what(), " (X ", x.to_string(), ", W ", w.to_string(), ")");
    }
    win.pad_begin = d.pads_begin;
    win.pad_end = d.pads_end;
    win.out = d.out;
    for (size_t i = 0; i < n; ++i)
      if (win.pad_begin[i] < 0 || win.pad_end[i] < 0) ctx.fail_node("pads must not be negative");
    return win;
  }

  std::shared_ptr<const Descriptors> descriptors(const ep::KernelContext& ctx, cudnnHandle_t h,
                                                 const Tensor& x, const Tensor& w,
                                                 cudaStream_t stream) const {
    return shapes_.get(x.shape(), w.shape(), [&] {
      auto d = std::make_shared<Descriptors>();
      const Window win = window(ctx, x.shape(), w.shape());
      std::vector<int64_t> out = {x.shape()[0], w.shape()[0]};
      out.insert(out.end(), win.out.begin(), win.out.end());
      d->out = Shape(out);
      if (d->out.num_elements() == 0 || x.shape().num_elements() == 0) {
        // Nothing for cuDNN to compute (run() returns or fails before using
        // it), and cuDNN's descriptors refuse dims of 0.
        return d;
      }
      // 1-D runs as 2-D with a height of 1 (cuDNN's tensors have 4 or 5 dims).
      const bool one_d = x.rank() == 3;
      d->pre_pad = win.pad_begin != win.pad_end;
      std::vector<int64_t> pads = win.pad_begin;
      if (d->pre_pad) {
        d->pad_plan = border_plan(x.shape(), win.pad_begin, win.pad_end, d->padded);
        pads.assign(pads.size(), 0);
      }
      ConvProblem p;
      p.type = x.dtype();
      p.x = cudnn_dims(ctx, d->pre_pad ? d->padded : x.shape(), one_d);
      p.w = cudnn_dims(ctx, w.shape(), one_d);
      p.y = cudnn_dims(ctx, d->out, one_d);
      p.group = group_;
      set_conv_window(ctx, one_d, pads, win.strides, win.dilations, p);
      set_conv_descriptors(env(), *d, p);
      if (d->pre_pad) {
        // The search reads X as the convolution will: bordered.
        Tensor bordered(x.dtype(), d->padded, ctx.allocator());
        pad_into(*d, x, bordered.mutable_raw_data(), stream);
        choose_algorithm(ctx, h, *d, p, bordered, w, stream);
        check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after the search)");
      } else {
        choose_algorithm(ctx, h, *d, p, x, w, stream);
      }
      return d;
    });
  }

  static void pad_into(const Descriptors& d, const Tensor& x, void* bordered, cudaStream_t stream) {
    check_cuda(launch_pad(elem_bytes(x.dtype()), x.raw_data(), nullptr, 0, bordered,
                          d.padded.num_elements(), d.pad_plan, stream),
               "launch of Conv's zero border (pads differ at the two ends of an axis)");
  }

  void choose_algorithm(const ep::KernelContext& ctx, cudnnHandle_t h, Descriptors& d,
                        const ConvProblem& p, const Tensor& x, const Tensor& w,
                        cudaStream_t stream) const {
    auto workspace_of = [&](int algo, size_t* need) {
      return cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y,
                                                     cudnnConvolutionFwdAlgo_t(algo),
                                                     need) == CUDNN_STATUS_SUCCESS;
    };
    // The candidates of the search, best first.
    auto candidates = [&](size_t& limit) {
      if (search_ == ConvAlgoSearch::kDefault)
        return std::vector<int>{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM};
      constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
      cudnnConvolutionFwdAlgoPerf_t perf[kCount];
      int returned = 0;
      check_cudnn(
          cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, kCount, &returned, perf),
          "cudnnGetConvolutionForwardAlgorithm_v7");
      std::vector<int> listed;
      for (int i = 0; i < returned; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS) listed.push_back(int(perf[i].algo));
      if (search_ != ConvAlgoSearch::kExhaustive) return listed;
      // Times every listed algorithm on scratch memory of the real sizes.
      Tensor scratch_y(x.dtype(), d.out, ctx.allocator());
      Tensor ws = search_workspace(ctx, limit);
      const float one = 1.0f, zero = 0.0f;
      return rank_by_device_time(stream, listed, limit, workspace_of, [&](int algo, size_t need) {
        return cudnnConvolutionForward(h, &one, d.x, x.raw_data(), d.w, w.raw_data(), d.conv,
                                       cudnnConvolutionFwdAlgo_t(algo), ws.mutable_raw_data(), need,
                                       &zero, d.y, scratch_y.mutable_raw_data());
      });
    };
    choose_conv_algorithm(
        env(), ctx, search_, "fwd", p, d, candidates, workspace_of,
        str_cat("convolution algorithm for X ", x.description(), " and W ", w.description()));
  }

  std::string auto_pad_;
  int64_t group_;
  std::vector<int64_t> kernel_shape_, pads_, strides_, dilations_;
  bool fused_;
  Activation act_;
  std::shared_ptr<cudnnActivationStruct> relu_;  // for the one-call path; null without Relu
  ConvAlgoSearch search_;
  ConvShapeCache<Descriptors> shapes_;
};

std::string check_conv(const ep::ClaimQuery& q) {
  auto rank = q.rank(1);
  const auto kernel = q.attr_ints("kernel_shape");
  const size_t r = rank ? *rank : kernel.size() + 2;
  if (!rank && kernel.empty()) return "W's rank is not known and kernel_shape is not given";
  if (r < 3 || r > 5) return str_cat("W has rank ", r, "; the CUDA kernel takes 1-D to 3-D");
  const std::string auto_pad = q.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    // Pads that differ at the two ends of an axis run on a zero-bordered
    // copy of X (cuDNN pads both ends alike).
    for (int64_t p : q.attr_ints("pads"))
      if (p < 0) return "negative pads";
  } else if (auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return str_cat("auto_pad '", auto_pad, "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }
  return "";
}

// FusedConv: Conv's checks, and an activation the kernel runs.
std::string check_fused_conv(const ep::ClaimQuery& q) {
  if (std::string why = check_conv(q); !why.empty()) return why;
  // The epilogue adds Z element for element: a Z that broadcasts (a
  // constant, or one of lower rank) is the CPU's.
  if (q.has_input(3)) {
    const auto w_rank = q.rank(1), z_rank = q.rank(3);
    if (q.constant(3)) return "Z (input 3) is a constant; the CUDA epilogue takes a Z of Y's shape";
    if (w_rank && z_rank && *w_rank != *z_rank)
      return str_cat("Z (input 3) has rank ", *z_rank, ", not Y's ", *w_rank,
                     "; the CUDA epilogue takes a Z of Y's shape");
  }
  const std::string kind = q.attr_string("activation", "");
  const size_t params = q.attr_floats("activation_params").size();
  if (kind.empty() || (kind == "Relu" && params == 0) || (kind == "LeakyRelu" && params == 1) ||
      (kind == "Clip" && params == 2))
    return "";
  return str_cat("activation '", kind, "' with ", params,
                 " parameters is not one the CUDA kernel runs (Relu, LeakyRelu, Clip)");
}

}  // namespace

void register_cuda_conv(CudaOpTable& t) {
  t.add<CudaConv>({"", "Conv", 1, ep::kOpsetMax, {{"T", {0, 1, 2}, kCudaFloats}}}, check_conv);
  // What the optimizer fuses for a CUDA session: Conv (+ residual Z) (+ activation).
  t.add<CudaConv>(
      {"com.tessera", "FusedConv", 1, ep::kOpsetMax, {{"T", {0, 1, 2, 3}, kCudaFloats}}},
      check_fused_conv);
}

}  // namespace tessera::cuda
