// ai.onnx.ml: the classical-ML ops (Operators-ml.md). Their kernels read X
// as a matrix of N rows: a scalar or a 1-D X is one row, a higher rank has
// N = dim 0. Output types mostly follow attributes (labels, values_*,
// cast_to): those entries have type rules.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

const std::vector<DataType>& ml_numeric() {  // the inputs most ML ops take
  static const std::vector<DataType> v = {DataType::kFloat, DataType::kDouble, DataType::kInt64,
                                          DataType::kInt32};
  return v;
}

const std::vector<DataType>& string_or_int64() {
  static const std::vector<DataType> v = {DataType::kString, DataType::kInt64};
  return v;
}

ir::TypeInfo tensor_type(DataType t) {
  ir::TypeInfo ti;
  ti.kind = ir::TypeInfo::Kind::kTensor;
  ti.elem_type = t;
  return ti;
}

std::vector<ir::TypeInfo> all_of(const ir::Node& n, DataType t) {
  return std::vector<ir::TypeInfo>(n.outputs.size(), tensor_type(t));
}

DataType elem(const std::vector<ir::TypeInfo>& in, size_t i) {
  return i < in.size() && in[i].kind == ir::TypeInfo::Kind::kTensor ? in[i].elem_type
                                                                    : DataType::kUndefined;
}

// cast_to names the output type.
std::vector<ir::TypeInfo> cast_map_type(const ir::Node& n, int64_t,
                                        const std::vector<ir::TypeInfo>&) {
  const ir::Attribute* a = n.attr("cast_to");
  const std::string to = a ? a->s : "TO_FLOAT";
  return all_of(n, to == "TO_STRING"  ? DataType::kString
                   : to == "TO_INT64" ? DataType::kInt64
                                      : DataType::kFloat);
}

// Strings map to int64 and int64 to strings (CategoryMapper, LabelEncoder 1).
std::vector<ir::TypeInfo> swap_string_int64(const ir::Node& n, int64_t,
                                            const std::vector<ir::TypeInfo>& in) {
  const DataType t = elem(in, 0);
  return all_of(n, t == DataType::kString  ? DataType::kInt64
                   : t == DataType::kInt64 ? DataType::kString
                                           : DataType::kUndefined);
}

// The type of the values list the node holds.
std::vector<ir::TypeInfo> label_encoder_type(const ir::Node& n, int64_t,
                                             const std::vector<ir::TypeInfo>&) {
  if (n.attr("values_strings")) return all_of(n, DataType::kString);
  if (n.attr("values_int64s")) return all_of(n, DataType::kInt64);
  if (n.attr("values_floats")) return all_of(n, DataType::kFloat);
  const ir::Attribute* a = n.attr("values_tensor");
  return all_of(n, a && a->t.defined() ? a->t.dtype() : DataType::kUndefined);
}

// The map's value type.
std::vector<ir::TypeInfo> dict_vectorizer_type(const ir::Node& n, int64_t,
                                               const std::vector<ir::TypeInfo>& in) {
  const bool map = !in.empty() && in[0].kind == ir::TypeInfo::Kind::kMap && in[0].inner &&
                   in[0].inner->kind == ir::TypeInfo::Kind::kTensor;
  return all_of(n, map ? in[0].inner->elem_type : DataType::kUndefined);
}

// Labels Y: strings when the class labels are, int64 otherwise; scores Z float.
std::vector<ir::TypeInfo> classifier_type(const ir::Node& n, int64_t,
                                          const std::vector<ir::TypeInfo>&) {
  std::vector<ir::TypeInfo> out = all_of(n, DataType::kFloat);
  if (!out.empty())
    out[0] = tensor_type(n.attr("classlabels_strings") ? DataType::kString : DataType::kInt64);
  return out;
}

// A sequence of maps from the class labels to float scores.
std::vector<ir::TypeInfo> zip_map_type(const ir::Node& n, int64_t,
                                       const std::vector<ir::TypeInfo>&) {
  ir::TypeInfo m;
  m.kind = ir::TypeInfo::Kind::kMap;
  m.elem_type = n.attr("classlabels_strings") ? DataType::kString : DataType::kInt64;
  m.inner = std::make_shared<ir::TypeInfo>(tensor_type(DataType::kFloat));
  ir::TypeInfo seq;
  seq.kind = ir::TypeInfo::Kind::kSequence;
  seq.inner = std::make_shared<ir::TypeInfo>(m);
  return std::vector<ir::TypeInfo>(n.outputs.size(), seq);
}

int64_t rows_of(const Shape& x) { return x.rank() <= 1 ? 1 : x[0]; }

// Z keeps X's leading dims and takes one column per index in Y (a 1-D or
// scalar X gives one row).
OutShapes array_feature_extractor(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const Shape* y = shape_of(q, 1);
  if (!x || !y) return {};
  std::vector<int64_t> out = {1};
  if (x->rank() > 1) out.assign(x->dims().begin(), x->dims().end() - 1);
  out.push_back(y->num_elements());
  return {Shape(out)};
}

OutShapes one_hot_encoder(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  std::vector<int64_t> out = x->dims();
  const ir::Attribute* ints = q.node().attr("cats_int64s");
  const ir::Attribute* strs = q.node().attr("cats_strings");
  out.push_back(int64_t((ints ? ints->ints.size() : 0) + (strs ? strs->strings.size() : 0)));
  return {Shape(out)};
}

OutShapes feature_vectorizer(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  int64_t total = 0;
  for (int64_t d : q.attr_ints("inputdimensions")) {
    if (d < 0) q.fail("inputdimensions has a negative entry ", d);
    if (__builtin_add_overflow(total, d, &total)) q.fail("inputdimensions overflow int64");
  }
  return {Shape{rows_of(*x), total}};
}

OutShapes dict_vectorizer(const ShapeQuery& q) {
  const ir::Attribute* ints = q.node().attr("int64_vocabulary");
  const ir::Attribute* strs = q.node().attr("string_vocabulary");
  return {Shape{1, int64_t((ints ? ints->ints.size() : 0) + (strs ? strs->strings.size() : 0))}};
}

// One row of `cols` per row of X; cols <= 0: the attribute `attr` (when given).
OutShapes per_row(const ShapeQuery& q, int64_t cols) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  return {Shape{rows_of(*x), cols}};
}

OutShapes linear_regressor(const ShapeQuery& q) { return per_row(q, q.attr_int("targets")); }
OutShapes svm_regressor(const ShapeQuery& q) { return per_row(q, 1); }
// n_targets has no default in the spec: without it the width is unknown.
OutShapes tree_regressor(const ShapeQuery& q) {
  if (!q.has_attr("n_targets")) return {};
  return per_row(q, q.attr_int("n_targets"));
}

// Y holds a label per row; Z's width depends on the class count and the
// binary-case conventions of each classifier, which its kernel settles.
OutShapes classifier(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  return {Shape{rows_of(*x)}, std::nullopt};
}

OpSchema ml(const char* op, int64_t since, std::vector<AttrDef> attrs, std::vector<TypeParam> types,
            ShapeRule rule) {
  return {"ai.onnx.ml", op, since, std::move(attrs), std::move(types), nullptr, rule};
}

// T1 over X, T2 over the labels Y; the scores Z are float.
std::vector<TypeParam> classifier_types() {
  return {{"T1", {0}, {}, ml_numeric()},
          {"T2", {}, {0}, string_or_int64()},
          {"Z", {}, {1}, float_type()}};
}

const TypeParam float_out{"Y", {}, {0}, float_type()};

void add_transformers(std::vector<OpSchema>& t) {
  t.push_back(ml("ArrayFeatureExtractor", 1, {},
                 {{"T",
                   {0},
                   {0},
                   {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32,
                    DataType::kString}},
                  {"Y", {1}, {}, int64_type()}},
                 array_feature_extractor));
  const TypeParam same = same_type(ml_numeric());
  t.push_back(ml("Binarizer", 1, {float_attr("threshold", 0.0f)}, {same}, same_shape_as_input0));
  t.push_back(ml("CastMap", 1,
                 {string_attr("cast_to", "TO_FLOAT"), string_attr("map_form", "DENSE"),
                  int_attr("max_map", 1)},
                 {{"T2", {}, {0}, {DataType::kString, DataType::kFloat, DataType::kInt64}}},
                 unknown_shapes));  // the length follows from the map's keys
  t.back().type_rule = cast_map_type;
  t.push_back(ml("CategoryMapper", 1,
                 {optional_attr("cats_int64s", AttrType::kInts),
                  optional_attr("cats_strings", AttrType::kStrings), int_attr("default_int64", -1),
                  string_attr("default_string", "_Unused")},
                 {{"T1", {0}, {}, string_or_int64()}, {"T2", {}, {0}, string_or_int64()}},
                 same_shape_as_input0));
  t.back().type_rule = swap_string_int64;
  t.push_back(ml(
      "DictVectorizer", 1,
      {optional_attr("int64_vocabulary", AttrType::kInts),
       optional_attr("string_vocabulary", AttrType::kStrings)},
      {{"T2", {}, {0}, {DataType::kInt64, DataType::kFloat, DataType::kDouble, DataType::kString}}},
      dict_vectorizer));
  t.back().type_rule = dict_vectorizer_type;
  TypeParam features{"T1", {0}, {}, ml_numeric()};
  features.variadic = true;
  t.push_back(ml("FeatureVectorizer", 1, {optional_attr("inputdimensions", AttrType::kInts)},
                 {features}, feature_vectorizer));
  t.back().types.push_back(float_out);
  t.push_back(ml("Imputer", 1,
                 {optional_attr("imputed_value_floats", AttrType::kFloats),
                  optional_attr("imputed_value_int64s", AttrType::kInts),
                  float_attr("replaced_value_float", 0.0f), int_attr("replaced_value_int64", 0)},
                 {same}, same_shape_as_input0));
  // LabelEncoder: classes_strings (1), key/value lists (2), key/value tensors (4).
  t.push_back(ml("LabelEncoder", 1,
                 {optional_attr("classes_strings", AttrType::kStrings),
                  int_attr("default_int64", -1), string_attr("default_string", "_Unused")},
                 {{"T1", {0}, {}, string_or_int64()}, {"T2", {}, {0}, string_or_int64()}},
                 same_shape_as_input0));
  t.back().type_rule = swap_string_int64;
  std::vector<AttrDef> lists = {float_attr("default_float", -0.0f),
                                int_attr("default_int64", -1),
                                string_attr("default_string", "_Unused"),
                                optional_attr("keys_floats", AttrType::kFloats),
                                optional_attr("keys_int64s", AttrType::kInts),
                                optional_attr("keys_strings", AttrType::kStrings),
                                optional_attr("values_floats", AttrType::kFloats),
                                optional_attr("values_int64s", AttrType::kInts),
                                optional_attr("values_strings", AttrType::kStrings)};
  const std::vector<DataType> v2 = {DataType::kString, DataType::kInt64, DataType::kFloat};
  t.push_back(ml("LabelEncoder", 2, lists, {{"T1", {0}, {}, v2}, {"T2", {}, {0}, v2}},
                 same_shape_as_input0));
  t.back().type_rule = label_encoder_type;
  for (const char* a : {"default_tensor", "keys_tensor", "values_tensor"})
    lists.push_back(optional_attr(a, AttrType::kTensor));
  const std::vector<DataType> v4 = {DataType::kString, DataType::kInt64, DataType::kFloat,
                                    DataType::kInt32,  DataType::kInt16, DataType::kDouble};
  t.push_back(ml("LabelEncoder", 4, lists, {{"T1", {0}, {}, v4}, {"T2", {}, {0}, v4}},
                 same_shape_as_input0));
  t.back().type_rule = label_encoder_type;
  t.push_back(ml("Normalizer", 1, {string_attr("norm", "MAX")}, {{"T", {0}, {}, ml_numeric()}},
                 same_shape_as_input0));
  t.back().types.push_back(float_out);
  t.push_back(ml("OneHotEncoder", 1,
                 {optional_attr("cats_int64s", AttrType::kInts),
                  optional_attr("cats_strings", AttrType::kStrings), int_attr("zeros", 1)},
                 {{"T",
                   {0},
                   {},
                   {DataType::kString, DataType::kInt64, DataType::kInt32, DataType::kFloat,
                    DataType::kDouble}}},
                 one_hot_encoder));
  t.back().types.push_back(float_out);
  t.push_back(
      ml("Scaler", 1,
         {optional_attr("offset", AttrType::kFloats), optional_attr("scale", AttrType::kFloats)},
         {{"T", {0}, {}, ml_numeric()}}, same_shape_as_input0));
  t.back().types.push_back(float_out);
  t.push_back(ml("ZipMap", 1,
                 {optional_attr("classlabels_int64s", AttrType::kInts),
                  optional_attr("classlabels_strings", AttrType::kStrings)},
                 {{"X", {0}, {}, float_type()}},
                 unknown_shapes));  // a sequence of maps
  t.back().type_rule = zip_map_type;
}

void add_models(std::vector<OpSchema>& t) {
  const TypeParam x{"T", {0}, {}, ml_numeric()};
  t.push_back(ml("LinearClassifier", 1,
                 {optional_attr("classlabels_ints", AttrType::kInts),
                  optional_attr("classlabels_strings", AttrType::kStrings),
                  required_attr("coefficients", AttrType::kFloats),
                  optional_attr("intercepts", AttrType::kFloats), int_attr("multi_class", 0),
                  string_attr("post_transform", "NONE")},
                 classifier_types(), classifier));
  t.back().type_rule = classifier_type;
  t.push_back(ml("LinearRegressor", 1,
                 {optional_attr("coefficients", AttrType::kFloats),
                  optional_attr("intercepts", AttrType::kFloats),
                  string_attr("post_transform", "NONE"), int_attr("targets", 1)},
                 {x}, linear_regressor));
  t.back().types.push_back(float_out);
  std::vector<AttrDef> svm = {optional_attr("coefficients", AttrType::kFloats),
                              optional_attr("kernel_params", AttrType::kFloats),
                              string_attr("kernel_type", "LINEAR"),
                              string_attr("post_transform", "NONE"),
                              optional_attr("rho", AttrType::kFloats),
                              optional_attr("support_vectors", AttrType::kFloats)};
  std::vector<AttrDef> svc = svm;
  for (const char* a : {"classlabels_ints", "vectors_per_class"})
    svc.push_back(optional_attr(a, AttrType::kInts));
  for (const char* a : {"prob_a", "prob_b"}) svc.push_back(optional_attr(a, AttrType::kFloats));
  svc.push_back(optional_attr("classlabels_strings", AttrType::kStrings));
  t.push_back(ml("SVMClassifier", 1, svc, classifier_types(), classifier));
  t.back().type_rule = classifier_type;
  svm.push_back(int_attr("n_supports", 0));
  svm.push_back(int_attr("one_class", 0));
  t.push_back(ml("SVMRegressor", 1, svm, {x}, svm_regressor));
  t.back().types.push_back(float_out);

  // The tree ensembles' node and leaf lists; opset 3 adds the *_as_tensor
  // forms of their float lists.
  std::vector<AttrDef> nodes = {string_attr("post_transform", "NONE"),
                                optional_attr("base_values", AttrType::kFloats),
                                optional_attr("nodes_hitrates", AttrType::kFloats),
                                optional_attr("nodes_values", AttrType::kFloats),
                                optional_attr("nodes_modes", AttrType::kStrings)};
  for (const char* a : {"nodes_falsenodeids", "nodes_featureids", "nodes_missing_value_tracks_true",
                        "nodes_nodeids", "nodes_treeids", "nodes_truenodeids"})
    nodes.push_back(optional_attr(a, AttrType::kInts));
  auto with_tensors = [](std::vector<AttrDef> a, std::initializer_list<const char*> names) {
    for (const char* n : names) a.push_back(optional_attr(n, AttrType::kTensor));
    return a;
  };
  std::vector<AttrDef> cls = nodes;
  for (const char* a : {"class_ids", "class_nodeids", "class_treeids", "classlabels_int64s"})
    cls.push_back(optional_attr(a, AttrType::kInts));
  cls.push_back(optional_attr("class_weights", AttrType::kFloats));
  cls.push_back(optional_attr("classlabels_strings", AttrType::kStrings));
  t.push_back(ml("TreeEnsembleClassifier", 1, cls, classifier_types(), classifier));
  t.back().type_rule = classifier_type;
  t.push_back(ml("TreeEnsembleClassifier", 3,
                 with_tensors(cls, {"base_values_as_tensor", "class_weights_as_tensor",
                                    "nodes_hitrates_as_tensor", "nodes_values_as_tensor"}),
                 classifier_types(), classifier));
  t.back().type_rule = classifier_type;
  std::vector<AttrDef> reg = nodes;
  reg.push_back(string_attr("aggregate_function", "SUM"));
  reg.push_back(optional_attr("n_targets", AttrType::kInt));
  for (const char* a : {"target_ids", "target_nodeids", "target_treeids"})
    reg.push_back(optional_attr(a, AttrType::kInts));
  reg.push_back(optional_attr("target_weights", AttrType::kFloats));
  t.push_back(ml("TreeEnsembleRegressor", 1, reg, {x}, tree_regressor));
  t.back().types.push_back(float_out);
  t.push_back(ml("TreeEnsembleRegressor", 3,
                 with_tensors(reg, {"base_values_as_tensor", "nodes_hitrates_as_tensor",
                                    "nodes_values_as_tensor", "target_weights_as_tensor"}),
                 {x}, tree_regressor));
  t.back().types.push_back(float_out);
  // TreeEnsemble (5): one op for both, its thresholds and weights as tensors.
  std::vector<AttrDef> v5 = {int_attr("aggregate_function", 1), int_attr("post_transform", 0),
                             optional_attr("n_targets", AttrType::kInt)};
  for (const char* a : {"leaf_targetids", "nodes_falseleafs", "nodes_falsenodeids",
                        "nodes_featureids", "nodes_trueleafs", "nodes_truenodeids", "tree_roots"})
    v5.push_back(required_attr(a, AttrType::kInts));
  v5.push_back(optional_attr("nodes_missing_value_tracks_true", AttrType::kInts));
  for (const char* a : {"leaf_weights", "nodes_modes", "nodes_splits"})
    v5.push_back(required_attr(a, AttrType::kTensor));
  for (const char* a : {"membership_values", "nodes_hitrates"})
    v5.push_back(optional_attr(a, AttrType::kTensor));
  t.push_back(ml("TreeEnsemble", 5, v5,
                 {same_type({DataType::kFloat, DataType::kDouble, DataType::kFloat16})},
                 tree_regressor));
}

}  // namespace

void add_ml_schemas(std::vector<OpSchema>& t) {
  add_transformers(t);
  add_models(t);
}

}  // namespace tessera::ops
