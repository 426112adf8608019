// Softmax and LogSoftmax through oneDNN. Opset 13 normalizes along one axis;
// earlier opsets flatten the input to 2-D at `axis`. Either way the tensor is
// viewed as [outer, n, inner] and normalized along the middle dim.
#include "providers/onednn/dnnl_ops.hpp"

namespace tessera::onednn {

namespace {

struct SoftmaxEntry {
  dnnl::primitive prim;
  dnnl::memory::desc scratch, md;
};

class SoftmaxKernel final : public DnnlKernel {
 public:
  SoftmaxKernel(const ep::KernelInfo& info, EnvPtr env)
      : DnnlKernel(info, std::move(env)),
        log_(info.node().op_type == "LogSoftmax"),
        flatten_(info.opset() < 13),
        axis_(info.attr_int("axis", info.opset() < 13 ? 1 : -1)) {}

 protected:
  void run(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    int64_t r = int64_t(x.rank());
    Tensor& y = ctx.output(0, x.shape());
    if (y.num_elements() == 0) return;
    if (r == 0) ctx.fail_node("X must have rank 1 or more");
    int64_t axis = axis_ < 0 ? axis_ + r : axis_;
    if (axis < 0 || axis >= r) ctx.fail_node("axis ", axis_, " is out of range for X ", x.shape().to_string());
    int64_t outer = x.shape().size_to(size_t(axis));
    int64_t n = flatten_ ? x.shape().size_from(size_t(axis)) : x.shape()[size_t(axis)];
    int64_t inner = flatten_ ? 1 : x.shape().size_from(size_t(axis) + 1);
    auto e = cache_.get({outer, n, inner}, [&] {
      SoftmaxEntry s;
      s.md = plain_desc({outer, n, inner});
      auto prop = dnnl::prop_kind::forward_inference;
      if (log_) {
        dnnl::logsoftmax_forward::primitive_desc pd(dnnl::logsoftmax_forward::desc(prop, s.md, 1),
                                                    base_attr(env()), env().engine);
        s.prim = dnnl::logsoftmax_forward(pd);
        s.scratch = pd.scratchpad_desc();
      } else {
        dnnl::softmax_forward::primitive_desc pd(dnnl::softmax_forward::desc(prop, s.md, 1),
                                                 base_attr(env()), env().engine);
        s.prim = dnnl::softmax_forward(pd);
        s.scratch = pd.scratchpad_desc();
      }
      return s;
    });
    execute(env(), e->prim, e->scratch,
            {{DNNL_ARG_SRC, wrap(e->md, env(), x.raw_data())},
             {DNNL_ARG_DST, wrap(e->md, env(), y.mutable_raw_data())}});
  }

 private:
  bool log_, flatten_;
  int64_t axis_;
  ShapeCache<SoftmaxEntry> cache_;
};

std::string check_softmax(const ClaimQuery& q) {
  auto r = q.rank(0);
  if (!r) return "";  // checked by the kernel at run time
  if (*r == 0) return "X is a scalar";
  int64_t axis = q.attr_int("axis", q.opset() < 13 ? 1 : -1);
  if (axis < 0) axis += int64_t(*r);
  if (axis < 0 || axis >= int64_t(*r)) return "axis is out of range";
  return "";
}

}  // namespace

void register_dnnl_softmax(DnnlOpTable& t) {
  std::vector<ep::TypeConstraint> T = {{"T", {0}, kF32}};
  t.add<SoftmaxKernel>({"", "Softmax", 1, ep::kOpsetMax, T}, check_softmax);
  t.add<SoftmaxKernel>({"", "LogSoftmax", 1, ep::kOpsetMax, T}, check_softmax);
}

}  // namespace tessera::onednn
