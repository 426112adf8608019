#include "providers/cpu/control_flow/body_runs.hpp"
#include "providers/cpu/control_flow/control_flow_kernels.hpp"
#include "providers/cpu/control_flow/slice_axis.hpp"

namespace tessera::cpu {

namespace {

// Loop(M, cond, v_initial...) with body(iter, cond, v...) -> (cond, v..., scan...).
class LoopKernel : public ep::OpKernel {
 public:
  explicit LoopKernel(const ep::KernelInfo& info) : body_(info.subgraph("body")) {
    if (body_.input_names().size() < 2)
      info.fail_node("the body must take at least (iteration_num, condition), it takes ",
                     body_.input_names().size(), " inputs");
    num_carried_ = body_.input_names().size() - 2;
    if (info.num_inputs() != num_carried_ + 2)
      info.fail_node("the node has ", info.num_inputs(), " inputs but the body carries ",
                     num_carried_, " values (expected ", num_carried_ + 2, ")");
    if (body_.output_names().size() < num_carried_ + 1)
      info.fail_node("the body has ", body_.output_names().size(), " outputs, expected at least ",
                     num_carried_ + 1);
    num_scan_ = body_.output_names().size() - 1 - num_carried_;
    for (size_t k = 0; k < num_scan_; ++k)
      scan_types_.push_back(info.output_type(num_carried_ + k));
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor* m = ctx.input(0);
    const Tensor* c = ctx.input(1);
    int64_t max_trips = m ? m->data<int64_t>()[0] : INT64_MAX;
    bool cond = c ? c->data<bool>()[0] : true;
    if (m && m->num_elements() != 1) ctx.fail_node("M must be a scalar, got ", m->description());
    std::vector<Value> carried;
    for (size_t i = 0; i < num_carried_; ++i) {
      const Value* v = ctx.input_value(i + 2);
      carried.push_back(v ? *v : Value());
    }
    std::vector<std::vector<Value>> scans(num_scan_);
    // One series of body runs: the body's plan keeps its values' memory
    // from one iteration to the next.
    auto iterations = start_iterations(body_);
    int64_t iter = 0;
    for (; iter < max_trips && cond; ++iter) {
      std::vector<Value> in;
      in.reserve(num_carried_ + 2);
      in.emplace_back(Tensor::scalar<int64_t>(iter));
      in.emplace_back(Tensor::scalar<bool>(cond));
      for (auto& v : carried) in.push_back(v);
      auto out = run_iteration(body_, ctx, std::move(in), iterations.get());
      const Tensor& next_cond = out[0].tensor();
      if (next_cond.num_elements() != 1 || next_cond.dtype() != DataType::kBool)
        ctx.fail_node("the body's condition output must be a bool scalar, got ",
                      next_cond.description());
      cond = next_cond.data<bool>()[0];
      for (size_t i = 0; i < num_carried_; ++i) carried[i] = std::move(out[1 + i]);
      for (size_t k = 0; k < num_scan_; ++k)
        scans[k].push_back(std::move(out[1 + num_carried_ + k]));
    }
    for (size_t i = 0; i < num_carried_; ++i) ctx.set_output(i, std::move(carried[i]));
    for (size_t k = 0; k < num_scan_; ++k)
      ctx.set_output(num_carried_ + k, stack(ctx, scans[k], k));
  }

 private:
  Value stack(ep::KernelContext& ctx, const std::vector<Value>& items, size_t k) const {
    if (items.empty()) {
      DataType t = scan_types_[k] == DataType::kUndefined ? DataType::kFloat : scan_types_[k];
      return Value(Tensor(t, Shape{0}));
    }
    const Tensor& first = items[0].tensor();
    std::vector<int64_t> dims = first.shape().dims();
    dims.insert(dims.begin(), int64_t(items.size()));
    Tensor out(first.dtype(), Shape(dims));
    for (size_t i = 0; i < items.size(); ++i) {
      const Tensor& t = items[i].tensor();
      if (t.shape() != first.shape())
        ctx.fail_node("scan output ", k,
                      " changes shape across iterations: ", first.shape().to_string(), " then ",
                      t.shape().to_string());
      put_slice(out, 0, int64_t(i), t);
    }
    return Value(std::move(out));
  }

  const ep::SubgraphRunner& body_;
  size_t num_carried_ = 0, num_scan_ = 0;
  std::vector<DataType> scan_types_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_loop_kernel(const ep::KernelInfo& info) {
  return std::make_unique<LoopKernel>(info);
}

}  // namespace tessera::cpu
