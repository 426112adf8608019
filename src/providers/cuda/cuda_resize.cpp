// Resize (10+) on the device. The output lengths and per-axis scales are
// computed on the host from scales or sizes (axes and
// keep_aspect_ratio_policy from opset 18), as the CPU provider computes
// them; the taps are computed per output element on the device
// (resize_launch.hpp). Nearest moves bytes (every element type the table
// lists); linear and cubic compute (float arithmetic for float types, double
// for the others). antialias is declined: its tap count grows with the
// downscale factor and is not written here.
#include <algorithm>
#include <cmath>
#include <limits>

#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_index_ops.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"
#include "providers/cuda/resize_launch.hpp"

namespace tessera::cuda {

namespace {

std::optional<ResizeCoord> parse_coord(const std::string& c) {
  if (c == "half_pixel") return ResizeCoord::kHalfPixel;
  if (c == "half_pixel_symmetric") return ResizeCoord::kHalfPixelSymmetric;
  if (c == "pytorch_half_pixel") return ResizeCoord::kPytorchHalfPixel;
  if (c == "align_corners") return ResizeCoord::kAlignCorners;
  if (c == "asymmetric") return ResizeCoord::kAsymmetric;
  if (c == "tf_half_pixel_for_nn") return ResizeCoord::kTfHalfPixelForNn;
  if (c == "tf_crop_and_resize") return ResizeCoord::kTfCropAndResize;
  return std::nullopt;
}

std::optional<NearestMode> parse_nearest(const std::string& m) {
  if (m == "round_prefer_floor") return NearestMode::kRoundPreferFloor;
  if (m == "round_prefer_ceil") return NearestMode::kRoundPreferCeil;
  if (m == "floor") return NearestMode::kFloor;
  if (m == "ceil") return NearestMode::kCeil;
  return std::nullopt;
}

std::optional<ResizeMode> parse_mode(const std::string& m, int64_t opset) {
  if (m == "nearest") return ResizeMode::kNearest;
  if (m == "linear" || m == "bilinear" || m == "trilinear") return ResizeMode::kLinear;
  if (m == "cubic" && opset >= 11) return ResizeMode::kCubic;
  return std::nullopt;
}

// A computed output length as an integer; NaN, negative or absurd lengths
// (from hostile scales or roi) are errors.
int64_t output_length(const ep::KernelContext& ctx, double len) {
  if (!(len >= 0 && len < 0x1p62))
    ctx.fail_node("computed output length ", len, " is not a valid size");
  return int64_t(len);
}

class CudaResize : public CudaKernel {
 public:
  CudaResize(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), opset_(info.opset()) {
    const std::string mode = info.attr_string("mode", "nearest");
    const auto m = parse_mode(mode, opset_);
    if (!m) info.fail_node("unknown mode '", mode, "'");
    plan_.mode = *m;
    plan_.legacy = opset_ < 11;
    const std::string coord =
        plan_.legacy ? "asymmetric"
                     : info.attr_string("coordinate_transformation_mode", "half_pixel");
    const auto c = parse_coord(coord);
    if (!c) info.fail_node("unknown coordinate_transformation_mode '", coord, "'");
    plan_.coord = *c;
    const std::string nearest = info.attr_string("nearest_mode", "round_prefer_floor");
    const auto n = parse_nearest(nearest);
    if (!n) info.fail_node("unknown nearest_mode '", nearest, "'");
    plan_.nearest = *n;
    plan_.cubic_a = info.attr_float("cubic_coeff_a", -0.75f);
    plan_.exclude_outside = info.attr_int("exclude_outside", 0) != 0;
    plan_.extrapolation = info.attr_float("extrapolation_value", 0.f);
    axes_ = info.attr_ints("axes");
    policy_ = info.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy_ != "stretch" && policy_ != "not_larger" && policy_ != "not_smaller")
      info.fail_node("unknown keep_aspect_ratio_policy '", policy_, "'");
  }

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() > size_t(kMaxIndexRank))
      ctx.fail_node("input of rank ", x.rank(), "; the CUDA kernel takes at most ", kMaxIndexRank);
    ResizePlan p = plan_;
    set_axes(ctx, x.shape(), p);
    std::vector<int64_t> dims(x.rank());
    for (size_t k = 0; k < x.rank(); ++k) dims[k] = p.axes[k].out;
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    if (y.num_elements() == 0) return;
    if (x.num_elements() == 0) ctx.fail_node("cannot resize an empty input to a non-empty output");
    if (p.mode == ResizeMode::kNearest) {
      check_cuda(launch_resize_nearest(elem_bytes(x.dtype()), x.raw_data(), y.mutable_raw_data(),
                                       y.num_elements(), fill_bits(ctx, x.dtype()), p, stream),
                 "launch of the Resize (nearest) kernel");
      return;
    }
    const auto type = num_type_of(x.dtype());
    if (!type) ctx.fail_node("the CUDA kernel does not interpolate ", x.description());
    check_cuda(launch_resize_weighted(*type, x.raw_data(), y.mutable_raw_data(), y.num_elements(),
                                      p, stream),
               "launch of the Resize (linear/cubic) kernel");
  }

 private:
  // extrapolation_value in x's type, as bytes (nearest with
  // tf_crop_and_resize); 0 when it is not used.
  uint64_t fill_bits(const ep::KernelContext& ctx, DataType t) const {
    if (plan_.coord != ResizeCoord::kTfCropAndResize || plan_.legacy) return 0;
    return scalar_bits(ctx, t, double(plan_.extrapolation));
  }

  // Fills p.axes: lengths, scales, roi, strides, and which are identities.
  void set_axes(const ep::KernelContext& ctx, const Shape& in, ResizePlan& p) const {
    const int64_t r = int64_t(in.rank());
    p.rank = int(r);
    int64_t stride = 1;
    for (int64_t k = r - 1; k >= 0; --k) {
      p.axes[k] = ResizeAxis{};
      p.axes[k].in = p.axes[k].out = in[size_t(k)];
      p.axes[k].in_stride = stride;
      stride *= in[size_t(k)];
    }
    std::vector<int64_t> axes;
    if (!axes_.empty() && opset_ >= 18) {
      for (int64_t a : axes_) axes.push_back(int64_t(normalized_axis(ctx, a, in)));
    } else {
      for (int64_t k = 0; k < r; ++k) axes.push_back(k);
    }
    const size_t na = axes.size();
    std::vector<double> scales;
    std::vector<int64_t> sizes;
    const size_t scales_input = p.legacy ? 1 : 2;
    if (const Tensor* s = ctx.input(scales_input))
      for (int64_t i = 0; i < s->num_elements(); ++i) scales.push_back(s->element_as_double(i));
    if (!p.legacy && ctx.input(3) && ctx.input(3)->num_elements() > 0)
      sizes = host_ints(ctx, 3, "sizes");
    if (!p.legacy && p.coord == ResizeCoord::kTfCropAndResize && ctx.input(1) &&
        ctx.input(1)->num_elements() > 0) {
      const Tensor& roi = *ctx.input(1);
      if (roi.num_elements() != int64_t(2 * na))
        ctx.fail_node("roi ", roi.description(), " should have ", 2 * na, " values");
      for (size_t i = 0; i < na; ++i) {
        p.axes[axes[i]].roi_start = roi.element_as_double(int64_t(i));
        p.axes[axes[i]].roi_end = roi.element_as_double(int64_t(i + na));
      }
    }
    if (!sizes.empty()) {
      if (!scales.empty()) ctx.fail_node("only one of scales and sizes may be given");
      if (sizes.size() != na)
        ctx.fail_node("sizes ", Shape(sizes).to_string(), " should have ", na, " values for input ",
                      in.to_string());
      if (policy_ == "stretch") {
        for (size_t i = 0; i < na; ++i) {
          ResizeAxis& a = p.axes[axes[i]];
          if (sizes[i] < 0) ctx.fail_node("negative size ", sizes[i]);
          a.out = sizes[i];
          a.scale = a.in ? double(a.out) / double(a.in) : 1.0;
        }
      } else {
        const bool not_larger = policy_ == "not_larger";
        double s = not_larger ? std::numeric_limits<double>::max() : 0.0;
        for (size_t i = 0; i < na; ++i) {
          const double v = double(sizes[i]) / double(std::max<int64_t>(1, p.axes[axes[i]].in));
          s = not_larger ? std::min(s, v) : std::max(s, v);
        }
        for (size_t i = 0; i < na; ++i) {
          ResizeAxis& a = p.axes[axes[i]];
          a.scale = s;
          a.out = output_length(ctx, std::floor(s * double(a.in) + 0.5));
        }
      }
    } else {
      if (scales.size() != na)
        ctx.fail_node("scales has ", scales.size(), " values, expected ", na, " for input ",
                      in.to_string());
      for (size_t i = 0; i < na; ++i) {
        ResizeAxis& a = p.axes[axes[i]];
        if (!(scales[i] > 0)) ctx.fail_node("scales must be positive, got ", scales[i]);
        a.scale = scales[i];
        double len = double(a.in) * a.scale;
        if (p.coord == ResizeCoord::kTfCropAndResize && !p.legacy) len *= a.roi_end - a.roi_start;
        a.out = output_length(ctx, std::floor(len));
        a.out_width = len;
      }
    }
    // An axis kept at its length with scale 1, under a coordinate mode that
    // maps each x to x itself, has the single tap x of weight 1 in every
    // mode: copied directly.
    const bool maps_to_self = p.legacy || (p.coord != ResizeCoord::kTfHalfPixelForNn &&
                                           p.coord != ResizeCoord::kTfCropAndResize);
    for (int64_t k = 0; k < r; ++k) {
      ResizeAxis& a = p.axes[k];
      a.identity = maps_to_self && a.in == a.out && a.scale == 1.0 &&
                   (a.out_width == 0 || a.out_width == double(a.out));
    }
  }

  int64_t opset_;
  ResizePlan plan_;
  std::vector<int64_t> axes_;
  std::string policy_;
};

std::string check_resize(const ep::ClaimQuery& q) {
  if (auto r = q.rank(0); r && *r > size_t(kMaxIndexRank))
    return str_cat("input of rank ", *r, "; the CUDA kernel takes at most ", kMaxIndexRank);
  const std::string mode = q.attr_string("mode", "nearest");
  if (!parse_mode(mode, q.opset())) return str_cat("unknown mode '", mode, "'");
  if (q.attr_int("antialias", 0) != 0 && mode != "nearest")
    return "antialias is not written for CUDA (its taps grow with the downscale factor)";
  if (q.opset() >= 11) {
    const std::string c = q.attr_string("coordinate_transformation_mode", "half_pixel");
    if (!parse_coord(c)) return str_cat("unknown coordinate_transformation_mode '", c, "'");
    const std::string n = q.attr_string("nearest_mode", "round_prefer_floor");
    if (!parse_nearest(n)) return str_cat("unknown nearest_mode '", n, "'");
  }
  const std::string policy = q.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return str_cat("unknown keep_aspect_ratio_policy '", policy, "'");
  return "";
}

}  // namespace

void register_cuda_resize(CudaOpTable& t) {
  std::vector<DataType> types;
  for (DataType d : kCudaNumeric)
    if (d != DataType::kBool) types.push_back(d);
  const ep::TypeConstraint t1{"T1", {0}, types};
  const ep::TypeConstraint t2{"T2", {1}, {DataType::kFloat16, DataType::kFloat, DataType::kDouble}};
  t.add<CudaResize>({"", "Resize", 10, 10, {t1}, {1}}, check_resize);
  t.add<CudaResize>({"", "Resize", 11, ep::kOpsetMax, {t1, t2}, {1, 2, 3}}, check_resize);
}

}  // namespace tessera::cuda
