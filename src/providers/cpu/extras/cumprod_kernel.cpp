// CumProd (opset 26): cumulative product along the axis given as input 1,
// inclusive or exclusive, forward or reverse. Half types multiply in float;
// signed integers wrap like their unsigned counterparts (no UB on overflow).
#include <algorithm>
#include <type_traits>

#include "providers/cpu/extras/extras_kernels.hpp"

namespace tessera::cpu {

namespace {

template <typename T>
struct Acc {
  using type = T;
};
template <>
struct Acc<Float16> {
  using type = float;
};
template <>
struct Acc<BFloat16> {
  using type = float;
};
template <>
struct Acc<int32_t> {
  using type = uint32_t;
};
template <>
struct Acc<int64_t> {
  using type = uint64_t;
};

class CumProdKernel : public ep::OpKernel {
 public:
  explicit CumProdKernel(const ep::KernelInfo& info)
      : exclusive_(info.attr_int("exclusive", 0) != 0), reverse_(info.attr_int("reverse", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& axis_t = ctx.required_input(1);
    if (axis_t.num_elements() != 1)
      ctx.fail_node("axis must be a 0-D tensor, got ", axis_t.shape().to_string());
    if (axis_t.dtype() != DataType::kInt32 && axis_t.dtype() != DataType::kInt64)
      ctx.fail_node("axis must be int32 or int64, got ", data_type_name(axis_t.dtype()));
    int64_t rank = int64_t(x.rank());
    int64_t axis = axis_t.element_as_int64(0);
    if (axis < -std::max<int64_t>(rank, 1) || axis >= std::max<int64_t>(rank, 1))
      ctx.fail_node("axis ", axis, " is outside [-", rank, ", ", rank - 1, "] for input ",
                    x.shape().to_string());
    if (axis < 0) axis += rank;
    const int64_t outer = rank == 0 ? 1 : x.shape().size_to(size_t(axis));
    const int64_t len = rank == 0 ? 1 : x.shape()[size_t(axis)];
    const int64_t inner = rank == 0 ? 1 : x.shape().size_from(size_t(axis) + 1);
    Tensor& y = ctx.output(0, x.shape());
    switch (x.dtype()) {
      case DataType::kFloat: return run<float>(x, y, outer, len, inner);
      case DataType::kDouble: return run<double>(x, y, outer, len, inner);
      case DataType::kFloat16: return run<Float16>(x, y, outer, len, inner);
      case DataType::kBFloat16: return run<BFloat16>(x, y, outer, len, inner);
      case DataType::kInt32: return run<int32_t>(x, y, outer, len, inner);
      case DataType::kInt64: return run<int64_t>(x, y, outer, len, inner);
      case DataType::kUInt32: return run<uint32_t>(x, y, outer, len, inner);
      case DataType::kUInt64: return run<uint64_t>(x, y, outer, len, inner);
      default: ctx.fail_node("unsupported type ", data_type_name(x.dtype()));
    }
  }

 private:
  template <typename T>
  void run(const Tensor& x, Tensor& y, int64_t outer, int64_t len, int64_t inner) const {
    using A = typename Acc<T>::type;
    const T* in = x.data<T>();
    T* out = y.mutable_data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        A p = A(1);
        for (int64_t s = 0; s < len; ++s) {
          int64_t k = reverse_ ? len - 1 - s : s;
          int64_t idx = (o * len + k) * inner + i;
          A v;
          if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
            v = float(in[idx]);
          else
            v = A(in[idx]);
          if (!exclusive_) p = A(p * v);
          if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
            out[idx] = T(p);
          else
            out[idx] = static_cast<T>(p);
          if (exclusive_) p = A(p * v);
        }
      }
  }

  bool exclusive_, reverse_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_cumprod_kernel(const ep::KernelInfo& info) {
  return std::make_unique<CumProdKernel>(info);
}

}  // namespace tessera::cpu
