// BatchNormalization (inference: running statistics) and LayerNormalization
// (Y only) through oneDNN's normalization primitives.
#include "providers/onednn/dnnl_ops.hpp"

namespace tessera::onednn {

namespace {

using dnnl::normalization_flags;

struct NormEntry {
  dnnl::primitive prim;
  dnnl::memory::desc scratch, data_md, param_md;
};

class BatchNormKernel final : public DnnlKernel {
 public:
  BatchNormKernel(const ep::KernelInfo& info, EnvPtr env)
      : DnnlKernel(info, std::move(env)), epsilon_(info.attr_float("epsilon", 1e-5f)) {}

 protected:
  void run(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() < 2 || x.rank() > 5)
      ctx.fail_node("X ", x.shape().to_string(), " must have rank 2 to 5");
    const int64_t c = x.shape()[1];
    const Tensor* params[4];
    for (size_t i = 0; i < 4; ++i) {
      params[i] = &ctx.required_input(i + 1);
      if (params[i]->num_elements() != c)
        ctx.fail_node("input ", i + 1, " ", params[i]->shape().to_string(), " must have ", c,
                      " elements (the channels of X ", x.shape().to_string(), ")");
    }
    Tensor& y = ctx.output(0, x.shape());
    if (y.num_elements() == 0) return;
    auto e = cache_.get(shape_key({&x}), [&] {
      NormEntry n;
      n.data_md = plain_desc(x.shape().dims());
      n.param_md = plain_desc({c});
      auto flags = normalization_flags::use_global_stats | normalization_flags::use_scale |
                   normalization_flags::use_shift;
      dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, n.data_md,
                                                epsilon_, flags);
      dnnl::batch_normalization_forward::primitive_desc pd(d, base_attr(env()), env().engine);
      n.prim = dnnl::batch_normalization_forward(pd);
      n.scratch = pd.scratchpad_desc();
      return n;
    });
    auto p = [&](size_t i) { return wrap(e->param_md, env(), params[i]->raw_data()); };
    execute(env(), e->prim, e->scratch,
            {{DNNL_ARG_SRC, wrap(e->data_md, env(), x.raw_data())},
             {DNNL_ARG_DST, wrap(e->data_md, env(), y.mutable_raw_data())},
             {DNNL_ARG_SCALE, p(0)},
             {DNNL_ARG_SHIFT, p(1)},
             {DNNL_ARG_MEAN, p(2)},
             {DNNL_ARG_VARIANCE, p(3)}});
  }

 private:
  float epsilon_;
  ShapeCache<NormEntry> cache_;
};

class LayerNormKernel final : public DnnlKernel {
 public:
  LayerNormKernel(const ep::KernelInfo& info, EnvPtr env)
      : DnnlKernel(info, std::move(env)),
        axis_(info.attr_int("axis", -1)),
        epsilon_(info.attr_float("epsilon", 1e-5f)) {}

 protected:
  void run(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& scale = ctx.required_input(1);
    const Tensor* bias = ctx.input(2);
    int64_t r = int64_t(x.rank());
    int64_t axis = axis_ < 0 ? axis_ + r : axis_;
    if (axis < 0 || axis >= r) ctx.fail_node("axis ", axis_, " is out of range for X ", x.shape().to_string());
    int64_t outer = x.shape().size_to(size_t(axis)), inner = x.shape().size_from(size_t(axis));
    if (scale.num_elements() != inner || (bias && bias->num_elements() != inner))
      ctx.fail_node("Scale ", scale.shape().to_string(), " and B must have ", inner,
                    " elements (X ", x.shape().to_string(), " from axis ", axis, ")");
    Tensor& y = ctx.output(0, x.shape());
    if (y.num_elements() == 0) return;
    std::vector<int64_t> key = {outer, inner, bias != nullptr};
    auto e = cache_.get(key, [&] {
      NormEntry n;
      n.data_md = plain_desc({outer, inner});
      n.param_md = plain_desc({inner});
      auto flags = normalization_flags::use_scale;
      if (bias) flags = flags | normalization_flags::use_shift;
      dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, n.data_md,
                                                epsilon_, flags);
      dnnl::layer_normalization_forward::primitive_desc pd(d, base_attr(env()), env().engine);
      n.prim = dnnl::layer_normalization_forward(pd);
      n.scratch = pd.scratchpad_desc();
      return n;
    });
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, wrap(e->data_md, env(), x.raw_data())},
        {DNNL_ARG_DST, wrap(e->data_md, env(), y.mutable_raw_data())},
        {DNNL_ARG_SCALE, wrap(e->param_md, env(), scale.raw_data())}};
    if (bias) args[DNNL_ARG_SHIFT] = wrap(e->param_md, env(), bias->raw_data());
    execute(env(), e->prim, e->scratch, std::move(args));
  }

 private:
  int64_t axis_;
  float epsilon_;
  ShapeCache<NormEntry> cache_;
};

std::string check_batchnorm(const ClaimQuery& q) {
  auto r = q.rank(0);
  if (r && (*r < 2 || *r > 5)) return "X must have rank 2 to 5";
  for (size_t i = 1; i < q.node().outputs.size(); ++i)
    if (q.has_output(i)) return "training outputs (running mean/var, saved stats) are not supported";
  if (q.attr_int("training_mode", 0)) return "training_mode=1 is not supported";
  if (q.opset() < 9 && q.attr_int("spatial", 1) == 0) return "spatial=0 is not supported";
  return "";
}

std::string check_layernorm(const ClaimQuery& q) {
  if (q.has_output(1) || q.has_output(2)) return "the Mean and InvStdDev outputs are not supported";
  if (q.attr_int("stash_type", 1) != 1) return "stash_type other than float";
  // The normalized rank: from a negative axis alone, else with X's rank.
  auto r = q.rank(0);
  int64_t axis = q.attr_int("axis", -1);
  std::optional<int64_t> normalized;
  if (axis < 0) normalized = -axis;
  else if (r) normalized = int64_t(*r) - axis;
  if (!normalized) return "X's rank is not known (with a non-negative axis)";
  if (*normalized < 1 || (r && *normalized > int64_t(*r))) return "axis is out of range";
  auto s = q.rank(1);
  if (!s || int64_t(*s) != *normalized)
    return "Scale must be known to have the normalized shape (no broadcasting here)";
  if (q.has_input(2) && q.rank(2) != s) return "B must have the normalized shape";
  return "";
}

}  // namespace

void register_dnnl_norm(DnnlOpTable& t) {
  t.add<BatchNormKernel>(
      {"", "BatchNormalization", 7, ep::kOpsetMax, {{"T", {0, 1, 2, 3, 4}, kF32}}},
      check_batchnorm);
  t.add<LayerNormKernel>({"", "LayerNormalization", 17, ep::kOpsetMax, {{"T", {0, 1, 2}, kF32}}},
                         check_layernorm);
}

}  // namespace tessera::onednn
