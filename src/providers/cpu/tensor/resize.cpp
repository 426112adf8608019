// Resize (opsets 10-19) and Upsample (7-10). Each axis is resampled on its
// own: "nearest" becomes an axis-map copy (so it serves every element type),
// "linear" and "cubic" become one weighted pass per resized axis over a
// double buffer. The taps follow the spec's reference: the n samples nearest
// to x_original (ties to the left), edge-clamped, with optional antialias
// stretching and exclude_outside renormalisation.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
using ep::TypeConstraint;
namespace types = ep::types;

enum class Mode { kNearest, kLinear, kCubic };

struct AxisPlan {
  int64_t in = 1, out = 1;
  double scale = 1, roi_start = 0, roi_end = 1;
  // The spec's fractional output_width (in * scale) when scales are given;
  // align_corners divides by it, not by the floored out. 0: use out.
  double out_width = 0;
};

struct Taps {  // per output coordinate: n (index, weight) pairs, and whether it is outside
  int64_t n = 0;
  std::vector<int64_t> idx;
  std::vector<double> w;
  std::vector<bool> outside;
};

class ResizeKernel : public OpKernel {
 public:
  ResizeKernel(const KernelInfo& info, bool upsample) : opset_(info.opset()), upsample_(upsample) {
    std::string m = info.attr_string("mode", "nearest");
    if (m == "nearest")
      mode_ = Mode::kNearest;
    else if (m == "linear" || m == "bilinear")
      mode_ = Mode::kLinear;
    else if (m == "cubic" && !upsample && opset_ >= 11)
      mode_ = Mode::kCubic;
    else
      info.fail_node("unknown mode '", m, "'");
    legacy_ = upsample || opset_ < 11;
    coord_ =
        legacy_ ? "asymmetric" : info.attr_string("coordinate_transformation_mode", "half_pixel");
    static const char* kCoords[] = {
        "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",  "align_corners",
        "asymmetric", "tf_crop_and_resize",   "tf_half_pixel_for_nn"};
    if (std::find_if(std::begin(kCoords), std::end(kCoords),
                     [&](const char* c) { return coord_ == c; }) == std::end(kCoords))
      info.fail_node("unknown coordinate_transformation_mode '", coord_, "'");
    nearest_ = info.attr_string("nearest_mode", "round_prefer_floor");
    cubic_a_ = info.attr_float("cubic_coeff_a", -0.75f);
    exclude_outside_ = info.attr_int("exclude_outside", 0) != 0;
    extrapolation_ = info.attr_float("extrapolation_value", 0.f);
    antialias_ = info.attr_int("antialias", 0) != 0 && mode_ != Mode::kNearest;
    axes_ = info.attr_ints("axes");
    policy_ = info.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy_ != "stretch" && policy_ != "not_larger" && policy_ != "not_smaller")
      info.fail_node("unknown keep_aspect_ratio_policy '", policy_, "'");
    scales_attr_ = info.attr_floats("scales");
  }

  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<AxisPlan> plan = make_plan(ctx, x.shape());
    std::vector<int64_t> dims(plan.size());
    for (size_t k = 0; k < plan.size(); ++k) dims[k] = plan[k].out;
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    if (y.num_elements() == 0) return;
    // An empty input axis made non-empty (by `sizes`) has nothing to sample:
    // the taps would index an empty tensor. With tf_crop_and_resize every
    // output point lies outside the image, so all take extrapolation_value.
    for (size_t k = 0; k < plan.size(); ++k) {
      if (plan[k].in != 0) continue;
      if (coord_ != "tf_crop_and_resize")
        ctx.fail_node("axis ", k, " of input shape ", x.shape().to_string(),
                      " is empty; it cannot be resized to ", plan[k].out);
      fill_elems(y, make_scalar(x.dtype(), extrapolation_));
      return;
    }
    std::vector<Taps> taps(plan.size());
    for (size_t k = 0; k < plan.size(); ++k) taps[k] = make_taps(plan[k]);
    // Every axis kept as it is (a detector's input transform resizing a
    // 320x320 image to 320x320): each output element is its input element
    // with weight 1, so the output is a copy.
    bool identity = true;
    for (size_t k = 0; k < plan.size() && identity; ++k)
      identity =
          is_identity(plan[k], taps[k]) &&
          std::find(taps[k].outside.begin(), taps[k].outside.end(), true) == taps[k].outside.end();
    if (identity) {
      std::memcpy(y.mutable_raw_data(), x.raw_data(), x.byte_size());
      return;
    }
    if (mode_ == Mode::kNearest)
      resize_nearest(ctx, x, y, taps);
    else
      resize_weighted(ctx, x, y, plan, taps);
  }

 private:
  std::vector<AxisPlan> make_plan(const KernelContext& ctx, const Shape& in) const {
    int64_t r = int64_t(in.rank());
    std::vector<AxisPlan> plan(static_cast<size_t>(r));
    for (size_t k = 0; k < plan.size(); ++k) plan[k].in = plan[k].out = in[k];
    std::vector<int64_t> axes;
    if (!axes_.empty() && opset_ >= 18) {
      for (int64_t a : axes_) {
        if (a < -r || a >= r)
          ctx.fail_node("axis ", a, " is out of range for input of shape ", in.to_string());
        axes.push_back(a < 0 ? a + r : a);
      }
    } else {
      for (int64_t k = 0; k < r; ++k) axes.push_back(k);
    }
    size_t na = axes.size();
    std::vector<double> scales;
    std::vector<int64_t> sizes;
    if (upsample_ && opset_ < 9) {
      scales.assign(scales_attr_.begin(), scales_attr_.end());
    } else {
      size_t si = legacy_ ? 1 : 2;
      if (const Tensor* s = ctx.input(si))
        for (int64_t i = 0; i < s->num_elements(); ++i) scales.push_back(s->element_as_double(i));
      if (!legacy_ && ctx.input(3) && ctx.input(3)->num_elements() > 0)
        sizes = read_ints(*ctx.input(3));
      if (!legacy_ && coord_ == "tf_crop_and_resize" && ctx.input(1) &&
          ctx.input(1)->num_elements() > 0) {
        const Tensor& roi = *ctx.input(1);
        if (roi.num_elements() != int64_t(2 * na))
          ctx.fail_node("roi ", roi.description(), " should have ", 2 * na, " values");
        for (size_t i = 0; i < na; ++i) {
          plan[size_t(axes[i])].roi_start = roi.element_as_double(int64_t(i));
          plan[size_t(axes[i])].roi_end = roi.element_as_double(int64_t(i + na));
        }
      }
    }
    if (!sizes.empty()) {
      if (!scales.empty()) ctx.fail_node("only one of scales and sizes may be given");
      if (sizes.size() != na)
        ctx.fail_node("sizes ", Shape(sizes).to_string(), " should have ", na, " values for input ",
                      in.to_string());
      if (policy_ == "stretch") {
        for (size_t i = 0; i < na; ++i) {
          AxisPlan& p = plan[size_t(axes[i])];
          if (sizes[i] < 0) ctx.fail_node("negative size ", sizes[i]);
          p.out = sizes[i];
          p.scale = p.in ? double(p.out) / double(p.in) : 1.0;
        }
      } else {
        double s = policy_ == "not_larger" ? std::numeric_limits<double>::max() : 0.0;
        for (size_t i = 0; i < na; ++i) {
          double v = double(sizes[i]) / double(std::max<int64_t>(1, plan[size_t(axes[i])].in));
          s = policy_ == "not_larger" ? std::min(s, v) : std::max(s, v);
        }
        for (size_t i = 0; i < na; ++i) {
          AxisPlan& p = plan[size_t(axes[i])];
          p.scale = s;
          p.out = output_length(ctx, std::floor(s * double(p.in) + 0.5));
        }
      }
    } else {
      if (scales.size() != na)
        ctx.fail_node("scales has ", scales.size(), " values, expected ", na, " for input ",
                      in.to_string());
      for (size_t i = 0; i < na; ++i) {
        AxisPlan& p = plan[size_t(axes[i])];
        if (!(scales[i] > 0)) ctx.fail_node("scales must be positive, got ", scales[i]);
        p.scale = scales[i];
        // The spec's floor(in * (roi_end - roi_start) * scale); roi only counts for
        // tf_crop_and_resize. Computed in double from the float scale, as the reference does.
        double len = double(p.in) * p.scale;
        if (coord_ == "tf_crop_and_resize") len *= p.roi_end - p.roi_start;
        p.out = output_length(ctx, std::floor(len));
        p.out_width = len;
      }
    }
    return plan;
  }

  // A computed output length as an integer; NaN, negative or absurd lengths
  // (from hostile scales or roi) are errors, not an undefined conversion.
  static int64_t output_length(const KernelContext& ctx, double len) {
    if (!(len >= 0 && len < 0x1p62))
      ctx.fail_node("computed output length ", len, " is not a valid size");
    return int64_t(len);
  }

  double to_original(const AxisPlan& p, int64_t x) const {
    double xr = double(x), s = p.scale, in = double(p.in), out = double(p.out);
    if (coord_ == "half_pixel") return (xr + 0.5) / s - 0.5;
    if (coord_ == "half_pixel_symmetric") {
      double adj = out / (s * in);
      double center = in / 2;
      return center * (1 - adj) + (xr + 0.5) / s - 0.5;
    }
    if (coord_ == "pytorch_half_pixel") return p.out > 1 ? (xr + 0.5) / s - 0.5 : 0.0;
    if (coord_ == "align_corners") {
      const double w = p.out_width > 0 ? p.out_width : out;
      return p.out > 1 && w != 1 ? xr * (in - 1) / (w - 1) : 0.0;
    }
    if (coord_ == "asymmetric") return xr / s;
    if (coord_ == "tf_half_pixel_for_nn") return (xr + 0.5) / s;
    // tf_crop_and_resize
    if (p.out > 1)
      return p.roi_start * (in - 1) + xr * (p.roi_end - p.roi_start) * (in - 1) / (out - 1);
    return 0.5 * (p.roi_start + p.roi_end) * (in - 1);
  }

  std::vector<double> coeffs(double ratio, double scale) const {
    std::vector<double> c;
    double A = cubic_a_;
    if (mode_ == Mode::kNearest) {
      if (ratio == 1.0) return {0, 1};
      bool up;
      if (legacy_)
        up = !upsample_ && scale < 1;  // Upsample floors; Resize-10 rounds up when shrinking
      else if (nearest_ == "round_prefer_ceil")
        up = ratio >= 0.5;
      else if (nearest_ == "floor")
        up = false;
      else if (nearest_ == "ceil")
        up = true;
      else
        up = ratio > 0.5;
      return {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
    }
    if (mode_ == Mode::kLinear) {
      if (!antialias_) return {1 - ratio, ratio};
      double s = std::min(scale, 1.0);
      int64_t start = int64_t(std::floor(-1 / s)) + 1, n = 2 - 2 * start;
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        double v = std::clamp(1 - std::fabs((double(start + i) - ratio) * s), 0.0, 1.0);
        c.push_back(v);
        sum += v;
      }
      for (double& v : c) v /= sum;
      return c;
    }
    if (!antialias_) {
      double r1 = ratio + 1, r2 = 1 - ratio, r3 = 2 - ratio;
      return {((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A,
              ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1,
              ((A + 2) * r2 - (A + 3)) * r2 * r2 + 1, ((A * r3 - 5 * A) * r3 + 8 * A) * r3 - 4 * A};
    }
    double s = std::min(scale, 1.0);
    int64_t start = int64_t(std::floor(-2 / s)) + 1, end = 2 - start;
    double sum = 0;
    for (int64_t i = start; i < end; ++i) {
      double x = std::fabs(s * (double(i) - ratio)), v;
      if (x <= 1)
        v = (A + 2) * x * x * x - (A + 3) * x * x + 1;
      else if (x < 2)
        v = A * x * x * x - 5 * A * x * x + 8 * A * x - 4 * A;
      else
        v = 0;
      c.push_back(v);
      sum += v;
    }
    for (double& v : c) v /= sum;
    return c;
  }

  Taps make_taps(const AxisPlan& p) const {
    Taps t;
    for (int64_t i = 0; i < p.out; ++i) {
      double xo = to_original(p, i);
      bool outside = coord_ == "tf_crop_and_resize" && (xo < 0 || xo > double(p.in - 1));
      double fl = std::floor(xo);
      bool integral = xo == fl;
      double ratio = integral ? 1.0 : xo - fl;
      int64_t base = int64_t(fl) - (integral ? 1 : 0);
      std::vector<double> c = coeffs(ratio, p.scale);
      int64_t n = int64_t(c.size()), pad = (n + 1) / 2;
      t.n = n;
      int64_t start = base + 1 - n / 2;
      start = std::clamp<int64_t>(start, -pad, std::max<int64_t>(-pad, p.in + pad - n));
      if (exclude_outside_) {
        double sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          int64_t idx = start + j;
          if (idx < 0 || idx >= p.in) c[size_t(j)] = 0;
          sum += c[size_t(j)];
        }
        if (sum != 0)
          for (double& v : c) v /= sum;
      }
      for (int64_t j = 0; j < n; ++j) {
        t.idx.push_back(std::clamp<int64_t>(start + j, 0, std::max<int64_t>(0, p.in - 1)));
        t.w.push_back(c[size_t(j)]);
      }
      t.outside.push_back(outside);
    }
    return t;
  }

  void resize_nearest(KernelContext& ctx, const Tensor& x, Tensor& y,
                      const std::vector<Taps>& taps) const {
    std::vector<int64_t> st = strides_of(x.shape());
    AxisMaps maps(taps.size());
    bool any_fill = false;
    for (size_t k = 0; k < taps.size(); ++k) {
      const Taps& t = taps[k];
      int64_t out = int64_t(t.outside.size());
      maps[k].resize(static_cast<size_t>(out));
      for (int64_t i = 0; i < out; ++i) {
        if (t.outside[size_t(i)]) {
          maps[k][size_t(i)] = kFillOffset;
          any_fill = true;
          continue;
        }
        int64_t pick = t.idx[size_t(i * t.n)];
        for (int64_t j = 0; j < t.n; ++j)
          if (t.w[size_t(i * t.n + j)] > 0) pick = t.idx[size_t(i * t.n + j)];
        maps[k][size_t(i)] = pick * st[k];
      }
    }
    Tensor fill = any_fill ? make_scalar(x.dtype(), extrapolation_) : Tensor();
    copy_by_axis_maps(x, y, maps, any_fill ? &fill : nullptr, ctx.thread_pool());
  }

  // True when resampling axis p with taps t leaves it as it is.
  static bool is_identity(const AxisPlan& p, const Taps& t) {
    if (p.in != p.out) return false;
    for (int64_t i = 0; i < p.out; ++i)
      for (int64_t j = 0; j < t.n; ++j) {
        const double w = t.w[size_t(i * t.n + j)];
        if (w != 0 && (w != 1 || t.idx[size_t(i * t.n + j)] != i)) return false;
      }
    return true;
  }

  // Float images resized on their last two axes only (a segmentation head's
  // upsampling): per output row, the input rows' weighted sum into a row
  // buffer, then each output pixel from its taps in that row, in float.
  // The generic path below converts the tensor to double and makes a pass
  // over all of it per axis (7 ms for DeepLabV3's 21 x 224 x 224 output).
  bool resize_planes_float(KernelContext& ctx, const Tensor& x, Tensor& y,
                           const std::vector<AxisPlan>& plan, const std::vector<Taps>& taps) const {
    const size_t r = plan.size();
    if (x.dtype() != DataType::kFloat || r < 2 || coord_ == "tf_crop_and_resize" ||
        x.num_elements() == 0)
      return false;
    for (size_t k = 0; k + 2 < r; ++k)
      if (!is_identity(plan[k], taps[k])) return false;
    const AxisPlan &ph = plan[r - 2], &pw = plan[r - 1];
    const Taps &th = taps[r - 2], &tw = taps[r - 1];
    const int64_t planes = x.shape().size_to(r - 2), H = ph.in, W = pw.in, OH = ph.out, OW = pw.out;
    std::vector<float> wh(th.w.begin(), th.w.end()), ww(tw.w.begin(), tw.w.end());
    const float* src = x.data<float>();
    float* dst = y.mutable_data<float>();
    const int64_t nh = th.n, nw = tw.n;
    // One output pixel from the taps of row `xr` (nw per pixel).
    auto horizontal = [&](const float* xr, float* out) {
      for (int64_t q = 0; q < OW; ++q) {
        float v = 0.f;
        for (int64_t k = 0; k < nw; ++k)
          v += ww[size_t(q * nw + k)] * xr[tw.idx[size_t(q * nw + k)]];
        out[q] = v;
      }
    };
    if (OH >= H) {
      // Rows resized horizontally first, each input row once per plane and
      // thread, then every output row is a vector blend of whole rows: an
      // enlargement reuses each input row for several output rows, so the
      // per-pixel gathers are done H times a plane, not OH times
      // (DeepLabV3's 14 -> 224: 16 times fewer).
      ctx.thread_pool().parallel_for(planes * OH, double(OW * nh), [&](int64_t b, int64_t e) {
        static thread_local std::vector<float> rows;
        static thread_local std::vector<int64_t> rows_plane;  // which plane each row holds
        rows.resize(size_t(H * OW));
        rows_plane.assign(size_t(H), -1);
        for (int64_t job = b; job < e; ++job) {
          const int64_t plane = job / OH, i = job % OH;
          float* out = dst + job * OW;
          std::fill(out, out + OW, 0.f);
          for (int64_t j = 0; j < nh; ++j) {
            const float w = wh[size_t(i * nh + j)];
            if (w == 0) continue;
            const int64_t ih = th.idx[size_t(i * nh + j)];
            float* hr = rows.data() + ih * OW;
            if (rows_plane[size_t(ih)] != plane) {
              horizontal(src + (plane * H + ih) * W, hr);
              rows_plane[size_t(ih)] = plane;
            }
            for (int64_t q = 0; q < OW; ++q) out[q] += w * hr[q];
          }
        }
      });
      return true;
    }
    ctx.thread_pool().parallel_for(planes * OH, double(W * nh + OW * nw),
                                   [&](int64_t b, int64_t e) {
                                     static thread_local std::vector<float> row;
                                     row.resize(size_t(W));
                                     for (int64_t job = b; job < e; ++job) {
                                       const int64_t plane = job / OH, i = job % OH;
                                       const float* in = src + plane * H * W;
                                       std::fill(row.begin(), row.end(), 0.f);
                                       for (int64_t j = 0; j < nh; ++j) {
                                         const float w = wh[size_t(i * nh + j)];
                                         if (w == 0) continue;
                                         const float* xr = in + th.idx[size_t(i * nh + j)] * W;
                                         for (int64_t q = 0; q < W; ++q)
                                           row[size_t(q)] += w * xr[q];
                                       }
                                       horizontal(row.data(), dst + job * OW);
                                     }
                                   });
    return true;
  }

  void resize_weighted(KernelContext& ctx, const Tensor& x, Tensor& y,
                       const std::vector<AxisPlan>& plan, const std::vector<Taps>& taps) const {
    if (resize_planes_float(ctx, x, y, plan, taps)) return;
    std::vector<double> buf(size_t(x.num_elements()));
    std::string what = ctx.node().describe() + " (linear/cubic)";
    dispatch_numeric(x.dtype(), what.c_str(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* s = x.data<T>();
      for (size_t i = 0; i < buf.size(); ++i) buf[i] = double(Acc<T>(s[i]));
    });
    std::vector<int64_t> dims = x.shape().dims();
    for (size_t k = 0; k < plan.size(); ++k) {
      const AxisPlan& p = plan[k];
      const Taps& t = taps[k];
      if (is_identity(p, t)) continue;
      int64_t outer = Shape(dims).size_to(k), inner = Shape(dims).size_from(k + 1);
      std::vector<double> next(size_t(outer * p.out * inner), 0.0);
      ctx.thread_pool().parallel_for(outer * p.out, double(inner * t.n), [&](int64_t b, int64_t e) {
        for (int64_t job = b; job < e; ++job) {
          int64_t o = job / p.out, i = job % p.out;
          double* d = next.data() + job * inner;
          for (int64_t j = 0; j < t.n; ++j) {
            double w = t.w[size_t(i * t.n + j)];
            if (w == 0) continue;
            const double* src = buf.data() + (o * p.in + t.idx[size_t(i * t.n + j)]) * inner;
            for (int64_t q = 0; q < inner; ++q) d[q] += w * src[q];
          }
        }
      });
      buf.swap(next);
      dims[k] = p.out;
    }
    if (coord_ == "tf_crop_and_resize") {
      size_t r = dims.size();
      std::vector<int64_t> pos(r, 0);
      for (size_t i = 0; i < buf.size(); ++i) {
        for (size_t k = 0; k < r; ++k)
          if (taps[k].outside[size_t(pos[k])]) {
            buf[i] = extrapolation_;
            break;
          }
        for (size_t k = r; k-- > 0;) {
          if (++pos[k] < dims[k]) break;
          pos[k] = 0;
        }
      }
    }
    dispatch_numeric(x.dtype(), what.c_str(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* d = y.mutable_data<T>();
      for (size_t i = 0; i < buf.size(); ++i) {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          double v = std::clamp<double>(buf[i], double(std::numeric_limits<T>::lowest()),
                                        double(std::numeric_limits<T>::max()));
          d[i] = T(v);
        } else {
          d[i] = T(Acc<T>(buf[i]));
        }
      }
    });
  }

  int64_t opset_;
  bool upsample_, legacy_ = false;
  Mode mode_ = Mode::kNearest;
  std::string coord_, nearest_, policy_;
  float cubic_a_, extrapolation_;
  bool exclude_outside_, antialias_;
  std::vector<int64_t> axes_;
  std::vector<float> scales_attr_;
};

}  // namespace

void register_resize_kernels(ep::KernelRegistry& r) {
  TypeConstraint t1{"T1", {0}, byte_types()};
  TypeConstraint t2{"T2", {1}, {DataType::kFloat16, DataType::kFloat, DataType::kDouble}};
  auto resize = [](const KernelInfo& i) { return std::make_unique<ResizeKernel>(i, false); };
  auto upsample = [](const KernelInfo& i) { return std::make_unique<ResizeKernel>(i, true); };
  r.add({"", "Resize", 10, 10, {t1}}, resize);
  r.add({"", "Resize", 11, ep::kOpsetMax, {t1, t2}}, resize);
  r.add({"", "Upsample", 7, 10, {t1}}, upsample);
}

}  // namespace tessera::cpu
