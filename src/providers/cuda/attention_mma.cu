// Fused attention on the tensor cores, for float16 and bfloat16 with head
// sizes that are multiples of 16 (up to 128): one block of 4 warps per
// (batch, head, 64 consecutive queries), each warp owning 16 query rows.
// The CUDA-core tiled kernel (attention_tiled.cu) spends most of its time on
// the two products; here they are 16 x 16 x 16 matrix operations (WMMA) with
// float accumulators:
//   1. S = Q K^T, per tile of 64 keys (K staged in shared memory), into a
//      float score block of the block's rows over all keys;
//   2. per row: attention_score (scale, softcap, mask, causal, windows),
//      maximum, P = exp(s - max) stored in the input type (in [0, 1], as
//      the softmax a framework feeds its second product), and 1 / sum;
//   3. O = P V, per tile of 64 V rows, kept in accumulators; then scaled by
//      1 / sum on the way out.
// Rows whose keys are all masked give zeros, as in the other kernels.
#include <mma.h>

#include <type_traits>

#include "providers/cuda/attention_mma.hpp"
#include "providers/cuda/attention_score.cuh"
#include "providers/cuda/device_math.cuh"

namespace tessera::cuda {

namespace {

using namespace nvcuda;

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kRows = 16 * kWarps;  // queries per block
constexpr int kKeys = 64;           // keys per K or V tile
constexpr int kMaxHead = 128;
constexpr int kMaxOutFrags = kMaxHead / 16;
// Row padding (elements): keeps rows off the same banks, and row starts on
// the 32-byte boundaries WMMA loads and stores need.
constexpr int64_t kPadHalf = 8, kPadFloat = 4;

// Byte offsets of the shared-memory regions, for the host and the kernel.
struct Layout {
  int64_t ldq, ldkv, lds, ldp, keys;  // leading dims; keys rounded up to a tile
  size_t q, kv, s, p, inv, total;
  __host__ __device__ explicit Layout(const AttentionShape& a) {
    keys = (a.kv_len + kKeys - 1) / kKeys * kKeys;
    ldq = a.head_size + kPadHalf;
    ldkv = (a.head_size > a.v_head_size ? a.head_size : a.v_head_size) + kPadHalf;
    lds = (keys > a.v_head_size ? keys : a.v_head_size) + kPadFloat;
    ldp = keys + kPadHalf;
    q = 0;
    kv = q + (size_t(kRows * ldq) * 2 + 127) / 128 * 128;
    s = kv + (size_t(kKeys * ldkv) * 2 + 127) / 128 * 128;
    p = s + (size_t(kRows * lds) * 4 + 127) / 128 * 128;
    inv = p + (size_t(kRows * ldp) * 2 + 127) / 128 * 128;
    total = inv + kRows * 4;
  }
};

// stage_tile's destination here: rows of the tile's own type at `ld`
// elements apart (a multiple of 8, so 16-byte pieces stay aligned).
template <typename T>
struct SharedRows {
  T* dst;
  int ld;
  __device__ void operator()(int r, int c, const T* x, int n) const {
    if (n * sizeof(T) == 16)
      *reinterpret_cast<uint4*>(dst + r * ld + c) = *reinterpret_cast<const uint4*>(x);
    else
      for (int i = 0; i < n; ++i) dst[r * ld + c + i] = x[i];
  }
};

// bfloat16 tensor-core fragments exist from sm_80 on; attention_mma_fits
// keeps bfloat16 off this kernel on older GPUs, whose code for it is a trap.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr bool kBf16Fragments = false;
#else
constexpr bool kBf16Fragments = true;
#endif

template <typename T>
__device__ void attention_mma_tile(const T* q, const T* k, const T* v, const void* mask, T* y,
                                   const AttentionShape& s, int64_t tiles);

template <typename T>
__global__ void __launch_bounds__(kThreads)
    attention_mma_tiles(const T* q, const T* k, const T* v, const void* mask, T* y,
                        AttentionShape s, int64_t tiles) {
  if constexpr (std::is_same_v<T, __nv_bfloat16> && !kBf16Fragments)
    __trap();
  else
    attention_mma_tile(q, k, v, mask, y, s, tiles);
}

template <typename T>
__device__ void attention_mma_tile(const T* q, const T* k, const T* v, const void* mask, T* y,
                                   const AttentionShape& s, int64_t tiles) {
  extern __shared__ __align__(128) unsigned char smem[];
  const Layout lay(s);
  T* qs = reinterpret_cast<T*>(smem + lay.q);          // [kRows][ldq]
  T* kv = reinterpret_cast<T*>(smem + lay.kv);         // [kKeys][ldkv]: a K or V tile
  float* sc = reinterpret_cast<float*>(smem + lay.s);  // [kRows][lds]: scores, then O
  T* ps = reinterpret_cast<T*>(smem + lay.p);          // [kRows][ldp]
  float* inv = reinterpret_cast<float*>(smem + lay.inv);
  const int64_t D = s.head_size, Dv = s.v_head_size, L = s.kv_len;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const T zero = from_float<T>(0.0f);

  const auto [i0, b, h, qp, kp, vp, yp] = HeadTile<T>(q, k, v, y, s, tiles, kRows);

  stage_tile(qp + i0 * s.q_strides[2], s.q_strides[2], kRows, s.q_len - i0, int(D),
             SharedRows<T>{qs, int(lay.ldq)});

  // 1. Scores of this warp's 16 rows, 64 keys a tile.
  const int64_t row0 = int64_t(warp) * 16;
  for (int64_t j0 = 0; j0 < lay.keys; j0 += kKeys) {
    __syncthreads();  // the Q tile is in; the previous K tile is read
    stage_tile(kp + j0 * s.k_strides[2], s.k_strides[2], kKeys, L - j0, int(D),
               SharedRows<T>{kv, int(lay.ldkv)});
    __syncthreads();
    for (int n = 0; n < kKeys / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
      for (int64_t kk = 0; kk < D; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        // K^T as a column-major B: element (d, key) at key * ldkv + d.
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> bt;
        wmma::load_matrix_sync(a, qs + row0 * lay.ldq + kk, unsigned(lay.ldq));
        wmma::load_matrix_sync(bt, kv + int64_t(n) * 16 * lay.ldkv + kk, unsigned(lay.ldkv));
        wmma::mma_sync(acc, a, bt, acc);
      }
      wmma::store_matrix_sync(sc + row0 * lay.lds + j0 + n * 16, acc, unsigned(lay.lds),
                              wmma::mem_row_major);
    }
  }
  __syncwarp();

  // 2. This warp's rows: finished scores, softmax numerators, 1 / sum.
  for (int r = 0; r < 16; ++r) {
    const int64_t row = row0 + r, i = i0 + row;
    float* sr = sc + row * lay.lds;
    T* pr = ps + row * lay.ldp;
    if (i >= s.q_len) {
      for (int64_t j = lane; j < lay.keys; j += 32) pr[j] = zero;
      continue;
    }
    const int64_t mask_row = b * s.mask_strides[0] + h * s.mask_strides[1] + i * s.mask_strides[2];
    float m = -INFINITY;
    for (int64_t j = lane; j < L; j += 32) {
      const float x = attention_score(s, mask, mask_row, i, j, sr[j]);
      sr[j] = x;
      m = fmaxf(m, x);
    }
    for (int offset = 16; offset > 0; offset /= 2)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
    const bool empty = m == -INFINITY || isnan(m);
    float sum = 0.0f;
    for (int64_t j = lane; j < lay.keys; j += 32) {
      // Summed as rounded to T, so the weights and their sum agree.
      const T p = j < L && !empty ? from_float<T>(expf(sr[j] - m)) : zero;
      pr[j] = p;
      sum += to_float(p);
    }
    sum = warp_reduce(sum, SumOp());
    if (lane == 0) inv[row] = empty || !(sum > 0.0f) ? 0.0f : 1.0f / sum;
  }

  // 3. O = P V for this warp's rows, 16 output columns a fragment.
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> out[kMaxOutFrags];
#pragma unroll
  for (int n = 0; n < kMaxOutFrags; ++n) wmma::fill_fragment(out[n], 0.0f);
  const int frags = int(Dv / 16);
  for (int64_t j0 = 0; j0 < lay.keys; j0 += kKeys) {
    __syncthreads();  // the K (or previous V) tile is read by every warp
    stage_tile(vp + j0 * s.v_strides[2], s.v_strides[2], kKeys, L - j0, int(Dv),
               SharedRows<T>{kv, int(lay.ldkv)});
    __syncthreads();
    for (int kk = 0; kk < kKeys; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
      wmma::load_matrix_sync(a, ps + row0 * lay.ldp + j0 + kk, unsigned(lay.ldp));
#pragma unroll
      for (int n = 0; n < kMaxOutFrags; ++n) {
        if (n >= frags) break;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> bv;
        wmma::load_matrix_sync(bv, kv + int64_t(kk) * lay.ldkv + n * 16, unsigned(lay.ldkv));
        wmma::mma_sync(out[n], a, bv, out[n]);
      }
    }
  }
  // The warp's own score rows are free now: O goes there, then out.
#pragma unroll
  for (int n = 0; n < kMaxOutFrags; ++n) {
    if (n >= frags) break;
    wmma::store_matrix_sync(sc + row0 * lay.lds + n * 16, out[n], unsigned(lay.lds),
                            wmma::mem_row_major);
  }
  __syncwarp();
  // Out 16 bytes a store where Y's rows allow (32-bit index math either way).
  constexpr int kVec = 16 / sizeof(T);
  const int dv = int(Dv), ystride = int(s.y_strides[2]);
  const int step =
      dv % kVec == 0 && ystride % kVec == 0 && reinterpret_cast<uintptr_t>(yp) % 16 == 0 ? kVec : 1;
  const int pieces = dv / step;
  for (int e = lane; e < 16 * pieces; e += 32) {
    const int r = e / pieces, d = (e - r * pieces) * step, row = int(row0) + r;
    if (i0 + row >= s.q_len) continue;
    const float* o = sc + row * lay.lds + d;
    T* out = yp + (i0 + row) * ystride + d;
    if (step == kVec) {
      uint4 u;
      T* t = reinterpret_cast<T*>(&u);
#pragma unroll
      for (int k = 0; k < kVec; ++k) t[k] = from_float<T>(o[k] * inv[row]);
      *reinterpret_cast<uint4*>(out) = u;
    } else {
      *out = from_float<T>(o[0] * inv[row]);
    }
  }
}

}  // namespace

bool attention_mma_fits(ElemType t, const AttentionShape& s) {
  if (t != ElemType::kF16 && t != ElemType::kBF16) return false;
  if (t == ElemType::kBF16 && device_limits().capability < 80) return false;
  if (s.head_size < 16 || s.head_size > kMaxHead || s.head_size % 16 != 0) return false;
  if (s.v_head_size < 16 || s.v_head_size > kMaxHead || s.v_head_size % 16 != 0) return false;
  if (s.kv_len < 1 || s.kv_len > (int64_t(1) << 20)) return false;
  return Layout(s).total <= device_limits().block_shared;
}

bool attention_mma_fills_device(const AttentionShape& s) {
  const int sms = device_limits().multiprocessors;  // 0 when unknown: take the kernel
  return s.batch * s.q_heads * ((s.q_len + kRows - 1) / kRows) >= sms;
}

cudaError_t launch_attention_mma(ElemType t, const void* q, const void* k, const void* v,
                                 const void* mask, void* y, const AttentionShape& s,
                                 cudaStream_t stream) {
  const size_t shared = Layout(s).total;
  if (t == ElemType::kF16)
    return launch_head_tiles(attention_mma_tiles<__half>, kRows, kThreads, shared, q, k, v, mask, y,
                             s, stream);
  return launch_head_tiles(attention_mma_tiles<__nv_bfloat16>, kRows, kThreads, shared, q, k, v,
                           mask, y, s, stream);
}

}  // namespace tessera::cuda
