// ConvTranspose (1-D to 3-D) through cuDNN: the transposed convolution is
// exactly cudnnConvolutionBackwardData with X as dy, W ([C_in, C_out/group,
// k...], the forward filter's layout) as the filter and Y as dx. Output sizes
// follow the spec as the CPU provider resolves them (output_shape,
// output_padding, auto_pad, pads). cuDNN pads both ends alike and sizes dx
// from dy up to stride - 1 extra end positions, so:
//   - the begin pad is cuDNN's pad (it must not be negative);
//   - with D = stride * (in - 1) + extent - 2 * pad_begin (the smallest dx
//     cuDNN accepts), an output of D .. D + stride - 1 is computed directly
//     (end positions past the last window are zero, as the spec has them);
//   - a smaller output (end pad larger than begin pad plus output_padding)
//     is computed into a D-sized buffer and its leading corner copied out;
//   - a larger one (output_padding or output_shape beyond D + stride - 1)
//     fails at run time, and is declined when the attributes show it.
// The algorithm follows cudnn_conv_algo_search like Conv's, per input shape.
#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

#include "providers/cuda/cnn_launch.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_cnn_ops.hpp"
#include "providers/cuda/cudnn_util.hpp"

namespace tessera::cuda {

namespace {

// The output geometry for one pair of input shapes.
struct Geometry {
  std::vector<int64_t> out;     // Y's spatial dims
  std::vector<int64_t> buffer;  // dx's spatial dims as cuDNN computes them (>= out)
  std::vector<int64_t> pad, strides, dilations;
  bool cropped = false;  // buffer != out
};

// The problem's Y is cuDNN's dx (the buffer), larger than the node's Y when
// cropped; the bias is added to the node's Y.
struct Descriptors : ConvDescriptors {
  Geometry geo;
  Shape out, buffer;  // Y's shape, and dx's
};

class CudaConvTranspose : public CudaKernel {
 public:
  CudaConvTranspose(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        auto_pad_(info.attr_string("auto_pad", "NOTSET")),
        group_(info.attr_int("group", 1)),
        kernel_shape_(info.attr_ints("kernel_shape")),
        pads_(info.attr_ints("pads")),
        strides_(info.attr_ints("strides")),
        dilations_(info.attr_ints("dilations")),
        output_padding_(info.attr_ints("output_padding")),
        output_shape_(info.attr_ints("output_shape")) {
    if (auto_pad_.empty()) auto_pad_ = "NOTSET";
    search_ = conv_search_for(*env, info);
    if (group_ < 1) info.fail_node("group ", group_, " must be at least 1");
  }

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    const Tensor* b = ctx.input(2);
    if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
      ctx.fail_node("X ", x.description(), " and W ", w.description(),
                    " must both have rank 3, 4 or 5");
    if (w.shape()[0] != x.shape()[1] || x.shape()[1] % group_ != 0)
      ctx.fail_node("channels do not match: X ", x.description(), ", W ", w.description(),
                    ", group ", group_, " (W must be [C_in, C_out / group, k...])");
    const int64_t c_out = w.shape()[1] * group_;
    if (b && (b->rank() != 1 || b->shape()[0] != c_out))
      ctx.fail_node("B ", b->description(), " must have the ", c_out, " output channels");
    auto handle = scratch.cudnn(env());
    check_cudnn(cudnnSetStream(handle.get(), stream), "cudnnSetStream");
    std::shared_ptr<const Descriptors> d = descriptors(ctx, handle.get(), x, w, stream);
    Tensor& y = ctx.output(0, d->out);
    if (y.num_elements() == 0) return;
    if (x.num_elements() == 0)
      ctx.fail_node("X ", x.description(), " is empty but Y ", y.description(),
                    " is not; the CUDA kernel needs a non-empty X");
    void* workspace = scratch.bytes(d->workspace);
    void* dx =
        d->geo.cropped
            ? scratch.bytes(data_type_storage_bytes(x.dtype(), size_t(d->buffer.num_elements())))
            : y.mutable_raw_data();
    const float one = 1.0f, zero = 0.0f;
    check_cudnn(
        cudnnConvolutionBackwardData(handle.get(), &one, d->w, w.raw_data(), d->x, x.raw_data(),
                                     d->conv, cudnnConvolutionBwdDataAlgo_t(d->algo), workspace,
                                     d->workspace, &zero, d->y, dx),
        "cudnnConvolutionBackwardData (ConvTranspose)");
    if (d->geo.cropped) {
      const size_t r = d->geo.out.size();
      int in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
      for (size_t i = 0; i < r; ++i) {
        in[3 - r + i] = int(d->geo.buffer[i]);
        out[3 - r + i] = int(d->geo.out[i]);
      }
      check_cuda(launch_crop(int(data_type_storage_bytes(x.dtype(), 1)), dx, y.mutable_raw_data(),
                             d->out[0] * d->out[1], in, out, stream),
                 "launch of ConvTranspose's crop kernel");
    }
    if (b)
      check_cuda(launch_channel_epilogue(elem_type(y.dtype()), y.mutable_raw_data(), b->raw_data(),
                                         nullptr, y.num_elements(), d->out[1],
                                         y.num_elements() / (d->out[0] * d->out[1]), false,
                                         UnaryOp::kRelu, 0.0f, 0.0f, stream),
                 "launch of ConvTranspose's bias kernel");
  }

 private:
  // The spec's output size and pads (as the CPU provider computes them),
  // then cuDNN's dx size for them.
  Geometry geometry(const ep::KernelContext& ctx, const Shape& x, const Shape& w) const {
    const size_t r = x.rank() - 2;
    std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
    if (!kernel_shape_.empty() && kernel_shape_ != kernel)
      ctx.fail_node("kernel_shape does not match W ", w.to_string());
    for (int64_t k : kernel)
      if (k < 1) ctx.fail_node("W ", w.to_string(), " has an empty kernel");
    auto per_dim = [&](const std::vector<int64_t>& v, int64_t def, const char* name) {
      if (v.empty()) return std::vector<int64_t>(r, def);
      if (v.size() != r) ctx.fail_node(name, " needs ", r, " values, got ", v.size());
      return v;
    };
    Geometry g;
    g.strides = per_dim(strides_, 1, "strides");
    g.dilations = per_dim(dilations_, 1, "dilations");
    const auto opad = per_dim(output_padding_, 0, "output_padding");
    for (size_t i = 0; i < r; ++i)
      if (g.strides[i] < 1 || g.dilations[i] < 1)
        ctx.fail_node("strides and dilations must be positive");
    std::vector<int64_t> oshape = output_shape_;
    if (oshape.size() == r + 2) oshape.erase(oshape.begin(), oshape.begin() + 2);
    if (!oshape.empty() && oshape.size() != r)
      ctx.fail_node("output_shape needs ", r, " spatial values, got ", output_shape_.size());
    const bool same = auto_pad_ == "SAME_UPPER" || auto_pad_ == "SAME_LOWER";
    g.out.resize(r);
    g.buffer.resize(r);
    g.pad.resize(r);
    for (size_t i = 0; i < r; ++i) {
      const int64_t in = x[2 + i], s = g.strides[i];
      const int64_t ek = (kernel[i] - 1) * g.dilations[i] + 1;
      const int64_t full = s * (in - 1) + opad[i] + ek;
      int64_t pb = 0, pe = 0;
      if (!oshape.empty() || same) {
        g.out[i] = !oshape.empty() ? oshape[i] : in * s;
        // Floor halves, so that extra output lands at the end (as the CPU does).
        const int64_t total = full - g.out[i];
        const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        pb = auto_pad_ == "SAME_UPPER" ? half : total - half;
        pe = total - pb;
      } else {
        if (auto_pad_ == "NOTSET" && !pads_.empty()) {
          if (pads_.size() != 2 * r) ctx.fail_node("pads needs ", 2 * r, " values");
          pb = pads_[i];
          pe = pads_[r + i];
        }
        g.out[i] = full - pb - pe;
      }
      if (g.out[i] < 0)
        ctx.fail_node("output dim ", i, " comes out negative (", g.out[i], ") for X ",
                      x.to_string(), " and W ", w.to_string());
      if (pb < 0)
        ctx.fail_node("the begin pad of spatial axis ", i, " comes out negative (", pb,
                      "); cuDNN cannot pad by a negative amount");
      const int64_t smallest = s * (in - 1) + ek - 2 * pb;
      if (g.out[i] - smallest >= s)
        ctx.fail_node("output dim ", i, " (", g.out[i], ") is ", g.out[i] - smallest,
                      " past the smallest size cuDNN computes for it (", smallest,
                      "); it takes at most stride - 1 = ", s - 1, " more");
      g.buffer[i] = std::max(g.out[i], smallest);
      g.cropped |= g.buffer[i] != g.out[i];
      g.pad[i] = pb;
    }
    return g;
  }

  std::shared_ptr<const Descriptors> descriptors(const ep::KernelContext& ctx, cudnnHandle_t h,
                                                 const Tensor& x, const Tensor& w,
                                                 cudaStream_t stream) const {
    return shapes_.get(x.shape(), w.shape(), [&] {
      auto d = std::make_shared<Descriptors>();
      d->geo = geometry(ctx, x.shape(), w.shape());
      const Geometry& g = d->geo;
      std::vector<int64_t> out = {x.shape()[0], w.shape()[1] * group_}, buffer = out;
      out.insert(out.end(), g.out.begin(), g.out.end());
      buffer.insert(buffer.end(), g.buffer.begin(), g.buffer.end());
      d->out = Shape(out);
      d->buffer = Shape(buffer);
      if (d->out.num_elements() == 0 || x.shape().num_elements() == 0) {
        // Nothing for cuDNN to compute (run() returns or fails before using it).
        return d;
      }
      // 1-D runs as 2-D with a height of 1 (cuDNN's tensors have 4 or 5 dims).
      const bool one_d = x.rank() == 3;
      ConvProblem p;
      p.type = x.dtype();
      p.x = cudnn_dims(ctx, x.shape(), one_d);
      p.w = cudnn_dims(ctx, w.shape(), one_d);
      p.y = cudnn_dims(ctx, d->buffer, one_d);  // cuDNN's dx
      p.group = group_;
      set_conv_window(ctx, one_d, g.pad, g.strides, g.dilations, p);
      set_conv_descriptors(env(), *d, p);
      choose_algorithm(ctx, h, *d, p, x, w, stream);
      return d;
    });
  }

  void choose_algorithm(const ep::KernelContext& ctx, cudnnHandle_t h, Descriptors& d,
                        const ConvProblem& p, const Tensor& x, const Tensor& w,
                        cudaStream_t stream) const {
    auto workspace_of = [&](int algo, size_t* need) {
      return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, d.x, d.conv, d.y,
                                                          cudnnConvolutionBwdDataAlgo_t(algo),
                                                          need) == CUDNN_STATUS_SUCCESS;
    };
    // The candidates of the search, best first.
    auto candidates = [&](size_t& limit) {
      if (search_ == ConvAlgoSearch::kDefault)
        // ALGO_1, deterministic; ALGO_0 (atomics) where cuDNN has no ALGO_1
        // for the configuration (its workspace query then fails).
        return std::vector<int>{CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                                CUDNN_CONVOLUTION_BWD_DATA_ALGO_0};
      constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
      cudnnConvolutionBwdDataAlgoPerf_t perf[kCount];
      int returned = 0;
      check_cudnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.x, d.conv, d.y, kCount,
                                                              &returned, perf),
                  "cudnnGetConvolutionBackwardDataAlgorithm_v7");
      std::vector<int> listed;
      for (int i = 0; i < returned; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS) listed.push_back(int(perf[i].algo));
      if (search_ != ConvAlgoSearch::kExhaustive) return listed;
      // Times every listed algorithm on scratch memory of the real sizes.
      Tensor scratch_dx(x.dtype(), d.buffer, ctx.allocator());
      Tensor ws = search_workspace(ctx, limit);
      const float one = 1.0f, zero = 0.0f;
      return rank_by_device_time(stream, listed, limit, workspace_of, [&](int algo, size_t need) {
        return cudnnConvolutionBackwardData(h, &one, d.w, w.raw_data(), d.x, x.raw_data(), d.conv,
                                            cudnnConvolutionBwdDataAlgo_t(algo),
                                            ws.mutable_raw_data(), need, &zero, d.y,
                                            scratch_dx.mutable_raw_data());
      });
    };
    choose_conv_algorithm(
        env(), ctx, search_, "bwd_data", p, d, candidates, workspace_of,
        str_cat("backward-data algorithm for X ", x.description(), " and W ", w.description()));
  }

  std::string auto_pad_;
  int64_t group_;
  std::vector<int64_t> kernel_shape_, pads_, strides_, dilations_, output_padding_, output_shape_;
  ConvAlgoSearch search_;
  ConvShapeCache<Descriptors> shapes_;
};

std::string check_conv_transpose(const ep::ClaimQuery& q) {
  auto rank = q.rank(1);
  const auto kernel_attr = q.attr_ints("kernel_shape");
  if (!rank && kernel_attr.empty()) return "W's rank is not known and kernel_shape is not given";
  const size_t r = rank ? *rank : kernel_attr.size() + 2;
  if (r < 3 || r > 5) return str_cat("W has rank ", r, "; the CUDA kernel takes 1-D to 3-D");
  const size_t n = r - 2;
  if (q.attr_int("group", 1) < 1) return "group must be at least 1";
  std::string auto_pad = q.attr_string("auto_pad", "NOTSET");
  if (auto_pad.empty()) auto_pad = "NOTSET";
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID")
    return str_cat("auto_pad '", auto_pad, "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  const auto strides = q.attr_ints("strides"), dilations = q.attr_ints("dilations");
  const auto opad = q.attr_ints("output_padding"), pads = q.attr_ints("pads");
  for (const auto* v : {&strides, &dilations})
    for (int64_t e : *v)
      if (e < 1) return "strides and dilations must be positive";
  for (int64_t p : pads)
    if (p < 0) return "negative pads";
  if (auto_pad == "NOTSET" && !pads.empty() && pads.size() != 2 * n)
    return str_cat("pads has ", pads.size(), " values, not ", 2 * n);
  if (!q.attr_ints("output_shape").empty()) return "";  // sizes checked at run time
  // The kernel's extent per axis, when W's dims or kernel_shape say it.
  std::vector<std::optional<int64_t>> kernel(n);
  if (kernel_attr.size() == n)
    for (size_t i = 0; i < n; ++i) kernel[i] = kernel_attr[i];
  else if (auto w = q.dims(1); w && w->size() == r)
    for (size_t i = 0; i < n; ++i) kernel[i] = (*w)[2 + i];
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = strides.size() == n ? strides[i] : 1;
    const int64_t d = dilations.size() == n ? dilations[i] : 1;
    const int64_t op = opad.size() == n ? opad[i] : 0;
    if (same) {
      // The output is in * stride, the pads total extent + output_padding -
      // stride whatever `in` is; the begin pad must be cuDNN's (not negative)
      // and leave the output within stride - 1 of cuDNN's smallest size.
      if (!kernel[i]) continue;
      const int64_t extent = (*kernel[i] - 1) * d + 1, total = extent + op - s;
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      const int64_t pb = auto_pad == "SAME_UPPER" ? half : total - half;
      if (pb < 0)
        return str_cat("auto_pad ", auto_pad, " gives spatial axis ", i, " a negative begin pad (",
                       pb, "); cuDNN cannot pad by a negative amount");
      if (2 * pb >= extent)
        return str_cat("auto_pad ", auto_pad, " on spatial axis ", i,
                       " asks for an output past cuDNN's output size");
    } else {
      const bool explicit_pads = auto_pad == "NOTSET" && pads.size() == 2 * n;
      const int64_t pb = explicit_pads ? pads[i] : 0, pe = explicit_pads ? pads[n + i] : 0;
      if (op + pb - pe >= s)
        return str_cat("output_padding ", op, " with pads ", pb, " and ", pe, " on spatial axis ",
                       i, " reaches at least the stride ", s, " past cuDNN's output size");
    }
  }
  return "";
}

}  // namespace

void register_cuda_conv_transpose(CudaOpTable& t) {
  t.add<CudaConvTranspose>({"", "ConvTranspose", 1, ep::kOpsetMax, {{"T", {0, 1, 2}, kCudaFloats}}},
                           check_conv_transpose);
}

}  // namespace tessera::cuda
