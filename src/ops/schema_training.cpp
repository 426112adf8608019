// ai.onnx.preview.training's optimizers: Adagrad, Adam and Momentum. Inputs
// R (learning rate) and T (step count), then n tensors X, n gradients G and
// the n tensors of each state (Adagrad's H, Momentum's V, Adam's V and H);
// outputs the n new X, then each state's n new tensors, each shaped like
// the input it replaces.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

// `states` state groups after X and G.
OutShapes optimizer_outputs(const ShapeQuery& q, size_t states) {
  const size_t groups = 2 + states;
  if (q.num_inputs() < 2 || (q.num_inputs() - 2) % groups != 0)
    q.fail(q.num_inputs(), " inputs: expected R, T and ", groups,
           " groups of tensors (X, G and the states)");
  const size_t n = (q.num_inputs() - 2) / groups;
  OutShapes out(q.num_outputs());
  for (size_t o = 0; o < out.size() && n > 0; ++o) {
    const size_t g = o / n, i = o % n;
    // X_new replaces X (group 0); the states follow G (group 1).
    const size_t in = 2 + (g == 0 ? i : (g + 1) * n + i);
    if (in >= q.num_inputs()) q.fail(q.num_outputs(), " outputs for ", n, " tensors");
    if (const Shape* s = shape_of(q, in)) out[o] = *s;
  }
  return out;
}

// Each output typed like the input it replaces (X, or the state after G).
std::vector<ir::TypeInfo> optimizer_types(const ir::Node& n, int64_t,
                                          const std::vector<ir::TypeInfo>& in) {
  std::vector<ir::TypeInfo> out(n.outputs.size());
  const size_t groups = n.op_type == "Adam" ? 4 : 3;
  if (in.size() < 2 + groups) return out;
  const size_t cnt = (in.size() - 2) / groups;
  for (size_t o = 0; o < out.size(); ++o) {
    const size_t g = o / cnt, i = o % cnt;
    const size_t k = 2 + (g == 0 ? i : (g + 1) * cnt + i);
    if (k < in.size()) out[o] = in[k];
  }
  return out;
}

OutShapes adagrad(const ShapeQuery& q) { return optimizer_outputs(q, 1); }
OutShapes adam(const ShapeQuery& q) { return optimizer_outputs(q, 2); }
OutShapes momentum(const ShapeQuery& q) { return optimizer_outputs(q, 1); }

}  // namespace

void add_training_schemas(std::vector<OpSchema>& t) {
  // T3, the type of each X, G and state, is heterogeneous (each tensor its
  // own float or double), which a type variable over them cannot state.
  const std::vector<TypeParam> types = {{"T1", {0}, {}, {DataType::kFloat, DataType::kDouble}},
                                        {"T2", {1}, {}, int64_type()}};
  auto op = [&](const char* name, std::vector<AttrDef> attrs, ShapeRule rule) {
    t.push_back(
        {"ai.onnx.preview.training", name, 1, std::move(attrs), types, optimizer_types, rule});
  };
  op("Adagrad",
     {float_attr("decay_factor", 0.0f), float_attr("epsilon", 0.0f),
      float_attr("norm_coefficient", 0.0f)},
     adagrad);
  op("Adam",
     {float_attr("alpha", 0.9f), float_attr("beta", 0.999f), float_attr("epsilon", 0.0f),
      float_attr("norm_coefficient", 0.0f), float_attr("norm_coefficient_post", 0.0f)},
     adam);
  op("Momentum",
     {required_attr("alpha", ir::AttrType::kFloat), required_attr("beta", ir::AttrType::kFloat),
      required_attr("mode", ir::AttrType::kString),
      required_attr("norm_coefficient", ir::AttrType::kFloat)},
     momentum);
}

}  // namespace tessera::ops
