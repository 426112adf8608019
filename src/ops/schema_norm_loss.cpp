// The normalizations and activations added after the nn family's
// (GroupNormalization, RMSNormalization, ONNX Runtime's
// SimplifiedLayerNormalization in the default domain, Swish, SwiGLU) and the
// losses NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

// Y shaped like X; the statistics outputs (stash-typed) are not given here.
OutShapes normalized(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  return {*x};
}

// A and B of one shape, no broadcasting.
OutShapes swiglu(const ShapeQuery& q) {
  const Shape* a = shape_of(q, 0);
  const Shape* b = shape_of(q, 1);
  if (!a || !b) return {};
  if (*a != *b) q.fail("A and B must have one shape: ", q.input_desc(0), ", ", q.input_desc(1));
  return {*a};
}

// scores/input [N, C, d...], target/labels [N, d...]: the loss per element
// with reduction 'none', else a scalar; SoftmaxCrossEntropyLoss's log_prob
// is shaped like the scores.
OutShapes loss(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const Shape* target = shape_of(q, 1);
  if (!x || !target) return {};
  bool fits = x->rank() >= 2 && target->rank() + 1 == x->rank() && (*target)[0] == (*x)[0];
  for (size_t i = 1; fits && i < target->rank(); ++i) fits = (*target)[i] == (*x)[i + 1];
  if (!fits) q.fail(q.input_desc(1), " does not fit ", q.input_desc(0), " ([N, C, d...])");
  const std::string reduction = q.attr_string("reduction");
  if (reduction != "none" && reduction != "mean" && reduction != "sum")
    q.fail("reduction '", reduction, "' is not none, mean or sum");
  OutShapes out(q.num_outputs(), *x);
  if (!out.empty()) out[0] = reduction == "none" ? *target : Shape{};
  return out;
}

}  // namespace

void add_norm_loss_schemas(std::vector<OpSchema>& t) {
  const TypeParam fl = same_type(float_types());
  // Opset 18 scales per group, 21 per channel (and adds stash_type).
  t.push_back({"",
               "GroupNormalization",
               18,
               {float_attr("epsilon", 1e-5f), required_attr("num_groups", AttrType::kInt)},
               {fl},
               type_of_input0,
               normalized});
  t.push_back({"",
               "GroupNormalization",
               21,
               {float_attr("epsilon", 1e-5f), required_attr("num_groups", AttrType::kInt),
                int_attr("stash_type", 1)},
               {fl},
               type_of_input0,
               normalized});
  // Y has the scale's type V.
  t.push_back({"",
               "RMSNormalization",
               23,
               {int_attr("axis", -1), float_attr("epsilon", 1e-5f), int_attr("stash_type", 1)},
               {{"T", {0}, {}, float_types()}, {"V", {1}, {0}, float_types()}},
               type_of_input1,
               normalized});
  // Y, then inv_std_var of the stash type.
  t.push_back({"",
               "SimplifiedLayerNormalization",
               1,
               {int_attr("axis", -1), float_attr("epsilon", 1e-5f), int_attr("stash_type", 1)},
               {{"T", {0}, {0}, float_types()},
                {"V", {1}, {}, float_types()},
                {"U", {}, {1}, float_types(), false, "stash_type"}},
               nullptr,
               normalized});
  t.push_back(
      {"", "Swish", 24, {float_attr("alpha", 1.0f)}, {fl}, type_of_input0, same_shape_as_input0});
  t.push_back({"",
               "SwiGLU",
               28,
               {float_attr("alpha", 1.0f)},
               {{"T", {0, 1}, {0}, float_types()}},
               type_of_input0,
               swiglu});
  const std::vector<TypeParam> loss_types = {{"T", {0, 2}, {0, 1}, float_types()},
                                             {"Tind", {1}, {}, index_types()}};
  const std::vector<AttrDef> loss_attrs = {optional_attr("ignore_index", AttrType::kInt),
                                           string_attr("reduction", "mean")};
  t.push_back({"", "NegativeLogLikelihoodLoss", 12, loss_attrs, loss_types, type_of_input0, loss});
  t.push_back({"", "SoftmaxCrossEntropyLoss", 12, loss_attrs, loss_types, type_of_input0, loss});
}

}  // namespace tessera::ops
