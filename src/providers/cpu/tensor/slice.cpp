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
// A window narrowed on at most one axis, with step 1 there, is one
// contiguous run per index of the axes before it: copied as runs, without
// the per-axis maps whose set-up outweighed the copy of a small slice (a
// recurrent cell's gate slices, run once per step).
bool copy_as_runs(const Tensor& x, Tensor& y, const std::vector<int64_t>& begin,
                  const std::vector<int64_t>& step, const std::vector<int64_t>& dims,
                  ThreadPool& pool) {
  const Shape& in = x.shape();
  const size_t r = in.rank();
  size_t axis = 0;
  int narrowed = 0;
  for (size_t k = 0; k < r; ++k)
    if (dims[k] != in[k] || step[k] != 1) {
      if (step[k] != 1 || ++narrowed > 1) return false;
      axis = k;
    }
  const int64_t outer = in.size_to(axis);
  const int64_t inner = in.num_elements() / std::max<int64_t>(1, outer * in[axis]);
  const int64_t n = dims[axis] * inner;
  constexpr int64_t kMaxRuns = 64;  // beyond: many short runs, which the maps' loops handle
  if (outer > kMaxRuns) return false;
  std::vector<CopyRun> runs;
  for (int64_t o = 0; o < outer; ++o)
    runs.push_back({&x, (o * in[axis] + begin[axis]) * inner, &y, o * n, n});
  copy_runs(runs, pool);
  return true;
}

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
    if (copy_as_runs(x, y, begin, step, dims, ctx.thread_pool())) return;
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
