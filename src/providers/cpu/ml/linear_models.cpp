// LinearClassifier and LinearRegressor: scores = X * W^T + b, then the
// post-transform; the classifier picks the best class per row. The scores
// are one float SGEMM against W packed once at kernel creation (a model of
// many rows spends its time there), and the post-transform runs in float
// over each row of the output in place.
#include <algorithm>

#include "linalg/gemm.hpp"
#include "providers/cpu/ml/ml_common.hpp"
#include "providers/cpu/quant/element_io.hpp"

namespace tessera::cpu::ml {

namespace {

// W [outputs, C] as the SGEMM's packed left operand, with the intercepts
// (empty: zero). The product runs as W X^T: a model's few outputs are the
// rows of the micro-kernel's tile and X's many rows its long side (with X's
// rows as the tile's columns, ten classes would fill ten of its 64).
class AffineScores {
 public:
  AffineScores(const ep::KernelInfo& info, int64_t outputs) : outputs_(outputs) {
    auto w = info.attr_floats("coefficients");
    auto b = info.attr_floats("intercepts");
    if (outputs <= 0 || w.empty() || int64_t(w.size()) % outputs != 0)
      info.fail_node(w.size(), " coefficients do not form ", outputs, " rows");
    if (!b.empty() && int64_t(b.size()) != outputs)
      info.fail_node(b.size(), " intercepts for ", outputs, " outputs");
    features_ = int64_t(w.size()) / outputs;
    bias_.assign(b.begin(), b.end());
    packed_ = linalg::PackedA(/*trans=*/false, outputs, features_, w.data(), features_);
  }
  int64_t outputs() const { return outputs_; }

  // Y [rows, outputs] (row stride ldy) for X [rows, C].
  void run(ep::KernelContext& ctx, const FloatRows& x, float* y, int64_t ldy) const {
    if (x.cols != features_)
      ctx.fail_node(features_ * outputs_, " coefficients do not form ", outputs_, " rows of ",
                    x.cols, " features (X has ", x.cols, " features)");
    if (x.rows == 0) return;
    HostVector<float> yt(static_cast<size_t>(outputs_ * x.rows));
    linalg::Epilogue bias;
    bias.row_bias = bias_.empty() ? nullptr : bias_.data();
    linalg::sgemm_packed(packed_, /*trans_b=*/true, x.rows, x.data, x.cols, yt.data(), x.rows,
                         &ctx.thread_pool(), bias.empty() ? nullptr : &bias);
    for (int64_t n = 0; n < x.rows; ++n)
      for (int64_t j = 0; j < outputs_; ++j) y[n * ldy + j] = yt[size_t(j * x.rows + n)];
  }

 private:
  int64_t outputs_, features_ = 0;
  std::vector<float> bias_;
  linalg::PackedA packed_;
};

class LinearClassifierKernel : public ep::OpKernel {
 public:
  explicit LinearClassifierKernel(const ep::KernelInfo& info)
      : ints_(info.attr_ints("classlabels_ints")),
        strs_(info.attr_strings("classlabels_strings")),
        pt_(parse_post_transform(info, info.attr_string("post_transform", "NONE"))),
        scores_(info, score_rows(info)) {
    labels_ = int64_t(ints_.size() + strs_.size());
  }

  void compute(ep::KernelContext& ctx) const override {
    std::vector<float> storage;
    const FloatRows x = read_float_rows(ctx, ctx.required_input(0), storage);
    const int64_t rows = scores_.outputs();
    const bool binary = rows == 1 && labels_ == 2;
    const int64_t width = binary ? 2 : rows;
    Tensor& zt = ctx.output(1, Shape{x.rows, width}, DataType::kFloat);
    float* z = zt.mutable_data<float>();
    std::vector<int64_t> best(static_cast<size_t>(x.rows));
    if (binary) {
      // The single score s becomes the pair (-s, s); its sign decides.
      std::vector<float> s(static_cast<size_t>(x.rows));
      scores_.run(ctx, x, s.data(), 1);
      for (int64_t n = 0; n < x.rows; ++n) {
        const float v = s[size_t(n)];
        best[size_t(n)] = v > 0 ? 1 : 0;
        z[n * 2] = -v;
        z[n * 2 + 1] = v;
      }
      apply_post_transform_rows(pt_, z, x.rows, 2);
    } else {
      scores_.run(ctx, x, z, width);
      apply_post_transform_rows(pt_, z, x.rows, width);
      for (int64_t n = 0; n < x.rows; ++n) {
        const float* row = z + n * width;
        best[size_t(n)] = std::min<int64_t>(std::max_element(row, row + width) - row, labels_ - 1);
      }
    }
    if (strs_.empty()) {
      Tensor& y = ctx.output(0, Shape{x.rows}, DataType::kInt64);
      for (int64_t n = 0; n < x.rows; ++n)
        y.mutable_data<int64_t>()[n] = ints_[size_t(best[size_t(n)])];
    } else {
      Tensor& y = ctx.output(0, Shape{x.rows}, DataType::kString);
      for (int64_t n = 0; n < x.rows; ++n)
        y.mutable_data<std::string>()[n] = strs_[size_t(best[size_t(n)])];
    }
  }

 private:
  // The intercepts say how many score rows the coefficients hold: one row
  // for a binary model with two labels, else one per class.
  static int64_t score_rows(const ep::KernelInfo& info) {
    const auto ints = info.attr_ints("classlabels_ints");
    const auto strs = info.attr_strings("classlabels_strings");
    if (ints.empty() == strs.empty())
      info.fail_node("exactly one of classlabels_ints and classlabels_strings must be given");
    const auto b = info.attr_floats("intercepts");
    return b.empty() ? int64_t(ints.size() + strs.size()) : int64_t(b.size());
  }

  std::vector<int64_t> ints_;
  std::vector<std::string> strs_;
  PostTransform pt_;
  AffineScores scores_;
  int64_t labels_ = 0;
};

class LinearRegressorKernel : public ep::OpKernel {
 public:
  explicit LinearRegressorKernel(const ep::KernelInfo& info)
      : pt_(parse_post_transform(info, info.attr_string("post_transform", "NONE"))),
        scores_(info, targets(info)) {}
  void compute(ep::KernelContext& ctx) const override {
    std::vector<float> storage;
    const FloatRows x = read_float_rows(ctx, ctx.required_input(0), storage);
    const int64_t t = scores_.outputs();
    Tensor& y = ctx.output(0, Shape{x.rows, t}, DataType::kFloat);
    float* yd = y.mutable_data<float>();
    scores_.run(ctx, x, yd, t);
    apply_post_transform_rows(pt_, yd, x.rows, t);
  }

 private:
  static int64_t targets(const ep::KernelInfo& info) {
    const int64_t t = info.attr_int("targets", 1);
    if (t < 1) info.fail_node("targets must be >= 1, got ", t);
    return t;
  }
  PostTransform pt_;
  AffineScores scores_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_linear_classifier(const ep::KernelInfo& i) {
  return std::make_unique<LinearClassifierKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_linear_regressor(const ep::KernelInfo& i) {
  return std::make_unique<LinearRegressorKernel>(i);
}

}  // namespace tessera::cpu::ml
