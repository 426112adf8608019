// Element-wise activations through oneDNN's eltwise primitive. The layout
// does not matter element-wise, so every tensor is viewed as 1-D and the
// primitive is cached per element count.
#include <cmath>
#include <limits>

#include "ops/schema.hpp"
#include "providers/onednn/dnnl_ops.hpp"

namespace tessera::onednn {

namespace {

using dnnl::algorithm;

// Reads min/max of Clip: attributes before opset 11, constant inputs after.
float clip_bound(const ep::KernelInfo& info, size_t input, const char* attr, float def) {
  if (info.opset() < 11)  // attributes, with the schema's -/+FLT_MAX defaults
    return ops::schema_of(info.node(), info.opset()).attr_float(info.node(), attr);
  const Tensor* t = info.has_input(input) ? info.constant_input(input) : nullptr;
  if (!info.has_input(input)) return def;
  if (!t || t->num_elements() != 1) info.fail_node("Clip bounds must be constant scalars here");
  return t->data<float>()[0];
}

}  // namespace

EltwiseParams eltwise_params(const ep::KernelInfo& info) {
  const std::string& op = info.node().op_type;
  if (op == "Relu") return {algorithm::eltwise_relu};
  if (op == "LeakyRelu") return {algorithm::eltwise_relu, info.attr_float("alpha", 0.01f)};
  if (op == "Elu") return {algorithm::eltwise_elu, info.attr_float("alpha", 1.0f)};
  if (op == "Sigmoid") return {algorithm::eltwise_logistic};
  if (op == "Tanh") return {algorithm::eltwise_tanh};
  if (op == "Exp") return {algorithm::eltwise_exp};
  if (op == "Log") return {algorithm::eltwise_log};
  if (op == "Sqrt") return {algorithm::eltwise_sqrt};
  if (op == "Abs") return {algorithm::eltwise_abs};
  if (op == "Softplus") return {algorithm::eltwise_soft_relu};
  if (op == "HardSwish") return {algorithm::eltwise_hardswish};
  if (op == "Mish") return {algorithm::eltwise_mish};
  if (op == "Gelu")
    return {info.attr_string("approximate", "none") == "tanh" ? algorithm::eltwise_gelu_tanh
                                                              : algorithm::eltwise_gelu_erf};
  if (op == "Clip") {
    constexpr float kMax = std::numeric_limits<float>::max();
    return {algorithm::eltwise_clip_v2, clip_bound(info, 1, "min", -kMax),
            clip_bound(info, 2, "max", kMax)};
  }
  info.fail_node("no oneDNN eltwise algorithm for this op");
}

namespace {

struct EltwiseEntry {
  dnnl::eltwise_forward prim;
  dnnl::memory::desc md, scratch;
};

class EltwiseKernel final : public DnnlKernel {
 public:
  EltwiseKernel(const ep::KernelInfo& info, EnvPtr env)
      : DnnlKernel(info, std::move(env)), p_(eltwise_params(info)) {}

 protected:
  void run(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    Tensor& y = ctx.output(0, x.shape());
    int64_t n = x.num_elements();
    if (n == 0) return;
    auto e = cache_.get({n}, [&] {
      auto md = plain_desc({n});
      dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, p_.alg, md, p_.alpha,
                                    p_.beta);
      dnnl::eltwise_forward::primitive_desc pd(d, base_attr(env()), env().engine);
      return EltwiseEntry{dnnl::eltwise_forward(pd), md, pd.scratchpad_desc()};
    });
    execute(env(), e->prim, e->scratch,
            {{DNNL_ARG_SRC, wrap(e->md, env(), x.raw_data())},
             {DNNL_ARG_DST, wrap(e->md, env(), y.mutable_raw_data())}});
  }

 private:
  EltwiseParams p_;
  ShapeCache<EltwiseEntry> cache_;
};

std::string any_shape(const ClaimQuery&) { return ""; }

std::string check_clip(const ClaimQuery& q) {
  if (q.opset() < 11) return "";
  for (size_t i : {1, 2}) {
    if (!q.has_input(i)) continue;
    const Tensor* t = q.constant(i);
    if (!t || t->num_elements() != 1)
      return "Clip min/max must be constant scalars (initializers) for oneDNN";
  }
  return "";
}

std::string check_gelu(const ClaimQuery& q) {
  std::string a = q.attr_string("approximate", "none");
  if (a != "none" && a != "tanh") return "Gelu approximate='" + a + "' is not 'none' or 'tanh'";
  return "";
}

}  // namespace

void register_dnnl_eltwise(DnnlOpTable& t) {
  auto T = [](std::vector<int> inputs = {0}) {
    return std::vector<ep::TypeConstraint>{{"T", std::move(inputs), kF32}};
  };
  t.add<EltwiseKernel>({"", "Relu", 6, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "LeakyRelu", 6, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Elu", 6, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Sigmoid", 6, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Tanh", 6, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Exp", 6, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Log", 6, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Sqrt", 6, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Abs", 6, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Softplus", 1, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "HardSwish", 14, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Mish", 18, ep::kOpsetMax, T()}, any_shape);
  t.add<EltwiseKernel>({"", "Gelu", 20, ep::kOpsetMax, T()}, check_gelu);
  t.add<EltwiseKernel>({"", "Clip", 6, ep::kOpsetMax, T({0, 1, 2})}, check_clip);
}

}  // namespace tessera::onednn
