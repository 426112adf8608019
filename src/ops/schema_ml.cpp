// ai.onnx.ml: the classical-ML ops (Operators-ml.md). Their kernels read X
// as a matrix of N rows: a scalar or a 1-D X is one row, a higher rank has
// N = dim 0. Output types mostly follow attributes (labels, values_*,
// cast_to): type_inference.cpp's ML rules.
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

// T1 over X, T2 over the labels Y.
std::vector<TypeParam> classifier_types() {
  return {{"T1", {0}, {}, ml_numeric()}, {"T2", {}, {0}, string_or_int64()}};
}

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
  t.push_back(ml("CategoryMapper", 1,
                 {optional_attr("cats_int64s", AttrType::kInts),
                  optional_attr("cats_strings", AttrType::kStrings), int_attr("default_int64", -1),
                  string_attr("default_string", "_Unused")},
                 {{"T1", {0}, {}, string_or_int64()}, {"T2", {}, {0}, string_or_int64()}},
                 same_shape_as_input0));
  t.push_back(ml(
      "DictVectorizer", 1,
      {optional_attr("int64_vocabulary", AttrType::kInts),
       optional_attr("string_vocabulary", AttrType::kStrings)},
      {{"T2", {}, {0}, {DataType::kInt64, DataType::kFloat, DataType::kDouble, DataType::kString}}},
      dict_vectorizer));
  TypeParam features{"T1", {0}, {}, ml_numeric()};
  features.variadic = true;
  t.push_back(ml("FeatureVectorizer", 1, {optional_attr("inputdimensions", AttrType::kInts)},
                 {features}, feature_vectorizer));
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
  for (const char* a : {"default_tensor", "keys_tensor", "values_tensor"})
    lists.push_back(optional_attr(a, AttrType::kTensor));
  const std::vector<DataType> v4 = {DataType::kString, DataType::kInt64, DataType::kFloat,
                                    DataType::kInt32,  DataType::kInt16, DataType::kDouble};
  t.push_back(ml("LabelEncoder", 4, lists, {{"T1", {0}, {}, v4}, {"T2", {}, {0}, v4}},
                 same_shape_as_input0));
  t.push_back(ml("Normalizer", 1, {string_attr("norm", "MAX")}, {{"T", {0}, {}, ml_numeric()}},
                 same_shape_as_input0));
  t.push_back(ml("OneHotEncoder", 1,
                 {optional_attr("cats_int64s", AttrType::kInts),
                  optional_attr("cats_strings", AttrType::kStrings), int_attr("zeros", 1)},
                 {{"T",
                   {0},
                   {},
                   {DataType::kString, DataType::kInt64, DataType::kInt32, DataType::kFloat,
                    DataType::kDouble}}},
                 one_hot_encoder));
  t.push_back(
      ml("Scaler", 1,
         {optional_attr("offset", AttrType::kFloats), optional_attr("scale", AttrType::kFloats)},
         {{"T", {0}, {}, ml_numeric()}}, same_shape_as_input0));
  t.push_back(ml("ZipMap", 1,
                 {optional_attr("classlabels_int64s", AttrType::kInts),
                  optional_attr("classlabels_strings", AttrType::kStrings)},
                 {{"X", {0}, {}, float_type()}},
                 unknown_shapes));  // a sequence of maps
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
  t.push_back(ml("LinearRegressor", 1,
                 {optional_attr("coefficients", AttrType::kFloats),
                  optional_attr("intercepts", AttrType::kFloats),
                  string_attr("post_transform", "NONE"), int_attr("targets", 1)},
                 {x}, linear_regressor));
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
  svm.push_back(int_attr("n_supports", 0));
  svm.push_back(int_attr("one_class", 0));
  t.push_back(ml("SVMRegressor", 1, svm, {x}, svm_regressor));

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
  t.push_back(ml("TreeEnsembleClassifier", 3,
                 with_tensors(cls, {"base_values_as_tensor", "class_weights_as_tensor",
                                    "nodes_hitrates_as_tensor", "nodes_values_as_tensor"}),
                 classifier_types(), classifier));
  std::vector<AttrDef> reg = nodes;
  reg.push_back(string_attr("aggregate_function", "SUM"));
  reg.push_back(optional_attr("n_targets", AttrType::kInt));
  for (const char* a : {"target_ids", "target_nodeids", "target_treeids"})
    reg.push_back(optional_attr(a, AttrType::kInts));
  reg.push_back(optional_attr("target_weights", AttrType::kFloats));
  t.push_back(ml("TreeEnsembleRegressor", 1, reg, {x}, tree_regressor));
  t.push_back(ml("TreeEnsembleRegressor", 3,
                 with_tensors(reg, {"base_values_as_tensor", "nodes_hitrates_as_tensor",
                                    "nodes_values_as_tensor", "target_weights_as_tensor"}),
                 {x}, tree_regressor));
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
