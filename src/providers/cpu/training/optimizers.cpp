// ai.onnx.preview.training optimizers (opset 1): Adagrad, Adam, Momentum.
// Each takes R (learning rate), T (update count), then n tensors X, their
// gradients G and one or two state groups; it returns X_new and the new
// states, group by group. Computed in double, stored in each tensor's type.
#include <cmath>

#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/training/training_kernels.hpp"

namespace tessera::cpu {

namespace {

enum class Algo { kAdagrad, kAdam, kMomentum };

class OptimizerKernel : public ep::OpKernel {
 public:
  OptimizerKernel(const ep::KernelInfo& info, Algo algo) : algo_(algo) {
    states_ = algo == Algo::kAdam ? 2 : 1;
    const size_t groups = 2 + size_t(states_);
    const size_t nin = info.num_inputs();
    if (nin < 2 + groups || (nin - 2) % groups != 0)
      info.fail_node("expected R, T and ", groups, " groups of n tensors, got ", nin, " inputs");
    n_ = int64_t((nin - 2) / groups);
    if (info.num_outputs() > size_t(n_ * (1 + states_)))
      info.fail_node("at most ", n_ * (1 + states_), " outputs for ", n_, " optimized tensors");
    norm_ = info.attr_float("norm_coefficient", 0.f);
    epsilon_ = info.attr_float("epsilon", 0.f);
    if (algo == Algo::kAdagrad) {
      decay_ = info.attr_float("decay_factor", 0.f);
    } else if (algo == Algo::kAdam) {
      alpha_ = info.attr_float("alpha", 0.9f);
      beta_ = info.attr_float("beta", 0.999f);
      norm_post_ = info.attr_float("norm_coefficient_post", 0.f);
    } else {
      alpha_ = info.attr_float("alpha");
      beta_ = info.attr_float("beta");
      std::string mode = info.attr_string("mode");
      if (mode != "standard" && mode != "nesterov")
        info.fail_node("mode must be 'standard' or 'nesterov', got '", mode, "'");
      nesterov_ = mode == "nesterov";
    }
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& rt = ctx.required_input(0);
    const Tensor& tt = ctx.required_input(1);
    if (rt.num_elements() != 1 || tt.num_elements() != 1)
      ctx.fail_node("R and T must be scalars, got ", rt.shape().to_string(), " and ",
                    tt.shape().to_string());
    const double R = rt.element_as_double(0);
    const double T = double(tt.element_as_int64(0));
    for (int64_t i = 0; i < n_; ++i) {
      const Tensor& x = ctx.required_input(size_t(2 + i));
      std::vector<const Tensor*> in = {&x};
      for (int g = 1; g < 2 + states_; ++g) {
        in.push_back(&ctx.required_input(size_t(2 + g * n_ + i)));
        if (in.back()->shape() != x.shape())
          ctx.fail_node("tensor ", i, ": shape ", in.back()->shape().to_string(),
                        " differs from X's ", x.shape().to_string());
      }
      auto X = read_as<double>(x);
      auto G = read_as<double>(*in[1]);
      auto S1 = read_as<double>(*in[2]);
      std::vector<double> S2 = states_ > 1 ? read_as<double>(*in[3]) : std::vector<double>();
      for (size_t k = 0; k < X.size(); ++k) {
        double g = norm_ * X[k] + G[k];
        if (algo_ == Algo::kAdagrad) {
          double r = R / (1 + T * decay_);
          S1[k] += g * g;
          X[k] -= r * g / (std::sqrt(S1[k]) + epsilon_);
        } else if (algo_ == Algo::kAdam) {
          S1[k] = alpha_ * S1[k] + (1 - alpha_) * g;
          S2[k] = beta_ * S2[k] + (1 - beta_) * g * g;
          double ra = T > 0 ? R * std::sqrt(1 - std::pow(double(beta_), T)) /
                                  (1 - std::pow(double(alpha_), T))
                            : R;
          X[k] = (1 - norm_post_) * (X[k] - ra * S1[k] / (std::sqrt(S2[k]) + epsilon_));
        } else {
          double beta = T > 0 ? beta_ : 1.0;
          S1[k] = alpha_ * S1[k] + beta * g;
          X[k] -= nesterov_ ? R * (g + alpha_ * S1[k]) : R * S1[k];
        }
      }
      write_out(ctx, size_t(i), x, X);
      write_out(ctx, size_t(n_ + i), *in[2], S1);
      if (states_ > 1) write_out(ctx, size_t(2 * n_ + i), *in[3], S2);
    }
  }

 private:
  static void write_out(ep::KernelContext& ctx, size_t o, const Tensor& like,
                        const std::vector<double>& v) {
    if (!ctx.has_output(o)) return;
    write_from(ctx.output(o, like.shape(), like.dtype()), v.data());
  }

  Algo algo_;
  int states_ = 1;
  int64_t n_ = 0;
  double norm_ = 0, epsilon_ = 0, decay_ = 0, alpha_ = 0, beta_ = 0, norm_post_ = 0;
  bool nesterov_ = false;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_adagrad(const ep::KernelInfo& info) {
  return std::make_unique<OptimizerKernel>(info, Algo::kAdagrad);
}
std::unique_ptr<ep::OpKernel> make_adam(const ep::KernelInfo& info) {
  return std::make_unique<OptimizerKernel>(info, Algo::kAdam);
}
std::unique_ptr<ep::OpKernel> make_momentum(const ep::KernelInfo& info) {
  return std::make_unique<OptimizerKernel>(info, Algo::kMomentum);
}

}  // namespace tessera::cpu
