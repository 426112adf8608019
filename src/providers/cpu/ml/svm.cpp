// SVMClassifier and SVMRegressor, as libsvm/liblinear models exported to
// ONNX. With support vectors (vectors_per_class / n_supports) the decision is
// a kernel expansion; without them it is a linear model over the features.
// The classifier follows libsvm's one-vs-one voting and its pairwise-coupling
// probabilities (prob_a/prob_b), as the ONNX reference does.
#include <algorithm>
#include <cmath>

#include "providers/cpu/ml/ml_common.hpp"

namespace tessera::cpu::ml {

namespace {

enum class KernelType { kLinear, kPoly, kRbf, kSigmoid };

struct SvmKernel {
  KernelType type = KernelType::kLinear;
  double gamma = 0, coef0 = 0;
  int degree = 0;

  SvmKernel(const ep::KernelInfo& info) {
    std::string k = info.attr_string("kernel_type", "LINEAR");
    if (k == "LINEAR") type = KernelType::kLinear;
    else if (k == "POLY") type = KernelType::kPoly;
    else if (k == "RBF") type = KernelType::kRbf;
    else if (k == "SIGMOID") type = KernelType::kSigmoid;
    else info.fail_node("kernel_type '", k, "' is not one of LINEAR, POLY, RBF, SIGMOID");
    auto p = info.attr_floats("kernel_params");
    if (!p.empty()) {
      if (p.size() != 3) info.fail_node("kernel_params must hold 3 values, got ", p.size());
      gamma = p[0];
      coef0 = p[1];
      degree = int(p[2]);
    }
  }
  double operator()(const double* a, const double* b, int64_t n, KernelType t) const {
    if (t == KernelType::kRbf) {
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
      return std::exp(-gamma * s);
    }
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
    if (t == KernelType::kPoly) return std::pow(s * gamma + coef0, degree);
    if (t == KernelType::kSigmoid) return std::tanh(s * gamma + coef0);
    return s;
  }
};

std::vector<double> doubles(const std::vector<float>& f) { return {f.begin(), f.end()}; }

// libsvm's pairwise coupling: class probabilities from the k*k matrix r of
// pairwise probabilities (r[i][j] = P(i | i or j)).
std::vector<double> multiclass_probability(int64_t k, const std::vector<double>& r) {
  std::vector<double> Q(static_cast<size_t>(k * k)), Qp(static_cast<size_t>(k)), P(size_t(k), 1.0 / double(k));
  for (int64_t t = 0; t < k; ++t) {
    double d = 0;
    for (int64_t j = 0; j < k; ++j) {
      if (j == t) continue;
      d += r[size_t(j * k + t)] * r[size_t(j * k + t)];
      Q[size_t(t * k + j)] = -r[size_t(j * k + t)] * r[size_t(t * k + j)];
    }
    Q[size_t(t * k + t)] = d;
  }
  const double eps = 0.005 / double(k);
  for (int64_t it = 0; it < std::max<int64_t>(100, k); ++it) {
    double pQp = 0;
    for (int64_t t = 0; t < k; ++t) {
      Qp[size_t(t)] = 0;
      for (int64_t j = 0; j < k; ++j) Qp[size_t(t)] += Q[size_t(t * k + j)] * P[size_t(j)];
      pQp += P[size_t(t)] * Qp[size_t(t)];
    }
    double max_err = 0;
    for (int64_t t = 0; t < k; ++t) max_err = std::max(max_err, std::fabs(Qp[size_t(t)] - pQp));
    if (max_err < eps) break;
    for (int64_t t = 0; t < k; ++t) {
      double diff = (-Qp[size_t(t)] + pQp) / Q[size_t(t * k + t)];
      P[size_t(t)] += diff;
      pQp = (pQp + diff * (diff * Q[size_t(t * k + t)] + 2 * Qp[size_t(t)])) / ((1 + diff) * (1 + diff));
      for (int64_t j = 0; j < k; ++j) {
        Qp[size_t(j)] = (Qp[size_t(j)] + diff * Q[size_t(t * k + j)]) / (1 + diff);
        P[size_t(j)] /= (1 + diff);
      }
    }
  }
  return P;
}

class SVMClassifierKernel : public ep::OpKernel {
 public:
  explicit SVMClassifierKernel(const ep::KernelInfo& info)
      : kernel_(info),
        ints_(info.attr_ints("classlabels_ints")),
        strs_(info.attr_strings("classlabels_strings")),
        coef_(doubles(info.attr_floats("coefficients"))),
        sv_(doubles(info.attr_floats("support_vectors"))),
        rho_(doubles(info.attr_floats("rho"))),
        prob_a_(doubles(info.attr_floats("prob_a"))),
        prob_b_(doubles(info.attr_floats("prob_b"))),
        per_class_(info.attr_ints("vectors_per_class")),
        pt_(parse_post_transform(info, info.attr_string("post_transform", "NONE"))) {
    if (!ints_.empty() && !strs_.empty())
      info.fail_node("only one of classlabels_ints and classlabels_strings may be given");
    k_ = std::max<int64_t>(int64_t(ints_.size() + strs_.size()), 1);
    for (int64_t c : per_class_) {
      if (c < 0) info.fail_node("vectors_per_class has a negative entry");
      start_.push_back(nvec_);
      nvec_ += c;
    }
    if (nvec_ > 0 && int64_t(per_class_.size()) != k_)
      info.fail_node("vectors_per_class has ", per_class_.size(), " entries for ", k_, " classes");
    const int64_t pairs = k_ * (k_ - 1) / 2;
    if (nvec_ > 0 && int64_t(coef_.size()) != (k_ - 1) * nvec_)
      info.fail_node(coef_.size(), " coefficients; expected (classes-1)*vectors = ", (k_ - 1) * nvec_);
    if (nvec_ > 0 && int64_t(rho_.size()) < pairs)
      info.fail_node(rho_.size(), " rho values; expected one per class pair (", pairs, ")");
    if (rho_.empty()) info.fail_node("rho must be given");
    proba_ = nvec_ > 0 && !prob_a_.empty();
    if (proba_ && (int64_t(prob_a_.size()) < pairs || prob_b_.size() < prob_a_.size()))
      info.fail_node("prob_a/prob_b need one value per class pair (", pairs, ")");
    all_positive_ = coef_.empty() || *std::min_element(coef_.begin(), coef_.end()) >= 0;
  }

  void compute(ep::KernelContext& ctx) const override {
    Matrix x = read_matrix(ctx, ctx.required_input(0));
    const int64_t F = x.cols;
    if (nvec_ > 0 && int64_t(sv_.size()) != nvec_ * F)
      ctx.fail_node(sv_.size(), " support vector values do not form ", nvec_, " vectors of ", F,
                    " features");
    if (nvec_ == 0 && int64_t(coef_.size()) != k_ * F)
      ctx.fail_node(coef_.size(), " coefficients do not form ", k_, " rows of ", F, " features");
    const bool two_labels = (ints_.size() + strs_.size()) == 2;
    const int add_second = rho_.size() == 1 && two_labels ? 2 : -1;
    const int64_t nscores = proba_ ? k_ : nvec_ > 0 ? k_ * (k_ - 1) / 2 : k_;
    const int64_t width = nscores == 1 && pt_ != PostTransform::kProbit && add_second >= 0 ? 2 : nscores;
    std::vector<double> z(static_cast<size_t>(x.rows * width));
    std::vector<int64_t> label(static_cast<size_t>(x.rows));
    std::vector<double> scores, votes, kern(static_cast<size_t>(nvec_));
    for (int64_t n = 0; n < x.rows; ++n) {
      const double* xr = x.data.data() + n * F;
      scores.clear();
      votes.assign(size_t(k_), 0.0);
      if (nvec_ == 0) {
        for (int64_t j = 0; j < k_; ++j)
          scores.push_back(kernel_(xr, coef_.data() + j * F, F, KernelType::kLinear) + rho_[0]);
      } else {
        for (int64_t j = 0; j < nvec_; ++j) kern[size_t(j)] = kernel_(xr, sv_.data() + j * F, F, kernel_.type);
        pairwise(kern, scores, votes);
      }
      if (proba_) scores = probabilities(scores);
      int64_t best;
      double best_w;
      const auto& decide = nvec_ > 0 ? votes : scores;
      best = std::max_element(decide.begin(), decide.end()) - decide.begin();
      best_w = decide[size_t(best)];
      label[size_t(n)] = pick_label(best, best_w, two_labels);
      finish_scores(scores, add_second, z.data() + n * width);
    }
    if (!strs_.empty()) {
      Tensor& y = ctx.output(0, Shape{x.rows}, DataType::kString);
      for (int64_t n = 0; n < x.rows; ++n) {
        int64_t l = std::clamp<int64_t>(label[size_t(n)], 0, int64_t(strs_.size()) - 1);
        y.mutable_data<std::string>()[n] = strs_[size_t(l)];
      }
    } else {
      Tensor& y = ctx.output(0, Shape{x.rows}, DataType::kInt64);
      for (int64_t n = 0; n < x.rows; ++n) {
        int64_t l = label[size_t(n)];
        y.mutable_data<int64_t>()[n] = ints_.empty() || l < 0 || l >= int64_t(ints_.size())
                                           ? l
                                           : ints_[size_t(l)];
      }
    }
    Tensor& zt = ctx.output(1, Shape{x.rows, width}, DataType::kFloat);
    for (size_t i = 0; i < z.size(); ++i) zt.mutable_data<float>()[i] = float(z[i]);
  }

 private:
  // One-vs-one decision values, libsvm's order: (0,1), (0,2), ..., (1,2), ...
  void pairwise(const std::vector<double>& kern, std::vector<double>& scores,
                std::vector<double>& votes) const {
    size_t e = 0;
    for (int64_t i = 0; i < k_; ++i)
      for (int64_t j = i + 1; j < k_; ++j, ++e) {
        double s = rho_[e];
        for (int64_t v = 0; v < per_class_[size_t(i)]; ++v)
          s += coef_[size_t((j - 1) * nvec_ + start_[size_t(i)] + v)] * kern[size_t(start_[size_t(i)] + v)];
        for (int64_t v = 0; v < per_class_[size_t(j)]; ++v)
          s += coef_[size_t(i * nvec_ + start_[size_t(j)] + v)] * kern[size_t(start_[size_t(j)] + v)];
        scores.push_back(s);
        votes[size_t(s > 0 ? i : j)] += 1;
      }
  }
  std::vector<double> probabilities(const std::vector<double>& s) const {
    std::vector<double> r(size_t(k_ * k_), 0.0);
    size_t e = 0;
    for (int64_t i = 0; i < k_; ++i)
      for (int64_t j = i + 1; j < k_; ++j, ++e) {
        double p = 1.0 - logistic(s[e] * prob_a_[e] + prob_b_[e]);
        p = std::clamp(p, 1e-7, 1 - 1e-7);
        r[size_t(i * k_ + j)] = p;
        r[size_t(j * k_ + i)] = 1 - p;
      }
    return multiclass_probability(k_, r);
  }
  // Index of the label (or, for a single-rho model without two labels, the
  // class value 1 or 0 itself).
  int64_t pick_label(int64_t best, double w, bool two_labels) const {
    if (rho_.size() == 1) {
      if (two_labels) {
        if (!proba_ && all_positive_ && w >= 0.5) return 1;
        return best;
      }
      return w > 0 ? 1 : 0;
    }
    return best;
  }
  void finish_scores(std::vector<double>& s, int add_second, double* out) const {
    if (s.size() != 1) {
      apply_post_transform(pt_, s.data(), s.size());
      std::copy(s.begin(), s.end(), out);
      return;
    }
    const double v = s[0];
    if (pt_ == PostTransform::kProbit) {
      out[0] = probit(v);
    } else if (add_second >= 0) {
      out[0] = -v;
      out[1] = v;
      if (pt_ == PostTransform::kLogistic) {
        out[0] = logistic(-v);
        out[1] = logistic(v);
      } else {
        apply_post_transform(pt_, out, 2);
      }
    } else {
      out[0] = v;
    }
  }

  SvmKernel kernel_;
  std::vector<int64_t> ints_;
  std::vector<std::string> strs_;
  std::vector<double> coef_, sv_, rho_, prob_a_, prob_b_;
  std::vector<int64_t> per_class_, start_;
  PostTransform pt_;
  int64_t k_ = 1, nvec_ = 0;
  bool proba_ = false, all_positive_ = true;
};

class SVMRegressorKernel : public ep::OpKernel {
 public:
  explicit SVMRegressorKernel(const ep::KernelInfo& info)
      : kernel_(info),
        coef_(doubles(info.attr_floats("coefficients"))),
        sv_(doubles(info.attr_floats("support_vectors"))),
        rho_(doubles(info.attr_floats("rho"))),
        nsup_(info.attr_int("n_supports", 0)),
        one_class_(info.attr_int("one_class", 0) != 0),
        pt_(parse_post_transform(info, info.attr_string("post_transform", "NONE"))) {
    if (rho_.empty()) rho_ = {0.0};
    if (nsup_ < 0) info.fail_node("n_supports must be >= 0, got ", nsup_);
    if (nsup_ > 0 && int64_t(coef_.size()) < nsup_)
      info.fail_node(coef_.size(), " coefficients for ", nsup_, " support vectors");
  }
  void compute(ep::KernelContext& ctx) const override {
    Matrix x = read_matrix(ctx, ctx.required_input(0));
    const int64_t F = x.cols;
    if (nsup_ > 0 && int64_t(sv_.size()) != nsup_ * F)
      ctx.fail_node(sv_.size(), " support vector values do not form ", nsup_, " vectors of ", F,
                    " features");
    if (nsup_ == 0 && int64_t(coef_.size()) != F)
      ctx.fail_node(coef_.size(), " coefficients for ", F, " features");
    Tensor& y = ctx.output(0, Shape{x.rows, 1}, DataType::kFloat);
    for (int64_t n = 0; n < x.rows; ++n) {
      const double* xr = x.data.data() + n * F;
      double s = rho_[0];
      if (nsup_ > 0) {
        for (int64_t j = 0; j < nsup_; ++j) s += coef_[size_t(j)] * kernel_(xr, sv_.data() + j * F, F, kernel_.type);
      } else {
        s += kernel_(xr, coef_.data(), F, KernelType::kLinear);
      }
      if (one_class_) s = s > 0 ? 1 : -1;
      apply_post_transform(pt_, &s, 1);
      y.mutable_data<float>()[n] = float(s);
    }
  }

 private:
  SvmKernel kernel_;
  std::vector<double> coef_, sv_, rho_;
  int64_t nsup_;
  bool one_class_;
  PostTransform pt_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_svm_classifier(const ep::KernelInfo& i) {
  return std::make_unique<SVMClassifierKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_svm_regressor(const ep::KernelInfo& i) {
  return std::make_unique<SVMRegressorKernel>(i);
}

}  // namespace tessera::cpu::ml
