// Element-wise ops: the unary ones (output shaped like the input), the
// broadcasting binary and variadic ones, and Cast.
#include "ops/broadcast.hpp"
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;

// PRelu broadcasts the slope to X only (unidirectional).
OutShapes prelu(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const Shape* slope = shape_of(q, 1);
  if (!x || !slope) return {};
  const Shape ss = prelu_slope_shape(*x, *slope, q.opset());
  bool fits = ss.rank() <= x->rank();
  for (size_t i = 0; fits && i < ss.rank(); ++i) {
    const int64_t d = ss[ss.rank() - 1 - i];
    fits = d == 1 || d == (*x)[x->rank() - 1 - i];
  }
  if (!fits) q.fail(q.input_desc(1), " does not broadcast to ", q.input_desc(0));
  return {*x};
}

OpSchema unary(const char* op, int64_t since, std::vector<AttrDef> attrs = {},
               const std::vector<DataType>& types = float_types()) {
  return {
      "", op, since, std::move(attrs), {same_type(types)}, type_of_input0, same_shape_as_input0};
}

void add_unary(std::vector<OpSchema>& t) {
  for (const char* op : {"Acos", "Asin", "Atan", "Cos", "Sin", "Tan"}) t.push_back(unary(op, 7));
  for (const char* op : {"Acosh", "Asinh", "Atanh", "Cosh", "Sinh"}) t.push_back(unary(op, 9));
  t.push_back(unary("Erf", 9, {}, numeric_types()));
  for (const char* op : {"Softplus", "Softsign"}) t.push_back(unary(op, 1));
  t.push_back(unary("Round", 11));
  t.push_back(unary("Mish", 18));
  for (const char* op : {"Abs", "Ceil", "Exp", "Floor", "Log", "Neg", "Reciprocal", "Relu",
                         "Sigmoid", "Sqrt", "Tanh"})
    t.push_back(unary(op, 1, {}, numeric_types()));
  t.push_back(unary("Sign", 9, {}, numeric_types()));
  t.push_back(unary("Identity", 1, {}, all_types()));
  t.push_back(unary("Celu", 12, {float_attr("alpha", 1.0f)}));
  t.push_back(unary("Elu", 1, {float_attr("alpha", 1.0f)}));
  t.push_back(unary("Gelu", 20, {string_attr("approximate", "none")}));
  t.push_back(unary("HardSigmoid", 1, {float_attr("alpha", 0.2f), float_attr("beta", 0.5f)}));
  t.push_back(unary("HardSwish", 14));
  t.push_back(unary("LeakyRelu", 1, {float_attr("alpha", 0.01f)}));
  t.push_back(unary("Selu", 1,
                    {float_attr("alpha", 1.67326319217681884765625f),
                     float_attr("gamma", 1.05070102214813232421875f)}));
  t.push_back(
      unary("Shrink", 9, {float_attr("bias", 0.0f), float_attr("lambd", 0.5f)}, numeric_types()));
  t.push_back(unary("ThresholdedRelu", 10, {float_attr("alpha", 1.0f)}));
  t.push_back(unary("PRelu", 1));
  t.back().shape_rule = prelu;
  t.push_back(unary("PRelu", 9, {}, numeric_types()));
  t.back().shape_rule = prelu;
  // Clip's bounds were attributes before opset 11.
  t.push_back(
      unary("Clip", 1, {float_attr("min", -3.402823e+38f), float_attr("max", 3.402823e+38f)}));
  t.push_back(unary("Clip", 11, {}, numeric_types()));
  OpSchema is_inf =
      unary("IsInf", 10, {int_attr("detect_negative", 1), int_attr("detect_positive", 1)});
  OpSchema is_nan = unary("IsNaN", 9);
  OpSchema not_op = unary("Not", 1, {}, bool_type());
  for (OpSchema* s : {&is_inf, &is_nan, &not_op}) {
    s->type_rule = bool_outputs;
    if (s != &not_op) s->types = {{"T1", {0}, {}, float_types()}, {"T2", {}, {0}, bool_type()}};
    if (s != &not_op)  // opset 20 adds the 8-bit floats
      s->types[0].allowed.insert(s->types[0].allowed.end(), float8_types().begin(),
                                 float8_types().end());
    t.push_back(std::move(*s));
  }
  t.push_back({"",
               "Cast",
               1,
               {required_attr("to", ir::AttrType::kInt)},
               {{"T1", {0}, {}, all_types()}, {"T2", {}, {0}, all_types(), false, "to"}},
               nullptr,
               same_shape_as_input0});
  t.push_back({"",
               "CastLike",
               15,
               {},
               {{"T1", {0}, {}, all_types()}, {"T2", {1}, {0}, all_types()}},
               type_of_input1,
               same_shape_as_input0});
}

// Opsets 1-6 of the binary ops: B aligned at `axis` when broadcast=1 gives
// one (ops::legacy_aligned_b), from the right otherwise, then broadcast with A.
OutShapes legacy_broadcast(const ShapeQuery& q) {
  const Shape* a = shape_of(q, 0);
  const Shape* b = shape_of(q, 1);
  if (!a || !b) return {};
  std::optional<int64_t> axis;
  if (q.attr_int("broadcast") != 0 && q.has_attr("axis")) axis = q.attr_int("axis");
  try {
    return {broadcast_shapes({*a, legacy_aligned_b(*a, *b, axis)})};
  } catch (const Error& e) {
    q.fail(e.what());
  }
}

// Before opset 7 the binary ops broadcast B to A (with broadcast=1); from 7
// on both broadcast numpy-style.
void add_binary(std::vector<OpSchema>& t, const char* op, int64_t first, int64_t numpy_since,
                const std::vector<DataType>& types, bool logical_out) {
  TypeParam in{"T", {0, 1}, {}, types};
  std::vector<TypeParam> params = {in, {"T1", {}, {0}, bool_type()}};
  if (!logical_out) params = {{"T", {0, 1}, {0}, types}};
  const TypeRule type_rule = logical_out ? bool_outputs : type_of_input0;
  if (first < numpy_since)
    t.push_back({"",
                 op,
                 first,
                 {int_attr("broadcast", 0), int_attr("axis", 0)},
                 params,
                 type_rule,
                 legacy_broadcast});
  t.push_back({"", op, numpy_since, {}, params, type_rule, broadcast_inputs});
}

void add_broadcasting(std::vector<OpSchema>& t) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    add_binary(t, op, 1, 7, numeric_types(), false);
  add_binary(t, "Pow", 1, 7, numeric_types(), false);
  // From opset 12 the exponent has its own type.
  t.push_back({"",
               "Pow",
               12,
               {},
               {{"T", {0}, {0}, numeric_types()}, {"T1", {1}, {}, numeric_types()}},
               type_of_input0,
               broadcast_inputs});
  for (const char* op : {"And", "Or", "Xor"}) add_binary(t, op, 1, 7, bool_type(), true);
  for (const char* op : {"Equal", "Greater", "Less"}) add_binary(t, op, 1, 7, all_types(), true);
  for (const char* op : {"GreaterOrEqual", "LessOrEqual"})
    add_binary(t, op, 12, 12, numeric_types(), true);
  add_binary(t, "Mod", 10, 10, numeric_types(), false);
  t.back().attrs = {int_attr("fmod", 0)};
  add_binary(t, "BitShift", 11, 11, numeric_types(), false);
  t.back().attrs = {required_attr("direction", ir::AttrType::kString)};
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
    add_binary(t, op, 18, 18, numeric_types(), false);
  // Variadic: every input broadcast together. (Before opset 8 the spec asks
  // for one shape, which broadcasting leaves as it is.)
  TypeParam floats = same_type(float_types()), numbers = same_type(numeric_types());
  floats.variadic = numbers.variadic = true;
  for (const char* op : {"Max", "Min", "Sum", "Mean"}) {
    t.push_back({"", op, 1, {}, {floats}, type_of_input0, broadcast_inputs});
    t.push_back({"", op, 8, {}, {numbers}, type_of_input0, broadcast_inputs});
  }
  t.push_back({"",
               "Where",
               9,
               {},
               {{"B", {0}, {}, bool_type()}, {"T", {1, 2}, {0}, all_types()}},
               type_of_input1,
               broadcast_inputs});
}

}  // namespace

void add_elementwise_schemas(std::vector<OpSchema>& t) {
  add_unary(t);
  add_broadcasting(t);
}

}  // namespace tessera::ops
