// Byte-moving kernels: the strided copy (Transpose, Slice, Expand), the
// tiled transpose, Where and Gather. Elements are moved as unsigned integers of their size, so one
// instantiation per size serves every element type. Index math is 32-bit
// when the plan says every offset fits (the common case), 64-bit otherwise.
#include "providers/cuda/device_math.cuh"
#include "providers/cuda/shape_ops_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;

// Offsets of output element i in the first `Ops` operands of the plan (one
// division per merged dim, shared by all operands).
template <int Ops, typename I>
__device__ __forceinline__ void offsets(const CopyPlan& p, I i, I (&off)[Ops]) {
#pragma unroll
  for (int o = 0; o < Ops; ++o) off[o] = I(p.base[o]);
  for (int d = p.rank - 1; d >= 0; --d) {
    const I n = I(p.dims[d]);
    const I c = i % n;
    i /= n;
#pragma unroll
    for (int o = 0; o < Ops; ++o) off[o] += c * I(p.strides[o][d]);
  }
}

template <typename T, typename I>
__global__ void strided_copy_kernel(const T* __restrict__ x, T* __restrict__ y, I n, CopyPlan p) {
  for (I i = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); i < n;
       i += I(gridDim.x) * I(blockDim.x)) {
    I off[1];
    offsets<1>(p, i, off);
    y[i] = x[off[0]];
  }
}

constexpr int kTile = 32, kTileRows = 8;  // a 32 x 32 tile, 32 x 8 threads

// Each block moves 32 x 32 tiles of [rows, cols] slices: it reads a tile with
// consecutive threads along rows (contiguous in the input), keeps it in
// shared memory, and writes it with consecutive threads along cols
// (contiguous in the output). Every loop bound depends only on the block and
// the plan, so all threads of a block reach each __syncthreads().
template <typename T, typename I>
__global__ void tiled_transpose_kernel(const T* __restrict__ x, T* __restrict__ y, TilePlan p) {
  __shared__ T tile[kTile][kTile + 1];  // +1: no bank conflicts down a column
  const I rows = I(p.rows), cols = I(p.cols);
  const I tiles_r = (rows + kTile - 1) / kTile, tiles_c = (cols + kTile - 1) / kTile;
  for (I b = I(blockIdx.z); b < I(p.batch); b += I(gridDim.z)) {
    I in_b = 0, out_b = 0, rest = b;
    for (int d = p.batch_rank - 1; d >= 0; --d) {
      const I n = I(p.batch_dims[d]);
      const I c = rest % n;
      rest /= n;
      in_b += c * I(p.batch_in[d]);
      out_b += c * I(p.batch_out[d]);
    }
    for (I tr = I(blockIdx.y); tr < tiles_r; tr += I(gridDim.y))
      for (I tc = I(blockIdx.x); tc < tiles_c; tc += I(gridDim.x)) {
        const I r0 = tr * kTile, c0 = tc * kTile;
        // tile[k][t] = element (row r0 + t, col c0 + k).
        for (int k = threadIdx.y; k < kTile; k += kTileRows) {
          const I r = r0 + I(threadIdx.x), c = c0 + k;
          if (r < rows && c < cols) tile[k][threadIdx.x] = x[in_b + r + c * I(p.in_col_stride)];
        }
        __syncthreads();
        for (int k = threadIdx.y; k < kTile; k += kTileRows) {
          const I r = r0 + k, c = c0 + I(threadIdx.x);
          if (r < rows && c < cols) y[out_b + r * I(p.out_row_stride) + c] = tile[threadIdx.x][k];
        }
        __syncthreads();  // the tile is refilled next
      }
  }
}

template <typename T, typename I>
__global__ void where_kernel(const uint8_t* __restrict__ cond, const T* __restrict__ x,
                             const T* __restrict__ other, T* __restrict__ y, I n, CopyPlan p) {
  for (I i = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); i < n;
       i += I(gridDim.x) * I(blockDim.x)) {
    I off[3];
    offsets<3>(p, i, off);
    y[i] = cond[off[0]] != 0 ? x[off[1]] : other[off[2]];
  }
}

// Output element i = ((o * num_indices) + j) * inner + k reads data element
// (o * axis_dim + indices[j]) * inner + k.
template <typename T, typename Ind, typename I>
__global__ void gather_kernel(const T* __restrict__ data, const Ind* __restrict__ indices,
                              T* __restrict__ y, I n, I axis_dim, I num_indices, I inner,
                              GatherError* error) {
  for (I i = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); i < n;
       i += I(gridDim.x) * I(blockDim.x)) {
    const I k = i % inner, t = i / inner;
    const I j = t % num_indices, o = t / num_indices;
    const int64_t given = int64_t(indices[j]);
    const int64_t idx = given < 0 ? given + int64_t(axis_dim) : given;
    if (idx < 0 || idx >= int64_t(axis_dim)) {
      // Any one of the bad indices will do for the message; the flag is
      // written after it, and both are read only after the kernel has ended.
      error->index = given;
      error->flag = 1;
      continue;
    }
    y[i] = data[(o * axis_dim + I(idx)) * inner + k];
  }
}

}  // namespace

cudaError_t launch_strided_copy(int elem_bytes, const void* x, void* y, int64_t n,
                                const CopyPlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    const auto* xs = static_cast<const T*>(x);
    auto* ys = static_cast<T*>(y);
    if (plan.small)
      strided_copy_kernel<T, int32_t>
          <<<grid_for(n, kThreads), kThreads, 0, stream>>>(xs, ys, int32_t(n), plan);
    else
      strided_copy_kernel<T, int64_t>
          <<<grid_for(n, kThreads), kThreads, 0, stream>>>(xs, ys, n, plan);
  });
}

cudaError_t launch_tiled_transpose(int elem_bytes, const void* x, void* y, const TilePlan& plan,
                                   cudaStream_t stream) {
  if (plan.rows == 0 || plan.cols == 0 || plan.batch == 0) return cudaSuccess;
  const auto capped = [](int64_t n) { return unsigned(n < 65535 ? n : 65535); };
  const dim3 grid(capped((plan.cols + kTile - 1) / kTile), capped((plan.rows + kTile - 1) / kTile),
                  capped(plan.batch));
  const dim3 block(kTile, kTileRows);
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    const auto* xs = static_cast<const T*>(x);
    auto* ys = static_cast<T*>(y);
    if (plan.small)
      tiled_transpose_kernel<T, int32_t><<<grid, block, 0, stream>>>(xs, ys, plan);
    else
      tiled_transpose_kernel<T, int64_t><<<grid, block, 0, stream>>>(xs, ys, plan);
  });
}

cudaError_t launch_where(int elem_bytes, const uint8_t* cond, const void* x, const void* other,
                         void* y, int64_t n, const CopyPlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    const auto* xs = static_cast<const T*>(x);
    const auto* os = static_cast<const T*>(other);
    auto* ys = static_cast<T*>(y);
    if (plan.small)
      where_kernel<T, int32_t>
          <<<grid_for(n, kThreads), kThreads, 0, stream>>>(cond, xs, os, ys, int32_t(n), plan);
    else
      where_kernel<T, int64_t>
          <<<grid_for(n, kThreads), kThreads, 0, stream>>>(cond, xs, os, ys, n, plan);
  });
}

cudaError_t launch_gather(int elem_bytes, const void* data, const void* indices,
                          bool indices_are_int64, void* y, int64_t outer, int64_t axis_dim,
                          int64_t num_indices, int64_t inner, GatherError* error,
                          cudaStream_t stream) {
  const int64_t n = outer * num_indices * inner;
  if (n == 0) return cudaSuccess;
  // 32-bit index math when the output and the data both have fewer than 2^30
  // elements (every product below then fits).
  constexpr int64_t kSmall = int64_t(1) << 30;
  const bool small = n < kSmall && outer * axis_dim * inner < kSmall;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    const auto* d = static_cast<const T*>(data);
    auto* ys = static_cast<T*>(y);
    const unsigned grid = grid_for(n, kThreads);
    auto go = [&](auto ind) {
      using Ind = decltype(ind);
      const auto* is = static_cast<const Ind*>(indices);
      if (small)
        gather_kernel<T, Ind, int32_t><<<grid, kThreads, 0, stream>>>(
            d, is, ys, int32_t(n), int32_t(axis_dim), int32_t(num_indices), int32_t(inner), error);
      else
        gather_kernel<T, Ind, int64_t>
            <<<grid, kThreads, 0, stream>>>(d, is, ys, n, axis_dim, num_indices, inner, error);
    };
    if (indices_are_int64)
      go(int64_t());
    else
      go(int32_t());
  });
}

}  // namespace tessera::cuda
