// NegativeLogLikelihoodLoss (opsets 12, 13, 22) and SoftmaxCrossEntropyLoss
// (opsets 12, 13). Both reduce to one weighted gather over the class axis;
// SCE first takes log_softmax over axis 1 (and may return it).
#include <algorithm>
#include <cmath>
#include <limits>

#include "providers/cpu/loss/loss_kernels.hpp"
#include "providers/cpu/recurrent/float_io.hpp"

namespace tessera::cpu {

namespace {

enum class Reduction { kNone, kSum, kMean };

struct LossAttrs {
  Reduction reduction = Reduction::kMean;
  bool has_ignore = false;
  int64_t ignore_index = 0;
};

LossAttrs parse_loss_attrs(const ep::KernelInfo& info) {
  LossAttrs a;
  std::string r = info.attr_string("reduction", "mean");
  if (r == "none") a.reduction = Reduction::kNone;
  else if (r == "sum") a.reduction = Reduction::kSum;
  else if (r == "mean") a.reduction = Reduction::kMean;
  else info.fail_node("reduction must be none, sum or mean, got '", r, "'");
  a.has_ignore = info.has_attr("ignore_index");
  if (a.has_ignore) a.ignore_index = info.attr_int("ignore_index");
  return a;
}

// Input (N, C, d1..dk) against target (N, d1..dk) and weight (C).
struct LossDims {
  int64_t n = 0, c = 0, d = 1;
};

LossDims check_loss_inputs(const ep::KernelContext& ctx, const Tensor& x, const Tensor& target,
                           const Tensor* weight) {
  if (x.rank() < 2) ctx.fail_node("input must be (N, C, ...), got ", x.shape().to_string());
  LossDims d{x.shape()[0], x.shape()[1], x.shape().size_from(2)};
  bool ok = target.rank() + 1 == x.rank() && target.shape()[0] == d.n;
  for (size_t i = 1; ok && i < target.rank(); ++i) ok = target.shape()[i] == x.shape()[i + 1];
  if (!ok)
    ctx.fail_node("target shape ", target.shape().to_string(), " does not match input shape ",
                  x.shape().to_string(), " (expected (N, d1, ..., dk))");
  if (target.dtype() != DataType::kInt32 && target.dtype() != DataType::kInt64)
    ctx.fail_node("target must be int32 or int64, got ", data_type_name(target.dtype()));
  if (weight && (weight->shape() != Shape{d.c} || weight->dtype() != x.dtype()))
    ctx.fail_node("weight must be ", data_type_name(x.dtype()), "[", d.c, "], got ",
                  weight->description());
  return d;
}

// The loss from log-probabilities `logp`, written as output 0.
template <typename A>
void nll_output(ep::KernelContext& ctx, const LossAttrs& a, const LossDims& d,
                const std::vector<A>& logp, const Tensor& target, const Tensor* weight) {
  std::vector<A> w = weight ? load_float<A>(*weight) : std::vector<A>();
  const int64_t count = d.n * d.d;
  std::vector<A> loss(static_cast<size_t>(count));
  double total = 0.0, weight_sum = 0.0;
  for (int64_t i = 0; i < count; ++i) {
    int64_t t = target.element_as_int64(i);
    if (a.has_ignore && t == a.ignore_index) {
      loss[size_t(i)] = A(0);
      continue;
    }
    if (t < 0 || t >= d.c)
      ctx.fail_node("target value ", t, " at position ", i, " is outside [0, ", d.c, ")");
    int64_t n = i / d.d, k = i % d.d;
    A wt = w.empty() ? A(1) : w[size_t(t)];
    A l = -logp[size_t((n * d.c + t) * d.d + k)] * wt;
    loss[size_t(i)] = l;
    total += double(l);
    weight_sum += double(wt);
  }
  if (a.reduction == Reduction::kNone) {
    store_float(loss, ctx.output(0, target.shape()));
    return;
  }
  double v = total;
  // Mean divides by the total weight of the counted targets (0/0 gives NaN, as in the reference).
  if (a.reduction == Reduction::kMean) v = total / weight_sum;
  std::vector<A> s = {A(v)};
  store_float(s, ctx.output(0, Shape{}));
}

class NllLossKernel : public ep::OpKernel {
 public:
  explicit NllLossKernel(const ep::KernelInfo& info) : a_(parse_loss_attrs(info)) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& target = ctx.required_input(1);
    const Tensor* weight = ctx.input(2);
    LossDims d = check_loss_inputs(ctx, x, target, weight);
    with_compute_type(x.dtype(), [&](auto z) {
      using A = decltype(z);
      nll_output<A>(ctx, a_, d, load_float<A>(x), target, weight);
    });
  }

 private:
  LossAttrs a_;
};

class SoftmaxCrossEntropyLossKernel : public ep::OpKernel {
 public:
  explicit SoftmaxCrossEntropyLossKernel(const ep::KernelInfo& info) : a_(parse_loss_attrs(info)) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& target = ctx.required_input(1);
    const Tensor* weight = ctx.input(2);
    LossDims d = check_loss_inputs(ctx, x, target, weight);
    with_compute_type(x.dtype(), [&](auto z) {
      using A = decltype(z);
      std::vector<A> v = load_float<A>(x);
      log_softmax_axis1(ctx, d, v);
      nll_output<A>(ctx, a_, d, v, target, weight);
      if (ctx.has_output(1)) store_float(v, ctx.output(1, x.shape()));
    });
  }

 private:
  template <typename A>
  static void log_softmax_axis1(ep::KernelContext& ctx, const LossDims& d, std::vector<A>& v) {
    ctx.thread_pool().parallel_for(d.n * d.d, double(3 * d.c), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        A* p = v.data() + (r / d.d) * d.c * d.d + r % d.d;
        A mx = -std::numeric_limits<A>::infinity();
        for (int64_t c = 0; c < d.c; ++c) mx = std::max(mx, p[c * d.d]);
        A s = A(0);
        for (int64_t c = 0; c < d.c; ++c) s += std::exp(p[c * d.d] - mx);
        A lse = mx + std::log(s);
        for (int64_t c = 0; c < d.c; ++c) p[c * d.d] -= lse;
      }
    });
  }

  LossAttrs a_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_nll_loss_kernel(const ep::KernelInfo& info) {
  return std::make_unique<NllLossKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_softmax_cross_entropy_loss_kernel(const ep::KernelInfo& info) {
  return std::make_unique<SoftmaxCrossEntropyLossKernel>(info);
}

}  // namespace tessera::cpu
