// Kernels of the blocked layout (see nchwc_kernels.hpp). A blocked tensor for
// a logical float [N, C, spatial...] is [N, ceil(C/16), spatial..., 16] with
// its padded channels zero; every kernel here writes that invariant. The
// convolution, reorders and global pool take 2-D and 3-D tensors, the
// windowed pools 2-D ones. The logical channel
// count is not in the blocked shape: NchwcConv knows it from W, pools need
// only blocks, and ReorderFromNchwc takes it as the `channels` attribute.
#include "providers/cpu/nn/nchwc_kernels.hpp"

#include <algorithm>

#include "linalg/nchwc.hpp"
#include "linalg/winograd.hpp"
#include "ops/broadcast.hpp"
#include "providers/cpu/fused/fused_activation.hpp"
#include "providers/cpu/nn/nn_common.hpp"

namespace tessera::cpu::nn {

namespace {

namespace nchwc = linalg::nchwc;
using nchwc::kBlock;

// Fails naming the node unless `t` is blocked: [N, Cb, H, W, 16], or
// [N, Cb, D, H, W, 16] where `three_d` allows.
void check_blocked(const ep::KernelContext& ctx, const Tensor& t, const char* what,
                   bool three_d = false) {
  const auto& d = t.shape().dims();
  if ((d.size() != 5 && !(three_d && d.size() == 6)) || d.back() != kBlock)
    ctx.fail_node(what, " must be blocked [N, C/16, ", three_d ? "(D,) " : "", "H, W, 16], got ",
                  t.shape().to_string());
}

// A blocked tensor's pixels per block: its spatial dims' product.
int64_t blocked_pixels(const Tensor& t) { return t.shape().size_from(2) / kBlock; }

// ---- reorders ----

// Attribute channels_last (0 or 1): a 1 reads / writes [N, (D,) H, W, C]
// instead of [N, C, (D,) H, W] (a Transpose beside the reorder, folded in).
bool channels_last_attr(const ep::KernelInfo& info) {
  const int64_t v = info.attr_int("channels_last", 0);
  if (v != 0 && v != 1) info.fail_node("channels_last must be 0 or 1, got ", v);
  return v == 1;
}

class ReorderToKernel : public ep::OpKernel {
 public:
  explicit ReorderToKernel(const ep::KernelInfo& info)
      : channels_last_(channels_last_attr(info)), channels_(info.attr_int("channels", -1)) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const auto& xd = X.shape().dims();
    if (xd.size() != 4 && xd.size() != 5)
      ctx.fail_node(
          "X must be ",
          channels_last_ ? "[N, H, W, C] or [N, D, H, W, C]" : "[N, C, H, W] or [N, C, D, H, W]",
          ", got ", X.shape().to_string());
    const int64_t C = channels_last_ ? xd.back() : xd[1];
    // The optimizer's count, when it gave one: the blocked value's readers
    // were chosen for it.
    if (channels_ >= 0 && C != channels_)
      ctx.fail_node("X ", X.shape().to_string(), " has ", C, " channels, not the ", channels_,
                    " of attribute channels");
    std::vector<int64_t> yd = {xd[0], nchwc::blocks(C)};
    yd.insert(yd.end(), xd.begin() + (channels_last_ ? 1 : 2), xd.end() - (channels_last_ ? 1 : 0));
    yd.push_back(kBlock);
    Tensor& Y = ctx.output(0, Shape(yd));
    if (Y.num_elements() == 0) return;
    const int64_t pixels = X.num_elements() / (xd[0] * C);
    if (channels_last_)
      nchwc::to_blocked_channels_last(X.data<float>(), xd[0], C, pixels, Y.mutable_data<float>(),
                                      &ctx.thread_pool());
    else
      nchwc::to_blocked(X.data<float>(), xd[0], C, pixels, Y.mutable_data<float>(),
                        &ctx.thread_pool());
  }

 private:
  bool channels_last_;
  int64_t channels_;  // -1: any
};

class ReorderFromKernel : public ep::OpKernel {
 public:
  explicit ReorderFromKernel(const ep::KernelInfo& info)
      : channels_(info.attr_int("channels")), channels_last_(channels_last_attr(info)) {
    if (channels_ < 0) info.fail_node("channels must be non-negative, got ", channels_);
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    check_blocked(ctx, X, "X", true);
    const auto& xd = X.shape().dims();
    if (xd[1] != nchwc::blocks(channels_))
      ctx.fail_node("X ", X.shape().to_string(), " has ", xd[1], " channel blocks but channels ",
                    channels_, " needs ", nchwc::blocks(channels_));
    std::vector<int64_t> yd = {xd[0]};
    if (!channels_last_) yd.push_back(channels_);
    yd.insert(yd.end(), xd.begin() + 2, xd.end() - 1);
    if (channels_last_) yd.push_back(channels_);
    Tensor& Y = ctx.output(0, Shape(yd));
    if (Y.num_elements() == 0) return;
    const int64_t pixels = blocked_pixels(X);
    if (channels_last_)
      nchwc::from_blocked_channels_last(X.data<float>(), xd[0], channels_, pixels,
                                        Y.mutable_data<float>(), &ctx.thread_pool());
    else
      nchwc::from_blocked(X.data<float>(), xd[0], channels_, pixels, Y.mutable_data<float>(),
                          &ctx.thread_pool());
  }

 private:
  int64_t channels_;
  bool channels_last_;
};

// ---- convolution ----

class NchwcConvKernel : public ep::OpKernel {
 public:
  explicit NchwcConvKernel(const ep::KernelInfo& info)
      : group_(info.attr_int("group", 1)), input_blocked_(info.attr_int("input_layout", 1) != 0) {
    attrs_.parse(info, false);
    const int64_t layout = info.attr_int("input_layout", 1);
    if (layout != 0 && layout != 1)
      info.fail_node("input_layout must be 1 (blocked) or 0 (plain NCHW), got ", layout);
    act_ = parse_fused_activation(info);
    const Tensor* w = info.constant_input(1);
    if (!w)
      info.fail_node("W ('", info.has_input(1) ? info.node().inputs[1] : std::string(),
                     "') must be a constant initializer: the filter is packed at kernel creation");
    if (w->dtype() != DataType::kFloat)
      info.fail_node("W must be float, got ", data_type_name(w->dtype()));
    const auto& wd = w->shape().dims();
    if (wd.size() != 4 && wd.size() != 5)
      info.fail_node("W must be [M, C/group, KH, KW] or [M, C, KD, KH, KW], got ",
                     w->shape().to_string());
    if (group_ <= 0) info.fail_node("group must be positive, got ", group_);
    if (wd.size() == 5 && group_ != 1)
      info.fail_node("a 3-D convolution (W ", w->shape().to_string(), ") must have group 1, got ",
                     group_);
    M_ = wd[0];
    if (__builtin_mul_overflow(wd[1], group_, &C_))
      info.fail_node("W ", w->shape().to_string(), " with group ", group_,
                     " has more input channels than int64 holds");
    const bool depthwise = wd[1] == 1 && group_ == M_;
    if (group_ != 1 && !depthwise &&
        (wd[1] % kBlock != 0 || M_ % group_ != 0 || (M_ / group_) % kBlock != 0 || layout != 1))
      info.fail_node("group ", group_, " with W ", w->shape().to_string(),
                     ": only group 1, depthwise (group == C == M), or groups of whole blocks "
                     "(C/group and M/group multiples of 16, blocked input) are supported");
    kernel_.assign(wd.begin() + 2, wd.end());
    w_shape_ = w->shape().to_string();
    if (!attrs_.kernel.empty() && attrs_.kernel != kernel_)
      info.fail_node("kernel_shape ", dims_str(attrs_.kernel), " does not match W ",
                     w->shape().to_string());
    nchwc::Conv2dShape s = base_shape();
    const std::string algorithm = info.attr_string("algorithm", "direct");
    const int64_t tile = algorithm == "winograd_4x4" ? 4 : algorithm == "winograd_2x2" ? 2 : 0;
    if (algorithm != "direct" && !tile)
      info.fail_node("algorithm must be \"direct\", \"winograd_4x4\" or \"winograd_2x2\", got \"",
                     algorithm, "\"");
    if (tile) {
      auto all_one = [](const std::vector<int64_t>& v) {
        return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
      };
      s.sh = s.sw = s.dh = s.dw = 1;  // checked here; the window resolves them per run
      if (!nchwc::winograd_supported(s) || kernel_.size() != 2 || !all_one(attrs_.strides) ||
          !all_one(attrs_.dilations))
        info.fail_node("algorithm \"", algorithm, "\" needs a dense 3x3 filter with strides and ",
                       "dilations 1 and a blocked input; got W ", w->shape().to_string(),
                       ", group ", group_, ", strides ", dims_str(attrs_.strides), ", dilations ",
                       dims_str(attrs_.dilations), ", input_layout ", layout);
      winograd_ = nchwc::WinogradFilter(w->data<float>(), M_, C_, tile);
      return;
    }
    try {
      if (group_ != 1 && !depthwise) {
        // Groups of whole blocks: one dense filter a group (W's rows of a
        // group are contiguous), run on the group's blocks of X and Y.
        nchwc::Conv2dShape sg = group_shape(s);
        const int64_t per = (M_ / group_) * wd[1] * wd[2] * wd[3];
        for (int64_t gi = 0; gi < group_; ++gi)
          grouped_.emplace_back(w->data<float>() + gi * per, sg);
      } else {
        packed_ = nchwc::PackedFilter(w->data<float>(), s);
      }
    } catch (const Error& e) {
      info.fail_node(e.what());
    }
  }

  // The filter is packed at creation; the run reads nothing of W.
  bool reads_constant_data(size_t i) const override { return i != 1; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor* B = ctx.input(2);
    const Tensor* Z = ctx.num_inputs() > 3 ? ctx.input(3) : nullptr;
    const auto& xd = X.shape().dims();
    const size_t spatial = kernel_.size();  // 2, or 3 for a 3-D convolution
    const char* dims = spatial == 3 ? "D, H, W" : "H, W";
    if (input_blocked_) {
      if (xd.size() != spatial + 3 || xd.back() != kBlock || xd[1] != nchwc::blocks(C_))
        ctx.fail_node("blocked X must be [N, ", nchwc::blocks(C_), ", ", dims, ", 16] for ", C_,
                      " input channels (W ", w_shape_, ", group ", group_, "), got ",
                      X.shape().to_string());
    } else if (xd.size() != spatial + 2 || xd[1] != C_) {
      ctx.fail_node("plain X must be [N, ", C_, ", ", dims, "] (W ", w_shape_, "), got ",
                    X.shape().to_string());
    }
    if (B && (B->rank() != 1 || B->shape()[0] != M_))
      ctx.fail_node("B ", B->shape().to_string(), " must be [", M_, "]");
    const Window g = resolve_window(
        ctx, attrs_, std::vector<int64_t>(xd.begin() + 2, xd.begin() + 2 + spatial), kernel_);
    std::vector<int64_t> yd = {xd[0], nchwc::blocks(M_)};
    yd.insert(yd.end(), g.out.begin(), g.out.end());
    yd.push_back(kBlock);
    const Shape y_shape(yd);
    nchwc::Conv2dShape s = base_shape();
    set_geometry(s, xd[0], g);
    const float* bias = B ? B->data<float>() : nullptr;
    ThreadPool* pool = &ctx.thread_pool();
    if (Z) {
      check_blocked(ctx, *Z, "residual Z", true);
      if (Z->shape()[1] != y_shape[1])
        ctx.fail_node("residual Z ", Z->shape().to_string(), " must have the output's ", y_shape[1],
                      " channel blocks (output ", y_shape.to_string(), ")");
      if (Z->shape() != y_shape) return broadcast_residual(ctx, s, X, bias, *Z, y_shape);
    }
    // conv2d reads each residual element just before it writes the same
    // output element, so the output may take the residual's memory: the
    // residual's lines are then read and written back, not read beside a
    // second stream of new lines.
    Tensor& Y = Z ? ctx.output_reusing(0, 3, y_shape) : ctx.output(0, y_shape);
    if (Y.num_elements() == 0) return;
    convolve(s, X.data<float>(), bias, Z ? Z->data<float>() : nullptr, act_,
             Y.mutable_data<float>(), pool);
  }

 private:
  nchwc::Conv2dShape base_shape() const {
    nchwc::Conv2dShape s;
    s.C = C_;
    s.M = M_;
    s.KD = kernel_.size() == 3 ? kernel_[0] : 1;
    s.KH = kernel_[kernel_.size() - 2];
    s.KW = kernel_.back();
    s.group = group_;
    s.input_blocked = input_blocked_;
    return s;
  }

  void convolve(const nchwc::Conv2dShape& s, const float* x, const float* bias,
                const float* residual, const linalg::ActivationSpec& act, float* y,
                ThreadPool* pool) const {
    if (!winograd_.empty())
      nchwc::winograd_conv2d(s, winograd_, x, bias, residual, act, y, pool);
    else if (!grouped_.empty())
      convolve_groups(s, x, bias, residual, act, y, pool);
    else
      nchwc::conv2d(s, packed_, x, bias, residual, act, y, pool);
  }

  // One image's group: C/group -> M/group channels, a dense convolution.
  nchwc::Conv2dShape group_shape(const nchwc::Conv2dShape& s) const {
    nchwc::Conv2dShape g = s;
    g.N = 1;
    g.C = C_ / group_;
    g.M = M_ / group_;
    g.group = 1;
    return g;
  }

  // Each (image, group) is a dense convolution over its own blocks of X and
  // Y (blocked layout: a group's channels are whole consecutive blocks).
  // With many groups (RegNet's 16-channel ones) the threads take groups
  // whole; with few, each group's convolution takes the threads.
  void convolve_groups(const nchwc::Conv2dShape& s, const float* x, const float* bias,
                       const float* residual, const linalg::ActivationSpec& act, float* y,
                       ThreadPool* pool) const {
    const nchwc::Conv2dShape g = group_shape(s);
    const int64_t in_block = s.H * s.W * kBlock, out_block = s.OH * s.OW * kBlock;
    const int64_t gin = g.C / kBlock, gout = g.M / kBlock;
    auto run = [&](int64_t item, ThreadPool* inner) {
      const int64_t n = item / group_, gi = item % group_;
      const int64_t xo = (n * nchwc::blocks(C_) + gi * gin) * in_block;
      const int64_t yo = (n * nchwc::blocks(M_) + gi * gout) * out_block;
      nchwc::conv2d(g, grouped_[size_t(gi)], x + xo, bias ? bias + gi * g.M : nullptr,
                    residual ? residual + yo : nullptr, act, y + yo, inner);
    };
    const int64_t items = s.N * group_;
    const int64_t threads = pool ? pool->num_threads() : 1;
    if (items >= 2 * threads && threads > 1) {
      const double cost = 2.0 * double(g.C * g.M * s.KH * s.KW * s.OH * s.OW);
      pool->parallel_for(items, cost, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) run(i, nullptr);
      });
    } else {
      for (int64_t i = 0; i < items; ++i) run(i, pool);
    }
  }

  // A residual that broadcasts to the output without matching it (e.g. a
  // [1, C/16, 1, 1, 16] constant): convolve, then add it and activate here.
  // Blocked broadcasting over N, H and W is the logical one, channels align.
  void broadcast_residual(ep::KernelContext& ctx, const nchwc::Conv2dShape& s, const Tensor& X,
                          const float* bias, const Tensor& Z, const Shape& y_shape) const {
    Shape out_shape;
    try {
      out_shape = ops::broadcast_shapes({y_shape, Z.shape()});
    } catch (const Error&) {
      out_shape = Shape{};
    }
    if (out_shape != y_shape)
      ctx.fail_node("residual Z ", Z.shape().to_string(), " does not broadcast to the output ",
                    y_shape.to_string());
    Tensor& Y = ctx.output(0, y_shape);
    if (Y.num_elements() == 0) return;
    float* y = Y.mutable_data<float>();
    convolve(s, X.data<float>(), bias, nullptr, {}, y, &ctx.thread_pool());
    const float* z = Z.data<float>();
    ops::BroadcastIndexer bi({y_shape, Z.shape()}, y_shape);
    const int64_t valid_last = M_ - (nchwc::blocks(M_) - 1) * kBlock;  // lanes of the last block
    const int64_t block_elems = y_shape.num_elements() / (y_shape[0] * y_shape[1]);
    ops::for_each_broadcast_row(
        bi, 0, bi.num_rows(), [&](int64_t o, const int64_t* off, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            const int64_t e = o + i;
            const bool last = (e / block_elems) % y_shape[1] == y_shape[1] - 1;
            y[e] = last && e % kBlock >= valid_last
                       ? 0.f  // padded channels stay zero whatever the activation
                       : activate(act_, y[e] + z[off[1] + i * bi.inner_stride(1)]);
          }
        });
  }

  WindowAttrs attrs_;
  int64_t group_;
  bool input_blocked_;
  int64_t M_ = 0, C_ = 0;
  std::vector<int64_t> kernel_;
  std::string w_shape_;  // for messages
  linalg::ActivationSpec act_;
  nchwc::PackedFilter packed_;
  nchwc::WinogradFilter winograd_;            // set instead of packed_ for a Winograd algorithm
  std::vector<nchwc::PackedFilter> grouped_;  // instead of packed_: one a group
};

// ---- pools ----

class NchwcPoolKernel : public ep::OpKernel {
 public:
  NchwcPoolKernel(const ep::KernelInfo& info, bool is_max) : is_max_(is_max) {
    attrs_.parse(info, true);
    if (attrs_.kernel.size() != 2)
      info.fail_node("kernel_shape must have 2 values (2-D pooling), got ",
                     dims_str(attrs_.kernel));
    count_include_pad_ = info.attr_int("count_include_pad", 0) != 0;
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    check_blocked(ctx, X, "X");
    const auto& xd = X.shape().dims();
    const Window g = resolve_window(ctx, attrs_, {xd[2], xd[3]}, attrs_.kernel);
    Tensor& Y = ctx.output(0, Shape{xd[0], xd[1], g.out[0], g.out[1], kBlock});
    if (Y.num_elements() == 0) return;
    nchwc::Pool2dShape s;
    set_geometry(s, xd[0], g);
    s.C = xd[1] * kBlock;  // the pools need only whole blocks
    s.KH = g.kernel[0];
    s.KW = g.kernel[1];
    s.pe_h = g.pads_end[0];
    s.pe_w = g.pads_end[1];
    s.count_include_pad = count_include_pad_;
    if (is_max_)
      nchwc::max_pool2d(s, X.data<float>(), Y.mutable_data<float>(), &ctx.thread_pool());
    else
      nchwc::avg_pool2d(s, X.data<float>(), Y.mutable_data<float>(), &ctx.thread_pool());
  }

 private:
  bool is_max_;
  WindowAttrs attrs_;
  bool count_include_pad_ = false;
};

class NchwcGlobalAveragePoolKernel : public ep::OpKernel {
 public:
  explicit NchwcGlobalAveragePoolKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    check_blocked(ctx, X, "X", true);
    const auto& xd = X.shape().dims();
    std::vector<int64_t> yd(xd.size(), 1);
    yd[0] = xd[0], yd[1] = xd[1], yd.back() = kBlock;
    Tensor& Y = ctx.output(0, Shape(yd));
    if (Y.num_elements() == 0) return;
    nchwc::global_avg_pool(xd[0], xd[1] * kBlock, blocked_pixels(X), X.data<float>(),
                           Y.mutable_data<float>(), &ctx.thread_pool());
  }
};

}  // namespace

void register_nchwc_kernels(ep::KernelRegistry& r) {
  const std::vector<DataType> f = {DataType::kFloat};
  const std::string dom = "com.tessera";
  // [N, C, (D,) H, W] -> blocked [N, ceil(C/16), (D,) H, W, 16], padded
  // channels zero; with channels_last 1, from [N, (D,) H, W, C].
  r.add<ReorderToKernel>({dom, "ReorderToNchwc", 1, ep::kOpsetMax, {{"T", {0}, f}}});
  // Blocked -> [N, channels, (D,) H, W] (attribute channels); with
  // channels_last 1, [N, (D,) H, W, channels].
  r.add<ReorderFromKernel>({dom, "ReorderFromNchwc", 1, ep::kOpsetMax, {{"T", {0}, f}}});
  // FusedConv on blocked tensors, 2-D or 3-D: X blocked (input_layout 1) or
  // plain NCHW / NCDHW (input_layout 0), constant W, optional B [M] and
  // blocked residual Z.
  r.add<NchwcConvKernel>({dom, "NchwcConv", 1, ep::kOpsetMax, {{"T", {0, 1, 2, 3}, f}}});
  r.add({dom, "NchwcMaxPool", 1, ep::kOpsetMax, {{"T", {0}, f}}},
        [](const ep::KernelInfo& info) { return std::make_unique<NchwcPoolKernel>(info, true); });
  r.add({dom, "NchwcAveragePool", 1, ep::kOpsetMax, {{"T", {0}, f}}},
        [](const ep::KernelInfo& info) { return std::make_unique<NchwcPoolKernel>(info, false); });
  r.add<NchwcGlobalAveragePoolKernel>(
      {dom, "NchwcGlobalAveragePool", 1, ep::kOpsetMax, {{"T", {0}, f}}});
  register_nchwc_expand_depthwise_kernel(r);
}

}  // namespace tessera::cpu::nn
