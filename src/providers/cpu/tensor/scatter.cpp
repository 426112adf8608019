// ScatterND, ScatterElements and the older Scatter: copy data, then write
// (or reduce) updates at checked positions, in index order, so with
// reduction "none" the last duplicate wins.
#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
using ep::TypeConstraint;
namespace types = ep::types;

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Reduction parse_reduction(const KernelInfo& info) {
  std::string s = info.attr_string("reduction", "none");
  if (s == "none") return Reduction::kNone;
  if (s == "add") return Reduction::kAdd;
  if (s == "mul") return Reduction::kMul;
  if (s == "max" && info.opset() >= 18) return Reduction::kMax;
  if (s == "min" && info.opset() >= 18) return Reduction::kMin;
  info.fail_node("unknown reduction '", s, "' for opset ", info.opset());
}

template <typename T>
T combine(T a, T b, Reduction r) {
  if constexpr (std::is_same_v<T, bool>) {
    return (r == Reduction::kAdd || r == Reduction::kMax) ? (a || b) : (a && b);
  } else {
    using A = Acc<T>;
    A x = A(a), y = A(b);
    switch (r) {
      case Reduction::kAdd:
        return T(x + y);
      case Reduction::kMul:
        return T(x * y);
      case Reduction::kMax:
        return T(x > y ? x : y);
      case Reduction::kMin:
        return T(x < y ? x : y);
      default:
        return b;
    }
  }
}

// y (already a copy of data) gets updates[i*slice .. +slice] at offsets[i].
void apply_updates(const KernelContext& ctx, const Tensor& updates, Tensor& y,
                   const std::vector<int64_t>& offsets, int64_t slice, Reduction red) {
  if (red == Reduction::kNone) {
    for (size_t i = 0; i < offsets.size(); ++i)
      copy_elems(updates, int64_t(i) * slice, y, offsets[i], slice);
    return;
  }
  std::string what = ctx.node().describe() + " reduction";
  dispatch_numeric(y.dtype(), what.c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* u = updates.data<T>();
    T* d = y.mutable_data<T>();
    for (size_t i = 0; i < offsets.size(); ++i)
      for (int64_t j = 0; j < slice; ++j)
        d[offsets[i] + j] = combine<T>(d[offsets[i] + j], u[int64_t(i) * slice + j], red);
  });
}

class ScatterNDKernel : public OpKernel {
 public:
  explicit ScatterNDKernel(const KernelInfo& info) : red_(parse_reduction(info)) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& it = ctx.required_input(1);
    const Tensor& up = ctx.required_input(2);
    const Shape& ds = x.shape();
    const Shape& is = it.shape();
    int64_t r = int64_t(ds.rank()), q = int64_t(is.rank());
    int64_t k = q >= 1 ? is[size_t(q - 1)] : -1;
    if (q < 1 || k < 1 || k > r)
      ctx.fail_node("indices of shape ", is.to_string(), " do not suit data of shape ",
                    ds.to_string());
    std::vector<int64_t> want(is.dims().begin(), is.dims().end() - 1);
    want.insert(want.end(), ds.dims().begin() + k, ds.dims().end());
    if (up.shape() != Shape(want) || up.dtype() != x.dtype())
      ctx.fail_node("updates ", up.description(), " should be ", data_type_name(x.dtype()),
                    Shape(want).to_string(), " for data ", x.description(), " and indices ",
                    is.to_string());
    std::vector<int64_t> idx = read_ints(it);
    std::vector<int64_t> xs = strides_of(ds);
    int64_t n = k ? int64_t(idx.size()) / k : 0;
    std::vector<int64_t> offs(static_cast<size_t>(n));
    for (int64_t t = 0; t < n; ++t) {
      int64_t off = 0;
      for (int64_t a = 0; a < k; ++a) {
        int64_t v = idx[size_t(t * k + a)], dim = ds[size_t(a)];
        if (v < -dim || v >= dim)
          ctx.fail_node("index ", v, " is out of range [", -dim, ", ", dim - 1, "] for axis ", a,
                        " of data shape ", ds.to_string());
        off += (v < 0 ? v + dim : v) * xs[size_t(a)];
      }
      offs[size_t(t)] = off;
    }
    Tensor& y = ctx.output(0, ds, x.dtype());
    copy_elems(x, 0, y, 0, x.num_elements());
    apply_updates(ctx, up, y, offs, ds.size_from(size_t(k)), red_);
  }

 private:
  Reduction red_;
};

// Calls fn(i, offset) for every element i of `idx` (of shape `is`), in order,
// with the offset in data (shape `ds`) it addresses along `axis`; an index
// out of range fails the node. The offset is stepped along the last axis
// rather than recomputed per element.
template <typename I, typename Fn>
void for_each_target(const KernelContext& ctx, const I* idx, const Shape& is, const Shape& ds,
                     size_t axis, const Fn& fn) {
  const size_t r = is.rank();
  const std::vector<int64_t> xs = strides_of(ds);
  const int64_t dim = ds[axis], inner = is[r - 1], rows = is.size_to(r - 1);
  const int64_t step = axis == r - 1 ? 0 : xs[r - 1];
  std::vector<int64_t> pos(r - 1, 0);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t base = 0;
    for (size_t k = 0; k + 1 < r; ++k)
      if (k != axis) base += pos[k] * xs[k];
    const I* ir = idx + row * inner;
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t v = int64_t(ir[j]);
      if (v < -dim || v >= dim)
        ctx.fail_node("index ", v, " is out of range [", -dim, ", ", dim - 1, "] for axis ", axis,
                      " of data shape ", ds.to_string());
      fn(row * inner + j, base + j * step + (v < 0 ? v + dim : v) * xs[axis]);
    }
    for (size_t k = r - 1; k-- > 0;) {
      if (++pos[k] < is[k]) break;
      pos[k] = 0;
    }
  }
}

class ScatterElementsKernel : public OpKernel {
 public:
  explicit ScatterElementsKernel(const KernelInfo& info)
      : axis_(info.attr_int("axis", 0)), red_(parse_reduction(info)) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& it = ctx.required_input(1);
    const Tensor& up = ctx.required_input(2);
    const Shape& ds = x.shape();
    int64_t r = int64_t(ds.rank());
    if (axis_ < -r || axis_ >= r)
      ctx.fail_node("axis ", axis_, " is out of range for data of shape ", ds.to_string());
    size_t axis = size_t(axis_ < 0 ? axis_ + r : axis_);
    bool ok = it.rank() == ds.rank() && up.shape() == it.shape() && up.dtype() == x.dtype();
    for (size_t k = 0; ok && k < ds.rank(); ++k) ok = k == axis || it.shape()[k] <= ds[k];
    if (!ok)
      ctx.fail_node("indices ", it.shape().to_string(), " and updates ", up.description(),
                    " do not suit data ", x.description());
    Tensor& y = ctx.output(0, ds, x.dtype());
    copy_elems(x, 0, y, 0, x.num_elements());
    if (it.num_elements() == 0) return;
    auto with_indices = [&](auto&& fn) {
      if (it.dtype() == DataType::kInt32)
        fn(it.data<int32_t>());
      else
        fn(it.data<int64_t>());
    };
    if (red_ == Reduction::kNone && !is_sub_byte_type(x.dtype())) {
      dispatch_storage(x.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* u = static_cast<const T*>(up.raw_data());
        T* d = static_cast<T*>(y.mutable_raw_data());
        with_indices([&](const auto* idx) {
          for_each_target(ctx, idx, it.shape(), ds, axis,
                          [&](int64_t i, int64_t off) { d[off] = u[i]; });
        });
      });
      return;
    }
    std::vector<int64_t> offs(size_t(it.num_elements()));
    with_indices([&](const auto* idx) {
      for_each_target(ctx, idx, it.shape(), ds, axis,
                      [&](int64_t i, int64_t off) { offs[size_t(i)] = off; });
    });
    apply_updates(ctx, up, y, offs, 1, red_);
  }

 private:
  int64_t axis_;
  Reduction red_;
};

}  // namespace

void register_scatter_kernels(ep::KernelRegistry& r) {
  TypeConstraint t{"T", {0, 2}, byte_types()};
  TypeConstraint ind{"Tind", {1}, {DataType::kInt32, DataType::kInt64}};
  r.add<ScatterNDKernel>(
      {"", "ScatterND", 11, ep::kOpsetMax, {t, {"Tind", {1}, {DataType::kInt64}}}});
  r.add<ScatterElementsKernel>({"", "ScatterElements", 11, ep::kOpsetMax, {t, ind}});
  r.add<ScatterElementsKernel>({"", "Scatter", 9, ep::kOpsetMax, {t, ind}});
}

}  // namespace tessera::cpu
