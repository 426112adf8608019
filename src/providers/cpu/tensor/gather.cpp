// Gather, GatherElements and GatherND. Every index is checked (and negative
// ones wrapped) before any data moves, so a bad index is an error naming the
// node, the index and the valid range, never an out-of-bounds read.
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

// Wraps negative indices and checks the range [-dim, dim).
void normalize_indices(const KernelContext& ctx, std::vector<int64_t>& idx, int64_t dim,
                       const Shape& data_shape, int64_t axis) {
  for (int64_t& v : idx) {
    if (v < -dim || v >= dim)
      ctx.fail_node("index ", v, " is out of range [", -dim, ", ", dim - 1, "] for axis ", axis,
                    " of data shape ", data_shape.to_string());
    if (v < 0) v += dim;
  }
}

int64_t norm_axis(const KernelContext& ctx, int64_t axis, const Shape& s) {
  int64_t r = int64_t(s.rank());
  if (axis < -r || axis >= r)
    ctx.fail_node("axis ", axis, " is out of range for data of shape ", s.to_string());
  return axis < 0 ? axis + r : axis;
}

class GatherKernel : public OpKernel {
 public:
  explicit GatherKernel(const KernelInfo& info)
      : shape_(info), axis_(shape_.schema().attr_int(info.node(), "axis")) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& it = ctx.required_input(1);
    const Shape out = shape_.output(ctx, {&x, &it});  // checks axis
    const int64_t axis = axis_ < 0 ? axis_ + int64_t(x.rank()) : axis_;
    int64_t dim = x.shape()[size_t(axis)];
    std::vector<int64_t> idx = read_ints(it);
    normalize_indices(ctx, idx, dim, x.shape(), axis);
    Tensor& y = ctx.output(0, out, x.dtype());
    if (y.num_elements() == 0) return;
    int64_t outer = x.shape().size_to(size_t(axis)), inner = x.shape().size_from(size_t(axis) + 1);
    int64_t n = int64_t(idx.size());
    visit_storage(x, y, [&](const auto* s, auto* d) {
      ctx.thread_pool().parallel_for(outer * n, double(inner), [&](int64_t b, int64_t e) {
        for (int64_t job = b; job < e; ++job) {
          int64_t o = job / n, j = job % n;
          const auto* src = s + (o * dim + idx[size_t(j)]) * inner;
          std::copy(src, src + inner, d + job * inner);
        }
      });
    });
  }

 private:
  ep::OpShape shape_;
  int64_t axis_;
};

class GatherElementsKernel : public OpKernel {
 public:
  explicit GatherElementsKernel(const KernelInfo& info)
      : shape_(info), axis_(info.attr_int("axis", 0)) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& it = ctx.required_input(1);
    // The output is shaped like the indices, of the data's rank (the
    // schema's rule, which checks the ranks and the axis).
    const Shape out = shape_.output(ctx, {&x, &it});
    int64_t axis = norm_axis(ctx, axis_, x.shape());
    for (size_t k = 0; k < x.rank(); ++k)
      if (int64_t(k) != axis && it.shape()[k] > x.shape()[k])
        ctx.fail_node("indices of shape ", it.shape().to_string(), " exceed data of shape ",
                      x.shape().to_string(), " on axis ", k);
    std::vector<int64_t> idx = read_ints(it);
    normalize_indices(ctx, idx, x.shape()[size_t(axis)], x.shape(), axis);
    Tensor& y = ctx.output(0, out, x.dtype());
    if (y.num_elements() == 0) return;
    std::vector<int64_t> xs = strides_of(x.shape());
    const Shape& os = it.shape();
    size_t r = os.rank();
    visit_storage(x, y, [&](const auto* s, auto* d) {
      std::vector<int64_t> pos(r, 0);
      for (int64_t i = 0; i < y.num_elements(); ++i) {
        int64_t off = 0;
        for (size_t k = 0; k < r; ++k)
          off += (int64_t(k) == axis ? idx[size_t(i)] : pos[k]) * xs[k];
        d[i] = s[off];
        for (size_t k = r; k-- > 0;) {
          if (++pos[k] < os[k]) break;
          pos[k] = 0;
        }
      }
    });
  }

 private:
  ep::OpShape shape_;
  int64_t axis_;
};

class GatherNDKernel : public OpKernel {
 public:
  explicit GatherNDKernel(const KernelInfo& info)
      : shape_(info),
        batch_dims_(shape_.schema().attr_def("batch_dims")
                        ? shape_.schema().attr_int(info.node(), "batch_dims")
                        : 0) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& it = ctx.required_input(1);
    // The output shape (the schema's rule) also checks batch_dims, the
    // index depth and the batch dims against each other.
    const Shape out = shape_.output(ctx, {&x, &it});
    const Shape& ds = x.shape();
    const Shape& is = it.shape();
    const int64_t b = batch_dims_, m = is[is.rank() - 1];
    std::vector<int64_t> idx = read_ints(it);
    std::vector<int64_t> xs = strides_of(ds);
    int64_t batches = ds.size_to(size_t(b)), slice = ds.size_from(size_t(b + m));
    int64_t per_batch = is.size_from(size_t(b)) / m;  // index tuples per batch
    int64_t batch_stride = ds.size_from(size_t(b));
    std::vector<int64_t> offs(size_t(batches * per_batch));
    for (int64_t t = 0; t < int64_t(offs.size()); ++t) {
      int64_t off = (t / std::max<int64_t>(per_batch, 1)) * batch_stride;
      for (int64_t k = 0; k < m; ++k) {
        int64_t v = idx[size_t(t * m + k)], dim = ds[size_t(b + k)];
        if (v < -dim || v >= dim)
          ctx.fail_node("index ", v, " is out of range [", -dim, ", ", dim - 1, "] for axis ",
                        b + k, " of data shape ", ds.to_string());
        off += (v < 0 ? v + dim : v) * xs[size_t(b + k)];
      }
      offs[size_t(t)] = off;
    }
    Tensor& y = ctx.output(0, out, x.dtype());
    if (y.num_elements() == 0) return;
    visit_storage(x, y, [&](const auto* s, auto* d) {
      for (size_t t = 0; t < offs.size(); ++t)
        std::copy(s + offs[t], s + offs[t] + slice, d + int64_t(t) * slice);
    });
  }

 private:
  ep::OpShape shape_;
  int64_t batch_dims_;
};

}  // namespace

void register_gather_kernels(ep::KernelRegistry& r) {
  TypeConstraint all{"T", {0}, types::kAll};
  TypeConstraint ind{"Tind", {1}, {DataType::kInt32, DataType::kInt64}};
  r.add<GatherKernel>({"", "Gather", 1, ep::kOpsetMax, {all, ind}});
  r.add<GatherElementsKernel>({"", "GatherElements", 11, ep::kOpsetMax, {all, ind}});
  r.add<GatherNDKernel>(
      {"", "GatherND", 11, ep::kOpsetMax, {all, {"Tind", {1}, {DataType::kInt64}}}});
}

}  // namespace tessera::cpu
