// Fused scaled dot-product attention, the row kernel: one block per (batch,
// head, query row), for what the tensor-core and tiled kernels
// (attention_mma.cu, attention_tiled.cu, preferred in that order) do not
// take: heads over 128 wide, or key rows too long for their shared memory.
// Grid-stride over rows. The block keeps the query row and the row's scores
// in shared memory (or, for very long key sequences, in a per-block slice of
// global scratch), so no [rows, keys] score tensor is written:
//   1. each warp takes keys j, j + warps, ...: dot(q, k_j) over the head
//      dim across its lanes, then scale, softcap, mask, causal/window;
//   2. the block's maximum, exp(s - max) and their sum;
//   3. each thread takes output dims d, d + threads, ...: sum_j p_j v_j[d],
//      so neighbouring threads read neighbouring elements of a V row.
// Everything is computed in float.
#include <map>
#include <mutex>

#include "providers/cuda/attention_mma.hpp"
#include "providers/cuda/attention_score.cuh"
#include "providers/cuda/attention_tiled.hpp"
#include "providers/cuda/device_math.cuh"
#include "providers/cuda/reduce_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
// Dynamic shared memory for the q row and scores: a block may use 48 KiB
// without opting in to more, and block_reduce's static arrays need some of it.
constexpr size_t kSharedBytes = 47 * 1024;
// Blocks of the scratch path: each needs kv_len floats of scratch.
constexpr int64_t kScratchBlocks = 1024;

// `scratch`: null when the scores live in shared memory, else
// gridDim.x * kv_len floats.
template <typename T>
__global__ void attention_rows(const T* q, const T* k, const T* v, const void* mask, T* y,
                               AttentionShape s, float* scratch) {
  extern __shared__ float smem[];
  float* q_row = smem;  // head_size floats
  float* scores = scratch ? scratch + int64_t(blockIdx.x) * s.kv_len : smem + s.head_size;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t rows = s.batch * s.q_heads * s.q_len;
  const int64_t group = s.q_heads / s.kv_heads;  // query heads per K/V head
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t i = row % s.q_len;
    const int64_t h = (row / s.q_len) % s.q_heads;
    const int64_t b = row / (s.q_len * s.q_heads);
    const int64_t kh = h / group;
    const T* qp = q + b * s.q_strides[0] + h * s.q_strides[1] + i * s.q_strides[2];
    const T* kp = k + b * s.k_strides[0] + kh * s.k_strides[1];
    const T* vp = v + b * s.v_strides[0] + kh * s.v_strides[1];
    T* yp = y + b * s.y_strides[0] + h * s.y_strides[1] + i * s.y_strides[2];
    const int64_t mask_row = b * s.mask_strides[0] + h * s.mask_strides[1] + i * s.mask_strides[2];

    for (int64_t d = threadIdx.x; d < s.head_size; d += kThreads) q_row[d] = to_float(qp[d]);
    __syncthreads();

    // 1. Scores, one key per warp at a time.
    float local_max = -INFINITY;
    for (int64_t j = warp; j < s.kv_len; j += kWarps) {
      const T* kj = kp + j * s.k_strides[2];
      float dot = 0.0f;
      for (int64_t d = lane; d < s.head_size; d += 32) dot += q_row[d] * to_float(kj[d]);
      for (int offset = 16; offset > 0; offset /= 2)
        dot += __shfl_xor_sync(0xffffffffu, dot, offset);
      const float sc = attention_score(s, mask, mask_row, i, j, dot);
      if (lane == 0) scores[j] = sc;
      local_max = fmaxf(local_max, sc);
    }
    // block_reduce synchronises before it returns, so every score is
    // written and visible from here on.
    const float row_max = block_reduce(local_max, MaxOp());

    if (row_max == -INFINITY || isnan(row_max)) {
      // Every key masked: zeros, as the CPU provider gives.
      for (int64_t d = threadIdx.x; d < s.v_head_size; d += kThreads) yp[d] = from_float<T>(0.0f);
    } else {
      // 2. Softmax numerators and their sum.
      float local_sum = 0.0f;
      for (int64_t j = threadIdx.x; j < s.kv_len; j += kThreads) {
        const float p = expf(scores[j] - row_max);
        scores[j] = p;
        local_sum += p;
      }
      const float inv_sum = 1.0f / block_reduce(local_sum, SumOp());
      // 3. The weighted sum of V rows.
      for (int64_t d = threadIdx.x; d < s.v_head_size; d += kThreads) {
        float acc = 0.0f;
        for (int64_t j = 0; j < s.kv_len; ++j)
          acc += scores[j] * to_float(vp[j * s.v_strides[2] + d]);
        yp[d] = from_float<T>(acc * inv_sum);
      }
    }
    __syncthreads();  // q_row and scores are rewritten for the next row
  }
}

size_t shared_floats(const AttentionShape& s, bool scores_in_shared) {
  return size_t(s.head_size) + (scores_in_shared ? size_t(s.kv_len) : 0);
}

bool scores_fit(const AttentionShape& s) {
  return shared_floats(s, true) * sizeof(float) <= kSharedBytes;
}

int64_t rows_of(const AttentionShape& s) { return s.batch * s.q_heads * s.q_len; }

}  // namespace

const DeviceLimits& device_limits() {
  static std::mutex mu;
  static std::map<int, DeviceLimits> known;  // by device id; nodes never move
  int dev = -1;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();  // not left for the next launch's check to report
    static const DeviceLimits unknown;
    return unknown;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = known.find(dev); it != known.end()) return it->second;
  DeviceLimits l;
  int bytes = 0, sms = 0;
  if (cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess)
    l.block_shared = size_t(bytes);
  else
    cudaGetLastError();
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess)
    l.multiprocessors = sms;
  else
    cudaGetLastError();
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess)
    l.capability = major * 10 + minor;
  else
    cudaGetLastError();
  return known.emplace(dev, l).first->second;
}

AttentionKernel choose_attention_kernel(ElemType t, const AttentionShape& s, AttentionKernel pick) {
  using K = AttentionKernel;
  const bool tiled = pick != K::kRows && attention_tiled_fits(s);
  if (pick != K::kTiled && pick != K::kRows && attention_mma_fits(t, s) &&
      (pick == K::kTensorCores || !tiled || attention_mma_fills_device(s)))
    return K::kTensorCores;
  return tiled ? K::kTiled : K::kRows;
}

size_t attention_scratch_bytes(const AttentionShape& s, AttentionKernel chosen) {
  // (kAuto, not a choice, runs the row kernel, which takes every shape.)
  if (scores_fit(s) || chosen == AttentionKernel::kTensorCores || chosen == AttentionKernel::kTiled)
    return 0;
  const int64_t rows = rows_of(s);
  const int64_t blocks = rows < kScratchBlocks ? rows : kScratchBlocks;
  return size_t(blocks) * size_t(s.kv_len) * sizeof(float);
}

cudaError_t launch_attention(ElemType t, const void* q, const void* k, const void* v,
                             const void* mask, void* y, const AttentionShape& s,
                             AttentionKernel chosen, void* scratch, cudaStream_t stream) {
  const int64_t rows = rows_of(s);
  if (rows == 0 || s.v_head_size == 0) return cudaSuccess;
  switch (chosen) {
    case AttentionKernel::kTensorCores:
      return launch_attention_mma(t, q, k, v, mask, y, s, stream);
    case AttentionKernel::kTiled:
      return launch_attention_tiled(t, q, k, v, mask, y, s, stream);
    default:
      break;
  }
  const bool in_shared = scores_fit(s);
  const int64_t max_blocks = in_shared ? 65535 : kScratchBlocks;
  const unsigned blocks = unsigned(rows < max_blocks ? rows : max_blocks);
  const size_t shared = shared_floats(s, in_shared) * sizeof(float);
  float* sc = in_shared ? nullptr : static_cast<float*>(scratch);
  return with_elem_type(t, [&](auto e) {
    using T = decltype(e);
    attention_rows<T><<<blocks, kThreads, shared, stream>>>(
        static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v), mask,
        static_cast<T*>(y), s, sc);
  });
}

}  // namespace tessera::cuda
