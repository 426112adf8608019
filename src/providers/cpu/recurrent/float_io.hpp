// Reading and writing float-family tensors (float, double, float16, bfloat16)
// through one compute type. Kernels of the recurrent, loss and extras families
// are written once over the compute type A (double for double tensors, float
// otherwise, as the house rule says half types compute in float); the element
// type only matters at load and store.
#pragma once
#include <cmath>
#include <vector>

#include "core/float16.hpp"
#include "core/tensor.hpp"
#include "linalg/half_convert.hpp"
#include "providers/cpu/element_convert.hpp"

namespace tessera::cpu {

inline bool is_float_family(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         t == DataType::kBFloat16;
}

[[noreturn]] inline void fail_not_float_family(DataType t) {
  fail(ErrorCode::kInvalidArgument, "expected a float, double, float16 or bfloat16 tensor, got ",
       data_type_name(t));
}

// Converts `n` elements of a float-family buffer of type `t` into `dst`.
template <typename A>
void load_float_elems(DataType t, const void* src, int64_t n, A* dst) {
  if (!is_float_family(t)) fail_not_float_family(t);
  if constexpr (std::is_same_v<A, float>) {  // the vector conversions
    if (t == DataType::kFloat16)
      return linalg::halves_to_floats(static_cast<const uint16_t*>(src), dst, n);
    if (t == DataType::kBFloat16)
      return linalg::bfloats_to_floats(static_cast<const uint16_t*>(src), dst, n);
  }
  dispatch_real(t, [&](auto* tag) {
    auto* p = static_cast<const std::remove_pointer_t<decltype(tag)>*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = convert_elem<A>(p[i]);
  });
}

template <typename A>
void store_float_elems(const A* src, int64_t n, DataType t, void* dst) {
  if (!is_float_family(t)) fail_not_float_family(t);
  if constexpr (std::is_same_v<A, float>) {
    if (t == DataType::kFloat16)
      return linalg::floats_to_halves(src, static_cast<uint16_t*>(dst), n);
    if (t == DataType::kBFloat16)
      return linalg::floats_to_bfloats(src, static_cast<uint16_t*>(dst), n);
  }
  dispatch_real(t, [&](auto* tag) {
    using E = std::remove_pointer_t<decltype(tag)>;
    auto* p = static_cast<E*>(dst);
    for (int64_t i = 0; i < n; ++i) p[i] = convert_elem<E>(src[i]);
  });
}

// The whole tensor in compute type A (copies; the kernels here are small-state).
template <typename A>
std::vector<A> load_float(const Tensor& t) {
  std::vector<A> out(static_cast<size_t>(t.num_elements()));
  load_float_elems<A>(t.dtype(), t.raw_data(), t.num_elements(), out.data());
  return out;
}

template <typename A>
void store_float(const std::vector<A>& src, Tensor& dst) {
  check(int64_t(src.size()) == dst.num_elements(), "store_float: ", src.size(), " values for ",
        dst.description());
  store_float_elems<A>(src.data(), dst.num_elements(), dst.dtype(), dst.mutable_raw_data());
}

// Calls fn(A{}) with A = double for double tensors and float otherwise.
template <typename Fn>
decltype(auto) with_compute_type(DataType t, Fn&& fn) {
  if (t == DataType::kDouble) return fn(double{});
  return fn(float{});
}

template <typename A>
inline A sigmoid(A x) {
  // Split by sign so exp never overflows.
  if (x >= A(0)) return A(1) / (A(1) + std::exp(-x));
  A e = std::exp(x);
  return e / (A(1) + e);
}

}  // namespace tessera::cpu
