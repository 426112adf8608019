// What math_ops.cu and binary_ops.cu share: the device type of each MathType,
// the type each computes in, and the host-side switch on the type.
#pragma once
#include <cstdint>
#include <type_traits>

#include "providers/cuda/device_math.cuh"
#include "providers/cuda/math_launch.hpp"

namespace tessera::cuda {

// A bool tensor's byte, kept apart from uint8_t so templates can tell them
// apart; any nonzero byte reads as true.
struct Bool8 {
  uint8_t v;
};

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <typename T>
constexpr bool kIsFloat = kIsHalf<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;
template <typename T>
constexpr bool kIsInt = std::is_integral_v<T>;

// The type arithmetic on T is done in: float for float16/bfloat16, else T.
template <typename T>
using Calc = std::conditional_t<kIsHalf<T>, float, T>;

template <typename T>
__device__ __forceinline__ Calc<T> load(T v) {
  if constexpr (kIsHalf<T>)
    return to_float(v);
  else
    return v;
}
template <typename T>
__device__ __forceinline__ T store(Calc<T> v) {
  if constexpr (kIsHalf<T>)
    return from_float<T>(v);
  else
    return v;
}

// Calls f(T()) with the device type of `t`; the caller returns
// cudaGetLastError() after it.
template <typename F>
void with_math_type(MathType t, F&& f) {
  switch (t) {
    case MathType::kF32:
      return f(float());
    case MathType::kF16:
      return f(__half());
    case MathType::kBF16:
      return f(__nv_bfloat16());
    case MathType::kF64:
      return f(double());
    case MathType::kI8:
      return f(int8_t());
    case MathType::kI16:
      return f(int16_t());
    case MathType::kI32:
      return f(int32_t());
    case MathType::kI64:
      return f(int64_t());
    case MathType::kU8:
      return f(uint8_t());
    case MathType::kU16:
      return f(uint16_t());
    case MathType::kU32:
      return f(uint32_t());
    case MathType::kU64:
      return f(uint64_t());
    case MathType::kBool:
      return f(Bool8());
  }
}

// Grid-stride loop bounds: every kernel here uses this many threads a block.
constexpr int kMathThreads = 256;

// The coordinates of output element i over the plan's dims.
struct Coords {
  int64_t c[kMaxElementRank];
};
__device__ __forceinline__ Coords coords(const ElementPlan& p, int64_t i) {
  Coords r;
  for (int d = p.rank - 1; d >= 0; --d) {
    r.c[d] = i % p.dims[d];
    i /= p.dims[d];
  }
  return r;
}
__device__ __forceinline__ int64_t offset(const ElementPlan& p, const Coords& c, int k) {
  int64_t o = 0;
  for (int d = 0; d < p.rank; ++d) o += c.c[d] * p.strides[k][d];
  return o;
}

}  // namespace tessera::cuda
