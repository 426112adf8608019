// Optional, OptionalHasElement, OptionalGetElement. An optional holding a
// value is represented by the value itself; an empty optional is a Value of
// kind kNone (or an omitted input).
#include "providers/cpu/sequence/sequence_kernels.hpp"

namespace tessera::cpu::seq {

namespace {

bool has_element(const Value* v) { return v && !v->is_none(); }

class OptionalKernel : public ep::OpKernel {
 public:
  explicit OptionalKernel(const ep::KernelInfo& info) {
    if (!info.has_input(0) && !info.has_attr("type"))
      info.fail_node("an Optional without an input needs the 'type' attribute");
  }
  void compute(ep::KernelContext& ctx) const override {
    const Value* v = ctx.input_value(0);
    ctx.set_output(0, has_element(v) ? *v : Value());
  }
};

class OptionalHasElementKernel : public ep::OpKernel {
 public:
  explicit OptionalHasElementKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    bool has = ctx.num_inputs() > 0 && has_element(ctx.input_value(0));
    ctx.output(0, Shape{}, DataType::kBool).mutable_data<bool>()[0] = has;
  }
};

class OptionalGetElementKernel : public ep::OpKernel {
 public:
  explicit OptionalGetElementKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Value* v = ctx.input_value(0);
    if (!has_element(v)) ctx.fail_node("the optional input is empty; it has no element to get");
    ctx.set_output(0, *v);
  }
};

}  // namespace

void register_optional(ep::KernelRegistry& r) {
  using ep::TypeConstraint;
  // Only tensor inputs are checked here; sequence and optional-of-sequence
  // inputs reach the lookup without a tensor element type.
  const auto& V = sequence_elem_types();
  r.add<OptionalKernel>({"", "Optional", 15, ep::kOpsetMax, {TypeConstraint{"V", {0}, V}}});
  r.add<OptionalHasElementKernel>(
      {"", "OptionalHasElement", 15, 17, {TypeConstraint{"O", {0}, V}}});
  r.add<OptionalHasElementKernel>(
      {"", "OptionalHasElement", 18, ep::kOpsetMax, {TypeConstraint{"O", {0}, V}}});
  r.add<OptionalGetElementKernel>(
      {"", "OptionalGetElement", 15, 17, {TypeConstraint{"O", {0}, V}}});
  r.add<OptionalGetElementKernel>(
      {"", "OptionalGetElement", 18, ep::kOpsetMax, {TypeConstraint{"O", {0}, V}}});
}

}  // namespace tessera::cpu::seq
