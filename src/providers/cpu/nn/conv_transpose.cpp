// ConvTranspose: per (image, group), col = W_g^T * X_g by GEMM, then col2im
// scatters the columns into the output, summing overlaps.
#include <algorithm>

#include "linalg/gemm.hpp"
#include "linalg/im2col.hpp"
#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu::nn {

namespace {

void gemm_tn(int64_t M, int64_t N, int64_t K, const float* A, const float* B, float* C,
             ThreadPool* pool) {
  linalg::sgemm(true, false, M, N, K, 1.f, A, M, B, N, 0.f, C, N, pool);
}
void gemm_tn(int64_t M, int64_t N, int64_t K, const double* A, const double* B, double* C,
             ThreadPool* pool) {
  linalg::dgemm(true, false, M, N, K, 1.0, A, M, B, N, 0.0, C, N, pool);
}

class ConvTransposeKernel : public ep::OpKernel {
 public:
  explicit ConvTransposeKernel(const ep::KernelInfo& info)
      : group_(info.attr_int("group", 1)),
        output_padding_(info.attr_ints("output_padding")),
        output_shape_(info.attr_ints("output_shape")) {
    attrs_.parse(info, false);
    if (group_ <= 0) info.fail_node("group must be positive, got ", group_);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor& W = ctx.required_input(1);
    const Tensor* B = ctx.input(2);
    const auto& xd = X.shape().dims();
    const auto& wd = W.shape().dims();
    if (xd.size() < 3) ctx.fail_node("X must be [N, C, spatial...], got ", X.shape().to_string());
    if (wd.size() != xd.size())
      ctx.fail_node("W ", W.shape().to_string(), " must have the rank of X ",
                    X.shape().to_string());
    const int64_t N = xd[0], C = xd[1];
    if (wd[0] != C)
      ctx.fail_node("X ", X.shape().to_string(), " has ", C, " channels but W ",
                    W.shape().to_string(), " expects ", wd[0], " (group ", group_, ")");
    if (C % group_ != 0) ctx.fail_node("X channels ", C, " not divisible by group ", group_);
    int64_t M = 0;
    if (__builtin_mul_overflow(wd[1], group_, &M))
      ctx.fail_node("W ", W.shape().to_string(), " with group ", group_,
                    " has more output channels than int64 holds");
    if (B && (B->rank() != 1 || B->shape()[0] != M))
      ctx.fail_node("B ", B->shape().to_string(), " must be [", M, "] for W ",
                    W.shape().to_string(), " and group ", group_);
    const size_t r = xd.size() - 2;
    std::vector<int64_t> in(xd.begin() + 2, xd.end());
    std::vector<int64_t> kernel(wd.begin() + 2, wd.end());
    if (!attrs_.kernel.empty() && attrs_.kernel != kernel)
      ctx.fail_node("kernel_shape ", dims_str(attrs_.kernel), " does not match W ",
                    W.shape().to_string());
    for (int64_t k : kernel)
      if (k <= 0) ctx.fail_node("W ", W.shape().to_string(), " has an empty kernel");
    auto per_dim = [&](const std::vector<int64_t>& v, int64_t def, const char* name) {
      if (v.empty()) return std::vector<int64_t>(r, def);
      if (v.size() != r) ctx.fail_node(name, " ", dims_str(v), " needs ", r, " values");
      return v;
    };
    const auto strides = per_dim(attrs_.strides, 1, "strides");
    const auto dil = per_dim(attrs_.dilations, 1, "dilations");
    const auto opad = per_dim(output_padding_, 0, "output_padding");
    std::vector<int64_t> out(r), pb(r, 0), pe(r, 0);
    std::vector<int64_t> oshape = output_shape_;
    if (oshape.size() == r + 2) oshape.erase(oshape.begin(), oshape.begin() + 2);
    if (!oshape.empty() && oshape.size() != r)
      ctx.fail_node("output_shape ", dims_str(output_shape_), " needs ", r, " spatial values");
    const bool same = attrs_.auto_pad == "SAME_UPPER" || attrs_.auto_pad == "SAME_LOWER";
    for (size_t i = 0; i < r; ++i) {
      const int64_t ek = (kernel[i] - 1) * dil[i] + 1;
      const int64_t full = strides[i] * (in[i] - 1) + opad[i] + ek;
      if (!oshape.empty() || same) {
        out[i] = !oshape.empty() ? oshape[i] : in[i] * strides[i];
        // total may be negative (output_shape beyond the natural size); the
        // halves use floor division so the extra output lands at the end.
        const int64_t total = full - out[i];
        const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        if (attrs_.auto_pad == "SAME_UPPER") {
          pb[i] = half;
          pe[i] = total - half;
        } else {
          pb[i] = total - half;
          pe[i] = half;
        }
      } else {
        if (attrs_.auto_pad == "NOTSET" && !attrs_.pads.empty()) {
          if (attrs_.pads.size() != 2 * r)
            ctx.fail_node("pads ", dims_str(attrs_.pads), " need ", 2 * r, " values");
          pb[i] = attrs_.pads[i];
          pe[i] = attrs_.pads[i + r];
        }
        out[i] = full - pb[i] - pe[i];
      }
      if (out[i] < 0)
        ctx.fail_node("computed output dim ", i, " is negative (", out[i], ") for X ",
                      X.shape().to_string(), " and W ", W.shape().to_string());
    }
    std::vector<int64_t> yd = {N, M};
    yd.insert(yd.end(), out.begin(), out.end());
    Tensor& Y = ctx.output(0, Shape(yd));
    if (Y.num_elements() == 0) return;
    // col2im's "image" is the output and its window grid is the input.
    linalg::ConvGeometry g{out, in, kernel, strides, pb, dil};
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx, sw, sb;
      const T* x = to_compute<T>(X, sx);
      const T* w = to_compute<T>(W, sw);
      const T* b = B ? to_compute<T>(*B, sb) : nullptr;
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      ThreadPool* pool = &ctx.thread_pool();
      const int64_t Cg = C / group_, Mg = M / group_;
      const int64_t isz = g.out_size(), osz = g.in_size(), ksz = g.kernel_size();
      std::fill(y, y + Y.num_elements(), T(0));
      std::vector<T> col(size_t(Mg * ksz * isz));
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t gi = 0; gi < group_; ++gi) {
          gemm_tn(Mg * ksz, isz, Cg, w + gi * Cg * Mg * ksz, x + (n * C + gi * Cg) * isz,
                  col.data(), pool);
          linalg::col2im<T>(col.data(), Mg, g, y + (n * M + gi * Mg) * osz, pool);
        }
      }
      if (b)
        for (int64_t nm = 0; nm < N * M; ++nm)
          for (int64_t i = 0; i < osz; ++i) y[nm * osz + i] += b[nm % M];
      yo.finish();
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_;
  std::vector<int64_t> output_padding_, output_shape_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_conv_transpose(const ep::KernelInfo& info) {
  return std::make_unique<ConvTransposeKernel>(info);
}

}  // namespace tessera::cpu::nn
