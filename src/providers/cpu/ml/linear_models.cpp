// LinearClassifier and LinearRegressor: scores = X * W^T + b, then the
// post-transform; the classifier picks the best class per row.
#include <algorithm>

#include "providers/cpu/ml/ml_common.hpp"

namespace tessera::cpu::ml {

namespace {

// X [N,C] times coefficients [rows, C]^T plus intercepts (empty: zero).
std::vector<double> affine(const ep::KernelContext& ctx, const Matrix& x,
                           const std::vector<double>& w, const std::vector<double>& b,
                           int64_t rows) {
  if (rows <= 0 || int64_t(w.size()) != rows * x.cols)
    ctx.fail_node(w.size(), " coefficients do not form ", rows, " rows of ", x.cols,
                  " features (X has ", x.cols, " features)");
  if (!b.empty() && int64_t(b.size()) != rows)
    ctx.fail_node(b.size(), " intercepts for ", rows, " outputs");
  std::vector<double> out(static_cast<size_t>(x.rows * rows));
  for (int64_t n = 0; n < x.rows; ++n)
    for (int64_t j = 0; j < rows; ++j) {
      double s = b.empty() ? 0.0 : b[size_t(j)];
      for (int64_t c = 0; c < x.cols; ++c) s += x.data[size_t(n * x.cols + c)] * w[size_t(j * x.cols + c)];
      out[size_t(n * rows + j)] = s;
    }
  return out;
}

void write_float(ep::KernelContext& ctx, size_t i, const std::vector<double>& v, Shape s) {
  Tensor& t = ctx.output(i, s, DataType::kFloat);
  float* d = t.mutable_data<float>();
  for (size_t k = 0; k < v.size(); ++k) d[k] = float(v[k]);
}

class LinearClassifierKernel : public ep::OpKernel {
 public:
  explicit LinearClassifierKernel(const ep::KernelInfo& info)
      : ints_(info.attr_ints("classlabels_ints")),
        strs_(info.attr_strings("classlabels_strings")),
        pt_(parse_post_transform(info, info.attr_string("post_transform", "NONE"))) {
    auto c = info.attr_floats("coefficients");
    auto b = info.attr_floats("intercepts");
    coef_.assign(c.begin(), c.end());
    bias_.assign(b.begin(), b.end());
    if (ints_.empty() == strs_.empty())
      info.fail_node("exactly one of classlabels_ints and classlabels_strings must be given");
    labels_ = int64_t(ints_.size() + strs_.size());
    // The intercepts say how many score rows the coefficients hold: one row
    // for a binary model with two labels, else one per class.
    rows_ = bias_.empty() ? labels_ : int64_t(bias_.size());
  }

  void compute(ep::KernelContext& ctx) const override {
    Matrix x = read_matrix(ctx, ctx.required_input(0));
    auto s = affine(ctx, x, coef_, bias_, rows_);
    const bool binary = rows_ == 1 && labels_ == 2;
    const int64_t width = binary ? 2 : rows_;
    std::vector<double> z(static_cast<size_t>(x.rows * width));
    std::vector<int64_t> best(static_cast<size_t>(x.rows));
    for (int64_t n = 0; n < x.rows; ++n) {
      double* row = z.data() + n * width;
      if (binary) {
        double v = s[size_t(n)];
        best[size_t(n)] = v > 0 ? 1 : 0;  // the sign of the raw score decides
        row[0] = -v;
        row[1] = v;
        if (pt_ == PostTransform::kLogistic) {
          row[0] = logistic(-v);
          row[1] = logistic(v);
        } else {
          apply_post_transform(pt_, row, 2);
        }
      } else {
        std::copy(s.begin() + n * rows_, s.begin() + (n + 1) * rows_, row);
        apply_post_transform(pt_, row, size_t(width));
        best[size_t(n)] = std::max_element(row, row + width) - row;
        if (best[size_t(n)] >= labels_) best[size_t(n)] = labels_ - 1;
      }
    }
    if (strs_.empty()) {
      Tensor& y = ctx.output(0, Shape{x.rows}, DataType::kInt64);
      for (int64_t n = 0; n < x.rows; ++n) y.mutable_data<int64_t>()[n] = ints_[size_t(best[size_t(n)])];
    } else {
      Tensor& y = ctx.output(0, Shape{x.rows}, DataType::kString);
      for (int64_t n = 0; n < x.rows; ++n)
        y.mutable_data<std::string>()[n] = strs_[size_t(best[size_t(n)])];
    }
    write_float(ctx, 1, z, Shape{x.rows, width});
  }

 private:
  std::vector<int64_t> ints_;
  std::vector<std::string> strs_;
  std::vector<double> coef_, bias_;
  PostTransform pt_;
  int64_t labels_ = 0, rows_ = 0;
};

class LinearRegressorKernel : public ep::OpKernel {
 public:
  explicit LinearRegressorKernel(const ep::KernelInfo& info)
      : pt_(parse_post_transform(info, info.attr_string("post_transform", "NONE"))),
        targets_(info.attr_int("targets", 1)) {
    auto c = info.attr_floats("coefficients");
    auto b = info.attr_floats("intercepts");
    coef_.assign(c.begin(), c.end());
    bias_.assign(b.begin(), b.end());
    if (targets_ < 1) info.fail_node("targets must be >= 1, got ", targets_);
  }
  void compute(ep::KernelContext& ctx) const override {
    Matrix x = read_matrix(ctx, ctx.required_input(0));
    auto s = affine(ctx, x, coef_, bias_, targets_);
    for (int64_t n = 0; n < x.rows; ++n) apply_post_transform(pt_, s.data() + n * targets_, size_t(targets_));
    write_float(ctx, 0, s, Shape{x.rows, targets_});
  }

 private:
  PostTransform pt_;
  int64_t targets_;
  std::vector<double> coef_, bias_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_linear_classifier(const ep::KernelInfo& i) {
  return std::make_unique<LinearClassifierKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_linear_regressor(const ep::KernelInfo& i) {
  return std::make_unique<LinearRegressorKernel>(i);
}

}  // namespace tessera::cpu::ml
