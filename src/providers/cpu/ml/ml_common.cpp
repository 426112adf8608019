#include "providers/cpu/ml/ml_common.hpp"

#include <algorithm>
#include <cmath>

#include "linalg/vec_math.hpp"
#include "providers/cpu/quant/element_io.hpp"

namespace tessera::cpu::ml {

PostTransform parse_post_transform(const ep::KernelInfo& info, const std::string& s) {
  if (s == "NONE") return PostTransform::kNone;
  if (s == "SOFTMAX") return PostTransform::kSoftmax;
  if (s == "LOGISTIC") return PostTransform::kLogistic;
  if (s == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (s == "PROBIT") return PostTransform::kProbit;
  info.fail_node("post_transform '", s,
                 "' is not one of NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT");
}

double logistic(double v) {
  // Written so exp never overflows for large |v|.
  double e = 1.0 / (1.0 + std::exp(-std::fabs(v)));
  return v < 0 ? 1.0 - e : e;
}

// Winitzki's closed-form inverse error function (a = 0.147), the
// approximation the ONNX ML runtimes use for PROBIT.
static double erf_inv(double x) {
  double sgn = x < 0 ? -1.0 : 1.0;
  x = (1.0 - x) * (1.0 + x);
  if (x == 0) return 0;
  double lg = std::log(x);
  double v = 2.0 / (M_PI * 0.147) + 0.5 * lg;
  double v2 = lg / 0.147;
  double v3 = -v + std::sqrt(v * v - v2);
  return sgn * std::sqrt(v3);
}

double probit(double v) { return 1.41421356 * erf_inv(v * 2 - 1); }

void apply_post_transform(PostTransform pt, double* row, size_t n) {
  if (n == 0) return;
  switch (pt) {
    case PostTransform::kNone:
      return;
    case PostTransform::kLogistic:
      for (size_t i = 0; i < n; ++i) row[i] = logistic(row[i]);
      return;
    case PostTransform::kProbit:
      for (size_t i = 0; i < n; ++i) row[i] = probit(row[i]);
      return;
    case PostTransform::kSoftmax: {
      double mx = *std::max_element(row, row + n), s = 0;
      for (size_t i = 0; i < n; ++i) s += (row[i] = std::exp(row[i] - mx));
      for (size_t i = 0; i < n; ++i) row[i] /= s;
      return;
    }
    case PostTransform::kSoftmaxZero: {
      // Like softmax, but exact zeros stay (scaled) zeros: they mark absent classes.
      double mx = *std::max_element(row, row + n), e = std::exp(-mx), s = 0;
      for (size_t i = 0; i < n; ++i) {
        row[i] = std::fabs(row[i]) > 1e-7 ? std::exp(row[i] - mx) : row[i] * e;
        s += row[i];
      }
      for (size_t i = 0; i < n; ++i) row[i] = s == 0 ? 0.5 : row[i] / s;
      return;
    }
  }
}

void apply_post_transform_rows(PostTransform pt, float* scores, int64_t rows, int64_t n) {
  const int64_t total = rows * n;
  if (total == 0) return;
  switch (pt) {
    case PostTransform::kNone:
      return;
    case PostTransform::kLogistic:
      // 1 / (1 + exp(-v)): exp's overflow to infinity gives the limit 0.
      for (int64_t i = 0; i < total; ++i) scores[i] = -scores[i];
      linalg::vec_exp(scores, scores, total);
      for (int64_t i = 0; i < total; ++i) scores[i] = 1.0f / (1.0f + scores[i]);
      return;
    case PostTransform::kProbit:
      for (int64_t i = 0; i < total; ++i) scores[i] = float(probit(scores[i]));
      return;
    case PostTransform::kSoftmax:
      // exp(v - max of its row) / the row's sum.
      for (int64_t r = 0; r < rows; ++r) {
        float* row = scores + r * n;
        const float mx = *std::max_element(row, row + n);
        for (int64_t i = 0; i < n; ++i) row[i] -= mx;
      }
      linalg::vec_exp(scores, scores, total);
      for (int64_t r = 0; r < rows; ++r) {
        float* row = scores + r * n;
        float s = 0;
        for (int64_t i = 0; i < n; ++i) s += row[i];
        const float inv = 1.0f / s;
        for (int64_t i = 0; i < n; ++i) row[i] *= inv;
      }
      return;
    case PostTransform::kSoftmaxZero:
      // As the double version: exact zeros stay (scaled) zeros.
      for (int64_t r = 0; r < rows; ++r) {
        float* row = scores + r * n;
        const float mx = *std::max_element(row, row + n), e = std::exp(-mx);
        float s = 0;
        for (int64_t i = 0; i < n; ++i) {
          row[i] = std::fabs(row[i]) > 1e-7f ? std::exp(row[i] - mx) : row[i] * e;
          s += row[i];
        }
        for (int64_t i = 0; i < n; ++i) row[i] = s == 0 ? 0.5f : row[i] / s;
      }
      return;
  }
}

std::vector<double> attr_doubles(const ep::KernelInfo& info, const std::string& name) {
  if (const Tensor* t = info.attr_tensor(name + "_as_tensor")) {
    if (!is_float_type(t->dtype()) && !is_integer_type(t->dtype()))
      info.fail_node("attribute ", name, "_as_tensor must be numeric, got ", t->description());
    return read_as<double>(*t);
  }
  auto f = info.attr_floats(name);
  return std::vector<double>(f.begin(), f.end());
}

Matrix read_matrix(const ep::KernelContext& ctx, const Tensor& x) {
  Matrix m;
  if (x.dtype() == DataType::kString) ctx.fail_node("X must be numeric, got ", x.description());
  if (x.rank() == 0) {
    m.rows = 1;
    m.cols = 1;
  } else if (x.rank() == 1) {
    m.rows = 1;
    m.cols = x.shape()[0];
  } else {
    m.rows = x.shape()[0];
    m.cols = x.shape().size_from(1);
  }
  m.data = read_as<double>(x);
  return m;
}

FloatRows read_float_rows(const ep::KernelContext& ctx, const Tensor& x,
                          std::vector<float>& storage) {
  if (x.dtype() == DataType::kString) ctx.fail_node("X must be numeric, got ", x.description());
  FloatRows m;
  m.rows = x.rank() <= 1 ? 1 : x.shape()[0];
  m.cols = x.rank() == 0 ? 1 : x.rank() == 1 ? x.shape()[0] : x.shape().size_from(1);
  if (x.dtype() == DataType::kFloat) {
    m.data = x.data<float>();
  } else {
    storage = read_as<float>(x);
    m.data = storage.data();
  }
  return m;
}

}  // namespace tessera::cpu::ml
