// Expand and Tile: both are an axis-map copy whose per-axis table repeats
// input offsets (0 for a broadcast axis, i mod dim for a tiled one).
#include "ep/op_shape.hpp"
#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
using ep::TypeConstraint;
namespace types = ep::types;

class ExpandKernel : public OpKernel {
 public:
  explicit ExpandKernel(const KernelInfo& info) : shape_(info) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape out = shape_.output(ctx, {&x, &ctx.required_input(1)});
    Tensor& y = ctx.output(0, out, x.dtype());
    size_t R = out.rank(), r = x.rank();
    std::vector<int64_t> st = strides_of(x.shape());
    AxisMaps maps(R);
    for (size_t k = 0; k < R; ++k) {
      maps[k].assign(size_t(out[k]), 0);
      if (k < R - r) continue;
      size_t a = k - (R - r);
      if (x.shape()[a] == 1) continue;
      for (int64_t i = 0; i < out[k]; ++i) maps[k][size_t(i)] = i * st[a];
    }
    copy_by_axis_maps(x, y, maps, nullptr, ctx.thread_pool());
  }

 private:
  ep::OpShape shape_;
};

// Tile-1 takes a scalar count and the axis it applies to (of the input's
// type, so not a shape input its schema could read); from opset 6 the output
// shape is the schema's rule.
class TileKernel : public OpKernel {
 public:
  explicit TileKernel(const KernelInfo& info)
      : v1_(info.opset() < 6), shape_(v1_ ? std::nullopt : std::optional<ep::OpShape>(info)) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    size_t r = x.rank();
    std::vector<int64_t> dims;
    if (v1_) {
      auto tiles = read_ints(ctx.required_input(1));
      auto axis = read_ints(ctx.required_input(2));
      if (tiles.size() != 1 || axis.size() != 1) ctx.fail_node("tiles and axis must be scalars");
      int64_t a = axis[0] < 0 ? axis[0] + int64_t(r) : axis[0];
      if (a < 0 || a >= int64_t(r))
        ctx.fail_node("axis ", axis[0], " is out of range for input of shape ",
                      x.shape().to_string());
      if (tiles[0] < 0) ctx.fail_node("tiles ", tiles[0], " is negative");
      dims = x.shape().dims();
      dims[size_t(a)] *= tiles[0];
    } else {
      dims = shape_->output(ctx, {&x, &ctx.required_input(1)}).dims();
    }
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    if (y.num_elements() == 0) return;
    std::vector<int64_t> st = strides_of(x.shape());
    AxisMaps maps(r);
    for (size_t k = 0; k < r; ++k) {
      maps[k].resize(size_t(dims[k]));
      for (int64_t i = 0; i < dims[k]; ++i) maps[k][size_t(i)] = (i % x.shape()[k]) * st[k];
    }
    copy_by_axis_maps(x, y, maps, nullptr, ctx.thread_pool());
  }

 private:
  bool v1_;
  std::optional<ep::OpShape> shape_;
};

}  // namespace

void register_expand_tile_kernels(ep::KernelRegistry& r) {
  TypeConstraint all{"T", {0}, types::kAll};
  TypeConstraint i64{"T1", {1}, {DataType::kInt64}};
  r.add<ExpandKernel>({"", "Expand", 8, ep::kOpsetMax, {all, i64}});
  r.add<TileKernel>({"", "Tile", 1, ep::kOpsetMax, {all}});
}

}  // namespace tessera::cpu
