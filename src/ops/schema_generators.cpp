// Ops that make a tensor from attributes or from their input's shape:
// Constant, EyeLike and the random generators (RandomNormal, RandomUniform,
// their *Like forms, Bernoulli, Multinomial). Their output types follow the
// dtype attributes (the *Like forms: the input's type when dtype is absent).
#include <utility>

#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

// The shape of whichever value attribute the node holds (a sparse value is
// held densified).
OutShapes constant(const ShapeQuery& q) {
  for (const ir::Attribute& a : q.node().attributes) {
    if (a.name == "value" || a.name == "sparse_value") return {a.t.shape()};
    if (a.name == "value_float" || a.name == "value_int" || a.name == "value_string")
      return {Shape{}};
    if (a.name == "value_floats") return {Shape{int64_t(a.floats.size())}};
    if (a.name == "value_ints") return {Shape{int64_t(a.ints.size())}};
    if (a.name == "value_strings") return {Shape{int64_t(a.strings.size())}};
  }
  q.fail("has none of the value attributes");
}

ir::TypeInfo tensor_type(DataType t) {
  ir::TypeInfo ti;
  ti.kind = ir::TypeInfo::Kind::kTensor;
  ti.elem_type = t;
  return ti;
}

// The type of whichever value attribute the node holds.
std::vector<ir::TypeInfo> constant_type(const ir::Node& n, int64_t,
                                        const std::vector<ir::TypeInfo>&) {
  for (const ir::Attribute& a : n.attributes) {
    if (a.name == "value" || a.name == "sparse_value") return {tensor_type(a.t.dtype())};
    if (a.name == "value_float" || a.name == "value_floats") return {tensor_type(DataType::kFloat)};
    if (a.name == "value_int" || a.name == "value_ints") return {tensor_type(DataType::kInt64)};
    if (a.name == "value_string" || a.name == "value_strings")
      return {tensor_type(DataType::kString)};
  }
  return {ir::TypeInfo()};
}

OutShapes eye_like(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  if (x->rank() != 2) q.fail("EyeLike takes a 2-D input: ", q.input_desc(0));
  return {*x};
}

OutShapes shape_attr(const ShapeQuery& q) {
  const std::vector<int64_t> s = q.attr_ints("shape");
  for (int64_t d : s)
    if (d < 0) q.fail("shape ", Shape(s).to_string(), " has a negative dimension");
  return {Shape(s)};
}

// input [batch_size, class_size] -> output [batch_size, sample_size]
OutShapes multinomial(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  if (x->rank() != 2) q.fail("input must be [batch_size, class_size]: ", q.input_desc(0));
  const int64_t n = q.attr_int("sample_size");
  if (n < 0) q.fail("sample_size ", n, " is negative");
  return {Shape{(*x)[0], n}};
}

}  // namespace

void add_generator_schemas(std::vector<OpSchema>& t) {
  const std::vector<std::pair<const char*, AttrType>> kinds = {
      {"value", AttrType::kTensor},        {"sparse_value", AttrType::kSparseTensor},
      {"value_float", AttrType::kFloat},   {"value_floats", AttrType::kFloats},
      {"value_int", AttrType::kInt},       {"value_ints", AttrType::kInts},
      {"value_string", AttrType::kString}, {"value_strings", AttrType::kStrings}};
  std::vector<AttrDef> values;
  for (const auto& [name, type] : kinds) values.push_back(optional_attr(name, type));
  // Opset 1 requires `value`; 11 adds sparse_value, 12 the value_* forms.
  t.push_back({"",
               "Constant",
               1,
               {required_attr("value", AttrType::kTensor)},
               {{"T", {}, {0}, all_types()}},
               constant_type,
               constant});
  t.push_back({"", "Constant", 11, values, {{"T", {}, {0}, all_types()}}, constant_type, constant});

  std::vector<DataType> eye = numeric_types();
  eye.push_back(DataType::kBool);
  t.push_back({"",
               "EyeLike",
               9,
               {optional_attr("dtype", AttrType::kInt), int_attr("k", 0)},
               {{"T1", {0}, {}, eye}, {"T2", {}, {0}, eye, false, "dtype", 0}},
               nullptr,
               eye_like});

  const TypeParam out{"T", {}, {0}, float_types(), false, "dtype"};
  t.push_back({"",
               "RandomNormal",
               1,
               {int_attr("dtype", 1), float_attr("mean", 0.0f), float_attr("scale", 1.0f),
                optional_attr("seed", AttrType::kFloat), required_attr("shape", AttrType::kInts)},
               {out},
               nullptr,
               shape_attr});
  t.push_back({"",
               "RandomUniform",
               1,
               {int_attr("dtype", 1), float_attr("high", 1.0f), float_attr("low", 0.0f),
                optional_attr("seed", AttrType::kFloat), required_attr("shape", AttrType::kInts)},
               {out},
               nullptr,
               shape_attr});
  const std::vector<TypeParam> like = {{"T1", {0}, {}, standard_types()},
                                       {"T2", {}, {0}, float_types(), false, "dtype", 0}};
  t.push_back({"",
               "RandomNormalLike",
               1,
               {optional_attr("dtype", AttrType::kInt), float_attr("mean", 0.0f),
                float_attr("scale", 1.0f), optional_attr("seed", AttrType::kFloat)},
               like,
               nullptr,
               same_shape_as_input0});
  t.push_back({"",
               "RandomUniformLike",
               1,
               {optional_attr("dtype", AttrType::kInt), float_attr("high", 1.0f),
                float_attr("low", 0.0f), optional_attr("seed", AttrType::kFloat)},
               like,
               nullptr,
               same_shape_as_input0});
  std::vector<DataType> bits = numeric_types();
  bits.push_back(DataType::kBool);
  t.push_back({"",
               "Bernoulli",
               15,
               {optional_attr("dtype", AttrType::kInt), optional_attr("seed", AttrType::kFloat)},
               {{"T1", {0}, {}, float_types()}, {"T2", {}, {0}, bits, false, "dtype", 0}},
               nullptr,
               same_shape_as_input0});
  t.push_back(
      {"",
       "Multinomial",
       7,
       {int_attr("dtype", 6), int_attr("sample_size", 1), optional_attr("seed", AttrType::kFloat)},
       {{"T1", {0}, {}, float_types()}, {"T2", {}, {0}, index_types(), false, "dtype"}},
       nullptr,
       multinomial});
}

}  // namespace tessera::ops
