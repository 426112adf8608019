#include "providers/cpu/control_flow/control_flow_kernels.hpp"

namespace tessera::cpu {

namespace {

class IfKernel : public ep::OpKernel {
 public:
  explicit IfKernel(const ep::KernelInfo& info)
      : then_(info.subgraph("then_branch")), else_(info.subgraph("else_branch")) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& cond = ctx.required_input(0);
    if (cond.num_elements() != 1)
      ctx.fail_node("condition must hold exactly one element, got ", cond.description());
    const ep::SubgraphRunner& branch = cond.data<bool>()[0] ? then_ : else_;
    auto outs = branch.run(ctx, {});
    if (outs.size() != ctx.num_outputs())
      ctx.fail_node("the branch produced ", outs.size(), " outputs, the node has ",
                    ctx.num_outputs());
    for (size_t i = 0; i < outs.size(); ++i) ctx.set_output(i, std::move(outs[i]));
  }

 private:
  const ep::SubgraphRunner& then_;
  const ep::SubgraphRunner& else_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_if_kernel(const ep::KernelInfo& info) {
  return std::make_unique<IfKernel>(info);
}

}  // namespace tessera::cpu
