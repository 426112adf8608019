// Conv, and the com.tessera FusedConv the optimizer makes of Conv + Add
// (residual) + activation. The path is chosen by shape:
//   - 2-D depthwise (one input channel per group): a direct per-plane kernel;
//   - 1x1, stride 1, unpadded: the image is already the GEMM's B matrix;
//   - otherwise im2col + GEMM per (image, group); a 1-D convolution whose
//     im2col matrix would outgrow the cache goes a slice of output columns
//     at a time (slices split over the threads).
// Constant float weights are packed once, at kernel creation, into the GEMM's
// panel layout. Bias, the residual and the activation are applied to each
// output tile while it is in cache (linalg::Epilogue), not in extra passes.
#include <algorithm>

#include "linalg/depthwise.hpp"
#include "linalg/gemm.hpp"
#include "linalg/im2col.hpp"
#include "ops/broadcast.hpp"
#include "providers/cpu/fused/fused_activation.hpp"
#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu::nn {

namespace {

void gemm_nn(int64_t M, int64_t N, int64_t K, const double* A, const double* B, double* C,
             ThreadPool* pool) {
  linalg::dgemm(false, false, M, N, K, 1.0, A, K, B, N, 0.0, C, N, pool);
}

// The im2col matrix of one (image, group), kept per thread and grown on
// demand, so steady-state runs do not allocate.
float* col_buffer(size_t n) {
  static thread_local HostVector<float> buf;
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

// Below this many operations a loop runs on the calling thread only.
constexpr double kMinParallelFlops = 2.0e6;

// A 1-D convolution's im2col matrix above this many floats is made a slice
// of columns at a time: written whole, a long sequence's matrix (a dilated
// temporal convolution: 384 rows x 2000 steps, 3 MB) leaves the cache before
// the GEMM reads it back. A slice is at least kMinSliceColumns wide so each
// GEMM call still fills its panels.
constexpr int64_t kColumnSliceFloats = int64_t(64) << 10;
constexpr int64_t kMinSliceColumns = 256;

// The width of the slices a 1-D convolution's im2col matrix of `rows` x
// `cols` is made in, or 0 when it is made whole.
int64_t column_slice(int64_t rows, int64_t cols) {
  if (rows * cols <= kColumnSliceFloats) return 0;
  const int64_t w = std::max(kMinSliceColumns, (kColumnSliceFloats / rows + 15) / 16 * 16);
  return cols >= 2 * w ? w : 0;
}

// One output plane of a 2-D depthwise convolution in double (bias already in `y`).
void depthwise_plane(const double* x, const double* w, double* y, const Window& g) {
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t KH = g.kernel[0], KW = g.kernel[1];
  for (int64_t oh = 0; oh < OH; ++oh)
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t ih = oh * g.strides[0] - g.pads_begin[0] + kh * g.dilations[0];
      if (ih < 0 || ih >= H) continue;
      for (int64_t kw = 0; kw < KW; ++kw)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t iw = ow * g.strides[1] - g.pads_begin[1] + kw * g.dilations[1];
          if (iw >= 0 && iw < W) y[oh * OW + ow] += w[kh * KW + kw] * x[ih * W + iw];
        }
    }
}

class ConvKernel : public ep::OpKernel {
 public:
  ConvKernel(const ep::KernelInfo& info, bool fused) : group_(info.attr_int("group", 1)) {
    attrs_.parse(info, false);
    if (group_ <= 0) info.fail_node("group must be positive, got ", group_);
    if (fused) act_ = parse_fused_activation(info);
    const Tensor* w = info.constant_input(1);
    if (!w) return;
    // to_compute returns the tensor's own data when no conversion is needed;
    // the kernel keeps its own copy (packed, or plain) of what it uses.
    if (w->dtype() == DataType::kDouble) {
      const double* p = w->data<double>();
      w_double_.assign(p, p + w->num_elements());
      constant_w_ = true;
      return;
    }
    constant_w_ = true;
    const auto& wd = w->shape().dims();
    const bool depthwise = wd.size() == 4 && wd[1] == 1;
    if (depthwise || wd.size() < 3 || wd[0] % group_ != 0) {  // errors are reported at run
      std::vector<float> store;
      const float* p = to_compute<float>(*w, store);
      w_float_.assign(p, p + w->num_elements());
      return;
    }
    // The packed copy is all the GEMM reads, so no plain copy is kept; it is
    // shared with the kernels (of any session) packing the same W per group.
    packed_ = info.prepacked<std::vector<linalg::PackedA>>(1, "cpu.conv.packed_a", {group_}, [&] {
      std::vector<float> store;
      const float* p = to_compute<float>(*w, store);
      const int64_t Mg = wd[0] / group_, Kg = w->num_elements() / wd[0];
      std::vector<linalg::PackedA> packed;
      for (int64_t gi = 0; gi < group_; ++gi)
        packed.emplace_back(false, Mg, Kg, p + gi * Mg * Kg, Kg);
      return packed;
    });
  }

  // With packed filters the run reads only W's shape.
  bool reads_constant_data(size_t i) const override { return i != 1 || !packed_; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor& W = ctx.required_input(1);
    const Tensor* B = ctx.input(2);
    const Tensor* Z = ctx.num_inputs() > 3 ? ctx.input(3) : nullptr;
    const auto& xd = X.shape().dims();
    const auto& wd = W.shape().dims();
    if (xd.size() < 3) ctx.fail_node("X must be [N, C, spatial...], got ", X.shape().to_string());
    if (wd.size() != xd.size())
      ctx.fail_node("W ", W.shape().to_string(), " must have the rank of X ",
                    X.shape().to_string());
    const int64_t C = xd[1], M = wd[0];
    int64_t wc = 0;  // W's input channels times the groups (a model's group may be huge)
    if (__builtin_mul_overflow(wd[1], group_, &wc))
      ctx.fail_node("W ", W.shape().to_string(), " with group ", group_,
                    " has more input channels than int64 holds");
    if (C != wc)
      ctx.fail_node("X ", X.shape().to_string(), " has ", C, " channels but W ",
                    W.shape().to_string(), " expects ", wc, " (group ", group_, ")");
    if (M % group_ != 0)
      ctx.fail_node("W ", W.shape().to_string(), " has ", M,
                    " output channels, not divisible by group ", group_);
    if (B && (B->rank() != 1 || B->shape()[0] != M))
      ctx.fail_node("B ", B->shape().to_string(), " must be [", M, "] for W ",
                    W.shape().to_string());
    std::vector<int64_t> spatial(xd.begin() + 2, xd.end());
    std::vector<int64_t> kernel(wd.begin() + 2, wd.end());
    if (!attrs_.kernel.empty() && attrs_.kernel != kernel)
      ctx.fail_node("kernel_shape ", dims_str(attrs_.kernel), " does not match W ",
                    W.shape().to_string());
    for (int64_t k : kernel)
      if (k <= 0) ctx.fail_node("W ", W.shape().to_string(), " has an empty kernel");
    const Window g = resolve_window(ctx, attrs_, spatial, kernel);
    std::vector<int64_t> yd = {xd[0], M};
    yd.insert(yd.end(), g.out.begin(), g.out.end());
    const Shape y_shape(yd);
    if (Z && Z->dtype() != X.dtype())
      ctx.fail_node("residual Z is ", data_type_name(Z->dtype()), " but X is ",
                    data_type_name(X.dtype()));
    if (Z && Z->shape() != y_shape) return compute_broadcast_residual(ctx, X, W, B, *Z, g, y_shape);
    Tensor& Y = ctx.output(0, y_shape);
    if (Y.num_elements() == 0) return;
    dispatch_compute(X.dtype(), [&]<typename T>() { run<T>(ctx, X, W, B, Z, g, Y); });
  }

 private:
  // A residual that broadcasts to the convolution's output without matching
  // it (the optimizer could not see the shapes): convolve into a temporary,
  // then add the broadcast residual and activate, as the unfused graph would.
  void compute_broadcast_residual(ep::KernelContext& ctx, const Tensor& X, const Tensor& W,
                                  const Tensor* B, const Tensor& Z, const Window& g,
                                  const Shape& y_shape) const {
    Shape out_shape;
    try {
      out_shape = ops::broadcast_shapes({y_shape, Z.shape()});
    } catch (const Error&) {
      ctx.fail_node("residual Z ", Z.shape().to_string(), " does not broadcast to the output ",
                    y_shape.to_string());
    }
    Tensor conv(X.dtype(), y_shape);
    Tensor& Y = ctx.output(0, out_shape);
    if (Y.num_elements() == 0) return;
    dispatch_compute(X.dtype(), [&]<typename T>() {
      run<T>(ctx, X, W, B, nullptr, g, conv, /*activate=*/false);
      std::vector<T> sc, sz;
      const T* c = to_compute<T>(conv, sc);
      const T* z = to_compute<T>(Z, sz);
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      ops::BroadcastIndexer bi({y_shape, Z.shape()}, out_shape);
      ops::for_each_broadcast_row(
          bi, 0, bi.num_rows(), [&](int64_t o, const int64_t* off, int64_t n) {
            for (int64_t i = 0; i < n; ++i)
              y[o + i] = T(activate(act_, double(c[off[0] + i * bi.inner_stride(0)] +
                                                 z[off[1] + i * bi.inner_stride(1)])));
          });
      yo.finish();
    });
  }

  template <typename T>
  void run(ep::KernelContext& ctx, const Tensor& X, const Tensor& W, const Tensor* B,
           const Tensor* Z, const Window& g, Tensor& Y, bool activate_output = true) const {
    std::vector<T> sx, sw, sb, sz;
    const T* x = to_compute<T>(X, sx);
    const T* w;
    if constexpr (std::is_same_v<T, float>)
      w = packed_             ? nullptr  // the GEMM reads the packed copy
          : !w_float_.empty() ? w_float_.data()
                              : to_compute<T>(W, sw);
    else
      w = constant_w_ && !w_double_.empty() ? w_double_.data() : to_compute<T>(W, sw);
    Conv<T> c{x, w, B ? to_compute<T>(*B, sb) : nullptr, Z ? to_compute<T>(*Z, sz) : nullptr,
              activate_output ? act_ : linalg::ActivationSpec{}};
    ComputeOutput<T> yo(Y);
    T* y = yo.data();
    if constexpr (std::is_same_v<T, float>)
      run_float(ctx, X, W, g, c, y);
    else
      run_double(ctx, X, W, g, c, y);
    yo.finish();
  }

  template <typename T>
  struct Conv {
    const T *x, *w, *b, *z;
    linalg::ActivationSpec act;
  };

  void run_float(ep::KernelContext& ctx, const Tensor& X, const Tensor& W, const Window& g,
                 const Conv<float>& c, float* y) const {
    ThreadPool* pool = &ctx.thread_pool();
    const int64_t N = X.shape()[0], C = X.shape()[1], M = W.shape()[0];
    const int64_t Cg = C / group_, Mg = M / group_;
    const int64_t isz = g.in_size(), osz = g.out_size(), ksz = g.kernel_size();
    if (Cg == 1 && g.rank() == 2) {  // depthwise (channel multiplier Mg)
      const linalg::DepthwiseGeometry dg{g.in[0],         g.in[1],        g.out[0],
                                         g.out[1],        g.kernel[0],    g.kernel[1],
                                         g.strides[0],    g.strides[1],   g.pads_begin[0],
                                         g.pads_begin[1], g.dilations[0], g.dilations[1]};
      auto planes = [&](int64_t b0, int64_t b1) {
        for (int64_t nm = b0; nm < b1; ++nm) {
          const int64_t n = nm / M, m = nm % M, ci = m / Mg;
          linalg::depthwise_conv2d_plane(x_plane(c.x, n, C, ci, isz), c.w + m * ksz,
                                         c.b ? c.b[m] : 0.f, c.z ? c.z + nm * osz : nullptr, c.act,
                                         dg, y + nm * osz);
        }
      };
      // Waking a worker costs tens of microseconds (more in a VM): only
      // layers worth more than that are split (MobileNet's 7x7 ones are not).
      if (double(N * M * osz * ksz) * 2.0 >= kMinParallelFlops)
        pool->parallel_for(N * M, double(osz * ksz * 2), planes);
      else
        planes(0, N * M);
      return;
    }
    const bool pointwise = is_pointwise(g);
    linalg::ConvGeometry cg{g.in, g.out, g.kernel, g.strides, g.pads_begin, g.dilations};
    const bool use_packed = packed_ != nullptr;
    // Packed at creation from this constant W, so the shapes agree.
    if (use_packed && ((*packed_)[0].rows() != Mg || (*packed_)[0].depth() != Cg * ksz))
      ctx.fail_node("internal: packed weights do not match W ", W.shape().to_string());
    const int64_t slice = g.rank() == 1 && !pointwise ? column_slice(Cg * ksz, osz) : 0;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t gi = 0; gi < group_; ++gi) {
        const float* bmat = x_plane(c.x, n, C, gi * Cg, isz);
        if (slice > 0) {
          run_float_slices(ctx, cg, c, bmat, n * M + gi * Mg, gi, Mg, Cg * ksz, osz, slice, y);
          continue;
        }
        if (!pointwise) {
          float* col = col_buffer(size_t(Cg * ksz * osz));
          const bool big = double(Cg * ksz * osz) >= kMinParallelFlops / 8;  // a copy, not math
          linalg::im2col<float>(bmat, Cg, cg, col, big ? pool : nullptr);
          bmat = col;
        }
        float* yg = y + (n * M + gi * Mg) * osz;
        linalg::Epilogue ep;
        ep.row_bias = c.b ? c.b + gi * Mg : nullptr;
        ep.residual = c.z ? c.z + (n * M + gi * Mg) * osz : nullptr;
        ep.ldr = osz;
        ep.act = c.act;
        if (use_packed)
          linalg::sgemm_packed((*packed_)[size_t(gi)], false, osz, bmat, osz, yg, osz, pool, &ep);
        else
          linalg::sgemm(false, false, Mg, osz, Cg * ksz, 1.f, c.w + gi * Mg * Cg * ksz, Cg * ksz,
                        bmat, osz, 0.f, yg, osz, pool, &ep);
      }
    }
  }

  // One (image, group) of a 1-D float convolution, `slice` output columns at
  // a time: each slice's im2col columns, then their GEMM with the epilogue,
  // while they are in cache. `row0` is the group's first output row of the
  // image (n * M + gi * Mg).
  void run_float_slices(ep::KernelContext& ctx, const linalg::ConvGeometry& cg,
                        const Conv<float>& c, const float* img, int64_t row0, int64_t gi,
                        int64_t Mg, int64_t depth, int64_t osz, int64_t slice, float* y) const {
    const int64_t Cg = depth / cg.kernel_size();
    const int64_t slices = (osz + slice - 1) / slice;
    auto body = [&](int64_t s0, int64_t s1) {
      float* col = col_buffer(size_t(depth * slice));
      for (int64_t s = s0; s < s1; ++s) {
        const int64_t j0 = s * slice, nj = std::min(slice, osz - j0);
        linalg::im2col_columns(img, Cg, cg, j0, nj, col);
        linalg::Epilogue ep;
        ep.row_bias = c.b ? c.b + gi * Mg : nullptr;
        ep.residual = c.z ? c.z + row0 * osz + j0 : nullptr;
        ep.ldr = osz;
        ep.act = c.act;
        float* yg = y + row0 * osz + j0;
        if (packed_)
          linalg::sgemm_packed((*packed_)[size_t(gi)], false, nj, col, nj, yg, osz, nullptr, &ep);
        else
          linalg::sgemm(false, false, Mg, nj, depth, 1.f, c.w + gi * Mg * depth, depth, col, nj,
                        0.f, yg, osz, nullptr, &ep);
      }
    };
    ctx.thread_pool().parallel_for(slices, double(Mg * depth * slice) * 2.0, body);
  }

  void run_double(ep::KernelContext& ctx, const Tensor& X, const Tensor& W, const Window& g,
                  const Conv<double>& c, double* y) const {
    ThreadPool* pool = &ctx.thread_pool();
    const int64_t N = X.shape()[0], C = X.shape()[1], M = W.shape()[0];
    const int64_t Cg = C / group_, Mg = M / group_;
    const int64_t isz = g.in_size(), osz = g.out_size(), ksz = g.kernel_size();
    if (Cg == 1 && g.rank() == 2) {
      pool->parallel_for(N * M, double(osz * ksz * 2), [&](int64_t b0, int64_t b1) {
        for (int64_t nm = b0; nm < b1; ++nm) {
          const int64_t n = nm / M, m = nm % M;
          std::fill(y + nm * osz, y + (nm + 1) * osz, 0.0);
          depthwise_plane(x_plane(c.x, n, C, m / Mg, isz), c.w + m * ksz, y + nm * osz, g);
        }
      });
    } else {
      const bool pointwise = is_pointwise(g);
      linalg::ConvGeometry cg{g.in, g.out, g.kernel, g.strides, g.pads_begin, g.dilations};
      std::vector<double> col;
      if (!pointwise) col.resize(size_t(Cg * ksz * osz));
      for (int64_t n = 0; n < N; ++n)
        for (int64_t gi = 0; gi < group_; ++gi) {
          const double* bmat = x_plane(c.x, n, C, gi * Cg, isz);
          if (!pointwise) {
            linalg::im2col<double>(bmat, Cg, cg, col.data(), pool);
            bmat = col.data();
          }
          gemm_nn(Mg, osz, Cg * ksz, c.w + gi * Mg * Cg * ksz, bmat, y + (n * M + gi * Mg) * osz,
                  pool);
        }
    }
    // Bias, residual, activation: the same order as the unfused graph.
    pool->parallel_for(N * M, double(osz), [&](int64_t b0, int64_t b1) {
      for (int64_t nm = b0; nm < b1; ++nm) {
        const double bias = c.b ? c.b[nm % M] : 0.0;
        double* yp = y + nm * osz;
        const double* zp = c.z ? c.z + nm * osz : nullptr;
        for (int64_t i = 0; i < osz; ++i) {
          double v = yp[i] + bias;
          if (zp) v += zp[i];
          yp[i] = activate(c.act, v);
        }
      }
    });
  }

  template <typename T>
  static const T* x_plane(const T* x, int64_t n, int64_t C, int64_t ci, int64_t isz) {
    return x + (n * C + ci) * isz;
  }

  static bool is_pointwise(const Window& g) {
    for (size_t i = 0; i < g.rank(); ++i)
      if (g.kernel[i] != 1 || g.strides[i] != 1 || g.pads_begin[i] != 0 || g.pads_end[i] != 0)
        return false;
    return true;
  }

  WindowAttrs attrs_;
  int64_t group_;
  linalg::ActivationSpec act_;
  bool constant_w_ = false;
  std::vector<float> w_float_;
  std::vector<double> w_double_;
  // One per group, for constant float weights (shared: see the constructor).
  std::shared_ptr<const std::vector<linalg::PackedA>> packed_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_conv(const ep::KernelInfo& info) {
  return std::make_unique<ConvKernel>(info, false);
}

std::unique_ptr<ep::OpKernel> make_fused_conv(const ep::KernelInfo& info) {
  return std::make_unique<ConvKernel>(info, true);
}

}  // namespace tessera::cpu::nn
