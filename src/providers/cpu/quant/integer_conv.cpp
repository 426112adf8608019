// ConvInteger (opset 10) and QLinearConv (opset 10): a direct N-D
// convolution over zero-point-adjusted integers, accumulated exactly.
#include <algorithm>
#include <cmath>

#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"

namespace tessera::cpu {

namespace {

struct ConvAttrs {
  std::string auto_pad;
  std::vector<int64_t> dilations, kernel_shape, pads, strides;
  int64_t group;
  explicit ConvAttrs(const ep::KernelInfo& info)
      : auto_pad(info.attr_string("auto_pad", "NOTSET")),
        dilations(info.attr_ints("dilations")),
        kernel_shape(info.attr_ints("kernel_shape")),
        pads(info.attr_ints("pads")),
        strides(info.attr_ints("strides")),
        group(info.attr_int("group", 1)) {
    if (group < 1) info.fail_node("group must be >= 1, got ", group);
    if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
        auto_pad != "VALID")
      info.fail_node("unknown auto_pad '", auto_pad, "'");
  }
};

struct ConvGeometry {
  int64_t N, C, M, cg, mg;  // batch, in channels, out channels, per group
  std::vector<int64_t> in, k, out, stride, dil, pad_begin;
  Shape out_shape;
};

ConvGeometry plan_conv(const ep::KernelContext& ctx, const ConvAttrs& a, const Shape& x,
                       const Shape& w) {
  if (x.rank() < 3 || w.rank() != x.rank())
    ctx.fail_node("x ", x.to_string(), " and w ", w.to_string(),
                  " must have the same rank >= 3 (N, C, spatial...)");
  const size_t sd = x.rank() - 2;
  ConvGeometry g;
  g.N = x[0];
  g.C = x[1];
  g.M = w[0];
  if (g.M % a.group != 0 || g.C != w[1] * a.group)
    ctx.fail_node("channels do not match: x ", x.to_string(), ", w ", w.to_string(), ", group ",
                  a.group);
  g.cg = w[1];
  g.mg = g.M / a.group;
  for (size_t i = 0; i < sd; ++i) {
    g.in.push_back(x[i + 2]);
    g.k.push_back(w[i + 2]);
  }
  if (!a.kernel_shape.empty() && a.kernel_shape != g.k)
    ctx.fail_node("kernel_shape ", Shape(a.kernel_shape).to_string(), " differs from w ",
                  w.to_string());
  g.stride = a.strides.empty() ? std::vector<int64_t>(sd, 1) : a.strides;
  g.dil = a.dilations.empty() ? std::vector<int64_t>(sd, 1) : a.dilations;
  std::vector<int64_t> pads = a.pads.empty() ? std::vector<int64_t>(2 * sd, 0) : a.pads;
  if (g.stride.size() != sd || g.dil.size() != sd || pads.size() != 2 * sd)
    ctx.fail_node("strides/dilations/pads do not match ", sd, " spatial dims");
  std::vector<int64_t> od = {g.N, g.M};
  for (size_t i = 0; i < sd; ++i) {
    if (g.stride[i] < 1 || g.dil[i] < 1) ctx.fail_node("strides and dilations must be >= 1");
    int64_t ek = (g.k[i] - 1) * g.dil[i] + 1;
    int64_t o;
    if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
      o = (g.in[i] + g.stride[i] - 1) / g.stride[i];
      int64_t total = std::max<int64_t>(0, (o - 1) * g.stride[i] + ek - g.in[i]);
      pads[i] = a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      if (a.auto_pad == "VALID") pads[i] = pads[i + sd] = 0;
      o = (g.in[i] + pads[i] + pads[i + sd] - ek) / g.stride[i] + 1;
    }
    if (o < 0) o = 0;
    g.out.push_back(o);
    g.pad_begin.push_back(pads[i]);
    od.push_back(o);
  }
  g.out_shape = Shape(od);
  return g;
}

// acc[n, m, out...] = sum over the group's channels and the kernel window of
// (x - xzp) * (w - wzp[m]); padding contributes zero (that is, x == xzp).
std::vector<double> conv_accumulate(const ConvGeometry& g, const std::vector<double>& x,
                                    const std::vector<double>& w, double xzp,
                                    const std::vector<double>& wzp, ThreadPool& pool) {
  const size_t sd = g.in.size();
  int64_t in_size = 1, k_size = 1, out_size = 1;
  for (size_t i = 0; i < sd; ++i) in_size *= g.in[i], k_size *= g.k[i], out_size *= g.out[i];
  std::vector<double> acc(size_t(g.N * g.M * out_size), 0.0);
  pool.parallel_for(g.N * g.M, double(out_size * k_size * g.cg), [&](int64_t b, int64_t e) {
    std::vector<int64_t> oi(sd), ki(sd);
    for (int64_t nm = b; nm < e; ++nm) {
      int64_t n = nm / g.M, m = nm % g.M, grp = m / g.mg;
      double wz = wzp.size() == 1 ? wzp[0] : wzp[size_t(m)];
      double* out = acc.data() + nm * out_size;
      for (int64_t o = 0; o < out_size; ++o) {
        for (int64_t r = o, d = int64_t(sd) - 1; d >= 0; --d)
          oi[size_t(d)] = r % g.out[size_t(d)], r /= g.out[size_t(d)];
        double sum = 0;
        for (int64_t kk = 0; kk < k_size; ++kk) {
          int64_t off = 0;
          bool inside = true;
          for (int64_t r = kk, d = int64_t(sd) - 1; d >= 0; --d) {
            size_t du = size_t(d);
            ki[du] = r % g.k[du];
            r /= g.k[du];
          }
          for (size_t d = 0; d < sd && inside; ++d) {
            int64_t p = oi[d] * g.stride[d] - g.pad_begin[d] + ki[d] * g.dil[d];
            inside = p >= 0 && p < g.in[d];
            off = off * g.in[d] + p;
          }
          if (!inside) continue;
          for (int64_t c = 0; c < g.cg; ++c) {
            double xv = x[size_t((n * g.C + grp * g.cg + c) * in_size + off)] - xzp;
            double wv = w[size_t((m * g.cg + c) * k_size + kk)] - wz;
            sum += xv * wv;
          }
        }
        out[o] = sum;
      }
    }
  });
  return acc;
}

double scalar_or_zero(const ep::KernelContext& ctx, const char* what, const Tensor* t) {
  if (!t) return 0.0;
  if (t->num_elements() != 1)
    ctx.fail_node(what, " must be a scalar (per tensor), got ", t->shape().to_string());
  return t->element_as_double(0);
}

std::vector<double> per_channel(const ep::KernelContext& ctx, const char* what, const Tensor* t,
                                int64_t M) {
  if (!t) return {0.0};
  if (t->num_elements() != 1 && !(t->rank() == 1 && t->shape()[0] == M))
    ctx.fail_node(what, " must be a scalar or 1-D of length ", M, " (output channels), got ",
                  t->shape().to_string());
  return read_as<double>(*t);
}

class ConvIntegerKernel : public ep::OpKernel {
 public:
  explicit ConvIntegerKernel(const ep::KernelInfo& info) : attrs_(info) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    ConvGeometry g = plan_conv(ctx, attrs_, x.shape(), w.shape());
    double xzp = scalar_or_zero(ctx, "x_zero_point", ctx.input(2));
    auto wzp = per_channel(ctx, "w_zero_point", ctx.input(3), g.M);
    auto acc =
        conv_accumulate(g, read_as<double>(x), read_as<double>(w), xzp, wzp, ctx.thread_pool());
    Tensor& y = ctx.output(0, g.out_shape, DataType::kInt32);
    int32_t* yd = y.mutable_data<int32_t>();
    for (size_t i = 0; i < acc.size(); ++i) yd[i] = int32_t(uint32_t(int64_t(acc[i])));
  }

 private:
  ConvAttrs attrs_;
};

class QLinearConvKernel : public ep::OpKernel {
 public:
  explicit QLinearConvKernel(const ep::KernelInfo& info) : attrs_(info) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(3);
    const Tensor& yzp_t = ctx.required_input(7);
    ConvGeometry g = plan_conv(ctx, attrs_, x.shape(), w.shape());
    double xs = scalar_or_zero(ctx, "x_scale", &ctx.required_input(1));
    double xzp = scalar_or_zero(ctx, "x_zero_point", ctx.input(2));
    auto ws = per_channel(ctx, "w_scale", &ctx.required_input(4), g.M);
    auto wzp = per_channel(ctx, "w_zero_point", ctx.input(5), g.M);
    double ys = scalar_or_zero(ctx, "y_scale", &ctx.required_input(6));
    double yzp = scalar_or_zero(ctx, "y_zero_point", &yzp_t);
    std::vector<double> bias;
    if (const Tensor* bt = ctx.input(8)) {
      if (bt->rank() != 1 || bt->shape()[0] != g.M)
        ctx.fail_node("B must be 1-D of length ", g.M, ", got ", bt->shape().to_string());
      bias = read_as<double>(*bt);
    }
    auto acc =
        conv_accumulate(g, read_as<double>(x), read_as<double>(w), xzp, wzp, ctx.thread_pool());
    double lo, hi;
    integer_range(yzp_t.dtype(), &lo, &hi);
    const int64_t per_m = g.out_shape.size_from(2);
    std::vector<float> q(acc.size());
    for (size_t i = 0; i < acc.size(); ++i) {
      int64_t m = (int64_t(i) / per_m) % g.M;
      double a = acc[i] + (bias.empty() ? 0.0 : bias[size_t(m)]);
      float real = float(a) * (float(xs) * float(ws.size() == 1 ? ws[0] : ws[size_t(m)]));
      double r = double(round_half_even(real / float(ys))) + yzp;
      q[i] = float(std::clamp(r, lo, hi));
    }
    Tensor& y = ctx.output(0, g.out_shape, yzp_t.dtype());
    write_from(y, q.data());
  }

 private:
  ConvAttrs attrs_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_conv_integer(const ep::KernelInfo& info) {
  return std::make_unique<ConvIntegerKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_qlinear_conv(const ep::KernelInfo& info) {
  return std::make_unique<QLinearConvKernel>(info);
}

}  // namespace tessera::cpu
