// com.tessera SkipLayerNormalization and BiasGelu, the optimizer's fusions of
// a residual Add into the LayerNormalization after it and of a bias Add into
// the Gelu after it (src/optimizer/skip_layer_norm_fusion.cpp). Both run
// float rows through the vectorised loops of linalg/vec_math.hpp, so the sum
// is never written to memory as a separate tensor.
#include <vector>

#include "linalg/vec_math.hpp"
#include "ops/broadcast.hpp"
#include "providers/cpu/math/elementwise.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

// A float 1-D parameter of exactly n elements (gamma, beta, bias), or null.
const float* row_param(const ep::KernelContext& ctx, size_t i, int64_t n, const char* name,
                       bool required) {
  const Tensor* t = ctx.input(i);
  if (!t) {
    if (required) ctx.fail_node(name, " is required");
    return nullptr;
  }
  if (t->dtype() != DataType::kFloat || t->num_elements() != n)
    ctx.fail_node(name, " ", t->description(), " must be float with ", n,
                  " elements (the last axis of the input)");
  return t->data<float>();
}

// Y = LayerNormalization(X + Skip (+ Bias), Gamma, Beta) over the last axis.
// X and Skip normally have the same shape; any other broadcast is summed
// first, as the Add it replaces would.
class SkipLayerNormKernel final : public ep::OpKernel {
 public:
  explicit SkipLayerNormKernel(const ep::KernelInfo& info)
      : eps_(info.attr_float("epsilon", 1e-5f)), over_(info, {0, 1}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& skip = ctx.required_input(1);
    if (x.dtype() != DataType::kFloat || skip.dtype() != DataType::kFloat)
      ctx.fail_node("input and skip must be float, got ", x.description(), " and ",
                    skip.description());
    const float* xs = x.data<float>();
    const float* ss = skip.data<float>();
    std::vector<float> summed;
    const Shape shape =
        x.shape() == skip.shape() ? x.shape() : ops::broadcast_shapes({x.shape(), skip.shape()});
    // Shapes that differ only in leading 1s ([1, S, N] + [S, N]) share one
    // layout; any other broadcast is summed first.
    if (x.num_elements() != shape.num_elements() || skip.num_elements() != shape.num_elements()) {
      summed.resize(size_t(shape.num_elements()));
      binary_broadcast(ctx.thread_pool(), xs, x.shape(), ss, skip.shape(), summed.data(), shape,
                       1.0, [](float a, float b) { return a + b; });
      xs = summed.data();
      ss = nullptr;
    }
    if (shape.rank() == 0) ctx.fail_node("input must have at least one axis, got a scalar");
    const int64_t n = shape[shape.rank() - 1];
    const float* gamma = row_param(ctx, 2, n, "gamma", true);
    const float* beta = row_param(ctx, 3, n, "beta", false);
    const float* bias = row_param(ctx, 4, n, "bias", false);
    // Each row is read (x, skip) before it is written, so the output may be
    // written over either input of the output's size.
    Tensor& y = output_over(ctx, shape, DataType::kFloat, {0, 1});
    float* out = y.mutable_data<float>();
    const int64_t rows = n == 0 ? 0 : shape.num_elements() / n;
    const float eps = eps_;
    ctx.thread_pool().parallel_for(rows, double(n) * 8, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        linalg::vec_layer_norm_row(xs + r * n, ss ? ss + r * n : nullptr, bias, gamma, beta, eps,
                                   out + r * n, nullptr, n);
    });
  }

 private:
  float eps_;
  OverInputs over_;
};

// Y = Gelu(X + Bias) (exact erf form), Bias 1-D along X's last axis.
class BiasGeluKernel final : public ep::OpKernel {
 public:
  explicit BiasGeluKernel(const ep::KernelInfo& info) : over_(info, {0}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.dtype() != DataType::kFloat) ctx.fail_node("input must be float, got ", x.description());
    if (x.rank() == 0) ctx.fail_node("input must have at least one axis, got a scalar");
    const int64_t n = x.shape()[x.rank() - 1];
    const float* bias = row_param(ctx, 1, n, "bias", true);
    Tensor& y = output_over(ctx, x.shape(), DataType::kFloat, {0});
    const float* in = x.data<float>();
    float* out = y.mutable_data<float>();
    const int64_t rows = n == 0 ? 0 : x.num_elements() / n;
    ctx.thread_pool().parallel_for(rows, double(n) * 30, [&](int64_t r0, int64_t r1) {
      linalg::vec_gelu(in + r0 * n, bias, n, out + r0 * n, (r1 - r0) * n);
    });
  }

 private:
  OverInputs over_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_skip_layer_norm(const ep::KernelInfo& info) {
  return std::make_unique<SkipLayerNormKernel>(info);
}

std::unique_ptr<ep::OpKernel> make_bias_gelu(const ep::KernelInfo& info) {
  return std::make_unique<BiasGeluKernel>(info);
}

}  // namespace tessera::cpu
