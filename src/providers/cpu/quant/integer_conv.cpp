// ConvInteger (opset 10) and QLinearConv (opset 10): 2-D convolutions of
// 8-bit tensors as packed integer GEMMs (filters x im2col, linalg::igemm)
// where each group has 4+ output channels, as a direct integer loop
// elsewhere (depthwise layers); other ranks as the exact N-D reference loop.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/host_heap.hpp"
#include "core/quant_types.hpp"
#include "linalg/depthwise.hpp"
#include "linalg/depthwise_8bit.hpp"
#include "linalg/depthwise_vnni.hpp"
#include "linalg/igemm.hpp"
#include "linalg/quantize.hpp"
#include "linalg/strided_bytes.hpp"
#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/quant/qlinear_conv_rows.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"

namespace tessera::cpu {

namespace {

struct ConvAttrs {
  std::string auto_pad;
  std::vector<int64_t> dilations, kernel_shape, pads, strides;
  int64_t group;
  explicit ConvAttrs(const ep::KernelInfo& info) : group(info.attr_int("group", 1)) {
    // The checks every sliding window's attributes get (auto_pad's value,
    // positive strides, dilations and kernel, non-negative pads: a negative
    // pad once reached the integer im2col, which wrote outside its buffer).
    nn::WindowAttrs w;
    w.parse(info, /*pool=*/false);
    auto_pad = w.auto_pad, dilations = w.dilations, kernel_shape = w.kernel, pads = w.pads,
    strides = w.strides;
    if (group < 1) info.fail_node("group must be >= 1, got ", group);
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
      pads[i + sd] = total - pads[i];
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
  std::vector<int64_t> pads_end(sd);
  for (size_t i = 0; i < sd; ++i) pads_end[i] = pads[i + sd];
  nn::check_padded_extent(ctx, g.in, g.pad_begin, pads_end, g.stride);
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

// ---- The packed path: 2-D convolutions as filters x im2col on linalg::igemm ----
// Per image and group, A is the group's filters (out channels x K, K = cg *
// kh * kw, as stored), B the image's im2col matrix (K x output positions,
// channel-major rows c, ky, kx; outside the image the zero point, which
// contributes nothing), packed per call, and each finished run of an output
// channel's positions lands in its plane, contiguous.

// Output channels a group needs for the packed path (below it, depthwise-like
// layers, the direct loop runs).
constexpr int64_t kPackedMinChannels = 4;

// Whether the packed path takes this convolution: 2-D, 8-bit, a scalar x
// zero point, and groups of at least kPackedMinChannels output channels.
bool packed_conv_fits(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor* xzp) {
  return g.in.size() == 2 && is_8bit_integer_type(x.dtype()) && is_8bit_integer_type(w.dtype()) &&
         (!xzp || xzp->num_elements() == 1) && g.mg >= kPackedMinChannels;
}

// The filters of each group as igemm's prepared A (out channels x K).
using PreparedFilters = std::vector<linalg::PreparedAInt8>;

PreparedFilters prepare_filters(const Tensor& w, int64_t group) {
  const int64_t M = w.shape()[0], mg = M / group, K = w.num_elements() / M;
  const auto* wd = static_cast<const uint8_t*>(w.raw_data());
  PreparedFilters out;
  for (int64_t g = 0; g < group; ++g)
    out.emplace_back(mg, K, wd + g * mg * K, K, w.dtype() == DataType::kInt8);
  return out;
}

// Made at kernel creation for constant filters the packed path will take
// (only then: the direct loop needs the filters' data).
std::shared_ptr<const PreparedFilters> prepare_constant_filters(const ep::KernelInfo& info,
                                                                size_t i, int64_t group) {
  const Tensor* w = info.num_inputs() > i ? info.constant_input(i) : nullptr;
  if (!w || w->rank() != 4 || !is_8bit_integer_type(w->dtype()) || w->shape()[0] % group != 0 ||
      w->shape()[0] / group < kPackedMinChannels)
    return nullptr;
  return info.prepacked<PreparedFilters>(i, "cpu.igemm.conv_filters", {group},
                                         [&] { return prepare_filters(*w, group); });
}

// Runs the convolution on the packed path: per image n and group, the
// caller's product(filters, za, b, zb, n, c0) multiplies the group's
// prepared filters (zero points za) by its packed im2col matrix b (zero
// point zb) into output channels c0 .. c0 + mg of image n.
// `filters`: prepared at creation, or null.
template <typename Product>
void packed_conv(ep::KernelContext& ctx, const ConvGeometry& g, const Tensor& x, const Tensor& w,
                 const Tensor* xzp_t, const std::vector<double>& wzp, int64_t group,
                 const PreparedFilters* filters, const Product& product) {
  const int64_t ih = g.in[0], iw = g.in[1], kh = g.k[0], kw = g.k[1];
  const int64_t oh = g.out[0], ow = g.out[1], P = oh * ow, K = g.cg * kh * kw;
  const uint8_t pad = xzp_t ? static_cast<const uint8_t*>(xzp_t->raw_data())[0] : 0;
  const int32_t xzp = xzp_t ? int32_t(xzp_t->element_as_double(0)) : 0;
  std::vector<int32_t> za;
  for (double v : wzp) za.push_back(int32_t(v));
  PreparedFilters local;
  if (!filters) {
    local = prepare_filters(w, group);
    filters = &local;
  }
  const auto* xd = static_cast<const uint8_t*>(x.raw_data());
  const bool x_signed = x.dtype() == DataType::kInt8;
  ThreadPool& pool = ctx.thread_pool();
  HostVector<uint8_t> padded;
  const bool pointwise = kh == 1 && kw == 1 && g.stride[0] == 1 && g.stride[1] == 1 &&
                         g.pad_begin[0] == 0 && g.pad_begin[1] == 0 && oh == ih && ow == iw;
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t grp = 0; grp < group; ++grp) {
      const uint8_t* plane0 = xd + (n * g.C + grp * g.cg) * ih * iw;
      const int64_t c0 = grp * g.mg;
      // Per-channel zero points of this group's rows.
      const int32_t* za_group = za.size() > 1 ? za.data() + grp * g.mg : za.data();
      const linalg::ZeroPoints za_view{za_group, za.size() > 1 ? g.mg : int64_t(za.size())};
      const linalg::PreparedAInt8& a = (*filters)[size_t(grp)];
      if (pointwise) {  // 1x1, stride 1, no padding: the image is the im2col matrix
        const linalg::PackedBInt8 b(K, P, plane0, P, x_signed, &pool);
        product(a, za_view, b, linalg::ZeroPoints{&xzp, 1}, n, c0);
        continue;
      }
      // The group's channels with their padding made real (the zero point):
      // each im2col row is then plain strided copies, no bounds to test.
      const int64_t top = g.pad_begin[0], left = g.pad_begin[1];
      const int64_t PH = std::max(ih + top, (oh - 1) * g.stride[0] + (kh - 1) * g.dil[0] + 1);
      const int64_t PW = std::max(iw + left, (ow - 1) * g.stride[1] + (kw - 1) * g.dil[1] + 1);
      padded.resize(size_t(g.cg * PH * PW));
      pool.parallel_for(g.cg, double(PH * PW), [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          uint8_t* dst = padded.data() + c * PH * PW;
          std::memset(dst, pad, size_t(PH * PW));
          for (int64_t y = 0; y < ih; ++y)
            std::memcpy(dst + (y + top) * PW + left, plane0 + (c * ih + y) * iw, size_t(iw));
        }
      });
      // Row k of the im2col matrix (c, ky, kx): the pixels under that filter
      // tap at every output position.
      auto im2col_row = [&](int64_t k, uint8_t* row) {
        const int64_t c = k / (kh * kw), ky = k / kw % kh, kx = k % kw;
        const uint8_t* base = padded.data() + (c * PH + ky * g.dil[0]) * PW + kx * g.dil[1];
        linalg::gather_strided_bytes(base, g.stride[0] * PW, g.stride[1], oh, ow, row);
      };
      const linalg::PackedBInt8 b(K, P, x_signed, im2col_row, &pool);
      product(a, za_view, b, linalg::ZeroPoints{&xzp, 1}, n, c0);
    }
}

// ---- The direct path: other 2-D 8-bit convolutions (depthwise and narrow
// groups), in integers: per output channel, each filter tap adds its weight
// times the shifted rows of its (padded, int16) input channel into the
// channel's int32 plane (wrapping, as the packed path's sums do).
bool direct_conv_fits(const ConvGeometry& g, const Tensor& x, const Tensor& w) {
  return g.in.size() == 2 && is_8bit_integer_type(x.dtype()) && is_8bit_integer_type(w.dtype());
}

// One input channel per output channel (depthwise, any multiplier) with at
// most 256 taps: every product (x - x_zp)(w - w_zp) is an integer of at most
// 255 * 255 and every partial sum of 256 of them stays below 2^24, so the
// float depthwise kernel (linalg/depthwise) computes the exact int32 sums,
// in registers across the taps, whatever its order. Each plane is then
// requantized (or stored) in one call.
bool depthwise_in_float(const ConvGeometry& g) { return g.cg == 1 && g.k[0] * g.k[1] <= 256; }

// A depthwise layer's filters as floats: w - its zero point (one, or one per
// output channel), exact.
using DepthwiseWeights = std::vector<float>;
DepthwiseWeights depthwise_weights(const Tensor& w, const std::vector<double>& wzp) {
  const int64_t taps = w.num_elements() / std::max<int64_t>(w.shape()[0], 1);
  DepthwiseWeights wf(size_t(w.num_elements()));
  const auto* p = static_cast<const uint8_t*>(w.raw_data());
  const bool is_signed = w.dtype() == DataType::kInt8;
  for (int64_t i = 0; i < w.num_elements(); ++i) {
    const double z = wzp.size() == 1 ? wzp[0] : wzp[size_t(i / taps)];
    wf[size_t(i)] = float((is_signed ? double(int8_t(p[i])) : double(p[i])) - z);
  }
  return wf;
}

// Made at kernel creation when the filters (input wi) and their zero point
// (input zi, or none) are constants of a depthwise layer the float path
// takes; null otherwise (then each run converts them).
// A depthwise layer's constant filters (input wi: 8-bit, one input channel
// each) and their zero points (input zi: one, one per output channel, or
// none: 0) into *wzp; null unless both are constants of that form.
const Tensor* constant_depthwise(const ep::KernelInfo& info, size_t wi, size_t zi,
                                 std::vector<double>* wzp) {
  const Tensor* w = info.num_inputs() > wi ? info.constant_input(wi) : nullptr;
  if (!w || w->rank() != 4 || w->shape()[1] != 1 || !is_8bit_integer_type(w->dtype()))
    return nullptr;
  *wzp = {0.0};
  if (info.has_input(zi)) {
    const Tensor* z = info.constant_input(zi);
    if (!z || (z->num_elements() != 1 && z->num_elements() != w->shape()[0])) return nullptr;
    *wzp = read_as<double>(*z);
  }
  return w;
}

std::shared_ptr<const DepthwiseWeights> prepare_depthwise_weights(const ep::KernelInfo& info,
                                                                  size_t wi, size_t zi) {
  std::vector<double> wzp;
  const Tensor* w = constant_depthwise(info, wi, zi, &wzp);
  if (!w || w->shape()[2] * w->shape()[3] > 256) return nullptr;
  return std::make_shared<const DepthwiseWeights>(depthwise_weights(*w, wzp));
}

// A depthwise layer's filters for linalg/depthwise_vnni (one input channel
// per output channel, windows up to 8 x 4, every weight minus its zero
// point within int8), made at kernel creation from constant filters and
// zero points; null where they are not constants or do not fit.
using DepthwiseVnniFilters = std::vector<linalg::DepthwiseVnniFilter>;
std::shared_ptr<const DepthwiseVnniFilters> prepare_depthwise_vnni_filters(
    const ep::KernelInfo& info, size_t wi, size_t zi) {
  std::vector<double> wzp;
  const Tensor* w = constant_depthwise(info, wi, zi, &wzp);
  if (!w || w->shape()[2] > 8 || w->shape()[3] > 4) return nullptr;
  const int64_t M = w->shape()[0], kh = w->shape()[2], kw = w->shape()[3];
  const auto* p = static_cast<const uint8_t*>(w->raw_data());
  const bool is_signed = w->dtype() == DataType::kInt8;
  DepthwiseVnniFilters filters(static_cast<size_t>(M));
  std::vector<int32_t> taps(static_cast<size_t>(kh * kw));
  for (int64_t m = 0; m < M; ++m) {
    const int32_t z = int32_t(wzp.size() == 1 ? wzp[0] : wzp[size_t(m)]);
    for (int64_t t = 0; t < kh * kw; ++t) {
      const uint8_t b = p[m * kh * kw + t];
      taps[size_t(t)] = (is_signed ? int32_t(int8_t(b)) : int32_t(b)) - z;
    }
    if (!linalg::prepare_depthwise_vnni(taps.data(), kh, kw, &filters[size_t(m)])) return nullptr;
  }
  return std::make_shared<const DepthwiseVnniFilters>(std::move(filters));
}

template <typename Store>
void depthwise_conv_float(ep::KernelContext& ctx, const ConvGeometry& g, const Tensor& x,
                          const Tensor& w, double xzp, const std::vector<double>& wzp,
                          const DepthwiseWeights* prepared, const Store& store) {
  const int64_t ih = g.in[0], iw = g.in[1], taps = g.k[0] * g.k[1];
  const int64_t P = g.out[0] * g.out[1];
  const DepthwiseWeights local = prepared ? DepthwiseWeights{} : depthwise_weights(w, wzp);
  const DepthwiseWeights& wf = prepared ? *prepared : local;
  const linalg::DepthwiseGeometry dg{
      ih,          iw,          g.out[0],       g.out[1],       g.k[0],   g.k[1],
      g.stride[0], g.stride[1], g.pad_begin[0], g.pad_begin[1], g.dil[0], g.dil[1]};
  const auto* xd = static_cast<const uint8_t*>(x.raw_data());
  const bool x_signed = x.dtype() == DataType::kInt8;
  if (linalg::depthwise3x3_8bit_fits(g.k[0], g.k[1], g.stride[0], g.stride[1], g.dil[0], g.dil[1],
                                     g.pad_begin[0], g.pad_begin[1])) {
    // 3x3, stride 1 or 2: the plane dequantized into its padded buffer
    // directly, every tap a contiguous read.
    const linalg::Depthwise3x3Plane dg{
        ih, iw, g.out[0], g.out[1], g.stride[0], g.pad_begin[0], g.pad_begin[1]};
    ctx.thread_pool().parallel_for(g.N * g.M, double(P * taps), [&](int64_t b, int64_t e) {
      HostVector<int32_t> acc(static_cast<size_t>(P));  // host heap: see core/host_heap.hpp
      for (int64_t nm = b; nm < e; ++nm) {
        const int64_t n = nm / g.M, m = nm % g.M, c = m / g.mg;
        linalg::depthwise3x3_8bit(xd + (n * g.C + c) * ih * iw, x_signed, float(xzp),
                                  wf.data() + m * taps, dg, acc.data());
        store(n, m, 0, P, acc.data());
      }
    });
    return;
  }
  ctx.thread_pool().parallel_for(g.N * g.M, double(P * taps * 2), [&](int64_t b, int64_t e) {
    HostVector<float> plane(static_cast<size_t>(ih * iw)), sums(static_cast<size_t>(P));
    HostVector<int32_t> acc(static_cast<size_t>(P));
    for (int64_t nm = b; nm < e; ++nm) {
      const int64_t n = nm / g.M, m = nm % g.M, c = m / g.mg;
      // x - x_zp, exactly (scale 1).
      linalg::dequantize_8bit(xd + (n * g.C + c) * ih * iw, x_signed, ih * iw, 1.0f, float(xzp),
                              plane.data());
      linalg::depthwise_conv2d_plane(plane.data(), wf.data() + m * taps, 0.0f, nullptr, {}, dg,
                                     sums.data());
      for (int64_t i = 0; i < P; ++i) acc[size_t(i)] = int32_t(sums[size_t(i)]);
      store(n, m, 0, P, acc.data());
    }
  });
}

template <typename Store>
void direct_conv(ep::KernelContext& ctx, const ConvGeometry& g, const Tensor& x, const Tensor& w,
                 double xzp, const std::vector<double>& wzp, const DepthwiseWeights* prepared,
                 const Store& store) {
  if (depthwise_in_float(g)) return depthwise_conv_float(ctx, g, x, w, xzp, wzp, prepared, store);
  const int64_t ih = g.in[0], iw = g.in[1], kh = g.k[0], kw = g.k[1];
  const int64_t oh = g.out[0], ow = g.out[1], P = oh * ow, taps = kh * kw;
  const int64_t per_filter = g.cg * taps;
  // (w - its zero point) as int16, once per call.
  HostVector<int16_t> ws(size_t(w.num_elements()));
  {
    const auto* p = static_cast<const uint8_t*>(w.raw_data());
    const bool is_signed = w.dtype() == DataType::kInt8;
    for (int64_t i = 0; i < w.num_elements(); ++i) {
      const int32_t z = int32_t(wzp.size() == 1 ? wzp[0] : wzp[size_t(i / per_filter)]);
      ws[size_t(i)] = int16_t((is_signed ? int32_t(int8_t(p[i])) : int32_t(p[i])) - z);
    }
  }
  // Each input channel as (x - zero point) in int16 with its padding made
  // real as zeros (it adds nothing), so the tap loops need no bounds.
  const int64_t top = g.pad_begin[0], left = g.pad_begin[1];
  const int64_t PH = std::max(ih + top, (oh - 1) * g.stride[0] + (kh - 1) * g.dil[0] + 1);
  const int64_t PW = std::max(iw + left, (ow - 1) * g.stride[1] + (kw - 1) * g.dil[1] + 1);
  const auto* xd = static_cast<const uint8_t*>(x.raw_data());
  const bool x_signed = x.dtype() == DataType::kInt8;
  const int32_t xz = int32_t(xzp);
  // With one stride both ways, the output is accumulated at the padded
  // plane's width (columns past ow are never stored): output element i then
  // reads input element s * i past the tap's corner, so each tap is one long
  // vector loop over the whole plane, not one per output row.
  const int64_t s = g.stride[0];
  const bool flat = g.stride[1] == s;
  const int64_t acc_w = flat ? PW : ow;
  // Rows past PH that a flat tap's last (unused) columns may read.
  const int64_t plane_rows = PH + (flat ? s + 1 : 0);
  ctx.thread_pool().parallel_for(g.N * g.M, double(P * per_filter), [&](int64_t b, int64_t e) {
    std::vector<uint32_t> acc(static_cast<size_t>(oh * acc_w));
    std::vector<int16_t> plane(static_cast<size_t>(plane_rows * PW));
    for (int64_t nm = b; nm < e; ++nm) {
      const int64_t n = nm / g.M, m = nm % g.M, grp = m / g.mg;
      std::fill(acc.begin(), acc.end(), 0u);
      for (int64_t c = 0; c < g.cg; ++c) {
        const uint8_t* src = xd + (n * g.C + grp * g.cg + c) * ih * iw;
        std::fill(plane.begin(), plane.end(), int16_t(0));
        for (int64_t y = 0; y < ih; ++y) {
          int16_t* row = plane.data() + (y + top) * PW + left;
          const uint8_t* in = src + y * iw;
          if (x_signed)
            for (int64_t i = 0; i < iw; ++i) row[i] = int16_t(int32_t(int8_t(in[i])) - xz);
          else
            for (int64_t i = 0; i < iw; ++i) row[i] = int16_t(int32_t(in[i]) - xz);
        }
        const int16_t* wc = ws.data() + (m * g.cg + c) * taps;
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int32_t wv = wc[ky * kw + kx];
            if (wv == 0) continue;
            const int16_t* base = plane.data() + ky * g.dil[0] * PW + kx * g.dil[1];
            if (flat) {
              linalg::accumulate_tap_s16(base, s, oh * PW, wv, acc.data());
              continue;
            }
            for (int64_t oy = 0; oy < oh; ++oy)
              linalg::accumulate_tap_s16(base + oy * g.stride[0] * PW, g.stride[1], ow, wv,
                                         acc.data() + oy * ow);
          }
      }
      const auto* out = reinterpret_cast<const int32_t*>(acc.data());
      for (int64_t oy = 0; oy < oh; ++oy) store(n, m, oy * ow, ow, out + oy * acc_w);
    }
  });
}

class ConvIntegerKernel : public ep::OpKernel {
 public:
  explicit ConvIntegerKernel(const ep::KernelInfo& info)
      : attrs_(info),
        filters_(prepare_constant_filters(info, 1, attrs_.group)),
        depthwise_(prepare_depthwise_weights(info, 1, 3)) {}
  bool reads_constant_data(size_t i) const override { return i != 1 || !filters_; }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    ConvGeometry g = plan_conv(ctx, attrs_, x.shape(), w.shape());
    double xzp = scalar_or_zero(ctx, "x_zero_point", ctx.input(2));
    auto wzp = per_channel(ctx, "w_zero_point", ctx.input(3), g.M);
    if (packed_conv_fits(g, x, w, ctx.input(2))) {
      Tensor& y = ctx.output(0, g.out_shape, DataType::kInt32);
      int32_t* yd = y.mutable_data<int32_t>();
      const int64_t plane = g.out[0] * g.out[1];
      packed_conv(ctx, g, x, w, ctx.input(2), wzp, attrs_.group, filters_.get(),
                  [&](const linalg::PreparedAInt8& a, linalg::ZeroPoints za,
                      const linalg::PackedBInt8& b, linalg::ZeroPoints zb, int64_t n, int64_t c0) {
                    int32_t* out = yd + (n * g.M + c0) * plane;
                    linalg::igemm_each(
                        a, za, b, zb,
                        [&](int64_t m, int64_t p0, int64_t width, const int32_t* v) {
                          std::copy(v, v + width, out + m * plane + p0);
                        },
                        &ctx.thread_pool());
                  });
      return;
    }
    if (direct_conv_fits(g, x, w)) {
      Tensor& y = ctx.output(0, g.out_shape, DataType::kInt32);
      int32_t* yd = y.mutable_data<int32_t>();
      const int64_t plane = g.out[0] * g.out[1];
      direct_conv(ctx, g, x, w, xzp, wzp, depthwise_.get(),
                  [&](int64_t n, int64_t c, int64_t p0, int64_t width, const int32_t* v) {
                    std::copy(v, v + width, yd + (n * g.M + c) * plane + p0);
                  });
      return;
    }
    auto acc =
        conv_accumulate(g, read_as<double>(x), read_as<double>(w), xzp, wzp, ctx.thread_pool());
    Tensor& y = ctx.output(0, g.out_shape, DataType::kInt32);
    int32_t* yd = y.mutable_data<int32_t>();
    for (size_t i = 0; i < acc.size(); ++i) yd[i] = int32_t(uint32_t(int64_t(acc[i])));
  }

 private:
  ConvAttrs attrs_;
  std::shared_ptr<const PreparedFilters> filters_;
  std::shared_ptr<const DepthwiseWeights> depthwise_;  // prepared float filters, or null
};

class QLinearConvKernel : public ep::OpKernel {
 public:
  explicit QLinearConvKernel(const ep::KernelInfo& info)
      : attrs_(info),
        rows_(plan_qlinear_conv_rows(info, attrs_.group, attrs_.strides, attrs_.dilations,
                                     attrs_.pads, attrs_.auto_pad)),
        filters_(rows_.always ? nullptr : prepare_constant_filters(info, 3, attrs_.group)),
        depthwise_(prepare_depthwise_weights(info, 3, 5)),
        depthwise_vnni_(prepare_depthwise_vnni_filters(info, 3, 5)) {}
  bool reads_constant_data(size_t i) const override {
    return i != 3 || !(filters_ || rows_.always);
  }
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
      if (bt->dtype() != DataType::kInt32)
        ctx.fail_node("B must be int32, got ", data_type_name(bt->dtype()));
      bias = read_as<double>(*bt);
    }
    double lo, hi;
    integer_range(yzp_t.dtype(), &lo, &hi);
    const bool packed = packed_conv_fits(g, x, w, ctx.input(2));
    if ((packed || direct_conv_fits(g, x, w)) && is_8bit_integer_type(yzp_t.dtype())) {
      // The reference loop's arithmetic below, value by value: the same bytes.
      const std::vector<float> mult = qlinear_conv_multipliers(xs, ws, g.M);
      Tensor& y = ctx.output(0, g.out_shape, yzp_t.dtype());
      auto* yd = static_cast<uint8_t*>(y.mutable_raw_data());
      const int64_t plane = g.out[0] * g.out[1];
      const float fys = float(ys);
      const int32_t zy = int32_t(yzp), qlo = int32_t(lo), qhi = int32_t(hi);
      // B is int32 (checked above).
      std::vector<int32_t> bias32(bias.begin(), bias.end());
      if (rows_.filters && packed && attrs_.group == 1 &&
          run_rows(ctx, g, x, xzp, wzp, bias32, mult, fys, zy, qlo, qhi, yd))
        return;
      if (packed) {
        packed_conv(
            ctx, g, x, w, ctx.input(2), wzp, attrs_.group, filters_.get(),
            [&](const linalg::PreparedAInt8& a, linalg::ZeroPoints za, const linalg::PackedBInt8& b,
                linalg::ZeroPoints zb, int64_t n, int64_t c0) {
              linalg::IgemmRequantize out;
              out.bias = bias32.empty() ? nullptr : bias32.data() + c0;
              out.mult = mult.data() + c0;
              out.y_scale = fys;
              out.y_zero = zy;
              out.lo = qlo;
              out.hi = qhi;
              out.y = yd + (n * g.M + c0) * plane;
              out.ldy = plane;
              linalg::igemm_requantize(a, za, b, zb, out, &ctx.thread_pool());
            });
        return;
      }
      if (depthwise_vnni_ &&
          run_depthwise_vnni(ctx, g, x, xzp, bias32, mult, fys, zy, qlo, qhi, yd))
        return;
      direct_conv(ctx, g, x, w, xzp, wzp, depthwise_.get(),
                  [&](int64_t n, int64_t c, int64_t p0, int64_t width, const int32_t* v) {
                    linalg::requantize(v, width, bias.empty() ? 0 : int64_t(bias[size_t(c)]),
                                       mult[size_t(c)], fys, zy, qlo, qhi,
                                       yd + (n * g.M + c) * plane + p0);
                  });
      return;
    }
    auto acc =
        conv_accumulate(g, read_as<double>(x), read_as<double>(w), xzp, wzp, ctx.thread_pool());
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
  // The row path (qlinear_conv_rows.hpp); false (nothing written) where its
  // requantization declines these scales.
  bool run_rows(ep::KernelContext& ctx, const ConvGeometry& g, const Tensor& x, double xzp,
                const std::vector<double>& wzp, const std::vector<int32_t>& bias,
                const std::vector<float>& mult, float ys, int32_t yz, int32_t lo, int32_t hi,
                uint8_t* y) const {
    const linalg::ConvShape s{g.C,      g.in[0],  g.in[1],        g.M,
                              g.k[0],   g.k[1],   g.stride[0],    g.stride[1],
                              g.dil[0], g.dil[1], g.pad_begin[0], g.pad_begin[1],
                              g.out[0], g.out[1]};
    std::vector<int32_t> wz;
    for (double v : wzp) wz.push_back(int32_t(v));
    linalg::ConvRequantize out;
    out.bias = bias.empty() ? nullptr : bias.data();
    out.mult = mult.data();
    out.y_scale = ys;
    out.y_zero = yz;
    out.lo = lo;
    out.hi = hi;
    out.y = y;
    if (linalg::igemm_conv_requantize(s, g.N, static_cast<const uint8_t*>(x.raw_data()),
                                      x.dtype() == DataType::kInt8, int32_t(xzp), *rows_.filters,
                                      {wz.data(), int64_t(wz.size())}, out, &ctx.thread_pool()))
      return true;
    if (rows_.always)
      ctx.fail_node("internal: the row path declined scales it accepted at creation");
    return false;
  }

  // Depthwise layers on VNNI + VBMI machines (linalg/depthwise_vnni),
  // channel plane by channel plane; false where the geometry or the scales
  // do not fit (nothing written).
  bool run_depthwise_vnni(ep::KernelContext& ctx, const ConvGeometry& g, const Tensor& x,
                          double xzp, const std::vector<int32_t>& bias32,
                          const std::vector<float>& mult, float ys, int32_t yz, int32_t lo,
                          int32_t hi, uint8_t* y) const {
    if (g.in.size() != 2 || g.cg != 1 || g.dil[0] != 1 || g.dil[1] != 1 ||
        g.stride[0] != g.stride[1] || int64_t(depthwise_vnni_->size()) != g.M)
      return false;
    const linalg::DepthwiseVnniShape s{g.in[0], g.in[1],     g.out[0],       g.out[1],      g.k[0],
                                       g.k[1],  g.stride[0], g.pad_begin[0], g.pad_begin[1]};
    if (!linalg::depthwise_vnni_fits(s) ||
        !linalg::depthwise_vnni_requant_fits(g.k[0] * g.k[1], ys, mult.data(),
                                             bias32.empty() ? nullptr : bias32.data(), g.M))
      return false;
    const int64_t in_plane = g.in[0] * g.in[1], out_plane = g.out[0] * g.out[1];
    const auto* xd = static_cast<const uint8_t*>(x.raw_data());
    const bool x_signed = x.dtype() == DataType::kInt8;
    ctx.thread_pool().parallel_for(
        g.N * g.M, double(out_plane * g.k[0] * 4), [&](int64_t b, int64_t e) {
          for (int64_t nm = b; nm < e; ++nm) {
            const int64_t n = nm / g.M, m = nm % g.M, c = m / g.mg;
            const linalg::DepthwiseVnniRequant q{
                bias32.empty() ? 0 : bias32[size_t(m)], mult[size_t(m)], ys, yz, lo, hi};
            linalg::depthwise_vnni_requant(xd + (n * g.C + c) * in_plane, x_signed, int32_t(xzp),
                                           (*depthwise_vnni_)[size_t(m)], s, q,
                                           y + (n * g.M + m) * out_plane);
          }
        });
    return true;
  }

  ConvAttrs attrs_;
  QLinearConvRows rows_;
  std::shared_ptr<const PreparedFilters> filters_;
  std::shared_ptr<const DepthwiseWeights> depthwise_;           // prepared float filters, or null
  std::shared_ptr<const DepthwiseVnniFilters> depthwise_vnni_;  // or null
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_conv_integer(const ep::KernelInfo& info) {
  return std::make_unique<ConvIntegerKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_qlinear_conv(const ep::KernelInfo& info) {
  return std::make_unique<QLinearConvKernel>(info);
}

}  // namespace tessera::cpu
