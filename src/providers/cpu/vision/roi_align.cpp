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
    auto xd = read_as<float>(x);
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
    std::vector<float> out(size_t(y.num_elements()));
    const float offset = half_pixel_ ? 0.5f : 0.f;
    ctx.thread_pool().parallel_for(R, double(C * oh_ * ow_ * 16), [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        const float* roi = rd.data() + r * 4;
        float sw = roi[0] * scale_ - offset, sh = roi[1] * scale_ - offset;
        float rw = roi[2] * scale_ - offset - sw, rh = roi[3] * scale_ - offset - sh;
        if (!half_pixel_) {
          rw = std::max(rw, 1.f);
          rh = std::max(rh, 1.f);
        }
        float bh = rh / float(oh_), bw = rw / float(ow_);
        int64_t gh = ratio_ > 0 ? ratio_ : int64_t(std::ceil(rh / float(oh_)));
        int64_t gw = ratio_ > 0 ? ratio_ : int64_t(std::ceil(rw / float(ow_)));
        float count = float(std::max<int64_t>(gh * gw, 1));
        for (int64_t c = 0; c < C; ++c) {
          const float* img = xd.data() + (bi[size_t(r)] * C + c) * H * W;
          for (int64_t ph = 0; ph < oh_; ++ph)
            for (int64_t pw = 0; pw < ow_; ++pw) {
              float acc = 0.f;
              bool first = true;
              for (int64_t iy = 0; iy < gh; ++iy) {
                float y = sh + ph * bh + (iy + 0.5f) * bh / float(gh);
                for (int64_t ix = 0; ix < gw; ++ix) {
                  float xx = sw + pw * bw + (ix + 0.5f) * bw / float(gw);
                  float v = sample(img, H, W, y, xx);
                  if (max_) {
                    acc = first ? v : std::max(acc, v);
                    first = false;
                  } else {
                    acc += v;
                  }
                }
              }
              out[size_t(((r * C + c) * oh_ + ph) * ow_ + pw)] = max_ ? acc : acc / count;
            }
        }
      }
    });
    write_from(y, out.data());
  }

 private:
  // Bilinear sample; in max mode the largest weighted corner is taken, the
  // way the reference implementation defines max pooling over samples.
  float sample(const float* img, int64_t H, int64_t W, float y, float x) const {
    if (H <= 0 || W <= 0 || y < -1.f || y > float(H) || x < -1.f || x > float(W)) return 0.f;
    y = std::max(y, 0.f);
    x = std::max(x, 0.f);
    int64_t yl = int64_t(y), xl = int64_t(x), yh, xh;
    if (yl >= H - 1) {
      yh = yl = H - 1;
      y = float(yl);
    } else {
      yh = yl + 1;
    }
    if (xl >= W - 1) {
      xh = xl = W - 1;
      x = float(xl);
    } else {
      xh = xl + 1;
    }
    float ly = y - float(yl), lx = x - float(xl), hy = 1.f - ly, hx = 1.f - lx;
    float v1 = hy * hx * img[yl * W + xl], v2 = hy * lx * img[yl * W + xh];
    float v3 = ly * hx * img[yh * W + xl], v4 = ly * lx * img[yh * W + xh];
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
