// Kernels that only change a tensor's shape (or read it): the output shares
// the input's buffer, so they cost nothing but the new Shape.
#include "ep/view_kernels.hpp"

#include <algorithm>
#include <type_traits>

#include "core/tensor_ints.hpp"
#include "ops/shape_rules.hpp"

namespace tessera::ep {

namespace {

class ReshapeKernel : public OpKernel {
 public:
  explicit ReshapeKernel(const KernelInfo& info)
      : from_attr_(info.opset() < 5),
        shape_attr_(info.attr_ints("shape")),
        allowzero_(info.attr_int("allowzero", 0) != 0) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<int64_t> spec = from_attr_ ? shape_attr_ : read_ints(ctx.required_input(1));
    ctx.set_output(0, Value(x.reshaped(ops::reshape_shape(x.shape(), spec, allowzero_))));
  }

 private:
  bool from_attr_;
  std::vector<int64_t> shape_attr_;
  bool allowzero_;
};

class FlattenKernel : public OpKernel {
 public:
  explicit FlattenKernel(const KernelInfo& info) : axis_(info.attr_int("axis", 1)) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    int64_t r = int64_t(x.rank());
    int64_t axis = axis_ < 0 ? axis_ + r : axis_;
    if (axis < 0 || axis > r)
      ctx.fail_node("axis ", axis_, " is out of range for input of shape ", x.shape().to_string());
    Shape out{x.shape().size_to(size_t(axis)), x.shape().size_from(size_t(axis))};
    ctx.set_output(0, Value(x.reshaped(out)));
  }

 private:
  int64_t axis_;
};

// Squeeze and Unsqueeze: axes from the attribute before opset 13, from input 1 after.
std::vector<int64_t> axes_of(const KernelContext& ctx, bool from_attr,
                             const std::vector<int64_t>& attr, bool* given) {
  if (from_attr) {
    *given = !attr.empty();
    return attr;
  }
  const Tensor* t = ctx.input(1);
  *given = t != nullptr;
  return t ? read_ints(*t) : std::vector<int64_t>{};
}

class SqueezeKernel : public OpKernel {
 public:
  explicit SqueezeKernel(const KernelInfo& info)
      : from_attr_(info.opset() < 13), axes_attr_(info.attr_ints("axes")) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    bool given = false;
    auto axes = axes_of(ctx, from_attr_, axes_attr_, &given);
    int64_t r = int64_t(x.rank());
    std::vector<bool> drop(static_cast<size_t>(r), false);
    if (!given) {
      for (int64_t k = 0; k < r; ++k) drop[size_t(k)] = x.shape()[size_t(k)] == 1;
    } else {
      for (int64_t a : axes) {
        if (a < -r || a >= r)
          ctx.fail_node("axis ", a, " is out of range for input of shape ", x.shape().to_string());
        int64_t k = a < 0 ? a + r : a;
        if (x.shape()[size_t(k)] != 1)
          ctx.fail_node("cannot squeeze axis ", a, " of shape ", x.shape().to_string(),
                        ": its size is not 1");
        drop[size_t(k)] = true;
      }
    }
    std::vector<int64_t> dims;
    for (int64_t k = 0; k < r; ++k)
      if (!drop[size_t(k)]) dims.push_back(x.shape()[size_t(k)]);
    ctx.set_output(0, Value(x.reshaped(Shape(dims))));
  }

 private:
  bool from_attr_;
  std::vector<int64_t> axes_attr_;
};

class UnsqueezeKernel : public OpKernel {
 public:
  explicit UnsqueezeKernel(const KernelInfo& info)
      : from_attr_(info.opset() < 13), axes_attr_(info.attr_ints("axes")) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    bool given = false;
    auto axes = axes_of(ctx, from_attr_, axes_attr_, &given);
    if (!given) ctx.fail_node("axes are required");
    int64_t out_rank = int64_t(x.rank() + axes.size());
    std::vector<bool> inserted(size_t(out_rank), false);
    for (int64_t a : axes) {
      if (a < -out_rank || a >= out_rank)
        ctx.fail_node("axis ", a, " is out of range for output rank ", out_rank, " (input shape ",
                      x.shape().to_string(), ")");
      int64_t k = a < 0 ? a + out_rank : a;
      if (inserted[size_t(k)]) ctx.fail_node("axis ", a, " is repeated");
      inserted[size_t(k)] = true;
    }
    std::vector<int64_t> dims;
    size_t src = 0;
    for (int64_t k = 0; k < out_rank; ++k)
      dims.push_back(inserted[size_t(k)] ? 1 : x.shape()[src++]);
    ctx.set_output(0, Value(x.reshaped(Shape(dims))));
  }

 private:
  bool from_attr_;
  std::vector<int64_t> axes_attr_;
};

// Passes any value through: tensors, sequences, optionals (empty or not).
class IdentityKernel : public OpKernel {
 public:
  explicit IdentityKernel(const KernelInfo&) {}
  void compute(KernelContext& ctx) const override {
    const Value* v = ctx.input_value(0);
    ctx.set_output(0, v ? *v : Value());
  }
};

class ShapeKernel : public OpKernel {
 public:
  explicit ShapeKernel(const KernelInfo& info)
      : start_(info.attr_int("start", 0)),
        end_(info.has_attr("end") ? info.attr_int("end") : INT64_MAX) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    int64_t r = int64_t(x.rank());
    auto clampi = [r](int64_t v) {
      if (v < 0) v += r;
      return std::clamp<int64_t>(v, 0, r);
    };
    int64_t b = clampi(start_), e = clampi(end_);
    int64_t n = std::max<int64_t>(0, e - b);
    Tensor& y = ctx.output(0, Shape{n}, DataType::kInt64);
    auto* d = y.mutable_data<int64_t>();
    for (int64_t i = 0; i < n; ++i) d[i] = x.shape()[size_t(b + i)];
  }

 private:
  int64_t start_, end_;
};

class SizeKernel : public OpKernel {
 public:
  explicit SizeKernel(const KernelInfo&) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    ctx.output(0, Shape{}, DataType::kInt64).mutable_data<int64_t>()[0] = x.num_elements();
  }
};

}  // namespace

std::vector<KernelRegistry::Entry> view_kernels(bool device) {
  TypeConstraint all{"T", {0}, types::kAll};
  TypeConstraint i64{"T1", {1}, {DataType::kInt64}};
  // On a device, the shapes and axes these read and the dims Shape and Size
  // write are host values (KernelDef::host_inputs / host_outputs).
  const std::vector<int> in1 = device ? std::vector<int>{1} : std::vector<int>{};
  const std::vector<int> out0 = device ? std::vector<int>{0} : std::vector<int>{};
  auto make = [](auto tag) -> KernelFactory {
    using K = typename decltype(tag)::type;
    return [](const KernelInfo& info) { return std::make_unique<K>(info); };
  };
  return {
      {{"", "Reshape", 1, 4, {all}}, make(std::type_identity<ReshapeKernel>())},
      {{"", "Reshape", 5, kOpsetMax, {all, i64}, in1}, make(std::type_identity<ReshapeKernel>())},
      {{"", "Flatten", 1, kOpsetMax, {all}}, make(std::type_identity<FlattenKernel>())},
      {{"", "Squeeze", 1, kOpsetMax, {all, i64}, in1}, make(std::type_identity<SqueezeKernel>())},
      {{"", "Unsqueeze", 1, kOpsetMax, {all, i64}, in1},
       make(std::type_identity<UnsqueezeKernel>())},
      {{"", "Identity", 1, kOpsetMax, {all}}, make(std::type_identity<IdentityKernel>())},
      {{"", "Shape", 1, kOpsetMax, {all}, {}, out0}, make(std::type_identity<ShapeKernel>())},
      {{"", "Size", 1, kOpsetMax, {all}, {}, out0}, make(std::type_identity<SizeKernel>())},
  };
}

}  // namespace tessera::ep
