// LRN, MeanVarianceNormalization, LpNormalization and Dropout.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"
#include "providers/cpu/reduce/reduce_plan.hpp"

namespace tessera::cpu::nn {

namespace {

class LrnKernel : public ep::OpKernel {
 public:
  explicit LrnKernel(const ep::KernelInfo& info)
      : size_(info.attr_int("size")),
        alpha_(info.attr_float("alpha", 1e-4f)),
        beta_(info.attr_float("beta", 0.75f)),
        bias_(info.attr_float("bias", 1.0f)) {
    if (size_ <= 0) info.fail_node("size must be positive, got ", size_);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    if (X.rank() < 2) ctx.fail_node("X must be [N, C, ...], got ", X.shape().to_string());
    const int64_t N = X.shape()[0], C = X.shape()[1], S = X.shape().size_from(2);
    Tensor& Y = ctx.output(0, X.shape());
    const int64_t lo = (size_ - 1) / 2, hi = size_ - 1 - lo;  // floor / ceil of (size-1)/2
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx;
      const T* x = to_compute<T>(X, sx);
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      // (The window past C adds no work; S * size_ overflowed for a huge size.)
      const double cost = double(S) * double(std::min<int64_t>(size_, C));
      ctx.thread_pool().parallel_for(N * C, cost, [&](int64_t b0, int64_t b1) {
        for (int64_t nc = b0; nc < b1; ++nc) {
          const int64_t n = nc / C, c = nc % C;
          const int64_t c0 = std::max<int64_t>(0, c - lo), c1 = std::min<int64_t>(C - 1, c + hi);
          for (int64_t i = 0; i < S; ++i) {
            double sq = 0;
            for (int64_t k = c0; k <= c1; ++k) {
              const double v = double(x[(n * C + k) * S + i]);
              sq += v * v;
            }
            const double d =
                std::pow(double(bias_) + double(alpha_) / double(size_) * sq, double(beta_));
            y[nc * S + i] = T(double(x[nc * S + i]) / d);
          }
        }
      });
      yo.finish();
    });
  }

 private:
  int64_t size_;
  float alpha_, beta_, bias_;
};

// Splits a shape into [outer, reduced..., inner] index maps: element i's
// group (the non-reduced coordinates) and the groups' count.
class MvnKernel : public ep::OpKernel {
 public:
  explicit MvnKernel(const ep::KernelInfo& info) : axes_(info.attr_ints("axes", {0, 2, 3})) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const int64_t r = int64_t(X.rank());
    std::vector<bool> reduce(static_cast<size_t>(r), false);
    for (int64_t a : axes_) {
      if (a < -r || a >= r)
        ctx.fail_node("axis ", a, " in axes ", dims_str(axes_), " is out of range for X ",
                      X.shape().to_string());
      reduce[size_t(a < 0 ? a + r : a)] = true;
    }
    Tensor& Y = ctx.output(0, X.shape());
    if (X.num_elements() == 0) return;
    // G groups of K contiguous statistics, each over blocks of L contiguous
    // values (K or L is 1), as the Reduce kernels walk it.
    const ReducePlan p = make_reduce_plan(X.shape(), reduce, true);
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx;
      const T* x = to_compute<T>(X, sx);
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      const int64_t k = p.k, l = p.l, nb = int64_t(p.red_offsets.size());
      const int64_t* ro = p.red_offsets.data();
      const double count = double(std::max<int64_t>(1, p.count));
      ctx.thread_pool().parallel_for(
          p.groups, 4.0 * double(p.count * k), [&](int64_t g0, int64_t g1) {
            std::vector<double> mean(static_cast<size_t>(k)), inv(static_cast<size_t>(k));
            for (int64_t g = g0; g < g1; ++g) {
              const int64_t base = p.group_base(g);
              if (k == 1) {
                double s = 0;
                for (int64_t b = 0; b < nb; ++b) s += lane_sum<false>(x + base + ro[b], l, T(0));
                mean[0] = s / count;
              } else {
                std::fill(mean.begin(), mean.end(), 0.0);
                for (int64_t b = 0; b < nb; ++b) {
                  const T* r = x + base + ro[b];
                  for (int64_t j = 0; j < k; ++j) mean[size_t(j)] += double(r[j]);
                }
                for (double& m : mean) m /= count;
              }
              // As the spec's function body: (X - mean) / (sqrt(var) + 1e-9).
              if (k == 1) {
                double q = 0;
                for (int64_t b = 0; b < nb; ++b)
                  q += lane_sum<true>(x + base + ro[b], l, T(mean[0]));
                inv[0] = 1.0 / (std::sqrt(q / count) + 1e-9);
                const T m = T(mean[0]), iv = T(inv[0]);
                for (int64_t b = 0; b < nb; ++b) {
                  const T* r = x + base + ro[b];
                  T* o = y + base + ro[b];
                  for (int64_t j = 0; j < l; ++j) o[j] = (r[j] - m) * iv;
                }
              } else {
                std::fill(inv.begin(), inv.end(), 0.0);
                for (int64_t b = 0; b < nb; ++b) {
                  const T* r = x + base + ro[b];
                  for (int64_t j = 0; j < k; ++j) {
                    const double d = double(r[j]) - mean[size_t(j)];
                    inv[size_t(j)] += d * d;
                  }
                }
                for (double& v : inv) v = 1.0 / (std::sqrt(v / count) + 1e-9);
                for (int64_t b = 0; b < nb; ++b) {
                  const T* r = x + base + ro[b];
                  T* o = y + base + ro[b];
                  for (int64_t j = 0; j < k; ++j)
                    o[j] = T((double(r[j]) - mean[size_t(j)]) * inv[size_t(j)]);
                }
              }
            }
          });
      yo.finish();
    });
  }

 private:
  // sum(x), or with kSquares sum((x - m)^2), over n values: eight partial
  // sums the compiler keeps in vector lanes, added up in double.
  template <bool kSquares, typename T>
  static double lane_sum(const T* x, int64_t n, T m) {
    T acc[8] = {};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
      for (int q = 0; q < 8; ++q) {
        const T d = x[j + q] - m;
        acc[q] += kSquares ? d * d : d;
      }
    double s = 0;
    for (int q = 0; q < 8; ++q) s += double(acc[q]);
    for (; j < n; ++j) {
      const double d = double(x[j]) - double(m);
      s += kSquares ? d * d : d;
    }
    return s;
  }

  std::vector<int64_t> axes_;
};

class LpNormKernel : public ep::OpKernel {
 public:
  explicit LpNormKernel(const ep::KernelInfo& info)
      : axis_(info.attr_int("axis", -1)), p_(info.attr_int("p", 2)) {
    if (p_ != 1 && p_ != 2) info.fail_node("p must be 1 or 2, got ", p_);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const int64_t r = int64_t(X.rank());
    if (r == 0 || axis_ < -r || axis_ >= r)
      ctx.fail_node("axis ", axis_, " is out of range for X ", X.shape().to_string());
    const size_t axis = size_t(axis_ < 0 ? axis_ + r : axis_);
    const int64_t outer = X.shape().size_to(axis), len = X.shape()[axis],
                  inner = X.shape().size_from(axis + 1);
    Tensor& Y = ctx.output(0, X.shape());
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx;
      const T* x = to_compute<T>(X, sx);
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t in = 0; in < inner; ++in) {
          const int64_t base = o * len * inner + in;
          double norm = 0;
          for (int64_t k = 0; k < len; ++k) {
            const double v = double(x[base + k * inner]);
            norm += p_ == 1 ? std::abs(v) : v * v;
          }
          if (p_ == 2) norm = std::sqrt(norm);
          for (int64_t k = 0; k < len; ++k)
            y[base + k * inner] = norm == 0 ? T(0) : T(double(x[base + k * inner]) / norm);
        }
      yo.finish();
    });
  }

 private:
  int64_t axis_, p_;
};

// Dropout is the identity at inference (mask all true). With training_mode
// (opset 12+) and ratio > 0 it drops with a seeded generator and scales the
// kept values by 1 / (1 - ratio).
class DropoutKernel : public ep::OpKernel {
 public:
  explicit DropoutKernel(const ep::KernelInfo& info)
      : opset_(info.opset()),
        ratio_(info.attr_float("ratio", 0.5f)),
        seed_(info.attr_int("seed", 0)),
        has_seed_(info.has_attr("seed")) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    double ratio = ratio_;
    bool training = false;
    if (opset_ >= 12) {
      ratio = 0.5;
      if (const Tensor* r = ctx.input(1)) {
        if (r->num_elements() != 1)
          ctx.fail_node("ratio must be a scalar, got ", r->shape().to_string());
        ratio = r->element_as_double(0);
      }
      if (const Tensor* t = ctx.input(2)) {
        if (t->num_elements() != 1)
          ctx.fail_node("training_mode must be a scalar, got ", t->shape().to_string());
        training = t->element_as_int64(0) != 0;
      }
    }
    if (training && (ratio < 0 || ratio >= 1))
      ctx.fail_node("ratio must be in [0, 1), got ", ratio);
    const bool drop = training && ratio > 0;
    Tensor& Y = ctx.output(0, X.shape());
    const int64_t n = X.num_elements();
    // Before opset 10 the mask had X's type; since then it is bool.
    const DataType mask_t = opset_ < 10 ? X.dtype() : DataType::kBool;
    Tensor* mask = ctx.has_output(1) ? &ctx.output(1, X.shape(), mask_t) : nullptr;
    if (!drop) {
      if (n > 0) std::memcpy(Y.mutable_raw_data(), X.raw_data(), X.byte_size());
      if (mask) fill_mask(*mask, nullptr);
      return;
    }
    if (!(X.dtype() == DataType::kFloat || X.dtype() == DataType::kDouble ||
          X.dtype() == DataType::kFloat16 || X.dtype() == DataType::kBFloat16))
      ctx.fail_node("training-mode dropout supports float types only, got ",
                    data_type_name(X.dtype()));
    std::mt19937_64 rng(has_seed_ ? uint64_t(seed_) : std::random_device{}());
    std::bernoulli_distribution keep(1.0 - ratio);
    std::vector<char> kept(static_cast<size_t>(n));
    for (auto& k : kept) k = keep(rng) ? 1 : 0;
    const double scale = 1.0 / (1.0 - ratio);
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx;
      const T* x = to_compute<T>(X, sx);
      ComputeOutput<T> yo(Y);
      for (int64_t i = 0; i < n; ++i)
        yo.data()[i] = kept[size_t(i)] ? T(double(x[i]) * scale) : T(0);
      yo.finish();
    });
    if (mask) fill_mask(*mask, &kept);
  }

 private:
  static void fill_mask(Tensor& m, const std::vector<char>* kept) {
    const int64_t n = m.num_elements();
    if (m.dtype() == DataType::kBool) {
      bool* d = m.mutable_data<bool>();
      for (int64_t i = 0; i < n; ++i) d[i] = !kept || (*kept)[size_t(i)];
      return;
    }
    dispatch_compute(m.dtype(), [&]<typename T>() {
      ComputeOutput<T> o(m);
      for (int64_t i = 0; i < n; ++i) o.data()[i] = (!kept || (*kept)[size_t(i)]) ? T(1) : T(0);
      o.finish();
    });
  }

  int64_t opset_;
  float ratio_;
  int64_t seed_;
  bool has_seed_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_lrn(const ep::KernelInfo& info) {
  return std::make_unique<LrnKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_mvn(const ep::KernelInfo& info) {
  return std::make_unique<MvnKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_lp_norm(const ep::KernelInfo& info) {
  return std::make_unique<LpNormKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_dropout(const ep::KernelInfo& info) {
  return std::make_unique<DropoutKernel>(info);
}

}  // namespace tessera::cpu::nn
