// Type dispatch for kernels that produce numbers computed in double (random
// generators, signal windows): one switch on DataType calling a generic
// lambda with a typed null pointer as the type tag.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/data_type.hpp"
#include "core/error.hpp"

namespace tessera::cpu {

// Calls fn(static_cast<T*>(nullptr)) for the C++ type T of `t`; returns false
// (calling nothing) when `t` is not a real numeric type or bool.
template <typename Fn>
bool dispatch_real(DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kFloat: fn(static_cast<float*>(nullptr)); return true;
    case DataType::kDouble: fn(static_cast<double*>(nullptr)); return true;
    case DataType::kFloat16: fn(static_cast<Float16*>(nullptr)); return true;
    case DataType::kBFloat16: fn(static_cast<BFloat16*>(nullptr)); return true;
    case DataType::kInt8: fn(static_cast<int8_t*>(nullptr)); return true;
    case DataType::kInt16: fn(static_cast<int16_t*>(nullptr)); return true;
    case DataType::kInt32: fn(static_cast<int32_t*>(nullptr)); return true;
    case DataType::kInt64: fn(static_cast<int64_t*>(nullptr)); return true;
    case DataType::kUInt8: fn(static_cast<uint8_t*>(nullptr)); return true;
    case DataType::kUInt16: fn(static_cast<uint16_t*>(nullptr)); return true;
    case DataType::kUInt32: fn(static_cast<uint32_t*>(nullptr)); return true;
    case DataType::kUInt64: fn(static_cast<uint64_t*>(nullptr)); return true;
    case DataType::kBool: fn(static_cast<bool*>(nullptr)); return true;
    default: return false;
  }
}

// double -> element type (half types round from float; bool is "non-zero").
template <typename T>
inline T from_double(double v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
    return T(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bool>)
    return v != 0.0;
  else
    return static_cast<T>(v);
}

// element type -> double.
template <typename T>
inline double to_double(T v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
    return double(static_cast<float>(v));
  else
    return static_cast<double>(v);
}

}  // namespace tessera::cpu
