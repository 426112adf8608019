// Kernels that make tensors from attributes or small inputs: Constant,
// ConstantOfShape, Range, EyeLike, OneHot.
#include <cmath>
#include <cstdint>

#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
using ep::TypeConstraint;
namespace types = ep::types;

// The value is built once, at kernel creation; every run hands out the same buffer.
class ConstantKernel : public OpKernel {
 public:
  explicit ConstantKernel(const KernelInfo& info) {
    const ir::Node& n = info.node();
    if (n.attributes.size() != 1)
      info.fail_node("needs exactly one value attribute, has ", n.attributes.size());
    const ir::Attribute& a = n.attributes[0];
    if (a.name == "value" || a.name == "sparse_value") {
      value_ = a.t;
    } else if (a.name == "value_float") {
      value_ = Tensor::scalar<float>(info.attr_float("value_float"));
    } else if (a.name == "value_floats") {
      auto v = info.attr_floats("value_floats");
      value_ = Tensor::from_vector<float>(v, Shape{int64_t(v.size())});
    } else if (a.name == "value_int") {
      value_ = Tensor::scalar<int64_t>(info.attr_int("value_int"));
    } else if (a.name == "value_ints") {
      auto v = info.attr_ints("value_ints");
      value_ = Tensor::from_vector<int64_t>(v, Shape{int64_t(v.size())});
    } else if (a.name == "value_string") {
      value_ = Tensor::scalar<std::string>(info.attr_string("value_string"));
    } else if (a.name == "value_strings") {
      auto v = info.attr_strings("value_strings");
      value_ = Tensor::from_vector<std::string>(v, Shape{int64_t(v.size())});
    } else {
      info.fail_node("unknown attribute '", a.name, "'");
    }
    if (!value_.defined()) info.fail_node("attribute '", a.name, "' holds no tensor");
  }
  void compute(KernelContext& ctx) const override { ctx.set_output(0, Value(value_)); }

 private:
  Tensor value_;
};

class ConstantOfShapeKernel : public OpKernel {
 public:
  explicit ConstantOfShapeKernel(const KernelInfo& info) {
    const Tensor* v = info.attr_tensor("value");
    if (v) {
      if (v->num_elements() != 1)
        info.fail_node("value must hold one element, has ", v->description());
      value_ = *v;
    } else {
      value_ = make_scalar(DataType::kFloat, 0.0);
    }
  }
  void compute(KernelContext& ctx) const override {
    std::vector<int64_t> dims = read_ints(ctx.required_input(0));
    for (int64_t d : dims)
      if (d < 0) ctx.fail_node("shape ", Shape(dims).to_string(), " has a negative dimension");
    Tensor& y = ctx.output(0, Shape(dims), value_.dtype());
    fill_elems(y, value_);
  }

 private:
  Tensor value_;
};

class RangeKernel : public OpKernel {
 public:
  explicit RangeKernel(const KernelInfo&) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& s = ctx.required_input(0);
    const Tensor& l = ctx.required_input(1);
    const Tensor& d = ctx.required_input(2);
    if (s.num_elements() != 1 || l.num_elements() != 1 || d.num_elements() != 1)
      ctx.fail_node("start, limit and delta must be scalars, got ", s.description(), ", ",
                    l.description(), ", ", d.description());
    DataType t = s.dtype();
    if (is_integer_type(t)) {
      int64_t a = s.element_as_int64(0), b = l.element_as_int64(0), st = d.element_as_int64(0);
      if (st == 0) ctx.fail_node("delta is 0");
      // In 128 bits: the span of two int64 values, and i * delta on the way
      // to a value inside it, may not fit in 64.
      using Wide = __int128;
      const Wide span = st > 0 ? Wide(b) - a : Wide(a) - b, step = st > 0 ? Wide(st) : -Wide(st);
      const Wide count = span > 0 ? (span + step - 1) / step : 0;
      if (count > INT64_MAX) ctx.fail_node("the range from ", a, " to ", b, " has too many values");
      const int64_t n = int64_t(count);
      Tensor& y = ctx.output(0, Shape{n}, t);
      dispatch_numeric(t, "Range", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = y.mutable_data<T>();
        for (int64_t i = 0; i < n; ++i) p[i] = T(int64_t(Wide(a) + Wide(i) * st));
      });
      return;
    }
    double a = s.element_as_double(0), b = l.element_as_double(0), st = d.element_as_double(0);
    if (st == 0) ctx.fail_node("delta is 0");
    double count = std::ceil((b - a) / st);
    if (!(count < 1e12)) count = count > 0 ? 1e12 : 0;  // NaN/inf guard; allocation checks the rest
    int64_t n = count > 0 ? int64_t(count) : 0;
    Tensor& y = ctx.output(0, Shape{n}, t);
    dispatch_numeric(t, "Range", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = y.mutable_data<T>();
      for (int64_t i = 0; i < n; ++i) p[i] = T(Acc<T>(a + double(i) * st));
    });
  }
};

class EyeLikeKernel : public OpKernel {
 public:
  explicit EyeLikeKernel(const KernelInfo& info)
      : k_(info.attr_int("k", 0)),
        dtype_(info.has_attr("dtype") ? DataType(info.attr_int("dtype")) : DataType::kUndefined) {
    if (info.has_attr("dtype") && !is_valid_data_type(int32_t(info.attr_int("dtype"))))
      info.fail_node("invalid dtype ", info.attr_int("dtype"));
  }
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() != 2) ctx.fail_node("expected a 2-D input, got shape ", x.shape().to_string());
    DataType t = dtype_ == DataType::kUndefined ? x.dtype() : dtype_;
    Tensor& y = ctx.output(0, x.shape(), t);
    fill_elems(y, make_scalar(t, 0.0));
    Tensor one = make_scalar(t, 1.0);
    int64_t rows = x.shape()[0], cols = x.shape()[1];
    for (int64_t i = 0; i < rows; ++i) {
      int64_t j = i + k_;
      if (j >= 0 && j < cols) copy_elems(one, 0, y, i * cols + j, 1);
    }
  }

 private:
  int64_t k_;
  DataType dtype_;
};

// Indices outside [-depth, depth-1] give an all-off row, as the spec says.
class OneHotKernel : public OpKernel {
 public:
  explicit OneHotKernel(const KernelInfo& info) : axis_(info.attr_int("axis", -1)) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& ind = ctx.required_input(0);
    const Tensor& dep = ctx.required_input(1);
    const Tensor& vals = ctx.required_input(2);
    if (dep.num_elements() != 1) ctx.fail_node("depth must be a scalar, got ", dep.description());
    if (vals.num_elements() != 2)
      ctx.fail_node("values must hold [off, on], got ", vals.description());
    int64_t depth = int64_t(dep.element_as_double(0));
    if (depth < 1) ctx.fail_node("depth must be positive, got ", depth);
    int64_t r = int64_t(ind.rank()) + 1;
    if (axis_ < -r || axis_ >= r)
      ctx.fail_node("axis ", axis_, " is out of range for output rank ", r);
    size_t axis = size_t(axis_ < 0 ? axis_ + r : axis_);
    std::vector<int64_t> dims = ind.shape().dims();
    dims.insert(dims.begin() + int64_t(axis), depth);
    Tensor& y = ctx.output(0, Shape(dims), vals.dtype());
    if (y.num_elements() == 0) return;
    Tensor off(vals.dtype(), Shape{});
    copy_elems(vals, 0, off, 0, 1);
    fill_elems(y, off);
    std::vector<int64_t> idx = read_ints(ind);
    int64_t outer = ind.shape().size_to(axis), inner = ind.shape().size_from(axis);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t v = idx[size_t(o * inner + i)];
        if (v < -depth || v >= depth) continue;
        if (v < 0) v += depth;
        copy_elems(vals, 1, y, (o * depth + v) * inner + i, 1);
      }
  }

 private:
  int64_t axis_;
};

}  // namespace

void register_generator_kernels(ep::KernelRegistry& r) {
  r.add<ConstantKernel>({"", "Constant", 1, ep::kOpsetMax, {}});
  r.add<ConstantOfShapeKernel>(
      {"", "ConstantOfShape", 9, ep::kOpsetMax, {{"T1", {0}, {DataType::kInt64}}}});
  r.add<RangeKernel>({"",
                      "Range",
                      11,
                      ep::kOpsetMax,
                      {{"T",
                        {0, 1, 2},
                        {DataType::kFloat, DataType::kDouble, DataType::kInt16, DataType::kInt32,
                         DataType::kInt64, DataType::kFloat16, DataType::kBFloat16}}}});
  std::vector<DataType> eye = types::join({types::kNumeric, {DataType::kBool}});
  r.add<EyeLikeKernel>({"", "EyeLike", 9, ep::kOpsetMax, {{"T1", {0}, eye}}});
  r.add<OneHotKernel>(
      {"",
       "OneHot",
       9,
       ep::kOpsetMax,
       {{"T1", {0}, types::kNumeric}, {"T2", {1}, types::kNumeric}, {"T3", {2}, byte_types()}}});
}

}  // namespace tessera::cpu
