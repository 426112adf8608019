// Device helpers shared by the .cu files: element loads/stores through float
// and block-wide reductions, and the host-side switch on the element type.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "providers/cuda/cuda_launch.hpp"

namespace tessera::cuda {

// Calls f(T()) with the element type `t` names, then returns the launches'
// cudaGetLastError(): the one type switch of every launcher.
template <typename F>
cudaError_t with_elem_type(ElemType t, F&& f) {
  switch (t) {
    case ElemType::kF32:
      f(float());
      break;
    case ElemType::kF16:
      f(__half());
      break;
    case ElemType::kBF16:
      f(__nv_bfloat16());
      break;
  }
  return cudaGetLastError();
}

// Calls f(T()) with the unsigned integer type of `elem_bytes` bytes (the
// kernels that only move elements), then returns cudaGetLastError().
template <typename F>
cudaError_t with_elem_bytes(int elem_bytes, F&& f) {
  switch (elem_bytes) {
    case 1:
      f(uint8_t());
      break;
    case 2:
      f(uint16_t());
      break;
    case 4:
      f(uint32_t());
      break;
    case 8:
      f(uint64_t());
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// Grid size for a grid-stride loop over n elements with `threads` per block.
inline unsigned grid_for(int64_t n, int threads) {
  int64_t blocks = (n + threads - 1) / threads;
  return unsigned(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return a > b ? a : b; }
  __device__ float identity() const { return -INFINITY; }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
  __device__ float identity() const { return 0.0f; }
};

// Reduces `v` over the 32 lanes of a warp; every lane gets the result.
template <typename Op>
__device__ __forceinline__ float warp_reduce(float v, Op op) {
  for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Reduces `v` over the whole block (blockDim.x a multiple of 32, at most
// 1024); every thread gets the result.
template <typename Op>
__device__ float block_reduce(float v, Op op) {
  __shared__ float partial[32];
  __shared__ float result;
  v = warp_reduce(v, op);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = blockDim.x / 32;
    const float w = warp_reduce(lane < warps ? partial[lane] : op.identity(), op);
    if (lane == 0) result = w;
  }
  __syncthreads();
  float r = result;
  __syncthreads();  // `result` and `partial` are reused by the next call
  return r;
}

}  // namespace tessera::cuda
