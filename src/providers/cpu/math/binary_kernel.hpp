// One kernel class for every same-typed binary op: the op is a small functor
// (attributes parsed in its constructor, `apply<T>(a, b)` per element, the
// types it serves in `Types`, its output type in `Out<T>`).
#pragma once
#include <type_traits>

#include "ep/kernel.hpp"
#include "ep/op_shape.hpp"
#include "providers/cpu/math/elementwise.hpp"

namespace tessera::cpu {

inline void check_same_type(const ep::KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype())
    ctx.fail_node("inputs must have the same element type, got ", a.description(), " and ",
                  b.description());
}

template <typename Op, typename = void>
struct HasIntDivisor : std::false_type {};
template <typename Op>
struct HasIntDivisor<Op, std::void_t<decltype(Op::kIntDivisor)>> : std::true_type {};

template <typename Op>
class BinaryKernel final : public ep::OpKernel {
 public:
  explicit BinaryKernel(const ep::KernelInfo& info)
      : op_(info), legacy_(info), shape_(info), over_(info, {0, 1}) {}
  bool writes_over_input(size_t i) const override { return over_(i); }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    check_same_type(ctx, a, b);
    const Shape so = shape_.output(ctx, {&a, &b});
    const Shape sb = legacy_.align_b(a.shape(), b.shape());
    visit_type(typename Op::Types{}, a.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using R = typename Op::template Out<T>;
      const T* pb = b.data<T>();
      if constexpr (HasIntDivisor<Op>::value && std::is_integral_v<T>) {
        if (so.num_elements() > 0)
          for (int64_t i = 0, n = b.num_elements(); i < n; ++i)
            if (pb[i] == T(0))
              ctx.fail_node("integer division by zero (divisor ", b.description(),
                            " has a zero at flat index ", i, ")");
      }
      Tensor& out = output_over(ctx, so, data_type_of<R>(), {0, 1});
      const Op& op = op_;
      binary_broadcast(ctx.thread_pool(), a.data<T>(), a.shape(), pb, sb, out.mutable_data<R>(), so,
                       1.0, [&op](T x, T y) { return op.template apply<T>(x, y); });
    });
  }

 private:
  Op op_;
  LegacyBroadcast legacy_;
  ep::OpShape shape_;
  OverInputs over_;
};

}  // namespace tessera::cpu
