#include "providers/cpu/control_flow/body_runs.hpp"
#include "providers/cpu/control_flow/control_flow_kernels.hpp"
#include "providers/cpu/control_flow/slice_axis.hpp"

namespace tessera::cpu {

namespace {

// Scan (opset 9+): N state values and M scan inputs sliced along their axes.
// Opset 8 adds a leading batch axis and an optional sequence_lens input; it is
// run as one opset-9-style scan per batch entry.
class ScanKernel : public ep::OpKernel {
 public:
  explicit ScanKernel(const ep::KernelInfo& info) : body_(info.subgraph("body")) {
    opset8_ = info.opset() < 9;
    num_scan_in_ = size_t(info.attr_int("num_scan_inputs"));
    size_t first = opset8_ ? 1 : 0;
    if (info.num_inputs() < first + num_scan_in_)
      info.fail_node("num_scan_inputs ", num_scan_in_, " exceeds the ", info.num_inputs(),
                     " inputs");
    num_state_ = info.num_inputs() - first - num_scan_in_;
    if (body_.input_names().size() != num_state_ + num_scan_in_)
      info.fail_node("the body takes ", body_.input_names().size(), " inputs, expected ",
                     num_state_ + num_scan_in_);
    if (body_.output_names().size() < num_state_)
      info.fail_node("the body has fewer outputs than state variables");
    num_scan_out_ = body_.output_names().size() - num_state_;
    in_dirs_ = info.attr_ints(opset8_ ? "directions" : "scan_input_directions",
                              std::vector<int64_t>(num_scan_in_, 0));
    in_axes_ = info.attr_ints("scan_input_axes", std::vector<int64_t>(num_scan_in_, 0));
    out_dirs_ = info.attr_ints("scan_output_directions", std::vector<int64_t>(num_scan_out_, 0));
    out_axes_ = info.attr_ints("scan_output_axes", std::vector<int64_t>(num_scan_out_, 0));
    if (in_dirs_.size() != num_scan_in_ || in_axes_.size() != num_scan_in_ ||
        out_dirs_.size() != num_scan_out_ || out_axes_.size() != num_scan_out_)
      info.fail_node("scan axes/directions attributes do not match the number of scan values");
  }

  void compute(ep::KernelContext& ctx) const override {
    size_t first = opset8_ ? 1 : 0;
    std::vector<Value> states;
    std::vector<Tensor> scan_in;
    for (size_t i = 0; i < num_state_; ++i) states.push_back(*ctx.input_value(first + i));
    for (size_t i = 0; i < num_scan_in_; ++i)
      scan_in.push_back(ctx.required_input(first + num_state_ + i));
    if (!opset8_) {
      auto outs = scan_once(ctx, std::move(states), scan_in, false);
      for (size_t i = 0; i < outs.size(); ++i) ctx.set_output(i, std::move(outs[i]));
      return;
    }
    // Opset 8: loop over the batch axis.
    const Tensor* lens = ctx.input(0);
    int64_t batch = scan_in.empty() ? 1 : scan_in[0].shape()[0];
    std::vector<std::vector<Value>> per_batch;
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Value> st;
      for (auto& s : states) st.emplace_back(take_slice(s.tensor(), 0, b));
      std::vector<Tensor> sc;
      for (auto& t : scan_in) sc.push_back(take_slice(t, 0, b));
      if (lens && !sc.empty() && lens->data<int64_t>()[b] != sc[0].shape()[0])
        ctx.fail_node("sequence_lens shorter than the scan length is not supported");
      per_batch.push_back(scan_once(ctx, std::move(st), sc, true));
    }
    for (size_t o = 0; o < num_state_ + num_scan_out_; ++o) {
      const Tensor& t0 = per_batch[0][o].tensor();
      std::vector<int64_t> dims = t0.shape().dims();
      dims.insert(dims.begin(), batch);
      Tensor out(t0.dtype(), Shape(dims));
      for (int64_t b = 0; b < batch; ++b) put_slice(out, 0, b, per_batch[size_t(b)][o].tensor());
      ctx.set_output(o, Value(std::move(out)));
    }
  }

 private:
  std::vector<Value> scan_once(ep::KernelContext& ctx, std::vector<Value> states,
                               const std::vector<Tensor>& scan_in, bool axis0) const {
    int64_t steps = -1;
    std::vector<int64_t> axes(num_scan_in_);
    for (size_t i = 0; i < num_scan_in_; ++i) {
      int64_t r = int64_t(scan_in[i].rank());
      axes[i] = axis0 ? 0 : normalize_axis(in_axes_[i], r, "scan_input_axes");
      int64_t len = scan_in[i].shape()[size_t(axes[i])];
      if (steps >= 0 && len != steps)
        ctx.fail_node("scan inputs have different lengths: ", steps, " and ", len);
      steps = len;
    }
    if (steps < 0) steps = 0;
    std::vector<std::vector<Tensor>> outs(num_scan_out_);
    auto iterations = start_iterations(body_);
    for (int64_t t = 0; t < steps; ++t) {
      std::vector<Value> in = states;
      for (size_t i = 0; i < num_scan_in_; ++i) {
        int64_t idx = in_dirs_[i] ? steps - 1 - t : t;
        in.emplace_back(take_slice(scan_in[i], axes[i], idx));
      }
      auto res = run_iteration(body_, ctx, std::move(in), iterations.get());
      for (size_t i = 0; i < num_state_; ++i) states[i] = std::move(res[i]);
      for (size_t k = 0; k < num_scan_out_; ++k) outs[k].push_back(res[num_state_ + k].tensor());
    }
    std::vector<Value> result = std::move(states);
    for (size_t k = 0; k < num_scan_out_; ++k) {
      if (outs[k].empty()) {
        result.emplace_back(Tensor(DataType::kFloat, Shape{0}));
        continue;
      }
      const Tensor& s0 = outs[k][0];
      int64_t r = int64_t(s0.rank()) + 1;
      int64_t axis = axis0 ? 0 : normalize_axis(out_axes_[k], r, "scan_output_axes");
      std::vector<int64_t> dims = s0.shape().dims();
      dims.insert(dims.begin() + axis, steps);
      Tensor out(s0.dtype(), Shape(dims));
      for (int64_t t = 0; t < steps; ++t) {
        int64_t idx = out_dirs_[k] ? steps - 1 - t : t;
        put_slice(out, axis, idx, outs[k][size_t(t)]);
      }
      result.emplace_back(std::move(out));
    }
    return result;
  }

  const ep::SubgraphRunner& body_;
  bool opset8_ = false;
  size_t num_scan_in_ = 0, num_state_ = 0, num_scan_out_ = 0;
  std::vector<int64_t> in_dirs_, in_axes_, out_dirs_, out_axes_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_scan_kernel(const ep::KernelInfo& info) {
  return std::make_unique<ScanKernel>(info);
}

}  // namespace tessera::cpu
