// Slice: per-axis start/end/step, clamped as the spec says, then one
// axis-map copy (negative steps are just negative offsets).
#include <algorithm>

#include "ep/op_shape.hpp"
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

// The window (and so the output shape) is the one the schema's rule takes.
class SliceKernel : public OpKernel {
 public:
  explicit SliceKernel(const KernelInfo& info) : shape_(info) {}

  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<const Tensor*> ins = {&x};
    for (size_t i = 1; i < ctx.num_inputs(); ++i) ins.push_back(ctx.input(i));
    const auto w = ops::slice_window(
        ops::TensorShapeQuery(ctx.node(), shape_.opset(), shape_.schema(), std::move(ins)));
    if (!w) ctx.fail_node("starts, ends, axes and steps must be int32 or int64");
    const Shape& in = x.shape();
    const size_t r = in.rank();
    const std::vector<int64_t>&begin = w->begin, &step = w->step, &dims = w->dims;
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
  ep::OpShape shape_;
};

}  // namespace

void register_slice_kernels(ep::KernelRegistry& r) {
  TypeConstraint all{"T", {0}, types::kAll};
  TypeConstraint ind{"Tind", {1, 2, 3, 4}, {DataType::kInt32, DataType::kInt64}};
  r.add<SliceKernel>({"", "Slice", 1, 9, {all}});
  r.add<SliceKernel>({"", "Slice", 10, ep::kOpsetMax, {all, ind}});
}

}  // namespace tessera::cpu
