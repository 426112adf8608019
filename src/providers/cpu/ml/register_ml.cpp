// The ai.onnx.ml family's kernel table. Each kernel class serves every
// version of its op (branching on opset where attributes changed).
// TreeEnsembleClassifier/Regressor are deprecated at ml opset 5 but still
// served there, so older models imported at a newer opset keep running.
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/ml/ml_common.hpp"

namespace tessera::cpu {

void register_ml_kernels(ep::KernelRegistry& r) {
  using DT = DataType;
  using ep::KernelDef;
  using ep::kOpsetMax;
  const std::string d = ml::kMlDomain;
  const std::vector<DT> num = {DT::kFloat, DT::kDouble, DT::kInt64, DT::kInt32};
  const std::vector<DT> num_str = {DT::kFloat, DT::kDouble, DT::kInt64, DT::kInt32, DT::kString};
  const std::vector<DT> str_int = {DT::kString, DT::kInt64};

  r.add(KernelDef{d, "ArrayFeatureExtractor", 1, kOpsetMax,
                  {{"T", {0}, num_str}, {"Tind", {1}, {DT::kInt64}}}},
        ml::make_array_feature_extractor);
  r.add(KernelDef{d, "Binarizer", 1, kOpsetMax, {{"T", {0}, num}}}, ml::make_binarizer);
  r.add(KernelDef{d, "CastMap", 1, kOpsetMax, {}}, ml::make_cast_map);
  r.add(KernelDef{d, "CategoryMapper", 1, kOpsetMax, {{"T1", {0}, str_int}}},
        ml::make_category_mapper);
  r.add(KernelDef{d, "DictVectorizer", 1, kOpsetMax, {}}, ml::make_dict_vectorizer);
  r.add(KernelDef{d, "FeatureVectorizer", 1, kOpsetMax, {{"T1", {0}, num, true}}},
        ml::make_feature_vectorizer);
  r.add(KernelDef{d, "Imputer", 1, kOpsetMax, {{"T", {0}, num}}}, ml::make_imputer);
  r.add(KernelDef{d, "LabelEncoder", 1, 1, {{"T1", {0}, str_int}}}, ml::make_label_encoder);
  r.add(KernelDef{d, "LabelEncoder", 2, 3, {{"T1", {0}, {DT::kString, DT::kInt64, DT::kFloat}}}},
        ml::make_label_encoder);
  r.add(KernelDef{d, "LabelEncoder", 4, kOpsetMax,
                  {{"T1", {0},
                    {DT::kString, DT::kInt64, DT::kFloat, DT::kInt32, DT::kInt16, DT::kDouble}}}},
        ml::make_label_encoder);
  r.add(KernelDef{d, "LinearClassifier", 1, kOpsetMax, {{"T1", {0}, num}}},
        ml::make_linear_classifier);
  r.add(KernelDef{d, "LinearRegressor", 1, kOpsetMax, {{"T", {0}, num}}},
        ml::make_linear_regressor);
  r.add(KernelDef{d, "Normalizer", 1, kOpsetMax, {{"T", {0}, num}}}, ml::make_normalizer);
  r.add(KernelDef{d, "OneHotEncoder", 1, kOpsetMax, {{"T", {0}, num_str}}},
        ml::make_one_hot_encoder);
  r.add(KernelDef{d, "SVMClassifier", 1, kOpsetMax, {{"T1", {0}, num}}}, ml::make_svm_classifier);
  r.add(KernelDef{d, "SVMRegressor", 1, kOpsetMax, {{"T", {0}, num}}}, ml::make_svm_regressor);
  r.add(KernelDef{d, "Scaler", 1, kOpsetMax, {{"T", {0}, num}}}, ml::make_scaler);
  r.add(KernelDef{d, "TreeEnsemble", 5, kOpsetMax,
                  {{"T", {0}, {DT::kFloat, DT::kDouble, DT::kFloat16}}}},
        ml::make_tree_ensemble);
  r.add(KernelDef{d, "TreeEnsembleClassifier", 1, kOpsetMax, {{"T1", {0}, num}}},
        ml::make_tree_ensemble_classifier);
  r.add(KernelDef{d, "TreeEnsembleRegressor", 1, kOpsetMax, {{"T", {0}, num}}},
        ml::make_tree_ensemble_regressor);
  r.add(KernelDef{d, "ZipMap", 1, kOpsetMax, {{"T", {0}, {DT::kFloat}}}}, ml::make_zip_map);
}

}  // namespace tessera::cpu
