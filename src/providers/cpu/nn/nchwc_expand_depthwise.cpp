// com.tessera NchwcExpandDepthwise: a blocked 1x1 expansion and the
// depthwise 3x3 convolution of its output in one kernel
// (linalg/nchwc_fused.hpp), made by the optimizer's fuse_expand_depthwise.
// Inputs: X (blocked), W1 [E, C, 1, 1], B1 [E] (optional), W2 [E, 1, 3, 3],
// B2 [E] (optional). Attributes: the expansion's activation /
// activation_params, the depthwise's dw_activation / dw_activation_params,
// and the depthwise's strides, pads (explicit) and dilations (1).
#include <algorithm>

#include "linalg/nchwc.hpp"
#include "linalg/nchwc_fused.hpp"
#include "providers/cpu/fused/fused_activation.hpp"
#include "providers/cpu/nn/nchwc_kernels.hpp"
#include "providers/cpu/nn/nn_common.hpp"

namespace tessera::cpu::nn {

namespace {

namespace nchwc = linalg::nchwc;

class ExpandDepthwiseKernel : public ep::OpKernel {
 public:
  explicit ExpandDepthwiseKernel(const ep::KernelInfo& info) {
    attrs_.parse(info, false);
    if (attrs_.auto_pad != "NOTSET")
      info.fail_node("auto_pad must be NOTSET (explicit pads), got ", attrs_.auto_pad);
    act_e_ = parse_fused_activation(info);
    act_d_ = parse_fused_activation(info, "dw_");
    const Tensor* w1 = filter(info, 1, "W1");
    const Tensor* w2 = filter(info, 3, "W2");
    E_ = w1->shape()[0];
    C_ = w1->shape()[1];
    if (w1->shape()[2] != 1 || w1->shape()[3] != 1)
      info.fail_node("W1 must be a 1x1 filter [E, C, 1, 1], got ", w1->shape().to_string());
    if (w2->shape() != Shape{E_, 1, 3, 3})
      info.fail_node("W2 must be a depthwise 3x3 filter [", E_, ", 1, 3, 3] for W1 ",
                     w1->shape().to_string(), ", got ", w2->shape().to_string());
    if (!attrs_.kernel.empty() && attrs_.kernel != std::vector<int64_t>{3, 3})
      info.fail_node("kernel_shape ", dims_str(attrs_.kernel), " must be [3, 3]");
    if (!attrs_.dilations.empty() && attrs_.dilations != std::vector<int64_t>{1, 1})
      info.fail_node("dilations ", dims_str(attrs_.dilations), " must be [1, 1]");
    // With pads up to 2 every output row's window holds an input row, which
    // the band-by-band computation relies on. (auto_pad is NOTSET: these are
    // the pads of every run.)
    if (std::any_of(attrs_.pads.begin(), attrs_.pads.end(), [](int64_t p) { return p > 2; }))
      info.fail_node("pads ", dims_str(attrs_.pads), " must be at most 2 (a 3x3 window)");
    try {
      w1_ = nchwc::PackedFilter(w1->data<float>(), expand_shape());
      w2_ = nchwc::PackedFilter(w2->data<float>(), depthwise_shape());
    } catch (const Error& e) {
      info.fail_node(e.what());
    }
  }

  // The filters are packed at creation; the run reads nothing of them.
  bool reads_constant_data(size_t i) const override { return i != 1 && i != 3; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const auto& xd = X.shape().dims();
    if (xd.size() != 5 || xd[4] != nchwc::kBlock || xd[1] != nchwc::blocks(C_))
      ctx.fail_node("blocked X must be [N, ", nchwc::blocks(C_), ", H, W, 16] for ", C_,
                    " input channels, got ", X.shape().to_string());
    const Window g = resolve_window(ctx, attrs_, {xd[2], xd[3]}, {3, 3});
    nchwc::Conv2dShape e = expand_shape(), d = depthwise_shape();
    set_geometry(d, xd[0], g);
    e.N = d.N;
    e.H = e.OH = d.H;
    e.W = e.OW = d.W;
    const float* bias[2] = {nullptr, nullptr};
    for (size_t k = 0; k < 2; ++k)
      if (const Tensor* B = ctx.input(2 + 2 * k)) {
        if (B->dtype() != DataType::kFloat || B->shape() != Shape{E_})
          ctx.fail_node(k ? "B2 " : "B1 ", B->shape().to_string(), " must be float [", E_, "]");
        bias[k] = B->data<float>();
      }
    Tensor& Y = ctx.output(0, Shape{d.N, nchwc::blocks(E_), d.OH, d.OW, nchwc::kBlock});
    if (Y.num_elements() == 0) return;
    nchwc::expand_depthwise(e, w1_, bias[0], act_e_, d, w2_, bias[1], act_d_, X.data<float>(),
                            Y.mutable_data<float>(), &ctx.thread_pool());
  }

 private:
  static const Tensor* filter(const ep::KernelInfo& info, size_t i, const char* name) {
    const Tensor* w = info.has_input(i) ? info.constant_input(i) : nullptr;
    if (!w) info.fail_node(name, " must be a constant initializer (packed at kernel creation)");
    if (w->dtype() != DataType::kFloat || w->rank() != 4)
      info.fail_node(name, " must be a 4-D float filter, got ", data_type_name(w->dtype()), " ",
                     w->shape().to_string());
    return w;
  }
  nchwc::Conv2dShape expand_shape() const {
    nchwc::Conv2dShape s;
    s.C = C_;
    s.M = E_;
    return s;
  }
  nchwc::Conv2dShape depthwise_shape() const {
    nchwc::Conv2dShape s;
    s.C = s.M = s.group = E_;
    s.KH = s.KW = 3;
    return s;
  }

  WindowAttrs attrs_;
  int64_t E_ = 0, C_ = 0;
  linalg::ActivationSpec act_e_, act_d_;
  nchwc::PackedFilter w1_, w2_;
};

}  // namespace

void register_nchwc_expand_depthwise_kernel(ep::KernelRegistry& r) {
  r.add<ExpandDepthwiseKernel>({"com.tessera",
                                "NchwcExpandDepthwise",
                                1,
                                ep::kOpsetMax,
                                {{"T", {0, 1, 2, 3, 4}, {DataType::kFloat}}}});
}

}  // namespace tessera::cpu::nn
