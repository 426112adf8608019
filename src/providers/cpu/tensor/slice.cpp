// Slice: per-axis start/end/step, clamped as the spec says, then one
// axis-map copy (negative steps are just negative offsets).
#include <algorithm>

#include "ops/shape_rules.hpp"
#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
using ep::TypeConstraint;
namespace types = ep::types;

class SliceKernel : public OpKernel {
 public:
  explicit SliceKernel(const KernelInfo& info)
      : from_attr_(info.opset() < 10),
        starts_(info.attr_ints("starts")),
        ends_(info.attr_ints("ends")),
        axes_(info.attr_ints("axes")) {}

  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    if (!from_attr_) {
      starts = read_ints(ctx.required_input(1));
      ends = read_ints(ctx.required_input(2));
      axes = ctx.input(3) ? read_ints(*ctx.input(3)) : std::vector<int64_t>{};
      if (ctx.input(4)) steps = read_ints(*ctx.input(4));
    }
    const Shape& in = x.shape();
    const size_t r = in.rank();
    const ops::SliceWindow w = ops::slice_window(in, starts, ends, axes, steps);
    const std::vector<int64_t>&begin = w.begin, &step = w.step, &dims = w.dims;
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    if (y.num_elements() == 0) return;
    std::vector<int64_t> strides = strides_of(in);
    AxisMaps maps(r);
    for (size_t k = 0; k < r; ++k) {
      maps[k].resize(size_t(dims[k]));
      for (int64_t i = 0; i < dims[k]; ++i)
        maps[k][size_t(i)] = (begin[k] + i * step[k]) * strides[k];
    }
    copy_by_axis_maps(x, y, maps, nullptr, ctx.thread_pool());
  }

 private:
  bool from_attr_;
  std::vector<int64_t> starts_, ends_, axes_;
};

}  // namespace

void register_slice_kernels(ep::KernelRegistry& r) {
  TypeConstraint all{"T", {0}, types::kAll};
  TypeConstraint ind{"Tind", {1, 2, 3, 4}, {DataType::kInt32, DataType::kInt64}};
  r.add<SliceKernel>({"", "Slice", 1, 9, {all}});
  r.add<SliceKernel>({"", "Slice", 10, ep::kOpsetMax, {all, ind}});
}

}  // namespace tessera::cpu
