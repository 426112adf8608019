#include "ops/rnn_attrs.hpp"

#include <cctype>
#include <string>

#include "core/error.hpp"
#include "ops/schema.hpp"

namespace tessera::ops::rnn {

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

template <typename... Args>
[[noreturn]] void fail_node(const ir::Node& node, Args&&... args) {
  fail(ErrorCode::kInvalidArgument, node.describe(), ": ", std::forward<Args>(args)...);
}

// The node's attribute `name` when present, checked to be of type `type`.
const ir::Attribute* typed(const ir::Node& node, const char* name, ir::AttrType type) {
  const ir::Attribute* a = node.attr(name);
  if (a && a->type != type)
    fail_node(node, "attribute '", name, "' has type ", ir::attr_type_name(a->type), ", expected ",
              ir::attr_type_name(type));
  return a;
}

std::vector<std::string> activation_names(const ir::Node& node, int64_t opset, const RnnAttrs& a) {
  const ops::OpSchema& schema = ops::schema_of(node, opset);
  const std::vector<std::string> defaults = schema.attr_def("activations")->strings;
  const size_t per_dir = defaults.size();
  std::vector<std::string> names;
  if (const ir::Attribute* at = typed(node, "activations", ir::AttrType::kStrings))
    names = at->strings;
  if (names.empty()) {
    for (int64_t k = 0; k < a.num_directions; ++k)
      names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (names.size() == per_dir && a.bidirectional) {
    std::vector<std::string> twice = names;
    twice.insert(twice.end(), names.begin(), names.end());
    names = twice;
  } else if (names.size() != per_dir * size_t(a.num_directions)) {
    fail_node(node, "activations has ", names.size(), " entries, expected ",
              per_dir * size_t(a.num_directions));
  }
  return names;
}

}  // namespace

RnnAttrs parse_rnn_attrs(const ir::Node& node, int64_t opset) {
  RnnAttrs a;
  const ir::Attribute* dir_attr = typed(node, "direction", ir::AttrType::kString);
  const std::string dir = dir_attr ? dir_attr->s : "forward";
  if (dir == "bidirectional") {
    a.bidirectional = true;
    a.num_directions = 2;
  } else if (dir == "reverse") {
    a.reverse = true;
  } else if (dir != "forward") {
    fail_node(node, "direction must be forward, reverse or bidirectional, got '", dir, "'");
  }
  if (const ir::Attribute* h = typed(node, "hidden_size", ir::AttrType::kInt)) {
    a.hidden_size = h->i;
    if (a.hidden_size <= 0) fail_node(node, "hidden_size must be positive, got ", a.hidden_size);
  }
  if (opset >= 14)
    if (const ir::Attribute* l = typed(node, "layout", ir::AttrType::kInt)) a.layout = l->i;
  if (a.layout != 0 && a.layout != 1) fail_node(node, "layout must be 0 or 1, got ", a.layout);
  if (const ir::Attribute* c = typed(node, "clip", ir::AttrType::kFloat)) {
    a.has_clip = true;
    a.clip = c->f;
    if (!(a.clip > 0.f)) fail_node(node, "clip must be positive, got ", a.clip);
  }

  std::vector<float> alphas, betas;
  if (const ir::Attribute* v = typed(node, "activation_alpha", ir::AttrType::kFloats))
    alphas = v->floats;
  if (const ir::Attribute* v = typed(node, "activation_beta", ir::AttrType::kFloats))
    betas = v->floats;
  size_t ai = 0, bi = 0;
  for (const auto& n : activation_names(node, opset, a)) {
    const std::string ln = lower(n);
    const ActSpec* spec = nullptr;
    for (const auto& s : kActs)
      if (ln == s.name) spec = &s;
    if (!spec) fail_node(node, "unsupported activation '", n, "'");
    Activation act{spec->kind, spec->alpha, spec->beta};
    if (spec->num_alpha && ai < alphas.size()) act.alpha = alphas[ai++];
    if (spec->num_beta && bi < betas.size()) act.beta = betas[bi++];
    a.acts.push_back(act);
  }
  return a;
}

namespace {

void expect_shape(const ir::Node& node, const Tensor& t, const char* what,
                  const std::vector<int64_t>& dims) {
  if (t.shape().dims() != dims)
    fail(ErrorCode::kInvalidArgument, node.describe(), ": ", what, " has shape ",
         t.shape().to_string(), ", expected ", Shape(dims).to_string());
}

}  // namespace

RnnDims check_rnn_inputs(const ir::Node& node, const RnnAttrs& a, int64_t gates,
                         const std::vector<const Tensor*>& inputs) {
  auto in = [&](size_t i) { return i < inputs.size() ? inputs[i] : nullptr; };
  auto bad = [&](auto&&... args) {
    fail(ErrorCode::kInvalidArgument, node.describe(), ": ", args...);
  };
  const char* names[] = {"X", "W", "R"};
  for (size_t i = 0; i < 3; ++i)
    if (!in(i)) bad("required input ", i, " (", names[i], ") is missing");
  const Tensor& x = *in(0);
  const Tensor& w = *in(1);
  const Tensor& r = *in(2);
  if (x.rank() != 3) bad("X must be 3-D, got ", x.shape().to_string());
  if (r.rank() != 3) bad("R must be 3-D, got ", r.shape().to_string());
  if (w.dtype() != x.dtype() || r.dtype() != x.dtype())
    bad("X, W and R must have one type, got ", data_type_name(x.dtype()), ", ",
        data_type_name(w.dtype()), ", ", data_type_name(r.dtype()));
  RnnDims d;
  d.dirs = a.num_directions;
  d.seq = a.layout == 0 ? x.shape()[0] : x.shape()[1];
  d.batch = a.layout == 0 ? x.shape()[1] : x.shape()[0];
  d.input = x.shape()[2];
  d.hidden = a.hidden_size > 0 ? a.hidden_size : r.shape()[2];
  // Checked against R's last dimension before any product: a hidden_size
  // of 2^62 would overflow gates * hidden.
  if (d.hidden != r.shape()[2])
    bad("hidden_size ", d.hidden, " does not match R ", r.shape().to_string(),
        " (its last dimension)");
  const int64_t gh = gates * d.hidden;
  expect_shape(node, w, "W", {d.dirs, gh, d.input});
  expect_shape(node, r, "R", {d.dirs, gh, d.hidden});
  if (const Tensor* b = in(3)) {
    if (b->dtype() != x.dtype()) bad("B must have the type of X");
    expect_shape(node, *b, "B", {d.dirs, 2 * gh});
  }
  if (const Tensor* l = in(4)) {
    if (l->dtype() != DataType::kInt32)
      bad("sequence_lens must be int32, got ", data_type_name(l->dtype()));
    expect_shape(node, *l, "sequence_lens", {d.batch});
  }
  const std::vector<int64_t> state = a.layout == 0
                                         ? std::vector<int64_t>{d.dirs, d.batch, d.hidden}
                                         : std::vector<int64_t>{d.batch, d.dirs, d.hidden};
  const bool lstm = gates == 4;
  for (size_t i : {size_t(5), size_t(6)}) {
    if (i == 6 && !lstm) break;
    if (const Tensor* s = in(i)) {
      if (s->dtype() != x.dtype()) bad("input ", i, " must have the type of X");
      expect_shape(node, *s, i == 5 ? "initial_h" : "initial_c", state);
    }
  }
  if (lstm)
    if (const Tensor* p = in(7)) {
      if (p->dtype() != x.dtype()) bad("P must have the type of X");
      expect_shape(node, *p, "P", {d.dirs, 3 * d.hidden});
    }
  return d;
}

}  // namespace tessera::ops::rnn
