// Slice: per-axis start/end/step, clamped as the spec says, then one
// axis-map copy (negative steps are just negative offsets).
#include <algorithm>

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
    size_t n = starts.size();
    if (axes.empty())
      for (size_t i = 0; i < n; ++i) axes.push_back(int64_t(i));
    if (steps.empty()) steps.assign(n, 1);
    if (ends.size() != n || axes.size() != n || steps.size() != n)
      ctx.fail_node("starts, ends, axes and steps have different lengths (", n, ", ", ends.size(),
                    ", ", axes.size(), ", ", steps.size(), ")");
    const Shape& in = x.shape();
    int64_t r = int64_t(in.rank());
    std::vector<int64_t> begin(static_cast<size_t>(r), 0), step(static_cast<size_t>(r), 1),
        dims = in.dims();
    std::vector<bool> seen(static_cast<size_t>(r), false);
    for (size_t i = 0; i < n; ++i) {
      int64_t a = axes[i];
      if (a < -r || a >= r)
        ctx.fail_node("axis ", a, " is out of range for input of shape ", in.to_string());
      size_t k = size_t(a < 0 ? a + r : a);
      if (seen[k]) ctx.fail_node("axis ", a, " is repeated");
      seen[k] = true;
      int64_t dim = in[k], st = steps[i];
      if (st == 0) ctx.fail_node("step for axis ", a, " is 0");
      int64_t s = starts[i], e = ends[i];
      if (s < 0) s += dim;
      if (e < 0) e += dim;
      // The step's magnitude as unsigned: -INT64_MIN does not fit int64, and
      // (e - s + st - 1) would overflow for steps near INT64_MAX.
      const uint64_t mag = st > 0 ? uint64_t(st) : uint64_t(0) - uint64_t(st);
      int64_t count = 0;
      if (dim == 0) {
        s = 0;  // nothing to take, either way (and [0, dim - 1] would be empty)
      } else if (st > 0) {
        s = std::clamp<int64_t>(s, 0, dim);
        e = std::clamp<int64_t>(e, 0, dim);
        count = e > s ? int64_t(1 + uint64_t(e - s - 1) / mag) : 0;
      } else {
        s = std::clamp<int64_t>(s, 0, dim - 1);
        e = std::clamp<int64_t>(e, -1, dim - 1);
        count = s > e ? int64_t(1 + uint64_t(s - e - 1) / mag) : 0;
      }
      begin[k] = s;
      step[k] = st;
      dims[k] = count;
    }
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    if (y.num_elements() == 0) return;
    std::vector<int64_t> strides = strides_of(in);
    AxisMaps maps(static_cast<size_t>(r));
    for (size_t k = 0; k < size_t(r); ++k) {
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
