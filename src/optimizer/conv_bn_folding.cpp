// Conv followed by an inference BatchNormalization folds into the Conv:
//   W' = W * s (per output channel), B' = (B - mean) * s + beta,
//   s = gamma / sqrt(var + eps).
// New initializers are made, since W may be shared with other nodes. W and
// B keep their element type (float, double, float16, bfloat16): the fold is
// computed in double and rounded once, so a half-precision model gets its
// Conv's own rounding and no BatchNormalization pass (the statistics may be
// of another float type, as opset 15 allows).
#include <cmath>
#include <optional>
#include <vector>

#include "core/float16.hpp"
#include "ops/schema.hpp"
#include "optimizer/def_use.hpp"
#include "optimizer/passes.hpp"

namespace tessera::optimizer {

namespace {

bool is_float_vector(const Tensor* t, int64_t n) {
  return t && is_float_or_double(t->dtype()) && t->rank() == 1 && t->shape()[0] == n;
}

// Element i of a tensor of one of is_float_or_double's types, set from a double.
void set_element(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DataType::kDouble:
      t.mutable_data<double>()[i] = v;
      break;
    case DataType::kFloat16:
      t.mutable_data<Float16>()[i] = Float16(float(v));
      break;
    case DataType::kBFloat16:
      t.mutable_data<BFloat16>()[i] = BFloat16(float(v));
      break;
    default:
      t.mutable_data<float>()[i] = float(v);
  }
}

}  // namespace

std::optional<BnAffine> bn_affine(const DefUse& v, const ir::Node& bn, int64_t m, int64_t opset) {
  // Inference form only: one output, no training mode (opset 14 on),
  // spatial statistics (before 9). A node of opsets before 7 that says it is
  // not a test (is_test set to 0) is not folded; one that leaves is_test out
  // is an inference node as for every runtime, whatever the default says.
  const ops::OpSchema& s = ops::schema_of(bn, opset);
  auto declared_int = [&](const char* name, int64_t absent) {
    return s.attr_def(name) ? s.attr_int(bn, name) : absent;
  };
  const ir::Attribute* is_test = s.attr_def("is_test") ? bn.attr("is_test") : nullptr;
  if (bn.inputs.size() != 5 || declared_int("training_mode", 0) != 0 ||
      declared_int("spatial", 1) != 1 || (is_test && is_test->i == 0))
    return std::nullopt;
  for (size_t k = 1; k < bn.outputs.size(); ++k)
    if (!bn.outputs[k].empty()) return std::nullopt;
  const Tensor* gamma = v.constant(bn.inputs[1]);
  const Tensor* beta = v.constant(bn.inputs[2]);
  const Tensor* mean = v.constant(bn.inputs[3]);
  const Tensor* var = v.constant(bn.inputs[4]);
  if (!is_float_vector(gamma, m) || !is_float_vector(beta, m) || !is_float_vector(mean, m) ||
      !is_float_vector(var, m))
    return std::nullopt;
  const double eps = s.attr_float(bn, "epsilon");
  BnAffine a;
  for (int64_t c = 0; c < m; ++c) {
    a.s.push_back(gamma->element_as_double(c) / std::sqrt(var->element_as_double(c) + eps));
    a.mean.push_back(mean->element_as_double(c));
    a.beta.push_back(beta->element_as_double(c));
  }
  return a;
}

size_t fold_conv_batchnorm(ir::Model& model, ir::Graph& g) {
  DefUse v(g);
  FreshNames fresh(g);
  std::vector<bool> dead(g.nodes.size(), false);
  size_t folded = 0;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    ir::Node& conv = g.nodes[size_t(i)];
    if (!ir::is_onnx_domain(conv.domain) || conv.op_type != "Conv" || conv.inputs.size() < 2 ||
        conv.outputs.size() != 1)
      continue;
    const Tensor* w = v.constant(conv.inputs[1]);
    if (!w || !is_float_or_double(w->dtype()) || w->rank() < 3) continue;
    const int64_t m = w->shape()[0];
    const Tensor* b =
        conv.inputs.size() > 2 && !conv.inputs[2].empty() ? v.constant(conv.inputs[2]) : nullptr;
    if (conv.inputs.size() > 2 && !conv.inputs[2].empty() &&
        (!is_float_vector(b, m) || b->dtype() != w->dtype()))
      continue;
    int j = sole_consumer(v, g, conv.outputs[0], "BatchNormalization");
    if (j < 0) continue;
    const ir::Node& bn = g.nodes[size_t(j)];
    if (bn.inputs.empty() || bn.inputs[0] != conv.outputs[0]) continue;
    auto a = bn_affine(v, bn, m, model.opset(""));
    if (!a) continue;

    Tensor nw(w->dtype(), w->shape());
    Tensor nb(w->dtype(), Shape{m});
    const int64_t per = w->num_elements() / std::max<int64_t>(m, 1);
    for (int64_t c = 0; c < m; ++c) {
      const double s = a->s[size_t(c)];
      if (w->dtype() == DataType::kFloat) {  // the common case, kept tight (large weights)
        const float* wd = w->data<float>() + c * per;
        float* nwd = nw.mutable_data<float>() + c * per;
        for (int64_t k = 0; k < per; ++k) nwd[k] = float(double(wd[k]) * s);
      } else {
        for (int64_t k = 0; k < per; ++k)
          set_element(nw, c * per + k, w->element_as_double(c * per + k) * s);
      }
      const double bias = b ? b->element_as_double(c) : 0.0;
      set_element(nb, c, (bias - a->mean[size_t(c)]) * s + a->beta[size_t(c)]);
    }
    std::string wname = fresh(conv.inputs[1] + "_bnfold");
    g.initializers[wname] = std::move(nw);
    std::string bname = fresh(conv.name + "_bnfold_bias");
    g.initializers[bname] = std::move(nb);
    ir::Node fused = conv;
    fused.inputs.resize(3);
    fused.inputs[1] = wname;
    fused.inputs[2] = bname;
    fused.outputs = bn.outputs;
    fused.outputs.resize(1);
    g.nodes[size_t(j)] = std::move(fused);
    dead[size_t(i)] = true;
    ++folded;
  }
  if (folded) erase_nodes(g, dead);
  return folded;
}

}  // namespace tessera::optimizer
