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

}  // namespace tessera::ops::rnn
