// Type dispatch and element helpers shared by the math and reduce kernels:
// one switch from a DataType to a template instantiation, the type kernels
// compute in (float for float16/bfloat16), and integer arithmetic that wraps
// instead of overflowing (signed overflow is undefined behaviour in C++).
#pragma once
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/data_type.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "ir/graph.hpp"

namespace tessera::cpu {

template <typename... Ts>
struct TypeList {};
template <typename T>
struct Tag {
  using type = T;
};

using FloatTypes = TypeList<float, double, Float16, BFloat16>;
using IntTypes = TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
using NumericTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                              uint8_t, uint16_t, uint32_t, uint64_t>;
using NumericBoolTypes =
    TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t,
             uint16_t, uint32_t, uint64_t, bool>;
using AllTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                          uint8_t, uint16_t, uint32_t, uint64_t, bool, std::string,
                          std::complex<float>, std::complex<double>>;

namespace detail {
inline const std::string& describe_what(const std::string& what) { return what; }
inline std::string describe_what(const ir::Node& node) { return node.describe(); }
}  // namespace detail

// Calls f(Tag<T>{}) for the T in `list` whose DataType is `dt`; throws naming
// `what` (a node, or a description) when the type is not in the list. Pass
// the node rather than its describe(): that builds a string, and a kernel
// would pay for it on every call (a tenth of a run of 200 small nodes).
template <typename... Ts, typename What, typename F>
void visit_type(TypeList<Ts...>, DataType dt, const What& what, F&& f) {
  bool done = ((dt == data_type_of<Ts>() ? (f(Tag<Ts>{}), true) : false) || ...);
  if (!done)
    fail(ErrorCode::kNotImplemented, detail::describe_what(what), ": element type ",
         data_type_name(dt), " is not supported");
}

template <typename T>
constexpr bool is_half_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool is_float_v = std::is_floating_point_v<T> || is_half_v<T>;

// The type arithmetic happens in: float for the 16-bit floats, T otherwise.
template <typename T>
using Compute = std::conditional_t<is_half_v<T>, float, T>;

template <typename T>
inline Compute<T> load(T v) {
  return static_cast<Compute<T>>(v);
}
template <typename T, typename C>
inline T store(C v) {
  if constexpr (is_half_v<T>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// Unsigned type used for wrapping arithmetic; at least 32 bits so that small
// types do not promote to (signed) int and overflow there.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <typename T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(WrapType<T>(a) + WrapType<T>(b));
  else
    return a + b;
}
template <typename T>
inline T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(WrapType<T>(a) - WrapType<T>(b));
  else
    return a - b;
}
template <typename T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(WrapType<T>(a) * WrapType<T>(b));
  else
    return a * b;
}
template <typename T>
inline T wrap_neg(T a) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(WrapType<T>(0) - WrapType<T>(a));
  else
    return -a;
}

// Float to integer without undefined behaviour: NaN gives 0, values inside
// int64's range truncate toward zero and then wrap to T's width (as numpy
// does), values beyond it saturate.
template <typename T>
inline T float_to_int(double v) {
  if (std::isnan(v)) return T(0);
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    if (v >= 18446744073709551616.0) return UINT64_MAX;
    if (v >= 9223372036854775808.0) return static_cast<uint64_t>(v);
    if (v < -9223372036854775808.0) return static_cast<uint64_t>(INT64_MIN);
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    if (v >= 9223372036854775808.0) return static_cast<T>(INT64_MAX);
    if (v < -9223372036854775808.0) return static_cast<T>(INT64_MIN);
    return static_cast<T>(static_cast<int64_t>(v));
  }
}

// Splits [0, n) over the pool when the loop is big enough to pay for it.
template <typename Fn>
void parallel_chunks(ThreadPool& pool, int64_t n, double cost_per_item, Fn&& fn) {
  if (n <= 0) return;
  if (double(n) * cost_per_item < 32768.0) {
    fn(int64_t(0), n);
    return;
  }
  pool.parallel_for(n, cost_per_item, [&](int64_t b, int64_t e) { fn(b, e); });
}

}  // namespace tessera::cpu
