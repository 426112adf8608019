// The computing kernels' element types (index_ops_launch.hpp's NumType) on
// the device: the type switch of their launchers, and the type each one's
// arithmetic is done in.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "providers/cuda/index_ops_launch.hpp"

namespace tessera::cuda {

template <typename F>
inline cudaError_t with_num_type(NumType t, F&& f) {
  switch (t) {
    case NumType::kF32:
      f(float());
      break;
    case NumType::kF16:
      f(__half());
      break;
    case NumType::kBF16:
      f(__nv_bfloat16());
      break;
    case NumType::kF64:
      f(double());
      break;
    case NumType::kI8:
      f(int8_t());
      break;
    case NumType::kU8:
      f(uint8_t());
      break;
    case NumType::kI16:
      f(int16_t());
      break;
    case NumType::kU16:
      f(uint16_t());
      break;
    case NumType::kI32:
      f(int32_t());
      break;
    case NumType::kU32:
      f(uint32_t());
      break;
    case NumType::kI64:
      f(int64_t());
      break;
    case NumType::kU64:
      f(uint64_t());
      break;
    case NumType::kBool:
      f(bool());
      break;
  }
  return cudaGetLastError();
}

// The type arithmetic on T is done in: float for the half types.
template <typename T>
struct Acc {
  using type = T;
  __device__ static T up(T v) { return v; }
  __device__ static T down(T v) { return v; }
};
template <>
struct Acc<__half> {
  using type = float;
  __device__ static float up(__half v) { return __half2float(v); }
  __device__ static __half down(float v) { return __float2half_rn(v); }
};
template <>
struct Acc<__nv_bfloat16> {
  using type = float;
  __device__ static float up(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 down(float v) { return __float2bfloat16_rn(v); }
};

}  // namespace tessera::cuda
