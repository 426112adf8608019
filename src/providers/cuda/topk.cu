// TopK by sorting each row's (key, index) pairs with a bitonic network:
// values become unsigned keys whose order is TopK's (NaN highest, -0 = +0,
// inverted for smallest), and ties go to the lower index, so the order is
// total and the result does not depend on the schedule. A row of up to
// kTopKRowInShared elements is one block, sorted in shared memory and read
// once; longer rows are sorted in global scratch, one launch per network
// stage, and then their first k pairs are written out.
#include "providers/cuda/device_math.cuh"
#include "providers/cuda/num_dispatch.cuh"
#include "providers/cuda/topk_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kSortThreads = 1024;
constexpr int32_t kPadIndex = 0x7fffffff;  // padding sorts after every real entry

template <typename T>
__device__ uint64_t order_key(T v, bool largest) {
  uint64_t k;
  if constexpr (std::is_same_v<T, double>) {
    uint64_t u;
    double d = v == 0.0 ? 0.0 : v;  // -0 ranks as +0
    memcpy(&u, &d, 8);
    k = d != d ? ~uint64_t(0) : (u >> 63 ? ~u : u | (uint64_t(1) << 63));
  } else if constexpr (std::is_integral_v<T>) {
    k = std::is_signed_v<T> ? uint64_t(int64_t(v)) ^ (uint64_t(1) << 63) : uint64_t(v);
  } else {
    float f = float(Acc<T>::up(v));
    f = f == 0.f ? 0.f : f;
    uint32_t u;
    memcpy(&u, &f, 4);
    k = f != f ? 0xffffffffu : (u >> 31 ? ~u : u | 0x80000000u);
  }
  return largest ? k : ~k;
}

// Whether entry a goes before entry b: higher key, then lower index.
__device__ __forceinline__ bool before(uint64_t ka, int32_t ia, uint64_t kb, int32_t ib) {
  return ka > kb || (ka == kb && ia < ib);
}

// One compare-exchange of the network's stage (size, stride) on pair t of a
// row of p entries.
__device__ __forceinline__ void exchange(uint64_t* keys, int32_t* idx, int64_t t, int64_t size,
                                         int64_t stride) {
  const int64_t i = (t / stride) * 2 * stride + t % stride, j = i + stride;
  const bool first_better = before(keys[i], idx[i], keys[j], idx[j]);
  if (((i & size) == 0) != first_better) {
    const uint64_t k = keys[i];
    keys[i] = keys[j];
    keys[j] = k;
    const int32_t n = idx[i];
    idx[i] = idx[j];
    idx[j] = n;
  }
}

template <typename T>
__device__ void write_top(const T* x, T* values, int64_t* indices, const int32_t* idx, int64_t row,
                          int64_t dim, int64_t inner, int64_t k, int64_t q) {
  const int64_t o = row / inner, in = row % inner;
  const int64_t j = idx[q];
  const int64_t out = (o * k + q) * inner + in;
  values[out] = x[(o * dim + j) * inner + in];
  indices[out] = j;
}

// One block per row (a grid-stride loop over rows): load, sort in shared
// memory, write the first k.
template <typename T>
__global__ void __launch_bounds__(kSortThreads)
    topk_shared_kernel(const T* __restrict__ x, T* __restrict__ values,
                       int64_t* __restrict__ indices, int64_t rows, int64_t dim, int64_t inner,
                       int64_t k, int p, bool largest) {
  extern __shared__ uint64_t smem[];  // 8-byte aligned: the keys, then the indices
  uint64_t* keys = smem;
  int32_t* idx = reinterpret_cast<int32_t*>(keys + p);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t o = row / inner, in = row % inner;
    for (int j = threadIdx.x; j < p; j += blockDim.x) {
      const bool real = j < dim;
      keys[j] = real ? order_key(x[(o * dim + j) * inner + in], largest) : 0;
      idx[j] = real ? j : kPadIndex;
    }
    __syncthreads();
    for (int64_t size = 2; size <= p; size *= 2)
      for (int64_t stride = size / 2; stride > 0; stride /= 2) {
        for (int64_t t = threadIdx.x; t < p / 2; t += blockDim.x)
          exchange(keys, idx, t, size, stride);
        __syncthreads();
      }
    for (int64_t q = threadIdx.x; q < k; q += blockDim.x)
      write_top(x, values, indices, idx, row, dim, inner, k, q);
    __syncthreads();  // the next row refills the arrays
  }
}

template <typename T>
__global__ void topk_keys_kernel(const T* __restrict__ x, uint64_t* keys, int32_t* idx,
                                 int64_t rows, int64_t dim, int64_t inner, int64_t p,
                                 bool largest) {
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < rows * p;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = e / p, j = e % p;
    const int64_t o = row / inner, in = row % inner;
    const bool real = j < dim;
    keys[e] = real ? order_key(x[(o * dim + j) * inner + in], largest) : 0;
    idx[e] = real ? int32_t(j) : kPadIndex;
  }
}

__global__ void topk_stage_kernel(uint64_t* keys, int32_t* idx, int64_t rows, int64_t p,
                                  int64_t size, int64_t stride) {
  const int64_t half = p / 2;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < rows * half;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = t / half;
    exchange(keys + row * p, idx + row * p, t % half, size, stride);
  }
}

template <typename T>
__global__ void topk_write_kernel(const T* __restrict__ x, T* __restrict__ values,
                                  int64_t* __restrict__ indices, const uint64_t* keys,
                                  const int32_t* idx, int64_t rows, int64_t dim, int64_t inner,
                                  int64_t k, int64_t p) {
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < rows * k;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = e / k, q = e % k;
    write_top(x, values, indices, idx + row * p, row, dim, inner, k, q);
  }
}

}  // namespace

cudaError_t launch_topk(NumType type, const void* x, void* values, int64_t* indices, int64_t outer,
                        int64_t dim, int64_t inner, int64_t k, bool largest, void* scratch,
                        cudaStream_t stream) {
  const int64_t rows = outer * inner;
  if (rows == 0 || k == 0) return cudaSuccess;
  const int64_t p = topk_padded(dim);
  return with_num_type(type, [&](auto v) {
    using T = decltype(v);
    const T* xs = static_cast<const T*>(x);
    T* ys = static_cast<T*>(values);
    if (p <= kTopKRowInShared) {
      const int threads = int(p / 2 < kSortThreads ? (p / 2 < 32 ? 32 : p / 2) : kSortThreads);
      const size_t smem = size_t(p) * (sizeof(uint64_t) + sizeof(int32_t));
      const unsigned grid = unsigned(rows < 65535 ? rows : 65535);
      topk_shared_kernel<T>
          <<<grid, threads, smem, stream>>>(xs, ys, indices, rows, dim, inner, k, int(p), largest);
      return;
    }
    auto* keys = static_cast<uint64_t*>(scratch);
    auto* idx = reinterpret_cast<int32_t*>(keys + rows * p);
    topk_keys_kernel<T><<<grid_for(rows * p, kThreads), kThreads, 0, stream>>>(
        xs, keys, idx, rows, dim, inner, p, largest);
    for (int64_t size = 2; size <= p; size *= 2)
      for (int64_t stride = size / 2; stride > 0; stride /= 2)
        topk_stage_kernel<<<grid_for(rows * p / 2, kThreads), kThreads, 0, stream>>>(
            keys, idx, rows, p, size, stride);
    topk_write_kernel<T><<<grid_for(rows * k, kThreads), kThreads, 0, stream>>>(
        xs, ys, indices, keys, idx, rows, dim, inner, k, p);
  });
}

}  // namespace tessera::cuda
