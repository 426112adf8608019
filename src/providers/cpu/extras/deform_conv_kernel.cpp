// DeformConv (opsets 19, 22), N-D: each kernel tap samples the input at its
// regular position plus a learned offset, with n-linear interpolation (taps
// outside the input read zero), optionally scaled by a mask. Built as a
// column matrix [C * K, O] per image (sampled values), then one matrix product
// per group with the weights.
#include <algorithm>
#include <cmath>

#include "providers/cpu/extras/extras_kernels.hpp"
#include "providers/cpu/recurrent/float_io.hpp"

namespace tessera::cpu {

namespace {

struct ConvGeometry {
  int64_t n = 0, c = 0, oc = 0, nd = 0, group = 1, offset_group = 1;
  std::vector<int64_t> in, k, out, stride, dil, pad_begin;
  int64_t in_size = 1, k_size = 1, out_size = 1;
};

class DeformConvKernel : public ep::OpKernel {
 public:
  explicit DeformConvKernel(const ep::KernelInfo& info)
      : kernel_shape_(info.attr_ints("kernel_shape", {})),
        dilations_(info.attr_ints("dilations", {})),
        pads_(info.attr_ints("pads", {})),
        strides_(info.attr_ints("strides", {})),
        group_(info.attr_int("group", 1)),
        offset_group_(info.attr_int("offset_group", 1)) {
    if (group_ < 1 || offset_group_ < 1)
      info.fail_node("group and offset_group must be >= 1, got ", group_, " and ", offset_group_);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    ConvGeometry g = geometry(ctx);
    with_compute_type(x.dtype(), [&](auto z) { run<decltype(z)>(ctx, g); });
  }

 private:
  ConvGeometry geometry(const ep::KernelContext& ctx) const {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    const Tensor& off = ctx.required_input(2);
    const Tensor* bias = ctx.input(3);
    const Tensor* mask = ctx.input(4);
    if (x.rank() < 3) ctx.fail_node("X must be (N, C, D1, ...), got ", x.shape().to_string());
    ConvGeometry g;
    g.nd = int64_t(x.rank()) - 2;
    g.n = x.shape()[0];
    g.c = x.shape()[1];
    g.group = group_;
    g.offset_group = offset_group_;
    if (w.rank() != x.rank())
      ctx.fail_node("W ", w.shape().to_string(), " must have the rank of X ",
                    x.shape().to_string());
    g.oc = w.shape()[0];
    int64_t wc = 0;  // W's input channels times the groups (a model's group may be huge)
    if (g.c % group_ != 0 || g.oc % group_ != 0 ||
        __builtin_mul_overflow(w.shape()[1], group_, &wc) || wc != g.c)
      ctx.fail_node("channels do not fit group ", group_, ": X ", x.shape().to_string(), ", W ",
                    w.shape().to_string());
    if (g.c % offset_group_ != 0 || offset_group_ > std::max<int64_t>(g.c, 1))
      ctx.fail_node("C = ", g.c, " is not divisible by offset_group ", offset_group_);
    auto attr_or = [&](const std::vector<int64_t>& v, size_t n, int64_t def, const char* name) {
      if (v.empty()) return std::vector<int64_t>(n, def);
      if (v.size() != n) ctx.fail_node(name, " has ", v.size(), " values, expected ", n);
      return v;
    };
    size_t nd = size_t(g.nd);
    g.stride = attr_or(strides_, nd, 1, "strides");
    g.dil = attr_or(dilations_, nd, 1, "dilations");
    std::vector<int64_t> pads = attr_or(pads_, 2 * nd, 0, "pads");
    for (size_t i = 0; i < nd; ++i) {
      int64_t k = w.shape()[i + 2];
      if (!kernel_shape_.empty() && (kernel_shape_.size() != nd || kernel_shape_[i] != k))
        ctx.fail_node("kernel_shape does not match W ", w.shape().to_string());
      if (g.stride[i] < 1 || g.dil[i] < 1 || pads[i] < 0 || pads[i + nd] < 0)
        ctx.fail_node("strides and dilations must be >= 1 and pads >= 0");
      int64_t d = x.shape()[i + 2];
      int64_t o = (d + pads[i] + pads[i + nd] - (g.dil[i] * (k - 1) + 1)) / g.stride[i] + 1;
      if (o < 1) ctx.fail_node("the kernel does not fit the padded input ", x.shape().to_string());
      g.in.push_back(d);
      g.k.push_back(k);
      g.out.push_back(o);
      g.pad_begin.push_back(pads[i]);
      g.in_size *= d;
      g.k_size *= k;
      g.out_size *= o;
    }
    std::vector<int64_t> off_dims = {g.n, offset_group_ * g.k_size * g.nd};
    off_dims.insert(off_dims.end(), g.out.begin(), g.out.end());
    if (off.shape().dims() != off_dims)
      ctx.fail_node("offset has shape ", off.shape().to_string(), ", expected ",
                    Shape(off_dims).to_string());
    if (mask) {
      std::vector<int64_t> mask_dims = off_dims;
      mask_dims[1] = offset_group_ * g.k_size;
      if (mask->shape().dims() != mask_dims)
        ctx.fail_node("mask has shape ", mask->shape().to_string(), ", expected ",
                      Shape(mask_dims).to_string());
    }
    if (bias && bias->shape() != Shape{g.oc})
      ctx.fail_node("B has shape ", bias->shape().to_string(), ", expected [", g.oc, "]");
    for (const Tensor* t : {&w, &off, bias, mask})
      if (t && t->dtype() != x.dtype()) ctx.fail_node("all inputs must have the type of X");
    return g;
  }

  // Input `img` (one channel) sampled at `coord` with zero outside.
  template <typename A>
  static A sample(const A* img, const ConvGeometry& g, const A* coord) {
    int64_t lo[8];
    A frac[8];
    for (int64_t i = 0; i < g.nd; ++i) {
      // Entirely outside (or NaN): every corner would read zero. Also keeps the
      // integer conversion below in range.
      if (!(coord[i] > A(-1) && coord[i] < A(g.in[size_t(i)]))) return A(0);
      A f = std::floor(coord[i]);
      lo[i] = int64_t(f);
      frac[i] = coord[i] - f;
    }
    A v = A(0);
    for (int64_t corner = 0; corner < (int64_t(1) << g.nd); ++corner) {
      A wgt = A(1);
      int64_t idx = 0;
      bool inside = true;
      for (int64_t i = 0; i < g.nd && inside; ++i) {
        int64_t bit = (corner >> i) & 1;
        int64_t p = lo[i] + bit;
        inside = p >= 0 && p < g.in[size_t(i)];
        wgt *= bit ? frac[i] : A(1) - frac[i];
        idx = idx * g.in[size_t(i)] + p;
      }
      if (inside && wgt != A(0)) v += wgt * img[idx];
    }
    return v;
  }

  template <typename A>
  void run(ep::KernelContext& ctx, const ConvGeometry& g) const {
    if (g.nd > 8) ctx.fail_node("at most 8 spatial dimensions are supported, got ", g.nd);
    const Tensor* bias_t = ctx.input(3);
    const Tensor* mask_t = ctx.input(4);
    std::vector<A> x = load_float<A>(ctx.required_input(0));
    std::vector<A> w = load_float<A>(ctx.required_input(1));
    std::vector<A> off = load_float<A>(ctx.required_input(2));
    std::vector<A> bias = bias_t ? load_float<A>(*bias_t) : std::vector<A>(size_t(g.oc), A(0));
    std::vector<A> mask = mask_t ? load_float<A>(*mask_t) : std::vector<A>();
    const int64_t K = g.k_size, O = g.out_size, nd = g.nd;
    const int64_t c_per_og = g.c / g.offset_group;
    const int64_t cg = g.c / g.group, ocg = g.oc / g.group;
    std::vector<A> y(static_cast<size_t>(g.n * g.oc * O));
    std::vector<A> cols(static_cast<size_t>(g.c * K * O));
    for (int64_t n = 0; n < g.n; ++n) {
      ctx.thread_pool().parallel_for(g.c * K, double(O * (4 << nd)), [&](int64_t r0, int64_t r1) {
        int64_t kp[8], op[8];
        A coord[8];
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t c = r / K, kidx = r % K, og = c / c_per_og;
          for (int64_t i = nd - 1, rem = kidx; i >= 0; --i) {
            kp[i] = rem % g.k[size_t(i)];
            rem /= g.k[size_t(i)];
          }
          const A* img = x.data() + (n * g.c + c) * g.in_size;
          const A* offs = off.data() + ((n * g.offset_group + og) * K + kidx) * nd * O;
          const A* msk =
              mask.empty() ? nullptr : mask.data() + ((n * g.offset_group + og) * K + kidx) * O;
          A* col = cols.data() + r * O;
          for (int64_t i = 0; i < nd; ++i) op[i] = 0;
          for (int64_t o = 0; o < O; ++o) {
            for (int64_t i = 0; i < nd; ++i)
              coord[i] = A(op[i] * g.stride[size_t(i)] - g.pad_begin[size_t(i)] +
                           kp[i] * g.dil[size_t(i)]) +
                         offs[i * O + o];
            A v = sample(img, g, coord);
            col[o] = msk ? v * msk[o] : v;
            for (int64_t i = nd - 1; i >= 0; --i) {  // next output position
              if (++op[i] < g.out[size_t(i)]) break;
              op[i] = 0;
            }
          }
        }
      });
      // Y[n, oc, :] = bias[oc] + W[oc, (c_in_group, k)] * cols[(group c, k), :]
      ctx.thread_pool().parallel_for(g.oc, double(cg * K * O), [&](int64_t o0, int64_t o1) {
        for (int64_t oc = o0; oc < o1; ++oc) {
          const int64_t grp = oc / ocg;
          A* yr = y.data() + (n * g.oc + oc) * O;
          for (int64_t o = 0; o < O; ++o) yr[o] = bias[size_t(oc)];
          const A* wr = w.data() + oc * cg * K;
          const A* cg0 = cols.data() + grp * cg * K * O;
          for (int64_t q = 0; q < cg * K; ++q) {
            const A wv = wr[q];
            const A* cr = cg0 + q * O;
            for (int64_t o = 0; o < O; ++o) yr[o] += wv * cr[o];
          }
        }
      });
    }
    std::vector<int64_t> dims = {g.n, g.oc};
    dims.insert(dims.end(), g.out.begin(), g.out.end());
    store_float(y, ctx.output(0, Shape(dims)));
  }

  std::vector<int64_t> kernel_shape_, dilations_, pads_, strides_;
  int64_t group_, offset_group_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_deform_conv_kernel(const ep::KernelInfo& info) {
  return std::make_unique<DeformConvKernel>(info);
}

}  // namespace tessera::cpu
