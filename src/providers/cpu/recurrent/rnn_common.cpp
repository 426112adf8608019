#include "providers/cpu/recurrent/rnn_common.hpp"

#include <algorithm>

namespace tessera::cpu::rnn {

RnnAttrs parse_rnn_attrs(const ep::KernelInfo& info) {
  const ops::rnn::RnnAttrs parsed = ops::rnn::parse_rnn_attrs(info.node(), info.opset());
  RnnAttrs a;
  a.num_directions = parsed.num_directions;
  a.bidirectional = parsed.bidirectional;
  a.reverse = parsed.reverse;
  a.hidden_size = parsed.hidden_size;
  a.layout = parsed.layout;
  a.has_clip = parsed.has_clip;
  a.clip = parsed.clip;
  for (const ops::rnn::Activation& f : parsed.acts) a.acts.push_back({f.kind, f.alpha, f.beta});
  return a;
}

namespace {

void expect_shape(const ep::KernelContext& ctx, const Tensor& t, const char* what,
                  const std::vector<int64_t>& dims) {
  if (t.shape().dims() != dims)
    ctx.fail_node(what, " has shape ", t.shape().to_string(), ", expected ",
                  Shape(dims).to_string());
}

}  // namespace

RnnDims check_rnn_inputs(const ep::KernelContext& ctx, const RnnAttrs& a, int64_t gates,
                         const std::vector<size_t>& state_inputs) {
  const Tensor& x = ctx.required_input(0);
  const Tensor& w = ctx.required_input(1);
  const Tensor& r = ctx.required_input(2);
  if (x.rank() != 3) ctx.fail_node("X must be 3-D, got ", x.shape().to_string());
  if (r.rank() != 3) ctx.fail_node("R must be 3-D, got ", r.shape().to_string());
  if (w.dtype() != x.dtype() || r.dtype() != x.dtype())
    ctx.fail_node("X, W and R must have one type, got ", data_type_name(x.dtype()), ", ",
                  data_type_name(w.dtype()), ", ", data_type_name(r.dtype()));
  RnnDims d;
  d.dirs = a.num_directions;
  d.seq = a.layout == 0 ? x.shape()[0] : x.shape()[1];
  d.batch = a.layout == 0 ? x.shape()[1] : x.shape()[0];
  d.input = x.shape()[2];
  d.hidden = a.hidden_size > 0 ? a.hidden_size : r.shape()[2];
  // Checked against R's last dimension before any product: a hidden_size
  // of 2^62 overflowed gates * hidden.
  if (d.hidden != r.shape()[2])
    ctx.fail_node("hidden_size ", d.hidden, " does not match R ", r.shape().to_string(),
                  " (its last dimension)");
  int64_t gh = gates * d.hidden;
  expect_shape(ctx, w, "W", {d.dirs, gh, d.input});
  expect_shape(ctx, r, "R", {d.dirs, gh, d.hidden});
  if (const Tensor* b = ctx.input(3)) {
    if (b->dtype() != x.dtype()) ctx.fail_node("B must have the type of X");
    expect_shape(ctx, *b, "B", {d.dirs, 2 * gh});
  }
  if (const Tensor* l = ctx.input(4)) {
    if (l->dtype() != DataType::kInt32)
      ctx.fail_node("sequence_lens must be int32, got ", data_type_name(l->dtype()));
    expect_shape(ctx, *l, "sequence_lens", {d.batch});
  }
  std::vector<int64_t> state_dims = a.layout == 0 ? std::vector<int64_t>{d.dirs, d.batch, d.hidden}
                                                  : std::vector<int64_t>{d.batch, d.dirs, d.hidden};
  for (size_t i : state_inputs)
    if (const Tensor* s = ctx.input(i)) {
      if (s->dtype() != x.dtype()) ctx.fail_node("input ", i, " must have the type of X");
      expect_shape(ctx, *s, i == 5 ? "initial_h" : "initial_c", state_dims);
    }
  return d;
}

std::vector<int64_t> sequence_lengths(const ep::KernelContext& ctx, const RnnDims& d) {
  std::vector<int64_t> lens(size_t(d.batch), d.seq);
  if (const Tensor* l = ctx.input(4)) {
    const int32_t* p = l->data<int32_t>();
    for (int64_t b = 0; b < d.batch; ++b) {
      if (p[b] < 0 || p[b] > d.seq)
        ctx.fail_node("sequence_lens[", b, "] = ", p[b], " is outside [0, ", d.seq, "]");
      lens[size_t(b)] = p[b];
    }
  }
  return lens;
}

}  // namespace tessera::cpu::rnn
