// Conv: im2col + GEMM per (image, group); a 1x1 stride-1 unpadded
// convolution multiplies by the image directly, and a 2-D convolution with
// one input channel per group (depthwise) runs as direct loops. Constant
// weights are converted to the compute type once, at kernel creation.
#include <algorithm>

#include "linalg/gemm.hpp"
#include "linalg/im2col.hpp"
#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu::nn {

namespace {

void gemm_nn(int64_t M, int64_t N, int64_t K, const float* A, const float* B, float* C,
             ThreadPool* pool) {
  linalg::sgemm(false, false, M, N, K, 1.f, A, K, B, N, 0.f, C, N, pool);
}
void gemm_nn(int64_t M, int64_t N, int64_t K, const double* A, const double* B, double* C,
             ThreadPool* pool) {
  linalg::dgemm(false, false, M, N, K, 1.0, A, K, B, N, 0.0, C, N, pool);
}

// One output plane of a 2-D depthwise convolution (bias already in `y`).
template <typename T>
void depthwise_plane(const T* x, const T* w, T* y, const Window& g) {
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t KH = g.kernel[0], KW = g.kernel[1];
  const int64_t sh = g.strides[0], sw = g.strides[1], dh = g.dilations[0], dw = g.dilations[1];
  const int64_t ph = g.pads_begin[0], pw = g.pads_begin[1];
  for (int64_t oh = 0; oh < OH; ++oh) {
    T* yrow = y + oh * OW;
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t ih = oh * sh - ph + kh * dh;
      if (ih < 0 || ih >= H) continue;
      const T* xrow = x + ih * W;
      for (int64_t kw = 0; kw < KW; ++kw) {
        const T coef = w[kh * KW + kw];
        const int64_t off = kw * dw - pw;  // iw = ow*sw + off
        int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
        int64_t hi = W - 1 - off < 0 ? 0 : (W - 1 - off) / sw + 1;
        lo = std::min(lo, OW);
        hi = std::clamp(hi, lo, OW);
        if (sw == 1) {
          const T* xs = xrow + off;
          for (int64_t ow = lo; ow < hi; ++ow) yrow[ow] += coef * xs[ow];
        } else {
          for (int64_t ow = lo; ow < hi; ++ow) yrow[ow] += coef * xrow[ow * sw + off];
        }
      }
    }
  }
}

class ConvKernel : public ep::OpKernel {
 public:
  explicit ConvKernel(const ep::KernelInfo& info) : group_(info.attr_int("group", 1)) {
    attrs_.parse(info, false);
    if (group_ <= 0) info.fail_node("group must be positive, got ", group_);
    if (const Tensor* w = info.constant_input(1)) {
      // to_compute returns the tensor's own data when no conversion is
      // needed; copy it so the kernel owns what it uses.
      if (w->dtype() == DataType::kDouble) {
        const double* p = w->data<double>();
        w_double_.assign(p, p + w->num_elements());
      } else {
        std::vector<float> store;
        const float* p = to_compute<float>(*w, store);
        w_float_.assign(p, p + w->num_elements());
      }
      prepacked_ = true;
    }
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor& W = ctx.required_input(1);
    const Tensor* B = ctx.input(2);
    const auto& xd = X.shape().dims();
    const auto& wd = W.shape().dims();
    if (xd.size() < 3)
      ctx.fail_node("X must be [N, C, spatial...], got ", X.shape().to_string());
    if (wd.size() != xd.size())
      ctx.fail_node("W ", W.shape().to_string(), " must have the rank of X ", X.shape().to_string());
    const int64_t N = xd[0], C = xd[1], M = wd[0];
    if (C != wd[1] * group_)
      ctx.fail_node("X ", X.shape().to_string(), " has ", C, " channels but W ",
                    W.shape().to_string(), " expects ", wd[1] * group_, " (group ", group_, ")");
    if (M % group_ != 0)
      ctx.fail_node("W ", W.shape().to_string(), " has ", M,
                    " output channels, not divisible by group ", group_);
    if (B && (B->rank() != 1 || B->shape()[0] != M))
      ctx.fail_node("B ", B->shape().to_string(), " must be [", M, "] for W ", W.shape().to_string());
    std::vector<int64_t> spatial(xd.begin() + 2, xd.end());
    std::vector<int64_t> kernel(wd.begin() + 2, wd.end());
    if (!attrs_.kernel.empty() && attrs_.kernel != kernel)
      ctx.fail_node("kernel_shape ", dims_str(attrs_.kernel), " does not match W ",
                    W.shape().to_string());
    for (int64_t k : kernel)
      if (k <= 0) ctx.fail_node("W ", W.shape().to_string(), " has an empty kernel");
    const Window g = resolve_window(ctx, attrs_, spatial, kernel);
    std::vector<int64_t> yd = {N, M};
    yd.insert(yd.end(), g.out.begin(), g.out.end());
    Tensor& Y = ctx.output(0, Shape(yd));
    if (Y.num_elements() == 0) return;
    dispatch_compute(X.dtype(), [&]<typename T>() { run<T>(ctx, X, W, B, g, Y); });
  }

 private:
  template <typename T>
  void run(ep::KernelContext& ctx, const Tensor& X, const Tensor& W, const Tensor* B,
           const Window& g, Tensor& Y) const {
    std::vector<T> sx, sw, sb;
    const T* x = to_compute<T>(X, sx);
    const T* w;
    if constexpr (std::is_same_v<T, float>)
      w = prepacked_ && X.dtype() != DataType::kDouble ? w_float_.data() : to_compute<T>(W, sw);
    else
      w = prepacked_ && W.dtype() == DataType::kDouble ? w_double_.data() : to_compute<T>(W, sw);
    const T* b = B ? to_compute<T>(*B, sb) : nullptr;
    ComputeOutput<T> yo(Y);
    T* y = yo.data();
    ThreadPool* pool = &ctx.thread_pool();
    const int64_t N = X.shape()[0], C = X.shape()[1], M = W.shape()[0];
    const int64_t Cg = C / group_, Mg = M / group_;
    const int64_t isz = g.in_size(), osz = g.out_size(), ksz = g.kernel_size();
    if (Cg == 1 && g.rank() == 2) {  // depthwise (channel multiplier Mg)
      pool->parallel_for(N * M, double(osz * ksz * 2), [&](int64_t b0, int64_t b1) {
        for (int64_t nm = b0; nm < b1; ++nm) {
          const int64_t n = nm / M, m = nm % M, c = m / Mg;
          T* yp = y + nm * osz;
          std::fill(yp, yp + osz, b ? b[m] : T(0));
          depthwise_plane<T>(x + (n * C + c) * isz, w + m * ksz, yp, g);
        }
      });
      yo.finish();
      return;
    }
    bool pointwise = true;
    for (size_t i = 0; i < g.rank(); ++i)
      pointwise = pointwise && g.kernel[i] == 1 && g.strides[i] == 1 && g.pads_begin[i] == 0 &&
                  g.pads_end[i] == 0;
    linalg::ConvGeometry cg{g.in, g.out, g.kernel, g.strides, g.pads_begin, g.dilations};
    std::vector<T> col;
    if (!pointwise) col.resize(size_t(Cg * ksz * osz));
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t gi = 0; gi < group_; ++gi) {
        const T* xg = x + (n * C + gi * Cg) * isz;
        const T* bmat = xg;
        if (!pointwise) {
          linalg::im2col<T>(xg, Cg, cg, col.data(), pool);
          bmat = col.data();
        }
        T* yg = y + (n * M + gi * Mg) * osz;
        gemm_nn(Mg, osz, Cg * ksz, w + gi * Mg * Cg * ksz, bmat, yg, pool);
      }
    }
    if (b) {
      pool->parallel_for(N * M, double(osz), [&](int64_t b0, int64_t b1) {
        for (int64_t nm = b0; nm < b1; ++nm) {
          const T bias = b[nm % M];
          T* yp = y + nm * osz;
          for (int64_t i = 0; i < osz; ++i) yp[i] += bias;
        }
      });
    }
    yo.finish();
  }

  WindowAttrs attrs_;
  int64_t group_;
  bool prepacked_ = false;
  std::vector<float> w_float_;
  std::vector<double> w_double_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_conv(const ep::KernelInfo& info) {
  return std::make_unique<ConvKernel>(info);
}

}  // namespace tessera::cpu::nn
