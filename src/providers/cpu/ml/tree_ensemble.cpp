// TreeEnsemble (v5), TreeEnsembleRegressor and TreeEnsembleClassifier (v1, v3):
// parse to a TreeModel once, then walk every row through every tree in parallel.
#include <algorithm>

#include "providers/cpu/ml/ml_common.hpp"
#include "providers/cpu/ml/tree_model.hpp"
#include "providers/cpu/quant/element_io.hpp"

namespace tessera::cpu::ml {

namespace {

Aggregate parse_aggregate(const ep::KernelInfo& info, const std::string& s) {
  if (s == "AVERAGE") return Aggregate::kAverage;
  if (s == "SUM") return Aggregate::kSum;
  if (s == "MIN") return Aggregate::kMin;
  if (s == "MAX") return Aggregate::kMax;
  info.fail_node("aggregate_function '", s, "' is not one of AVERAGE, SUM, MIN, MAX");
}

// Rows of X as doubles; integer inputs go through float first, as the trees
// compare against float thresholds.
Matrix tree_input(const ep::KernelContext& ctx, const TreeModel& m) {
  const Tensor& x = ctx.required_input(0);
  Matrix mx = read_matrix(ctx, x);
  if (is_integer_type(x.dtype()))
    for (double& v : mx.data) v = double(float(v));
  if (m.max_feature >= mx.cols)
    ctx.fail_node("the trees read feature ", m.max_feature, " but X ", x.description(), " has ",
                  mx.cols);
  return mx;
}

// scores[N, n_targets] = aggregate over trees (+ base values), in parallel over rows.
std::vector<double> run_trees(ep::KernelContext& ctx, const TreeModel& m, const Matrix& x,
                              Aggregate agg, const std::vector<double>& base) {
  const int64_t T = m.n_targets;
  std::vector<double> out(static_cast<size_t>(x.rows * T));
  const double cost = double(m.roots.size() * size_t(std::max<int64_t>(m.max_depth, 1)) * 4);
  ctx.thread_pool().parallel_for(x.rows, cost, [&](int64_t b, int64_t e) {
    m.predict_rows(x.data.data() + b * x.cols, e - b, x.cols, agg, out.data() + b * T);
    for (int64_t n = b; n < e; ++n)
      for (size_t t = 0; t < base.size(); ++t) out[size_t(n * T) + t] += base[t];
  });
  return out;
}

class TreeEnsembleKernel : public ep::OpKernel {
 public:
  explicit TreeEnsembleKernel(const ep::KernelInfo& info) : model_(tree_model_from_v5(info)) {
    int64_t a = info.attr_int("aggregate_function", 1);
    int64_t p = info.attr_int("post_transform", 0);
    if (a < 0 || a > 3) info.fail_node("aggregate_function ", a, " is not 0..3");
    if (p < 0 || p > 4) info.fail_node("post_transform ", p, " is not 0..4");
    agg_ = Aggregate(a);
    pt_ = PostTransform(p);
  }
  void compute(ep::KernelContext& ctx) const override {
    Matrix x = tree_input(ctx, model_);
    auto s = run_trees(ctx, model_, x, agg_, {});
    const int64_t T = model_.n_targets;
    for (int64_t n = 0; n < x.rows; ++n) apply_post_transform(pt_, s.data() + n * T, size_t(T));
    Tensor& y = ctx.output(0, Shape{x.rows, T}, ctx.required_input(0).dtype());
    write_from<double>(y, s.data());
  }

 private:
  TreeModel model_;
  Aggregate agg_ = Aggregate::kSum;
  PostTransform pt_ = PostTransform::kNone;
};

class TreeEnsembleRegressorKernel : public ep::OpKernel {
 public:
  explicit TreeEnsembleRegressorKernel(const ep::KernelInfo& info)
      : model_(tree_model_from_v3(info, "target", info.attr_int("n_targets", 1))),
        base_(attr_doubles(info, "base_values")),
        agg_(parse_aggregate(info, info.attr_string("aggregate_function", "SUM"))),
        pt_(parse_post_transform(info, info.attr_string("post_transform", "NONE"))) {
    if (!base_.empty() && int64_t(base_.size()) != model_.n_targets)
      info.fail_node(base_.size(), " base_values for ", model_.n_targets, " targets");
  }
  void compute(ep::KernelContext& ctx) const override {
    Matrix x = tree_input(ctx, model_);
    auto s = run_trees(ctx, model_, x, agg_, base_);
    const int64_t T = model_.n_targets;
    for (int64_t n = 0; n < x.rows; ++n) apply_post_transform(pt_, s.data() + n * T, size_t(T));
    Tensor& y = ctx.output(0, Shape{x.rows, T}, DataType::kFloat);
    write_from<double>(y, s.data());
  }

 private:
  TreeModel model_;
  std::vector<double> base_;
  Aggregate agg_;
  PostTransform pt_;
};

int64_t count_labels(const ep::KernelInfo& info) {
  size_t a = info.attr_ints("classlabels_int64s").size();
  size_t b = info.attr_strings("classlabels_strings").size();
  if ((a == 0) == (b == 0))
    info.fail_node("exactly one of classlabels_int64s and classlabels_strings must be given");
  return int64_t(a + b);
}

class TreeEnsembleClassifierKernel : public ep::OpKernel {
 public:
  explicit TreeEnsembleClassifierKernel(const ep::KernelInfo& info)
      : model_(tree_model_from_v3(info, "class", count_labels(info))),
        ints_(info.attr_ints("classlabels_int64s")),
        strs_(info.attr_strings("classlabels_strings")),
        base_(attr_doubles(info, "base_values")),
        pt_(parse_post_transform(info, info.attr_string("post_transform", "NONE"))) {
    auto ids = info.attr_ints("class_ids");
    binary_ =
        !ids.empty() && std::all_of(ids.begin(), ids.end(), [&](int64_t v) { return v == ids[0]; });
    if (binary_ && model_.n_targets > 2) binary_ = false;
    if (binary_) binary_col_ = ids[0];
    // A binary model scores one class, so one base value (the converters'
    // log-odds of the prior) is that class's; the spec leaves this case open
    // and onnxruntime reads it so.
    if (binary_ && model_.n_targets == 2 && base_.size() == 1) {
      std::vector<double> per_class(2, 0.0);
      per_class[size_t(binary_col_)] = base_[0];
      base_ = std::move(per_class);
    }
    if (!base_.empty() && int64_t(base_.size()) != model_.n_targets)
      info.fail_node(base_.size(), " base_values for ", model_.n_targets, " classes");
  }
  void compute(ep::KernelContext& ctx) const override {
    Matrix x = tree_input(ctx, model_);
    auto s = run_trees(ctx, model_, x, Aggregate::kSum, base_);
    const int64_t C = model_.n_targets;
    // A binary model scores one class; the other is its complement (or its
    // negation when a transform will turn it into a probability).
    const int64_t W = binary_ ? 2 : C;
    std::vector<double> z(static_cast<size_t>(x.rows * W));
    std::vector<int64_t> best(static_cast<size_t>(x.rows));
    for (int64_t n = 0; n < x.rows; ++n) {
      double* row = z.data() + n * W;
      if (binary_) {
        double v = s[size_t(n * C + binary_col_)];
        row[1] = v;
        row[0] = pt_ == PostTransform::kNone || pt_ == PostTransform::kProbit ? 1 - v : -v;
      } else {
        std::copy(s.begin() + n * C, s.begin() + (n + 1) * C, row);
      }
      apply_post_transform(pt_, row, size_t(W));
      best[size_t(n)] = std::max_element(row, row + W) - row;
    }
    if (!strs_.empty()) {
      Tensor& y = ctx.output(0, Shape{x.rows}, DataType::kString);
      for (int64_t n = 0; n < x.rows; ++n)
        y.mutable_data<std::string>()[n] =
            strs_[size_t(std::min<int64_t>(best[size_t(n)], int64_t(strs_.size()) - 1))];
    } else {
      Tensor& y = ctx.output(0, Shape{x.rows}, DataType::kInt64);
      for (int64_t n = 0; n < x.rows; ++n) {
        int64_t b = best[size_t(n)];
        // One label: the second column stands for "label present" (1) vs 0.
        y.mutable_data<int64_t>()[n] =
            ints_.size() == 1 ? (b == 1 ? ints_[0] : 0)
                              : ints_[size_t(std::min<int64_t>(b, int64_t(ints_.size()) - 1))];
      }
    }
    Tensor& zt = ctx.output(1, Shape{x.rows, W}, DataType::kFloat);
    write_from<double>(zt, z.data());
  }

 private:
  TreeModel model_;
  std::vector<int64_t> ints_;
  std::vector<std::string> strs_;
  std::vector<double> base_;
  PostTransform pt_;
  bool binary_ = false;
  int64_t binary_col_ = 0;  // the one class a binary model scores
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_tree_ensemble(const ep::KernelInfo& i) {
  return std::make_unique<TreeEnsembleKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_tree_ensemble_regressor(const ep::KernelInfo& i) {
  return std::make_unique<TreeEnsembleRegressorKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_tree_ensemble_classifier(const ep::KernelInfo& i) {
  return std::make_unique<TreeEnsembleClassifierKernel>(i);
}

}  // namespace tessera::cpu::ml
