// SplitToSequence and ConcatFromSequence: tensors to sequences and back,
// along one axis. Both walk the tensor as [outer, axis, inner] blocks.
#include "ops/shape_rules.hpp"
#include "providers/cpu/sequence/sequence_kernels.hpp"

namespace tessera::cpu::seq {

namespace {

class SplitToSequenceKernel : public ep::OpKernel {
 public:
  explicit SplitToSequenceKernel(const ep::KernelInfo& info)
      : axis_(info.attr_int("axis", 0)), keepdims_(info.attr_int("keepdims", 1) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() == 0) ctx.fail_node("cannot split a scalar ", x.description());
    int64_t rank = int64_t(x.rank());
    if (axis_ < -rank || axis_ >= rank)
      ctx.fail_node("axis ", axis_, " is out of range for ", x.description());
    size_t axis = size_t(axis_ < 0 ? axis_ + rank : axis_);
    int64_t dim = x.shape()[axis];
    std::vector<int64_t> lengths;
    bool squeeze = false;
    const Tensor* split = ctx.input(1);
    if (!split) {
      lengths.assign(size_t(dim), 1);
      squeeze = !keepdims_;
    } else if (split->rank() == 0) {
      int64_t s = split->element_as_int64(0);
      if (s <= 0) ctx.fail_node("split must be positive, got ", s);
      for (int64_t at = 0; at < dim; at += s) lengths.push_back(std::min(s, dim - at));
    } else {
      if (split->rank() != 1)
        ctx.fail_node("split must be a scalar or 1-D, got ", split->description());
      // The same checks as Split's sizes: none negative, summing to the axis.
      // (An empty list splits only an empty axis; split_sizes would read it as
      // "equal parts" and divide by the count.)
      const std::vector<int64_t> sizes = split->to_int64_vector();
      if (sizes.empty() && dim != 0)
        ctx.fail_node("an empty split cannot cover axis ", axis, " of ", x.description());
      if (!sizes.empty())
        lengths = ops::split_sizes(x.shape(), axis, axis_, int64_t(sizes.size()), sizes, 18);
    }
    int64_t outer = x.shape().size_to(axis), inner = x.shape().size_from(axis + 1);
    Sequence items;
    items.reserve(lengths.size());
    int64_t start = 0;
    for (int64_t len : lengths) {
      std::vector<int64_t> dims = x.shape().dims();
      dims[axis] = len;
      if (squeeze) dims.erase(dims.begin() + int64_t(axis));
      Tensor part(x.dtype(), Shape(dims), ctx.allocator());
      for (int64_t o = 0; o < outer; ++o)
        copy_elems(x.dtype(), x.raw_data(), (o * dim + start) * inner, part.mutable_raw_data(),
                   o * len * inner, len * inner);
      items.emplace_back(std::move(part));
      start += len;
    }
    ctx.set_output(0, Value::sequence(std::move(items), x.dtype()));
  }

 private:
  int64_t axis_;
  bool keepdims_;
};

class ConcatFromSequenceKernel : public ep::OpKernel {
 public:
  explicit ConcatFromSequenceKernel(const ep::KernelInfo& info)
      : axis_(info.attr_int("axis")), new_axis_(info.attr_int("new_axis", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Value* v = ctx.input_value(0);
    if (!v || !v->is_sequence()) ctx.fail_node("input 0 must be a sequence");
    const Sequence& items = v->seq();
    if (items.empty()) ctx.fail_node("cannot concatenate an empty sequence");
    const Tensor& first = items[0].tensor();
    int64_t rank = int64_t(first.rank());
    int64_t out_rank = new_axis_ ? rank + 1 : rank;
    if (axis_ < -out_rank || axis_ >= out_rank)
      ctx.fail_node("axis ", axis_, " is out of range for ", new_axis_ ? "stacking " : "",
                    first.description(), " items");
    size_t axis = size_t(axis_ < 0 ? axis_ + out_rank : axis_);
    // Each item viewed as [outer, len, inner] along the concatenation axis.
    std::vector<int64_t> base = first.shape().dims();
    if (new_axis_) base.insert(base.begin() + int64_t(axis), 1);
    int64_t total = 0;
    std::vector<int64_t> lens;
    for (size_t k = 0; k < items.size(); ++k) {
      if (!items[k].is_tensor()) ctx.fail_node("sequence item ", k, " is not a tensor");
      const Tensor& t = items[k].tensor();
      std::vector<int64_t> d = t.shape().dims();
      if (new_axis_) d.insert(d.begin() + int64_t(axis), 1);
      bool ok = t.dtype() == first.dtype() && d.size() == base.size();
      for (size_t i = 0; ok && i < d.size(); ++i) ok = i == axis || d[i] == base[i];
      if (!ok)
        ctx.fail_node("sequence item ", k, " ", t.description(), " does not match item 0 ",
                      first.description(), " outside axis ", axis);
      lens.push_back(d[axis]);
      total += d[axis];
    }
    std::vector<int64_t> out_dims = base;
    out_dims[axis] = total;
    Shape out_shape(out_dims);
    Tensor& out = ctx.output(0, out_shape, first.dtype());
    int64_t outer = out_shape.size_to(axis), inner = out_shape.size_from(axis + 1);
    int64_t start = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      const Tensor& t = items[k].tensor();
      int64_t len = lens[k];
      for (int64_t o = 0; o < outer; ++o)
        copy_elems(t.dtype(), t.raw_data(), o * len * inner, out.mutable_raw_data(),
                   (o * total + start) * inner, len * inner);
      start += len;
    }
  }

 private:
  int64_t axis_;
  bool new_axis_;
};

}  // namespace

void register_split_concat(ep::KernelRegistry& r) {
  using ep::TypeConstraint;
  const std::vector<DataType> kIdx = {DataType::kInt32, DataType::kInt64};
  auto t24 = ep::types::join({sequence_elem_types(), {DataType::kBFloat16}});
  r.add<SplitToSequenceKernel>(
      {"",
       "SplitToSequence",
       11,
       23,
       {TypeConstraint{"T", {0}, sequence_elem_types()}, TypeConstraint{"I", {1}, kIdx}}});
  r.add<SplitToSequenceKernel>({"",
                                "SplitToSequence",
                                24,
                                ep::kOpsetMax,
                                {TypeConstraint{"T", {0}, t24}, TypeConstraint{"I", {1}, kIdx}}});
  r.add<ConcatFromSequenceKernel>({"", "ConcatFromSequence", 11, ep::kOpsetMax, {}});
}

}  // namespace tessera::cpu::seq
