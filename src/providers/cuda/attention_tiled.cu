// Fused attention by tiles of query rows: one block per (batch, head, 32
// consecutive queries). The row kernel (attention.cu) reads every K and V row
// once per query, so a batch of long sequences moves its K and V through the
// cache q_len times; here a block loads each K and V tile once into shared
// memory and uses it for all 32 queries, and each thread keeps a 4 x 2
// (scores) or 4 x 4 (outputs) block of sums in registers, so the arithmetic,
// not the loads, sets the pace. Steps, all in float:
//   1. the Q tile, then per tile of 64 keys (K stored transposed, padded so
//      that neither its fill nor its reads conflict on banks): the scores of
//      the 32 queries against them, finished by attention_score;
//   2. per row (a warp each): maximum, exp(s - max), 1 / sum;
//   3. per tile of 64 V rows: the outputs' weighted sums, scaled by 1 / sum.
// The scores of the block's rows over all keys stay in shared memory, so
// this kernel takes key counts up to what a block may hold (a few thousand
// at head size 64); longer rows go to the row kernel.
#include <algorithm>

#include "providers/cuda/attention_score.cuh"
#include "providers/cuda/attention_tiled.hpp"
#include "providers/cuda/device_math.cuh"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kRows = 32;                     // queries per block
constexpr int kKeys = 64;                     // keys per K or V tile
constexpr int kRowsPerWarp = kRows / kWarps;  // 4
constexpr int kMaxHead = 128;                 // head sizes up to 4 x 32 output lanes
constexpr int kOutCols = kMaxHead / 32;       // output columns per thread

size_t shared_floats(const AttentionShape& s) {
  const size_t tile =
      std::max(size_t(s.head_size) * (kKeys + 1), size_t(kKeys) * size_t(s.v_head_size));
  return size_t(kRows) * size_t(s.head_size) + tile + size_t(kRows) * size_t(s.kv_len) + kRows;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    attention_tiles(const T* q, const T* k, const T* v, const void* mask, T* y, AttentionShape s,
                    int64_t tiles) {
  extern __shared__ float smem[];
  const int64_t D = s.head_size, Dv = s.v_head_size, L = s.kv_len;
  float* qs = smem;              // [kRows][D]
  float* tile = qs + kRows * D;  // K^T or V tile
  float* sc = tile + (D * (kKeys + 1) > kKeys * Dv ? D * (kKeys + 1) : kKeys * Dv);  // [kRows][L]
  float* inv = sc + kRows * L;                                                       // [kRows]
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  const auto [i0, b, h, qp, kp, vp, yp] = HeadTile<T>(q, k, v, y, s, tiles, kRows);

  const int d_cols = int(D), dv_cols = int(Dv);
  stage_tile(qp + i0 * s.q_strides[2], s.q_strides[2], kRows, s.q_len - i0, d_cols,
             [&](int r, int c, const T* x, int n) {
               for (int t = 0; t < n; ++t) qs[r * d_cols + c + t] = to_float(x[t]);
             });

  // 1. Scores: this thread's rows warp*4 .. +3, keys lane and lane + 32 of each tile.
  for (int64_t j0 = 0; j0 < L; j0 += kKeys) {
    __syncthreads();  // the previous tile's readers are done (and the Q tile is in)
    // K transposed: key c's element d at d * (kKeys + 1) + c.
    stage_tile(kp + j0 * s.k_strides[2], s.k_strides[2], kKeys, L - j0, d_cols,
               [&](int c, int d, const T* x, int n) {
                 for (int t = 0; t < n; ++t) tile[(d + t) * (kKeys + 1) + c] = to_float(x[t]);
               });
    __syncthreads();
    float acc[kRowsPerWarp][2] = {};
    for (int64_t d = 0; d < D; ++d) {
      const float k0 = tile[d * (kKeys + 1) + lane], k1 = tile[d * (kKeys + 1) + lane + 32];
#pragma unroll
      for (int r = 0; r < kRowsPerWarp; ++r) {
        const float qv = qs[(warp * kRowsPerWarp + r) * D + d];
        acc[r][0] += qv * k0;
        acc[r][1] += qv * k1;
      }
    }
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
      const int row = warp * kRowsPerWarp + r;
      const int64_t i = i0 + row;
      if (i >= s.q_len) continue;  // no mask row to read
      const int64_t mask_row =
          b * s.mask_strides[0] + h * s.mask_strides[1] + i * s.mask_strides[2];
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int64_t j = j0 + lane + 32 * c;
        if (j < L) sc[row * L + j] = attention_score(s, mask, mask_row, i, j, acc[r][c]);
      }
    }
  }
  __syncthreads();

  // 2. Softmax numerators; a row whose keys are all masked gets zeros, as
  // the CPU provider gives.
  for (int row = warp; row < kRows; row += kWarps) {
    if (i0 + row >= s.q_len) continue;
    float* sr = sc + row * L;
    float m = -INFINITY;
    for (int64_t j = lane; j < L; j += 32) m = fmaxf(m, sr[j]);
    for (int offset = 16; offset > 0; offset /= 2)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
    const bool empty = m == -INFINITY || isnan(m);
    float sum = 0.0f;
    for (int64_t j = lane; j < L; j += 32) {
      const float p = empty ? 0.0f : expf(sr[j] - m);
      sr[j] = p;
      sum += p;
    }
    sum = warp_reduce(sum, SumOp());
    if (lane == 0) inv[row] = empty ? 0.0f : 1.0f / sum;
  }

  // 3. Outputs: rows warp*4 .. +3, columns lane + 32 c.
  float out[kRowsPerWarp][kOutCols] = {};
  for (int64_t j0 = 0; j0 < L; j0 += kKeys) {
    __syncthreads();  // scores and inverses written; the previous V tile read
    stage_tile(vp + j0 * s.v_strides[2], s.v_strides[2], kKeys, L - j0, dv_cols,
               [&](int c, int d, const T* x, int n) {
                 for (int t = 0; t < n; ++t) tile[c * dv_cols + d + t] = to_float(x[t]);
               });
    __syncthreads();
    const int64_t keys = L - j0 < kKeys ? L - j0 : kKeys;
    for (int64_t c = 0; c < keys; ++c) {
      float vv[kOutCols];
#pragma unroll
      for (int n = 0; n < kOutCols; ++n)
        vv[n] = lane + 32 * n < Dv ? tile[c * Dv + lane + 32 * n] : 0.0f;
#pragma unroll
      for (int r = 0; r < kRowsPerWarp; ++r) {
        const float p = sc[(warp * kRowsPerWarp + r) * L + j0 + c];
#pragma unroll
        for (int n = 0; n < kOutCols; ++n) out[r][n] += p * vv[n];
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int row = warp * kRowsPerWarp + r;
    const int64_t i = i0 + row;
    if (i >= s.q_len) continue;
#pragma unroll
    for (int n = 0; n < kOutCols; ++n)
      if (lane + 32 * n < Dv)
        yp[i * s.y_strides[2] + lane + 32 * n] = from_float<T>(out[r][n] * inv[row]);
  }
}

}  // namespace

bool attention_tiled_fits(const AttentionShape& s) {
  return s.head_size >= 1 && s.head_size <= kMaxHead && s.v_head_size >= 1 &&
         s.v_head_size <= kMaxHead && s.kv_len >= 1 && s.kv_len <= (int64_t(1) << 20) &&
         shared_floats(s) * sizeof(float) <= device_limits().block_shared;
}

cudaError_t launch_attention_tiled(ElemType t, const void* q, const void* k, const void* v,
                                   const void* mask, void* y, const AttentionShape& s,
                                   cudaStream_t stream) {
  const size_t shared = shared_floats(s) * sizeof(float);
  cudaError_t err = cudaSuccess;
  with_elem_type(t, [&](auto e) {
    err = launch_head_tiles(attention_tiles<decltype(e)>, kRows, kThreads, shared, q, k, v, mask, y,
                            s, stream);
  });
  return err;
}

}  // namespace tessera::cuda
