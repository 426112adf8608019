// Shared pieces of the ai.onnx.ml kernels: the score post-transforms every
// classifier/regressor names, reading float-or-double attributes (the
// *_as_tensor variants), and the kernel factories register_ml.cpp lists.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ep/kernel.hpp"

namespace tessera::cpu::ml {

inline const char* kMlDomain = "ai.onnx.ml";

enum class PostTransform { kNone = 0, kSoftmax = 1, kLogistic = 2, kSoftmaxZero = 3, kProbit = 4 };

// Parses "NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"; fails naming the node otherwise.
PostTransform parse_post_transform(const ep::KernelInfo& info, const std::string& s);
// Applies the transform to one row of scores in place.
void apply_post_transform(PostTransform pt, double* row, size_t n);
// The same in float over `rows` rows of `n` scores (the linear models'),
// softmax and logistic as one vector exp over all of them: a call per short
// row would cost more than its few exps.
void apply_post_transform_rows(PostTransform pt, float* scores, int64_t rows, int64_t n);
double logistic(double v);
double probit(double v);

// A float list attribute, or its `name`_as_tensor (double) variant, as doubles.
std::vector<double> attr_doubles(const ep::KernelInfo& info, const std::string& name);

// Input X as an [N, C] matrix of doubles (a 1-D input is one row).
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> data;
};
Matrix read_matrix(const ep::KernelContext& ctx, const Tensor& x);

// Input X as [N, C] floats: a float tensor's own data, other numeric types
// converted into `storage`.
struct FloatRows {
  int64_t rows = 0, cols = 0;
  const float* data = nullptr;
};
FloatRows read_float_rows(const ep::KernelContext& ctx, const Tensor& x,
                          std::vector<float>& storage);

std::unique_ptr<ep::OpKernel> make_array_feature_extractor(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_binarizer(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_imputer(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_scaler(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_normalizer(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_feature_vectorizer(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_one_hot_encoder(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_cast_map(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_dict_vectorizer(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_zip_map(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_category_mapper(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_label_encoder(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_linear_classifier(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_linear_regressor(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_svm_classifier(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_svm_regressor(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_tree_ensemble(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_tree_ensemble_regressor(const ep::KernelInfo& info);
std::unique_ptr<ep::OpKernel> make_tree_ensemble_classifier(const ep::KernelInfo& info);

}  // namespace tessera::cpu::ml
