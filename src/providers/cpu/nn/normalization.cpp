// BatchNormalization, InstanceNormalization, LayerNormalization,
// GroupNormalization and RMSNormalization. Statistics accumulate in double
// so float inputs with large means keep their precision; float
// InstanceNormalization and GroupNormalization take linalg/moments.hpp
// (float lanes per chunk, chunks merged in double), which keeps that
// precision vectorised. Each kernel has its statistics before it writes a
// row, and writes each element after reading it, so Y may be written over X
// (output_over) when the plan lets the node take X.
#include <algorithm>
#include <cmath>

#include "linalg/moments.hpp"
#include "linalg/vec_math.hpp"
#include "providers/cpu/math/elementwise.hpp"
#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu::nn {

namespace {

struct Stats {
  double mean = 0, var = 0;
};

template <typename T>
Stats row_stats(const T* x, int64_t n, bool center = true) {
  Stats s;
  if (n == 0) return s;
  double sum = 0;
  if (center)
    for (int64_t i = 0; i < n; ++i) sum += double(x[i]);
  s.mean = center ? sum / double(n) : 0.0;
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = double(x[i]) - s.mean;
    sq += d * d;
  }
  s.var = sq / double(n);
  return s;
}

// A per-element parameter (Scale or B) broadcast over the normalized block
// of `n` elements: its size must be n or 1.
template <typename T>
struct Param {
  const T* p = nullptr;
  bool scalar = false;
  T at(int64_t j, T def) const { return !p ? def : (scalar ? p[0] : p[j]); }
};

template <typename T>
Param<T> block_param(const ep::KernelContext& ctx, const Tensor* t, int64_t n, const char* name,
                     std::vector<T>& store, const Shape& xshape) {
  Param<T> r;
  if (!t) return r;
  if (t->num_elements() != n && t->num_elements() != 1)
    ctx.fail_node(name, " ", t->shape().to_string(), " does not match the normalized part (", n,
                  " elements) of X ", xshape.to_string());
  r.p = to_compute<T>(*t, store);
  r.scalar = t->num_elements() == 1 && n != 1;
  return r;
}

// Values per work item: a run longer than this is split, so one long
// instance or group (GroupNorm(1, C) exported as InstanceNormalization over
// [N, 1, C*T]) spreads over the threads.
constexpr int64_t kNormPiece = 32768;

// Float instance and group normalization: `groups` runs of `rows_per` rows
// of `row_len` values, statistics over each run (per-piece moments in float
// vector lanes, linalg/moments.hpp, merged per run in double), then each
// row normalized with its own scale and bias, which param(row, scale, bias)
// gives for row index r in [0, groups * rows_per).
template <typename ParamFn>
void normalize_groups_float(const ep::KernelContext& ctx, const float* x, float* y, int64_t groups,
                            int64_t rows_per, int64_t row_len, float eps, ParamFn&& param) {
  const int64_t len = rows_per * row_len;
  const int64_t pieces = len > kNormPiece ? (len + kNormPiece - 1) / kNormPiece : 1;
  const int64_t piece = (len + pieces - 1) / pieces;
  std::vector<linalg::Moments> part(static_cast<size_t>(groups * pieces));
  ctx.thread_pool().parallel_for(groups * pieces, double(piece) * 3, [&](int64_t i0, int64_t i1) {
    for (int64_t item = i0; item < i1; ++item) {
      const int64_t p = item % pieces, begin = (item / pieces) * len + p * piece;
      part[size_t(item)] = linalg::run_moments(x + begin, std::min(piece, len - p * piece));
    }
  });
  const size_t count = static_cast<size_t>(groups);
  std::vector<float> mean(count);
  std::vector<double> inv(count);
  for (int64_t g = 0; g < groups; ++g) {
    linalg::Moments m;
    for (int64_t p = 0; p < pieces; ++p) linalg::merge_moments(m, part[size_t(g * pieces + p)]);
    mean[size_t(g)] = float(m.mean);
    inv[size_t(g)] = 1.0 / std::sqrt(m.variance() + double(eps));
  }
  const int64_t row_pieces = row_len > kNormPiece ? (row_len + kNormPiece - 1) / kNormPiece : 1;
  const int64_t row_piece = (row_len + row_pieces - 1) / row_pieces;
  const int64_t rows = groups * rows_per;
  ctx.thread_pool().parallel_for(
      rows * row_pieces, double(row_piece) * 2, [&](int64_t i0, int64_t i1) {
        for (int64_t item = i0; item < i1; ++item) {
          const int64_t row = item / row_pieces, p = item % row_pieces;
          const int64_t begin = row * row_len + p * row_piece;
          const int64_t n = std::min(row_piece, row_len - p * row_piece);
          if (n <= 0) continue;
          float scale = 1.f, bias = 0.f;
          param(row, scale, bias);
          const size_t g = size_t(row / rows_per);
          linalg::normalize_run(x + begin, mean[g], float(double(scale) * inv[g]), bias, y + begin,
                                n);
        }
      });
}

class BatchNormKernel : public ep::OpKernel {
 public:
  explicit BatchNormKernel(const ep::KernelInfo& info)
      : eps_(info.attr_float("epsilon", 1e-5f)),
        momentum_(info.attr_float("momentum", 0.9f)),
        training_(info.opset() >= 14 && info.attr_int("training_mode", 0) != 0),
        over_(info, {0}) {
    if (info.opset() < 14 && info.num_outputs() > 1)
      for (size_t i = 1; i < info.num_outputs(); ++i)
        if (info.has_output(i))
          info.fail_node("training outputs (mean, var, saved_mean, saved_var) of opset ",
                         info.opset(), " are not supported; only inference is");
  }

  bool writes_over_input(size_t i) const override { return over_(i); }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor* in[4];
    for (int i = 0; i < 4; ++i) in[i] = &ctx.required_input(size_t(i + 1));
    if (X.rank() < 2) ctx.fail_node("X must be [N, C, ...], got ", X.shape().to_string());
    const int64_t N = X.shape()[0], C = X.shape()[1], S = X.shape().size_from(2);
    static const char* names[4] = {"scale", "B", "mean", "var"};
    // Stats are per channel, or (spatial=0 in old opsets) per channel and position.
    bool per_elem = false;
    for (int i = 0; i < 4; ++i) {
      const int64_t n = in[i]->num_elements();
      if (n == C) continue;
      if (n == C * S && !training_) {
        per_elem = true;
        continue;
      }
      ctx.fail_node(names[i], " ", in[i]->shape().to_string(), " must have ", C,
                    " elements (the channels of X ", X.shape().to_string(), ")");
    }
    Tensor& Y = output_over(ctx, X.shape(), ctx.output_type(0), {0});
    Tensor* RM =
        training_ && ctx.has_output(1) ? &ctx.output(1, Shape{C}, in[2]->dtype()) : nullptr;
    Tensor* RV =
        training_ && ctx.has_output(2) ? &ctx.output(2, Shape{C}, in[3]->dtype()) : nullptr;
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx, s[4];
      const T* x = to_compute<T>(X, sx);
      const T* p[4];
      for (int i = 0; i < 4; ++i) p[i] = to_compute<T>(*in[i], s[i]);
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      std::vector<double> mean(static_cast<size_t>(C)), var(static_cast<size_t>(C));
      if (training_) {
        for (int64_t c = 0; c < C; ++c) {
          double sum = 0, sq = 0;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t i = 0; i < S; ++i) sum += double(x[(n * C + c) * S + i]);
          const double cnt = double(N * S);
          const double m = cnt > 0 ? sum / cnt : 0.0;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t i = 0; i < S; ++i) {
              const double d = double(x[(n * C + c) * S + i]) - m;
              sq += d * d;
            }
          mean[size_t(c)] = m;
          var[size_t(c)] = cnt > 0 ? sq / cnt : 0.0;
        }
      }
      // Inference with per-channel statistics: one scale and shift per
      // channel, made once (a square root and a division per element made
      // DenseNet's standalone normalizations 40 % of its time).
      std::vector<T> scale, shift;
      if (!training_ && !per_elem) {
        for (int64_t c = 0; c < C; ++c) {
          const double a = double(p[0][c]) / std::sqrt(double(p[3][c]) + double(eps_));
          scale.push_back(T(a));
          shift.push_back(T(double(p[1][c]) - double(p[2][c]) * a));
        }
      }
      ctx.thread_pool().parallel_for(N * C, double(S) * 2, [&](int64_t b0, int64_t b1) {
        for (int64_t nc = b0; nc < b1; ++nc) {
          const int64_t c = nc % C;
          const T* xp = x + nc * S;
          T* yp = y + nc * S;
          if (!scale.empty()) {
            const T a = scale[size_t(c)], b = shift[size_t(c)];
            for (int64_t i = 0; i < S; ++i) yp[i] = xp[i] * a + b;
            continue;
          }
          for (int64_t i = 0; i < S; ++i) {
            const int64_t k = per_elem ? c * S + i : c;
            const double m = training_ ? mean[size_t(c)] : double(p[2][k]);
            const double v = training_ ? var[size_t(c)] : double(p[3][k]);
            yp[i] = T((double(xp[i]) - m) / std::sqrt(v + double(eps_)) * double(p[0][k]) +
                      double(p[1][k]));
          }
        }
      });
      yo.finish();
      auto write_running = [&](Tensor* out, const T* old, const std::vector<double>& cur) {
        if (!out) return;
        ComputeOutput<T> o(*out);
        for (int64_t c = 0; c < C; ++c)
          o.data()[c] = T(double(old[c]) * momentum_ + cur[size_t(c)] * (1.0 - momentum_));
        o.finish();
      };
      write_running(RM, p[2], mean);
      write_running(RV, p[3], var);
    });
  }

 private:
  float eps_, momentum_;
  bool training_;
  OverInputs over_;
};

class InstanceNormKernel : public ep::OpKernel {
 public:
  explicit InstanceNormKernel(const ep::KernelInfo& info)
      : eps_(info.attr_float("epsilon", 1e-5f)), over_(info, {0}) {}

  bool writes_over_input(size_t i) const override { return over_(i); }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor& Sc = ctx.required_input(1);
    const Tensor& B = ctx.required_input(2);
    if (X.rank() < 3) ctx.fail_node("X must be [N, C, spatial...], got ", X.shape().to_string());
    const int64_t N = X.shape()[0], C = X.shape()[1], S = X.shape().size_from(2);
    if (Sc.num_elements() != C || B.num_elements() != C)
      ctx.fail_node("scale ", Sc.shape().to_string(), " and B ", B.shape().to_string(),
                    " must have ", C, " elements (channels of X ", X.shape().to_string(), ")");
    Tensor& Y = output_over(ctx, X.shape(), ctx.output_type(0), {0});
    if (X.dtype() == DataType::kFloat && Sc.dtype() == DataType::kFloat &&
        B.dtype() == DataType::kFloat) {
      const float* sc = Sc.data<float>();
      const float* b = B.data<float>();
      normalize_groups_float(ctx, X.data<float>(), Y.mutable_data<float>(), N * C, 1, S, eps_,
                             [&](int64_t row, float& scale, float& bias) {
                               scale = sc[row % C];
                               bias = b[row % C];
                             });
      return;
    }
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx, ss, sb;
      const T* x = to_compute<T>(X, sx);
      const T* sc = to_compute<T>(Sc, ss);
      const T* b = to_compute<T>(B, sb);
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      ctx.thread_pool().parallel_for(N * C, double(S) * 4, [&](int64_t b0, int64_t b1) {
        for (int64_t nc = b0; nc < b1; ++nc) {
          const int64_t c = nc % C;
          const Stats st = row_stats(x + nc * S, S);
          const double k = double(sc[c]) / std::sqrt(st.var + double(eps_));
          for (int64_t i = 0; i < S; ++i)
            y[nc * S + i] = T((double(x[nc * S + i]) - st.mean) * k + double(b[c]));
        }
      });
      yo.finish();
    });
  }

 private:
  float eps_;
  OverInputs over_;
};

// LayerNormalization and RMSNormalization: normalize over dims [axis, rank).
class AxisNormKernel : public ep::OpKernel {
 public:
  AxisNormKernel(const ep::KernelInfo& info, bool rms)
      : rms_(rms),
        axis_(info.attr_int("axis", -1)),
        eps_(info.attr_float("epsilon", 1e-5f)),
        stash_(info.attr_int("stash_type", 1)),
        over_(info, {0}) {}

  bool writes_over_input(size_t i) const override { return over_(i); }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor& Sc = ctx.required_input(1);
    const Tensor* B = rms_ ? nullptr : ctx.input(2);
    const int64_t r = int64_t(X.rank());
    if (axis_ < -r || axis_ >= r || r == 0)
      ctx.fail_node("axis ", axis_, " is out of range for X ", X.shape().to_string());
    const int64_t axis = axis_ < 0 ? axis_ + r : axis_;
    const int64_t rows = X.shape().size_to(size_t(axis)), n = X.shape().size_from(size_t(axis));
    Tensor& Y = output_over(ctx, X.shape(), ctx.output_type(0), {0});
    std::vector<int64_t> sd = X.shape().dims();
    for (int64_t i = axis; i < r; ++i) sd[size_t(i)] = 1;
    DataType stash_t = static_cast<DataType>(stash_);
    if (!is_float_type(stash_t)) stash_t = DataType::kFloat;
    Tensor* Mean = !rms_ && ctx.has_output(1) ? &ctx.output(1, Shape(sd), stash_t) : nullptr;
    Tensor* Inv = !rms_ && ctx.has_output(2) ? &ctx.output(2, Shape(sd), stash_t) : nullptr;
    // The common transformer case: float, per-element Scale and B, no statistics
    // outputs: the vectorised row loop (float statistics, mean subtracted first).
    if (!rms_ && !Mean && !Inv && X.dtype() == DataType::kFloat && Sc.dtype() == DataType::kFloat &&
        Sc.num_elements() == n &&
        (!B || (B->dtype() == DataType::kFloat && B->num_elements() == n))) {
      const float* x = X.data<float>();
      const float* gamma = Sc.data<float>();
      const float* beta = B ? B->data<float>() : nullptr;
      float* y = Y.mutable_data<float>();
      const float eps = eps_;
      ctx.thread_pool().parallel_for(rows, double(n) * 8, [&](int64_t r0, int64_t r1) {
        for (int64_t row = r0; row < r1; ++row)
          linalg::vec_layer_norm_row(x + row * n, nullptr, nullptr, gamma, beta, eps, y + row * n,
                                     nullptr, n);
      });
      return;
    }
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx, ss, sb;
      const T* x = to_compute<T>(X, sx);
      const Param<T> sc = block_param<T>(ctx, &Sc, n, "Scale", ss, X.shape());
      const Param<T> b = block_param<T>(ctx, B, n, "B", sb, X.shape());
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      std::vector<double> means(static_cast<size_t>(rows)), invs(static_cast<size_t>(rows));
      ctx.thread_pool().parallel_for(rows, double(n) * 4, [&](int64_t r0, int64_t r1) {
        for (int64_t row = r0; row < r1; ++row) {
          const T* xp = x + row * n;
          double mean = 0, var;
          if (rms_) {
            double sq = 0;
            for (int64_t j = 0; j < n; ++j) sq += double(xp[j]) * double(xp[j]);
            var = n ? sq / double(n) : 0.0;
          } else {
            const Stats st = row_stats(xp, n);
            mean = st.mean;
            var = st.var;
          }
          const double inv = 1.0 / std::sqrt(var + double(eps_));
          means[size_t(row)] = mean;
          invs[size_t(row)] = inv;
          for (int64_t j = 0; j < n; ++j)
            y[row * n + j] =
                T((double(xp[j]) - mean) * inv * double(sc.at(j, T(1))) + double(b.at(j, T(0))));
        }
      });
      yo.finish();
      auto write = [&](Tensor* t, const std::vector<double>& v) {
        if (!t) return;
        dispatch_compute(t->dtype(), [&]<typename U>() {
          ComputeOutput<U> o(*t);
          for (int64_t i = 0; i < rows; ++i) o.data()[i] = U(v[size_t(i)]);
          o.finish();
        });
      };
      write(Mean, means);
      write(Inv, invs);
    });
  }

 private:
  bool rms_;
  int64_t axis_;
  float eps_;
  int64_t stash_;
  OverInputs over_;
};

class GroupNormKernel : public ep::OpKernel {
 public:
  explicit GroupNormKernel(const ep::KernelInfo& info)
      : groups_(info.attr_int("num_groups")),
        eps_(info.attr_float("epsilon", 1e-5f)),
        over_(info, {0}) {
    if (groups_ <= 0) info.fail_node("num_groups must be positive, got ", groups_);
  }

  bool writes_over_input(size_t i) const override { return over_(i); }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor& Sc = ctx.required_input(1);
    const Tensor& B = ctx.required_input(2);
    if (X.rank() < 2) ctx.fail_node("X must be [N, C, ...], got ", X.shape().to_string());
    const int64_t N = X.shape()[0], C = X.shape()[1], S = X.shape().size_from(2);
    if (C % groups_ != 0)
      ctx.fail_node("X ", X.shape().to_string(), " has ", C,
                    " channels, not divisible by num_groups ", groups_);
    // Opset 21 has per-channel scale/bias; opset 18 had one per group.
    const int64_t ns = Sc.num_elements();
    if ((ns != C && ns != groups_) || B.num_elements() != ns)
      ctx.fail_node("scale ", Sc.shape().to_string(), " and bias ", B.shape().to_string(),
                    " must both have ", C, " (channels) or ", groups_, " (groups) elements");
    const bool per_channel = ns == C;
    const int64_t cpg = C / groups_, block = cpg * S;
    Tensor& Y = output_over(ctx, X.shape(), ctx.output_type(0), {0});
    if (X.dtype() == DataType::kFloat && Sc.dtype() == DataType::kFloat &&
        B.dtype() == DataType::kFloat) {
      const float* sc = Sc.data<float>();
      const float* b = B.data<float>();
      normalize_groups_float(ctx, X.data<float>(), Y.mutable_data<float>(), N * groups_, cpg, S,
                             eps_, [&](int64_t row, float& scale, float& bias) {
                               const int64_t c = row % C, k = per_channel ? c : c / cpg;
                               scale = sc[k];
                               bias = b[k];
                             });
      return;
    }
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx, ss, sb;
      const T* x = to_compute<T>(X, sx);
      const T* sc = to_compute<T>(Sc, ss);
      const T* b = to_compute<T>(B, sb);
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      ctx.thread_pool().parallel_for(N * groups_, double(block) * 4, [&](int64_t b0, int64_t b1) {
        for (int64_t ng = b0; ng < b1; ++ng) {
          const int64_t g = ng % groups_;
          const Stats st = row_stats(x + ng * block, block);
          const double inv = 1.0 / std::sqrt(st.var + double(eps_));
          for (int64_t cc = 0; cc < cpg; ++cc) {
            const int64_t c = g * cpg + cc;
            const int64_t k = per_channel ? c : g;
            const int64_t base = ng * block + cc * S;
            for (int64_t i = 0; i < S; ++i)
              y[base + i] = T((double(x[base + i]) - st.mean) * inv * double(sc[k]) + double(b[k]));
          }
        }
      });
      yo.finish();
    });
  }

 private:
  int64_t groups_;
  float eps_;
  OverInputs over_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_batch_norm(const ep::KernelInfo& info) {
  return std::make_unique<BatchNormKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_instance_norm(const ep::KernelInfo& info) {
  return std::make_unique<InstanceNormKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_layer_norm(const ep::KernelInfo& info) {
  return std::make_unique<AxisNormKernel>(info, false);
}
std::unique_ptr<ep::OpKernel> make_rms_norm(const ep::KernelInfo& info) {
  return std::make_unique<AxisNormKernel>(info, true);
}
std::unique_ptr<ep::OpKernel> make_simplified_layer_norm(const ep::KernelInfo& info) {
  if (info.has_output(1)) info.fail_node("the inv_std_var output is not supported (only Y)");
  return std::make_unique<AxisNormKernel>(info, true);
}
std::unique_ptr<ep::OpKernel> make_group_norm(const ep::KernelInfo& info) {
  return std::make_unique<GroupNormKernel>(info);
}

}  // namespace tessera::cpu::nn
