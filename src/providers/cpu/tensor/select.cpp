// Kernels that pick or reorder elements by a data-dependent rule: NonZero,
// Compress, ReverseSequence, Trilu.
#include <complex>

#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
using ep::TypeConstraint;
namespace types = ep::types;

// Flags of the elements that are not zero (not empty, for strings).
std::vector<bool> nonzero_flags(const Tensor& x) {
  std::vector<bool> f(size_t(x.num_elements()));
  DataType t = x.dtype();
  if (t == DataType::kString) {
    const auto* p = x.data<std::string>();
    for (size_t i = 0; i < f.size(); ++i) f[i] = !p[i].empty();
  } else if (t == DataType::kComplex64 || t == DataType::kComplex128) {
    for (size_t i = 0; i < f.size(); ++i) {
      auto c = t == DataType::kComplex64 ? std::complex<double>(x.data<std::complex<float>>()[i])
                                         : x.data<std::complex<double>>()[i];
      f[i] = c != std::complex<double>(0, 0);
    }
  } else if (is_float_type(t) && data_type_bits(t) <= 8) {
    for (size_t i = 0; i < f.size(); ++i) f[i] = x.element_as_double(int64_t(i)) != 0;
  } else {
    dispatch_numeric(t, "NonZero", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* p = x.data<T>();
      for (size_t i = 0; i < f.size(); ++i) f[i] = Acc<T>(p[i]) != Acc<T>(0);
    });
  }
  return f;
}

class NonZeroKernel : public OpKernel {
 public:
  explicit NonZeroKernel(const KernelInfo&) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<bool> f = nonzero_flags(x);
    int64_t nnz = 0;
    for (bool b : f) nnz += b;
    size_t r = x.rank();
    Tensor& y = ctx.output(0, Shape{int64_t(r), nnz}, DataType::kInt64);
    int64_t* d = y.mutable_data<int64_t>();
    std::vector<int64_t> pos(r, 0);
    int64_t j = 0;
    for (size_t i = 0; i < f.size(); ++i) {
      if (f[i]) {
        for (size_t k = 0; k < r; ++k) d[int64_t(k) * nnz + j] = pos[k];
        ++j;
      }
      for (size_t k = r; k-- > 0;) {
        if (++pos[k] < x.shape()[k]) break;
        pos[k] = 0;
      }
    }
  }
};

class CompressKernel : public OpKernel {
 public:
  explicit CompressKernel(const KernelInfo& info)
      : has_axis_(info.has_attr("axis")), axis_(info.attr_int("axis", 0)) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& c = ctx.required_input(1);
    if (c.rank() != 1) ctx.fail_node("condition must be 1-D, got ", c.description());
    const bool* cond = c.data<bool>();
    Tensor src = has_axis_ ? x : x.reshaped(Shape{x.num_elements()});
    int64_t r = int64_t(src.rank());
    if (axis_ < -r || axis_ >= r)
      ctx.fail_node("axis ", axis_, " is out of range for input of shape ", x.shape().to_string());
    size_t axis = has_axis_ ? size_t(axis_ < 0 ? axis_ + r : axis_) : 0;
    int64_t dim = src.shape()[axis];
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < c.num_elements(); ++i) {
      if (!cond[i]) continue;
      if (i >= dim)
        ctx.fail_node("condition ", c.description(), " selects index ", i,
                      " beyond axis size ", dim, " of shape ", src.shape().to_string());
      keep.push_back(i);
    }
    std::vector<int64_t> dims = src.shape().dims();
    dims[axis] = int64_t(keep.size());
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    int64_t outer = src.shape().size_to(axis), inner = src.shape().size_from(axis + 1);
    int64_t n = int64_t(keep.size());
    for (int64_t o = 0; o < outer && inner > 0; ++o)
      for (int64_t j = 0; j < n; ++j)
        copy_elems(src, (o * dim + keep[size_t(j)]) * inner, y, (o * n + j) * inner, inner);
  }

 private:
  bool has_axis_;
  int64_t axis_;
};

class ReverseSequenceKernel : public OpKernel {
 public:
  explicit ReverseSequenceKernel(const KernelInfo& info)
      : batch_axis_(info.attr_int("batch_axis", 1)), time_axis_(info.attr_int("time_axis", 0)) {
    if (!((batch_axis_ == 0 && time_axis_ == 1) || (batch_axis_ == 1 && time_axis_ == 0)))
      info.fail_node("batch_axis and time_axis must be 0 and 1 in some order, got ", batch_axis_,
                     " and ", time_axis_);
  }
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() < 2) ctx.fail_node("input must have rank >= 2, got ", x.shape().to_string());
    std::vector<int64_t> lens = read_ints(ctx.required_input(1));
    size_t ba = size_t(batch_axis_), ta = size_t(time_axis_);
    int64_t B = x.shape()[ba], T = x.shape()[ta];
    if (int64_t(lens.size()) != B)
      ctx.fail_node("sequence_lens has ", lens.size(), " entries for batch size ", B);
    for (int64_t L : lens)
      if (L < 0 || L > T)
        ctx.fail_node("sequence length ", L, " is out of range [0, ", T, "]");
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    int64_t inner = x.shape().size_from(2);
    std::vector<int64_t> st = strides_of(x.shape());
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < T; ++t) {
        int64_t from = t < lens[size_t(b)] ? lens[size_t(b)] - 1 - t : t;
        copy_elems(x, b * st[ba] + from * st[ta], y, b * st[ba] + t * st[ta], inner);
      }
  }

 private:
  int64_t batch_axis_, time_axis_;
};

class TriluKernel : public OpKernel {
 public:
  explicit TriluKernel(const KernelInfo& info) : upper_(info.attr_int("upper", 1) != 0) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() < 2) ctx.fail_node("input must have rank >= 2, got ", x.shape().to_string());
    int64_t k = 0;
    if (const Tensor* kt = ctx.input(1)) {
      if (kt->num_elements() != 1) ctx.fail_node("k must be a scalar, got ", kt->description());
      k = kt->element_as_int64(0);
    }
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    int64_t R = x.shape()[x.rank() - 2], C = x.shape()[x.rank() - 1];
    int64_t mats = R * C != 0 ? x.num_elements() / (R * C) : 0;
    visit_storage(x, y, [&](const auto* s, auto* d) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(d)>>;
      for (int64_t m = 0; m < mats; ++m)
        for (int64_t i = 0; i < R; ++i)
          for (int64_t j = 0; j < C; ++j) {
            int64_t o = (m * R + i) * C + j;
            bool keep = upper_ ? j - i >= k : j - i <= k;
            d[o] = keep ? s[o] : T{};
          }
    });
  }

 private:
  bool upper_;
};

}  // namespace

void register_select_kernels(ep::KernelRegistry& r) {
  TypeConstraint all{"T", {0}, types::kAll};
  TypeConstraint bytes{"T", {0}, byte_types()};
  r.add<NonZeroKernel>({"", "NonZero", 9, ep::kOpsetMax, {bytes}});
  r.add<CompressKernel>({"", "Compress", 9, ep::kOpsetMax, {all, {"T1", {1}, {DataType::kBool}}}});
  r.add<ReverseSequenceKernel>({"", "ReverseSequence", 10, ep::kOpsetMax,
                                {all, {"T1", {1}, {DataType::kInt64}}}});
  r.add<TriluKernel>({"", "Trilu", 14, ep::kOpsetMax, {bytes, {"T1", {1}, {DataType::kInt64}}}});
}

}  // namespace tessera::cpu
