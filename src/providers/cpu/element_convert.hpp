// Element conversion between storage types and the compute type, written
// once for the CPU kernel families that compute in float or double whatever
// the tensor holds (random, signal, quant, recurrent, loss, extras, ...): one
// switch on DataType calling a generic lambda with a typed null pointer as the
// type tag, and the per-element conversions that treat half types and bool
// alike everywhere.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/data_type.hpp"
#include "core/error.hpp"
#include "core/float16.hpp"

namespace tessera::cpu {

// Calls fn(static_cast<T*>(nullptr)) for the C++ type T of `t`; returns false
// (calling nothing) when `t` is not a real numeric type or bool.
template <typename Fn>
bool dispatch_real(DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kFloat:
      fn(static_cast<float*>(nullptr));
      return true;
    case DataType::kDouble:
      fn(static_cast<double*>(nullptr));
      return true;
    case DataType::kFloat16:
      fn(static_cast<Float16*>(nullptr));
      return true;
    case DataType::kBFloat16:
      fn(static_cast<BFloat16*>(nullptr));
      return true;
    case DataType::kInt8:
      fn(static_cast<int8_t*>(nullptr));
      return true;
    case DataType::kInt16:
      fn(static_cast<int16_t*>(nullptr));
      return true;
    case DataType::kInt32:
      fn(static_cast<int32_t*>(nullptr));
      return true;
    case DataType::kInt64:
      fn(static_cast<int64_t*>(nullptr));
      return true;
    case DataType::kUInt8:
      fn(static_cast<uint8_t*>(nullptr));
      return true;
    case DataType::kUInt16:
      fn(static_cast<uint16_t*>(nullptr));
      return true;
    case DataType::kUInt32:
      fn(static_cast<uint32_t*>(nullptr));
      return true;
    case DataType::kUInt64:
      fn(static_cast<uint64_t*>(nullptr));
      return true;
    case DataType::kBool:
      fn(static_cast<bool*>(nullptr));
      return true;
    default:
      return false;
  }
}

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// One element from type From to type To: half types go through float, a bool
// target means "non-zero" (NaN included). Integer targets are a plain cast:
// callers that can see out-of-range values clamp first.
template <typename To, typename From>
inline To convert_elem(From v) {
  if constexpr (std::is_same_v<To, bool> && is_half_v<From>)
    return static_cast<float>(v) != 0.0f;
  else if constexpr (std::is_same_v<To, bool>)
    return v != From(0);
  else if constexpr (is_half_v<From> || is_half_v<To>)
    return To(static_cast<float>(v));
  else
    return static_cast<To>(v);
}

// double -> element type, and back.
template <typename T>
inline T from_double(double v) {
  return convert_elem<T>(v);
}
template <typename T>
inline double to_double(T v) {
  return convert_elem<double>(v);
}

}  // namespace tessera::cpu
