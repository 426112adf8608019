// Pad (constant, reflect, edge, wrap; negative pads crop) and CenterCropPad,
// both as an axis-map copy: each output coordinate maps to an input
// coordinate, or to the fill value.
#include <algorithm>
#include <cstdint>

#include "ep/op_shape.hpp"
#include "ops/pad_extents.hpp"
#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
using ep::TypeConstraint;
namespace types = ep::types;

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

class PadKernel : public OpKernel {
 public:
  explicit PadKernel(const KernelInfo& info)
      : opset_(info.opset()),
        pads_attr_(info.opset() < 2 ? info.attr_ints("paddings") : info.attr_ints("pads")),
        value_attr_(info.attr_float("value", 0.f)) {
    std::string m = info.attr_string("mode", "constant");
    if (m == "constant")
      mode_ = PadMode::kConstant;
    else if (m == "reflect")
      mode_ = PadMode::kReflect;
    else if (m == "edge")
      mode_ = PadMode::kEdge;
    else if (m == "wrap" && info.opset() >= 19)
      mode_ = PadMode::kWrap;
    else
      info.fail_node("unknown pad mode '", m, "'");
  }

  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape& in = x.shape();
    int64_t r = int64_t(in.rank());
    std::vector<int64_t> pads = opset_ < 11 ? pads_attr_ : read_ints(ctx.required_input(1));
    const std::vector<int64_t> axes =
        opset_ >= 18 && ctx.input(3) ? read_ints(*ctx.input(3)) : std::vector<int64_t>{};
    const ops::PadExtents e = ops::pad_extents(ctx.node(), in, pads, axes);
    const std::vector<int64_t>&begin = e.begin, &end = e.end, &dims = e.dims;
    Tensor fill;
    if (mode_ == PadMode::kConstant) {
      const Tensor* cv = opset_ >= 11 ? ctx.input(2) : nullptr;
      if (cv && cv->num_elements() > 0) {
        if (cv->dtype() != x.dtype())
          ctx.fail_node("constant_value ", cv->description(), " does not match data ",
                        x.description());
        fill = *cv;
      } else {
        fill = make_scalar(x.dtype(), double(value_attr_));
      }
    }
    // The output first: one too large to hold fails there, naming its size,
    // before a map of that many entries is built.
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    std::vector<int64_t> st = strides_of(in);
    AxisMaps maps(static_cast<size_t>(r));
    for (size_t k = 0; k < size_t(r); ++k) {
      const int64_t d = in[k];
      // Negative pads crop first; the rest pads around the cropped range [lo, hi).
      int64_t lo = std::max<int64_t>(0, -begin[k]), hi = d - std::max<int64_t>(0, -end[k]);
      int64_t n = hi - lo, pb = std::max<int64_t>(0, begin[k]);
      if (n <= 0 && dims[k] > 0 && mode_ != PadMode::kConstant)
        ctx.fail_node("cannot pad an empty axis ", k, " of shape ", in.to_string(), " in mode ",
                      mode_ == PadMode::kEdge   ? "edge"
                      : mode_ == PadMode::kWrap ? "wrap"
                                                : "reflect");
      maps[k].resize(size_t(dims[k]));
      for (int64_t i = 0; i < dims[k]; ++i) {
        int64_t c = i - pb;  // coordinate within the cropped range
        if (c < 0 || c >= n) {
          switch (mode_) {
            case PadMode::kConstant:
              c = -1;
              break;
            case PadMode::kEdge:
              c = std::clamp<int64_t>(c, 0, n - 1);
              break;
            case PadMode::kWrap:
              c = ((c % n) + n) % n;
              break;
            case PadMode::kReflect:
              if (n == 1) {
                c = 0;
              } else {
                int64_t m = 2 * (n - 1);
                c = ((c % m) + m) % m;
                if (c >= n) c = m - c;
              }
              break;
          }
        }
        maps[k][size_t(i)] = c < 0 ? kFillOffset : (lo + c) * st[k];
      }
    }
    copy_by_axis_maps(x, y, maps, fill.defined() ? &fill : nullptr, ctx.thread_pool());
  }

 private:
  int64_t opset_;
  std::vector<int64_t> pads_attr_;
  float value_attr_;
  PadMode mode_ = PadMode::kConstant;
};

class CenterCropPadKernel : public OpKernel {
 public:
  explicit CenterCropPadKernel(const KernelInfo& info) : shape_(info) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape& in = x.shape();
    const int64_t r = int64_t(in.rank());
    // The target sizes on their axes (the schema's rule). The output first:
    // a target too large to hold fails there, naming its size, before a map
    // of that many entries is built.
    const Shape dims = shape_.output(ctx, {&x, &ctx.required_input(1)});
    Tensor& y = ctx.output(0, dims, x.dtype());
    std::vector<int64_t> st = strides_of(in);
    AxisMaps maps(static_cast<size_t>(r));
    for (size_t k = 0; k < size_t(r); ++k) {
      int64_t d = in[k], s = dims[k];
      maps[k].resize(size_t(s));
      for (int64_t i = 0; i < s; ++i) {
        int64_t c = s <= d ? i + (d - s) / 2 : i - (s - d) / 2;
        maps[k][size_t(i)] = c < 0 || c >= d ? kFillOffset : c * st[k];
      }
    }
    Tensor fill = make_scalar(x.dtype(), 0.0);
    copy_by_axis_maps(x, y, maps, &fill, ctx.thread_pool());
  }

 private:
  ep::OpShape shape_;
};

}  // namespace

void register_pad_kernels(ep::KernelRegistry& r) {
  TypeConstraint all{"T", {0}, types::kAll};
  r.add<PadKernel>({"", "Pad", 1, 10, {all}});
  r.add<PadKernel>(
      {"",
       "Pad",
       11,
       ep::kOpsetMax,
       {{"T", {0, 2}, types::kAll}, {"Tind", {3}, {DataType::kInt32, DataType::kInt64}}}});
  r.add<CenterCropPadKernel>({"",
                              "CenterCropPad",
                              18,
                              ep::kOpsetMax,
                              {all, {"Tind", {1}, {DataType::kInt32, DataType::kInt64}}}});
}

}  // namespace tessera::cpu
