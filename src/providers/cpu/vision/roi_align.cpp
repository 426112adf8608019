// RoiAlign (opsets 10, 16, 22): average or max of bilinear samples on a
// regular grid inside each bin. Opset 10 behaves as output_half_pixel.
#include <algorithm>
#include <cmath>

#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/vision/vision_kernels.hpp"

namespace tessera::cpu {

namespace {

class RoiAlignKernel : public ep::OpKernel {
 public:
  static constexpr int64_t kMaxRatio = 1 << 16;
  explicit RoiAlignKernel(const ep::KernelInfo& info)
      : half_pixel_(info.opset() >= 16 && info.attr_string("coordinate_transformation_mode",
                                                           "half_pixel") == "half_pixel"),
        max_(info.attr_string("mode", "avg") == "max"),
        oh_(info.attr_int("output_height", 1)),
        ow_(info.attr_int("output_width", 1)),
        ratio_(info.attr_int("sampling_ratio", 0)),
        scale_(info.attr_float("spatial_scale", 1.0f)) {
    std::string mode = info.attr_string("mode", "avg");
    if (mode != "avg" && mode != "max") info.fail_node("mode must be avg or max, got '", mode, "'");
    std::string ctm = info.attr_string("coordinate_transformation_mode", "half_pixel");
    if (info.opset() >= 16 && ctm != "half_pixel" && ctm != "output_half_pixel")
      info.fail_node("unknown coordinate_transformation_mode '", ctm, "'");
    if (oh_ < 1 || ow_ < 1 || ratio_ < 0)
      info.fail_node("output_height/output_width must be >= 1 and sampling_ratio >= 0");
    // ratio^2 samples a bin: a larger one would take forever (or overflow).
    if (ratio_ > kMaxRatio)
      info.fail_node("sampling_ratio ", ratio_, " is above the supported ", kMaxRatio);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& rois = ctx.required_input(1);
    const Tensor& bidx = ctx.required_input(2);
    if (x.rank() != 4) ctx.fail_node("X must be 4-D (N, C, H, W), got ", x.shape().to_string());
    if (rois.rank() != 2 || rois.shape()[1] != 4)
      ctx.fail_node("rois must be [num_rois, 4], got ", rois.shape().to_string());
    const int64_t R = rois.shape()[0];
    if (bidx.rank() != 1 || bidx.shape()[0] != R)
      ctx.fail_node("batch_indices must be [", R, "], got ", bidx.shape().to_string());
    const int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    // Float tensors are read and written in place; other types through a copy.
    const bool is_float = x.dtype() == DataType::kFloat;
    std::vector<float> x_copy;
    if (!is_float) x_copy = read_as<float>(x);
    const float* xd = is_float ? x.data<float>() : x_copy.data();
    auto rd = read_as<float>(rois);
    auto bi = bidx.to_int64_vector();
    for (int64_t r = 0; r < R; ++r)
      if (bi[size_t(r)] < 0 || bi[size_t(r)] >= N)
        ctx.fail_node("batch_indices[", r, "] = ", bi[size_t(r)], " out of range for X ",
                      x.shape().to_string());
    // The adaptive sample count is ceil(roi size / output size): a NaN, infinite
    // or absurd box would make that conversion undefined (or the loop endless).
    for (int64_t i = 0; i < R * 4; ++i)
      if (!(std::fabs(rd[size_t(i)] * scale_) <= 0x1p24f))
        ctx.fail_node("rois[", i / 4, "] has coordinate ", rd[size_t(i)], " (times spatial_scale ",
                      scale_, "); coordinates must be finite and within 2^24");
    // The output first: a size too large to hold (from the attributes) fails
    // there, naming it.
    Tensor& y = ctx.output(0, Shape{R, C, oh_, ow_}, x.dtype());
    std::vector<float> out_copy;
    if (!is_float) out_copy.resize(size_t(y.num_elements()));
    float* out = is_float ? y.mutable_data<float>() : out_copy.data();
    ctx.thread_pool().parallel_for(R, double(C * oh_ * ow_ * 16), [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r)
        pool_roi(rd.data() + r * 4, xd + bi[size_t(r)] * C * H * W, C, H, W,
                 out + r * C * oh_ * ow_);
    });
    if (!is_float) write_from(y, out_copy.data());
  }

 private:
  // One sample coordinate along one axis: the two neighbouring rows (or
  // columns) as offsets and their bilinear weights. Samples more than one
  // pixel outside the image read zero.
  struct Tap {
    int64_t lo = 0, hi = 0;
    float wlo = 0.f, whi = 0.f;
    bool valid = false;
  };

  // `stride` scales the offsets: W for rows, 1 for columns.
  static Tap tap(float c, int64_t size, int64_t stride) {
    Tap t;
    if (size <= 0 || c < -1.f || c > float(size)) return t;
    c = std::max(c, 0.f);
    int64_t l = int64_t(c), h;
    if (l >= size - 1) {
      h = l = size - 1;
      c = float(l);
    } else {
      h = l + 1;
    }
    const float f = c - float(l);
    t = {l * stride, h * stride, 1.f - f, f, true};
    return t;
  }

  // The sample grid depends on the box alone, so its taps are computed once
  // per box (separately for rows and columns) and every channel reuses them.
  void pool_roi(const float* roi, const float* planes, int64_t C, int64_t H, int64_t W,
                float* out) const {
    const float offset = half_pixel_ ? 0.5f : 0.f;
    float sw = roi[0] * scale_ - offset, sh = roi[1] * scale_ - offset;
    float rw = roi[2] * scale_ - offset - sw, rh = roi[3] * scale_ - offset - sh;
    if (!half_pixel_) {
      rw = std::max(rw, 1.f);
      rh = std::max(rh, 1.f);
    }
    const float bh = rh / float(oh_), bw = rw / float(ow_);
    const int64_t gh = ratio_ > 0 ? ratio_ : int64_t(std::ceil(rh / float(oh_)));
    const int64_t gw = ratio_ > 0 ? ratio_ : int64_t(std::ceil(rw / float(ow_)));
    const float count = float(std::max<int64_t>(gh * gw, 1));
    std::vector<Tap> ys(size_t(oh_ * gh)), xs(size_t(ow_ * gw));
    for (int64_t ph = 0; ph < oh_; ++ph)
      for (int64_t iy = 0; iy < gh; ++iy)
        ys[size_t(ph * gh + iy)] = tap(sh + ph * bh + (iy + 0.5f) * bh / float(gh), H, W);
    for (int64_t pw = 0; pw < ow_; ++pw)
      for (int64_t ix = 0; ix < gw; ++ix)
        xs[size_t(pw * gw + ix)] = tap(sw + pw * bw + (ix + 0.5f) * bw / float(gw), W, 1);
    if (!max_ && oh_ * ow_ * gh * gw <= kMaxListedSamples) {
      pool_listed(ys, xs, gh, gw, count, planes, C, H * W, out);
      return;
    }
    for (int64_t c = 0; c < C; ++c) {
      const float* img = planes + c * H * W;
      for (int64_t ph = 0; ph < oh_; ++ph) {
        const Tap* ty = ys.data() + ph * gh;
        for (int64_t pw = 0; pw < ow_; ++pw) {
          const Tap* tx = xs.data() + pw * gw;
          float acc = 0.f;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              const float v = sample(img, ty[iy], tx[ix]);
              if (max_) {
                acc = first ? v : std::max(acc, v);
                first = false;
              } else {
                acc += v;
              }
            }
          *out++ = max_ ? acc : acc / count;
        }
      }
    }
  }

  // Average pooling with every bin's samples listed once per box: the four
  // corner offsets and the products of their row and column weights, out-of-
  // image samples (which add zero) left out. Each channel then costs four
  // loads and four multiply-adds a sample.
  struct Sample {
    int64_t off[4];
    float w[4];
  };
  static constexpr int64_t kMaxListedSamples = 1 << 14;

  void pool_listed(const std::vector<Tap>& ys, const std::vector<Tap>& xs, int64_t gh, int64_t gw,
                   float count, const float* planes, int64_t C, int64_t plane, float* out) const {
    std::vector<Sample> samples;
    samples.reserve(size_t(oh_ * ow_ * gh * gw));
    std::vector<size_t> bin_end(size_t(oh_ * ow_));
    for (int64_t ph = 0; ph < oh_; ++ph)
      for (int64_t pw = 0; pw < ow_; ++pw) {
        for (int64_t iy = 0; iy < gh; ++iy)
          for (int64_t ix = 0; ix < gw; ++ix) {
            const Tap& y = ys[size_t(ph * gh + iy)];
            const Tap& x = xs[size_t(pw * gw + ix)];
            if (!y.valid || !x.valid) continue;
            samples.push_back({{y.lo + x.lo, y.lo + x.hi, y.hi + x.lo, y.hi + x.hi},
                               {y.wlo * x.wlo, y.wlo * x.whi, y.whi * x.wlo, y.whi * x.whi}});
          }
        bin_end[size_t(ph * ow_ + pw)] = samples.size();
      }
    for (int64_t c = 0; c < C; ++c) {
      const float* img = planes + c * plane;
      size_t k = 0;
      for (const size_t end : bin_end) {
        float acc = 0.f;
        for (; k < end; ++k) {
          const Sample& p = samples[k];
          acc += p.w[0] * img[p.off[0]] + p.w[1] * img[p.off[1]] + p.w[2] * img[p.off[2]] +
                 p.w[3] * img[p.off[3]];
        }
        *out++ = acc / count;
      }
    }
  }

  // Bilinear sample; in max mode the largest weighted corner is taken, the
  // way the reference implementation defines max pooling over samples.
  float sample(const float* img, const Tap& y, const Tap& x) const {
    if (!y.valid || !x.valid) return 0.f;
    const float v1 = y.wlo * x.wlo * img[y.lo + x.lo], v2 = y.wlo * x.whi * img[y.lo + x.hi];
    const float v3 = y.whi * x.wlo * img[y.hi + x.lo], v4 = y.whi * x.whi * img[y.hi + x.hi];
    if (max_) return std::max(std::max(v1, v2), std::max(v3, v4));
    return v1 + v2 + v3 + v4;
  }

  bool half_pixel_, max_;
  int64_t oh_, ow_, ratio_;
  float scale_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_roi_align(const ep::KernelInfo& info) {
  return std::make_unique<RoiAlignKernel>(info);
}

}  // namespace tessera::cpu
