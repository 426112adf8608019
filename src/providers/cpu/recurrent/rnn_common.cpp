#include "providers/cpu/recurrent/rnn_common.hpp"

#include <algorithm>
#include <cctype>

#include "ops/schema.hpp"

namespace tessera::cpu::rnn {

namespace {

std::string lower(std::string s) {
  for (auto& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

struct ActSpec {
  const char* name;
  ActKind kind;
  int num_alpha, num_beta;  // how many of activation_alpha/beta this function consumes
  float alpha, beta;        // defaults, as the standalone ONNX operators have them
};

const ActSpec kActs[] = {
    {"relu", ActKind::kRelu, 0, 0, 0.f, 0.f},
    {"tanh", ActKind::kTanh, 0, 0, 0.f, 0.f},
    {"sigmoid", ActKind::kSigmoid, 0, 0, 0.f, 0.f},
    {"affine", ActKind::kAffine, 1, 1, 1.f, 0.f},
    {"leakyrelu", ActKind::kLeakyRelu, 1, 0, 0.01f, 0.f},
    {"thresholdedrelu", ActKind::kThresholdedRelu, 1, 0, 1.f, 0.f},
    {"scaledtanh", ActKind::kScaledTanh, 1, 1, 1.f, 1.f},
    {"hardsigmoid", ActKind::kHardSigmoid, 1, 1, 0.2f, 0.5f},
    {"elu", ActKind::kElu, 1, 0, 1.f, 0.f},
    {"softsign", ActKind::kSoftsign, 0, 0, 0.f, 0.f},
    {"softplus", ActKind::kSoftplus, 0, 0, 0.f, 0.f},
};

}  // namespace

RnnAttrs parse_rnn_attrs(const ep::KernelInfo& info) {
  RnnAttrs a;
  std::string dir = info.attr_string("direction", "forward");
  if (dir == "bidirectional") {
    a.bidirectional = true;
    a.num_directions = 2;
  } else if (dir == "reverse") {
    a.reverse = true;
  } else if (dir != "forward") {
    info.fail_node("direction must be forward, reverse or bidirectional, got '", dir, "'");
  }
  a.hidden_size = info.attr_int("hidden_size", -1);
  if (info.has_attr("hidden_size") && a.hidden_size <= 0)
    info.fail_node("hidden_size must be positive, got ", a.hidden_size);
  a.layout = info.opset() >= 14 ? info.attr_int("layout", 0) : 0;
  if (a.layout != 0 && a.layout != 1) info.fail_node("layout must be 0 or 1, got ", a.layout);
  if (info.has_attr("clip")) {
    a.has_clip = true;
    a.clip = info.attr_float("clip");
    if (!(a.clip > 0.f)) info.fail_node("clip must be positive, got ", a.clip);
  }

  const ops::OpSchema& schema = ops::schema_of(info.node(), info.opset());
  const std::vector<std::string> defaults = schema.attr_def("activations")->strings;
  const size_t per_dir = defaults.size();
  std::vector<std::string> names = info.attr_strings("activations", {});
  if (names.empty()) {
    for (int64_t k = 0; k < a.num_directions; ++k)
      names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (names.size() == per_dir && a.bidirectional) {
    // One list given for a bidirectional op: both directions use it.
    std::vector<std::string> twice = names;
    twice.insert(twice.end(), names.begin(), names.end());
    names = twice;
  } else if (names.size() != per_dir * size_t(a.num_directions)) {
    info.fail_node("activations has ", names.size(), " entries, expected ",
                   per_dir * size_t(a.num_directions));
  }
  std::vector<float> alphas = info.attr_floats("activation_alpha", {});
  std::vector<float> betas = info.attr_floats("activation_beta", {});
  size_t ai = 0, bi = 0;
  for (const auto& n : names) {
    std::string ln = lower(n);
    const ActSpec* spec = nullptr;
    for (const auto& s : kActs)
      if (ln == s.name) spec = &s;
    if (!spec) info.fail_node("unsupported activation '", n, "'");
    Activation act{spec->kind, spec->alpha, spec->beta};
    // Values are consumed in order by the functions that take them.
    if (spec->num_alpha && ai < alphas.size()) act.alpha = alphas[ai++];
    if (spec->num_beta && bi < betas.size()) act.beta = betas[bi++];
    a.acts.push_back(act);
  }
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
