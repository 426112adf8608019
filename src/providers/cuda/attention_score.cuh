// Device helpers of the attention kernels. One attention score from its
// dot product, shared by the row kernel
// (attention.cu) and the tiled one (attention_tiled.cu), so both apply the
// scale, softcap, mask and causal/window rules the same way.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "providers/cuda/attention_plan.hpp"
#include "providers/cuda/device_math.cuh"

namespace tessera::cuda {

__device__ inline float mask_value(MaskKind kind, const void* mask, int64_t i) {
  switch (kind) {
    case MaskKind::kBool:
      // One byte per element; true (non-zero) attends.
      return static_cast<const unsigned char*>(mask)[i] != 0 ? 0.0f : -INFINITY;
    case MaskKind::kF32:
      return static_cast<const float*>(mask)[i];
    case MaskKind::kF16:
      return __half2float(static_cast<const __half*>(mask)[i]);
    case MaskKind::kBF16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(mask)[i]);
    default:
      return 0.0f;
  }
}

// The score of query i (0-based in its sequence) and key j: dot * scale,
// softcapped, plus the mask (read at mask_row + j * the key stride), and
// -inf where causality or the window excludes the key.
__device__ inline float attention_score(const AttentionShape& s, const void* mask, int64_t mask_row,
                                        int64_t i, int64_t j, float dot) {
  float sc = dot * s.scale;
  if (s.softcap > 0.0f) sc = s.softcap * tanhf(sc / s.softcap);
  if (s.mask_kind != MaskKind::kNone)
    sc += j >= s.mask_keys ? -INFINITY
                           : mask_value(s.mask_kind, mask, mask_row + j * s.mask_strides[3]);
  if ((s.causal && j > i) || (s.left_window >= 0 && j < i - s.left_window) ||
      (s.right_window >= 0 && j > i + s.right_window))
    sc = -INFINITY;
  return sc;
}

// Reads a tile of `rows` rows of `cols` elements (row r at src + r *
// stride; rows at or past `valid` read as zeros), the block's threads
// sharing it, and hands each piece to put(r, c, x, n): n consecutive
// elements x[0..n) of row r from column c. Where cols, the stride and src
// allow 16-byte loads, each thread reads 16 bytes at a time (n = 16 /
// sizeof(T)); else one element (n = 1). Index math is 32-bit: a tile has
// at most a few thousand pieces, and 64-bit division per element was the
// kernels' largest cost.
template <typename T, typename Put>
__device__ __forceinline__ void stage_tile(const T* src, int64_t stride, int rows, int64_t valid,
                                           int cols, Put put) {
  constexpr int kVec = 16 / sizeof(T);
  const int live = valid < rows ? int(valid < 0 ? 0 : valid) : rows;
  if (cols % kVec == 0 && stride % kVec == 0 && reinterpret_cast<uintptr_t>(src) % 16 == 0) {
    const int chunks = cols / kVec;
    for (int e = threadIdx.x; e < rows * chunks; e += blockDim.x) {
      const int r = e / chunks, c = (e - r * chunks) * kVec;
      const uint4 u =
          r < live ? *reinterpret_cast<const uint4*>(src + r * stride + c) : make_uint4(0, 0, 0, 0);
      put(r, c, reinterpret_cast<const T*>(&u), kVec);
    }
    return;
  }
  for (int e = threadIdx.x; e < rows * cols; e += blockDim.x) {
    const int r = e / cols, c = e - r * cols;
    const T x = r < live ? src[r * stride + c] : from_float<T>(0.0f);
    put(r, c, &x, 1);
  }
}

// What a block of `rows` consecutive queries of one (batch, head) works on,
// for the tiled kernels (one block per tile of each batch and head, tiles
// tiles a head): its first query, batch and head, and the bases of its Q,
// K, V (its group's K/V head) and Y heads.
template <typename T>
struct HeadTile {
  int64_t i0, b, h;
  const T *q, *k, *v;
  T* y;
  __device__ HeadTile(const T* q_, const T* k_, const T* v_, T* y_, const AttentionShape& s,
                      int64_t tiles, int64_t rows) {
    i0 = (blockIdx.x % tiles) * rows;
    const int64_t bh = blockIdx.x / tiles;
    h = bh % s.q_heads;
    b = bh / s.q_heads;
    const int64_t kh = h / (s.q_heads / s.kv_heads);
    q = q_ + b * s.q_strides[0] + h * s.q_strides[1];
    k = k_ + b * s.k_strides[0] + kh * s.k_strides[1];
    v = v_ + b * s.v_strides[0] + kh * s.v_strides[1];
    y = y_ + b * s.y_strides[0] + h * s.y_strides[1];
  }
};

// Launches a tiled attention kernel, kernel(q, k, v, mask, y, s, tiles), with
// a block of `threads` per `rows` consecutive queries of each (batch, head)
// and `shared` bytes of dynamic shared memory (opted in to above the 48 KiB
// every kernel gets; the attribute is per kernel and device).
template <typename T>
cudaError_t launch_head_tiles(void (*kernel)(const T*, const T*, const T*, const void*, T*,
                                             AttentionShape, int64_t),
                              int64_t rows, int threads, size_t shared, const void* q,
                              const void* k, const void* v, const void* mask, void* y,
                              const AttentionShape& s, cudaStream_t stream) {
  const int64_t tiles = (s.q_len + rows - 1) / rows;
  const int64_t blocks = s.batch * s.q_heads * tiles;
  if (blocks == 0) return cudaSuccess;
  if (blocks > int64_t(INT32_MAX)) return cudaErrorInvalidConfiguration;
  if (shared > 48 * 1024) {
    const cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
    if (e != cudaSuccess) return e;
  }
  kernel<<<unsigned(blocks), threads, shared, stream>>>(
      static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v), mask,
      static_cast<T*>(y), s, tiles);
  return cudaGetLastError();
}

// What the attention kernels' choice asks of the current device: a block's
// shared memory, opted in to, and the multiprocessor count. Read once per
// device (the choice is made per node and run) and kept; 48 KiB (what every
// device gives) and 0 (unknown) when they cannot be read.
struct DeviceLimits {
  size_t block_shared = 48 * 1024;
  int multiprocessors = 0;
  int capability = 0;  // major * 10 + minor; 0 when unknown
};
const DeviceLimits& device_limits();  // attention.cu

}  // namespace tessera::cuda
