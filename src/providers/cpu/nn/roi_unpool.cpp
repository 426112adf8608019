// MaxRoiPool (max over a grid of bins inside each region of interest) and
// MaxUnpool (scatter values back to the positions MaxPool's indices name).
#include <algorithm>
#include <cmath>
#include <limits>

#include "providers/cpu/nn/nn_common.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu::nn {

namespace {

class MaxRoiPoolKernel : public ep::OpKernel {
 public:
  explicit MaxRoiPoolKernel(const ep::KernelInfo& info)
      : pooled_(info.attr_ints("pooled_shape")), scale_(info.attr_float("spatial_scale", 1.f)) {
    if (pooled_.size() != 2 || pooled_[0] <= 0 || pooled_[1] <= 0)
      info.fail_node("pooled_shape must be 2 positive ints, got ", dims_str(pooled_));
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor& R = ctx.required_input(1);
    if (X.rank() != 4) ctx.fail_node("X must be [N, C, H, W], got ", X.shape().to_string());
    if (R.rank() != 2 || R.shape()[1] != 5)
      ctx.fail_node("rois must be [num_rois, 5], got ", R.shape().to_string());
    const int64_t N = X.shape()[0], C = X.shape()[1], H = X.shape()[2], W = X.shape()[3];
    const int64_t nr = R.shape()[0], PH = pooled_[0], PW = pooled_[1];
    Tensor& Y = ctx.output(0, Shape{nr, C, PH, PW});
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx, sr;
      const T* x = to_compute<T>(X, sx);
      const T* rois = to_compute<T>(R, sr);
      for (int64_t i = 0; i < nr; ++i) {
        const int64_t b = int64_t(rois[i * 5]);
        if (b < 0 || b >= N)
          ctx.fail_node("roi ", i, " names batch ", b, " but X ", X.shape().to_string(), " has ",
                        N);
      }
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      for (int64_t i = 0; i < nr; ++i) {
        const T* roi = rois + i * 5;
        const int64_t b = int64_t(roi[0]);
        const int64_t x1 = int64_t(std::round(double(roi[1]) * scale_));
        const int64_t y1 = int64_t(std::round(double(roi[2]) * scale_));
        const int64_t x2 = int64_t(std::round(double(roi[3]) * scale_));
        const int64_t y2 = int64_t(std::round(double(roi[4]) * scale_));
        const double rh = double(std::max<int64_t>(y2 - y1 + 1, 1));
        const double rw = double(std::max<int64_t>(x2 - x1 + 1, 1));
        const double bh = rh / double(PH), bw = rw / double(PW);
        for (int64_t c = 0; c < C; ++c) {
          const T* plane = x + (b * C + c) * H * W;
          for (int64_t ph = 0; ph < PH; ++ph) {
            const int64_t hs = std::clamp<int64_t>(int64_t(std::floor(ph * bh)) + y1, 0, H);
            const int64_t he = std::clamp<int64_t>(int64_t(std::ceil((ph + 1) * bh)) + y1, 0, H);
            for (int64_t pw = 0; pw < PW; ++pw) {
              const int64_t ws = std::clamp<int64_t>(int64_t(std::floor(pw * bw)) + x1, 0, W);
              const int64_t we = std::clamp<int64_t>(int64_t(std::ceil((pw + 1) * bw)) + x1, 0, W);
              T m = std::numeric_limits<T>::lowest();
              bool any = false;
              for (int64_t h = hs; h < he; ++h)
                for (int64_t w = ws; w < we; ++w) {
                  m = std::max(m, plane[h * W + w]);
                  any = true;
                }
              y[((i * C + c) * PH + ph) * PW + pw] = any ? m : T(0);
            }
          }
        }
      }
      yo.finish();
    });
  }

 private:
  std::vector<int64_t> pooled_;
  float scale_;
};

class MaxUnpoolKernel : public ep::OpKernel {
 public:
  explicit MaxUnpoolKernel(const ep::KernelInfo& info) {
    attrs_.parse(info, false);
    if (attrs_.kernel.empty()) info.fail_node("kernel_shape is required");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& X = ctx.required_input(0);
    const Tensor& I = ctx.required_input(1);
    const Tensor* S = ctx.input(2);
    const auto& xd = X.shape().dims();
    if (xd.size() < 3) ctx.fail_node("X must be [N, C, spatial...], got ", X.shape().to_string());
    if (I.shape() != X.shape())
      ctx.fail_node("I ", I.shape().to_string(), " must have the shape of X ",
                    X.shape().to_string());
    const size_t r = xd.size() - 2;
    if (attrs_.kernel.size() != r)
      ctx.fail_node("kernel_shape ", dims_str(attrs_.kernel), " needs ", r, " values");
    // The default output shape; per the ONNX reference, indices address this
    // shape and an explicit output_shape pads (or crops) it at the end.
    std::vector<int64_t> dd = {xd[0], xd[1]};
    for (size_t i = 0; i < r; ++i) {
      const int64_t s = attrs_.strides.empty() ? 1 : attrs_.strides[i];
      const int64_t pb = attrs_.pads.size() == 2 * r ? attrs_.pads[i] : 0;
      const int64_t pe = attrs_.pads.size() == 2 * r ? attrs_.pads[i + r] : 0;
      dd.push_back((xd[i + 2] - 1) * s + attrs_.kernel[i] - pb - pe);
    }
    std::vector<int64_t> yd = dd;
    if (S) {
      yd = S->to_int64_vector();
      if (yd.size() != xd.size())
        ctx.fail_node("output_shape ", dims_str(yd), " must have rank ", xd.size());
      for (int64_t d : yd)
        if (d < 0) ctx.fail_node("output_shape ", dims_str(yd), " has a negative dim");
    }
    Tensor& Y = ctx.output(0, Shape(yd));
    const int64_t total = Y.num_elements();
    const int64_t dtotal = Shape(dd).num_elements();
    const int64_t* idx = I.data<int64_t>();
    const int64_t n = X.num_elements();
    // Indices past the default shape but inside output_shape can only be flat
    // indices into output_shape (PyTorch's convention); honor that form too.
    bool flat_in_output = yd == dd;
    for (int64_t i = 0; i < n; ++i) {
      if (idx[i] < 0 || idx[i] >= std::max(total, dtotal))
        ctx.fail_node("index ", idx[i], " at position ", i, " is outside the output ",
                      Shape(yd).to_string());
      if (idx[i] >= dtotal) flat_in_output = true;
    }
    if (flat_in_output)
      for (int64_t i = 0; i < n; ++i)
        if (idx[i] >= total)
          ctx.fail_node("index ", idx[i], " at position ", i, " is outside the output ",
                        Shape(yd).to_string());
    // Maps a flat index in the default shape to one in the output (-1: cropped).
    auto place = [&](int64_t k) -> int64_t {
      if (flat_in_output) return k;
      int64_t out = 0, stride = 1;
      for (size_t d = dd.size(); d-- > 0;) {
        const int64_t c = k % dd[d];
        k /= dd[d];
        if (c >= yd[d]) return -1;
        out += c * stride;
        stride *= yd[d];
      }
      return out;
    };
    dispatch_compute(X.dtype(), [&]<typename T>() {
      std::vector<T> sx;
      const T* x = to_compute<T>(X, sx);
      ComputeOutput<T> yo(Y);
      T* y = yo.data();
      std::fill(y, y + total, T(0));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t o = place(idx[i]);
        if (o >= 0) y[o] = x[i];
      }
      yo.finish();
    });
  }

 private:
  WindowAttrs attrs_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_max_roi_pool(const ep::KernelInfo& info) {
  return std::make_unique<MaxRoiPoolKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_max_unpool(const ep::KernelInfo& info) {
  return std::make_unique<MaxUnpoolKernel>(info);
}

}  // namespace tessera::cpu::nn
