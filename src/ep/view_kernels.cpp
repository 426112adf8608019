// Kernels that only change a tensor's shape (or read it): the output shares
// the input's buffer, so they cost nothing but the new Shape.
#include "ep/view_kernels.hpp"

#include <algorithm>
#include <type_traits>

#include "ep/op_shape.hpp"
#include "ops/shape_rules.hpp"

namespace tessera::ep {

namespace {

// Reshape, Flatten, Squeeze and Unsqueeze: the output shape is the op's
// schema rule's (axes and shapes from attributes or inputs, by opset).
class ReshapeLikeKernel : public OpKernel {
 public:
  explicit ReshapeLikeKernel(const KernelInfo& info) : shape_(info) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<const Tensor*> in = {&x};
    for (size_t i = 1; i < ctx.num_inputs(); ++i) in.push_back(ctx.input(i));
    ctx.set_output(0, Value(x.reshaped(shape_.output(ctx, in))));
  }

 private:
  OpShape shape_;
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
      : start_(ops::shape_start(ops::schema_of(info.node(), info.opset()), info.node())),
        end_(ops::shape_end(ops::schema_of(info.node(), info.opset()), info.node())) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const auto [b, e] = ops::shape_range(int64_t(x.rank()), start_, end_);
    Tensor& y = ctx.output(0, Shape{e - b}, DataType::kInt64);
    auto* d = y.mutable_data<int64_t>();
    for (int64_t i = b; i < e; ++i) d[i - b] = x.shape()[size_t(i)];
  }

 private:
  int64_t start_;
  std::optional<int64_t> end_;
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
      {{"", "Reshape", 1, 4, {all}}, make(std::type_identity<ReshapeLikeKernel>())},
      {{"", "Reshape", 5, kOpsetMax, {all, i64}, in1},
       make(std::type_identity<ReshapeLikeKernel>())},
      {{"", "Flatten", 1, kOpsetMax, {all}}, make(std::type_identity<ReshapeLikeKernel>())},
      {{"", "Squeeze", 1, kOpsetMax, {all, i64}, in1},
       make(std::type_identity<ReshapeLikeKernel>())},
      {{"", "Unsqueeze", 1, kOpsetMax, {all, i64}, in1},
       make(std::type_identity<ReshapeLikeKernel>())},
      {{"", "Identity", 1, kOpsetMax, {all}}, make(std::type_identity<IdentityKernel>())},
      {{"", "Shape", 1, kOpsetMax, {all}, {}, out0}, make(std::type_identity<ShapeKernel>())},
      {{"", "Size", 1, kOpsetMax, {all}, {}, out0}, make(std::type_identity<SizeKernel>())},
  };
}

}  // namespace tessera::ep
