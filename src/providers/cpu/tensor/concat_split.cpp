// Concat and Split: block copies along one axis (outer x [dim x inner]).
#include <algorithm>
#include <utility>

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

// Rows of at most this many elements (a stack along a new last axis joins
// single elements) are copied by concat_short_rows: one run per row and
// input cost far more to set up than to copy.
constexpr int64_t kShortRow = 16;

// Concat of short rows, written in output order: output row o is the o-th
// row of each input in turn. Split over the pool by output rows.
void concat_short_rows(const std::vector<const Tensor*>& ins, size_t axis, int64_t outer,
                       int64_t inner, int64_t out_row, Tensor& y, ThreadPool& pool) {
  dispatch_storage(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<std::pair<const T*, int64_t>> srcs;  // data, row length
    for (const Tensor* t : ins)
      srcs.emplace_back(static_cast<const T*>(t->raw_data()), t->shape()[axis] * inner);
    T* dst = static_cast<T*>(y.mutable_raw_data());
    pool.parallel_for(outer, double(out_row), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        T* d = dst + o * out_row;
        for (const auto& [src, row] : srcs) {
          const T* s = src + o * row;
          for (int64_t k = 0; k < row; ++k) d[k] = s[k];
          d += row;
        }
      }
    });
  });
}

// The output shape is the schema's rule, which checks the axis and the
// inputs' dims; the element types are checked here because a kernel may see
// inputs whose types were not known at session creation.
class ConcatKernel : public OpKernel {
 public:
  explicit ConcatKernel(const KernelInfo& info) : shape_(info) {}
  void compute(KernelContext& ctx) const override {
    std::vector<const Tensor*> ins;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      ins.push_back(&ctx.required_input(i));
      if (ins.back()->dtype() != ins[0]->dtype())
        ctx.fail_node("inputs have different types: ", ins[0]->description(), " and ",
                      ins.back()->description());
    }
    const Shape out = shape_.output(ctx, ins);
    const Shape& s0 = ins[0]->shape();
    const int64_t axis_attr = shape_.schema().attr_int(ctx.node(), "axis");
    const size_t axis = size_t(axis_attr < 0 ? axis_attr + int64_t(s0.rank()) : axis_attr);
    const std::vector<int64_t>& dims = out.dims();
    Tensor& y = ctx.output(0, out, ins[0]->dtype());
    int64_t outer = s0.size_to(axis), inner = s0.size_from(axis + 1);
    int64_t out_row = dims[axis] * inner;
    if (!is_sub_byte_type(y.dtype()) && y.dtype() != DataType::kString) {
      int64_t longest = 0;
      for (const Tensor* t : ins) longest = std::max(longest, t->shape()[axis] * inner);
      if (longest <= kShortRow) {
        concat_short_rows(ins, axis, outer, inner, out_row, y, ctx.thread_pool());
        return;
      }
    }
    // (input, outer row) runs; SqueezeNet's fire modules join two 55 x 55 x
    // 64 images, whose copy on one thread took longer than either
    // convolution's share (copy_runs).
    std::vector<CopyRun> runs;
    int64_t offset = 0;
    for (const Tensor* t : ins) {
      int64_t row = t->shape()[axis] * inner;
      for (int64_t o = 0; o < outer && row > 0; ++o)
        runs.push_back({t, o * row, &y, o * out_row + offset, row});
      offset += row;
    }
    copy_runs(runs, ctx.thread_pool());
  }

 private:
  ep::OpShape shape_;
};

// The parts' shapes are the schema's rule (sizes from the attribute or input
// 1, equal parts, or num_outputs).
class SplitKernel : public OpKernel {
 public:
  explicit SplitKernel(const KernelInfo& info) : shape_(info) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const ops::OutShapes parts = shape_.outputs(ctx, {&x, ctx.input(1)});
    const int64_t axis_attr = shape_.schema().attr_int(ctx.node(), "axis");
    const size_t axis = size_t(axis_attr < 0 ? axis_attr + int64_t(x.rank()) : axis_attr);
    const int64_t dim = x.shape()[axis];
    const int64_t outer = x.shape().size_to(axis), inner = x.shape().size_from(axis + 1);
    int64_t offset = 0;
    std::vector<CopyRun> runs;
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      if (i >= parts.size() || !parts[i]) ctx.fail_node("the shape of output ", i, " is not known");
      Tensor& y = ctx.output(i, *parts[i], x.dtype());
      const int64_t row = (*parts[i])[axis] * inner;
      for (int64_t o = 0; o < outer && row > 0 && ctx.has_output(i); ++o)
        runs.push_back({&x, o * dim * inner + offset, &y, o * row, row});
      offset += row;
    }
    copy_runs(runs, ctx.thread_pool());
  }

 private:
  ep::OpShape shape_;
};

}  // namespace

void register_concat_split_kernels(ep::KernelRegistry& r) {
  r.add<ConcatKernel>({"", "Concat", 1, ep::kOpsetMax, {{"T", {0}, types::kAll, true}}});
  r.add<SplitKernel>({"", "Split", 1, ep::kOpsetMax, {{"T", {0}, types::kAll}}});
}

}  // namespace tessera::cpu
