// Row kernels: Softmax/LogSoftmax, LayerNormalization (also with a residual
// and a bias added first: SkipLayerNormalization) and RMSNormalization
// over rows of contiguous elements, one block per row, statistics in float.
#include "providers/cuda/cuda_launch.hpp"
#include "providers/cuda/device_math.cuh"
#include "providers/cuda/reduce_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;

unsigned row_grid(int64_t rows) { return unsigned(rows < 65535 ? rows : 65535); }

template <typename T>
__global__ void softmax_rows(const T* x, T* y, int64_t rows, int64_t cols, bool log) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, to_float(xr[j]));
    m = block_reduce(m, MaxOp());
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += expf(to_float(xr[j]) - m);
    s = block_reduce(s, SumOp());
    const float log_s = logf(s), inv_s = 1.0f / s;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float v = to_float(xr[j]) - m;
      yr[j] = from_float<T>(log ? v - log_s : expf(v) * inv_s);
    }
  }
}

// The row's element j: x, plus the residual `skip` (same layout) and the
// per-column `add` when given (SkipLayerNormalization); recomputed in each
// pass rather than written out.
template <typename T>
__device__ float row_in(const T* xr, const T* sr, const T* add, int64_t j) {
  float v = to_float(xr[j]);
  if (sr) v += to_float(sr[j]);
  if (add) v += to_float(add[j]);
  return v;
}

template <typename T>
__global__ void layer_norm_rows(const T* x, const T* skip, const T* add, const T* scale,
                                const T* bias, T* y, float* mean_out, float* inv_std_out,
                                int64_t rows, int64_t cols, float eps) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * cols;
    const T* sr = skip ? skip + r * cols : nullptr;
    T* yr = y + r * cols;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += row_in(xr, sr, add, j);
    const float mean = block_reduce(s, SumOp()) / float(cols);
    float q = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float d = row_in(xr, sr, add, j) - mean;
      q += d * d;
    }
    const float inv_std = rsqrtf(block_reduce(q, SumOp()) / float(cols) + eps);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      float v = (row_in(xr, sr, add, j) - mean) * inv_std * to_float(scale[j]);
      if (bias) v += to_float(bias[j]);
      yr[j] = from_float<T>(v);
    }
    if (threadIdx.x == 0) {
      if (mean_out) mean_out[r] = mean;
      if (inv_std_out) inv_std_out[r] = inv_std;
    }
  }
}

// layer_norm_rows for rows of up to kWarpRowCols elements whose width is a
// multiple of 16 bytes, every pointer 16-byte aligned: a warp per row, each
// lane loading 16 bytes at a time and keeping its pieces of the row in
// registers, so x, skip and add are read once and no block barrier is
// needed. (BERT's 768-wide rows: the block kernel's three passes spent
// three times the bytes' time; a warp per row one element at a time was
// slower still, its loads too small.)
constexpr int kWarpRowCols = 1024;

// Adds the 16 bytes at p, as floats, to out[0..16 / sizeof(T)).
template <typename T>
__device__ __forceinline__ void add_piece(const T* p, float* out) {
  const uint4 u = *reinterpret_cast<const uint4*>(p);
  const T* t = reinterpret_cast<const T*>(&u);
#pragma unroll
  for (int i = 0; i < int(16 / sizeof(T)); ++i) out[i] += to_float(t[i]);
}

template <typename T>
__global__ void layer_norm_warp_rows(const T* x, const T* skip, const T* add, const T* scale,
                                     const T* bias, T* y, float* mean_out, float* inv_std_out,
                                     int64_t rows, int cols, float eps) {
  constexpr int kVec = 16 / sizeof(T);
  constexpr int kPieces = kWarpRowCols / (32 * kVec);  // per lane, at most
  const int lane = threadIdx.x % 32, warps = blockDim.x / 32, pieces = cols / kVec;
  for (int64_t r = int64_t(blockIdx.x) * warps + threadIdx.x / 32; r < rows;
       r += int64_t(gridDim.x) * warps) {
    float v[kPieces][kVec] = {};
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < kPieces; ++k) {
      const int c = (lane + 32 * k) * kVec;  // the piece's first column
      if (c >= cols) continue;
      add_piece(x + r * cols + c, v[k]);
      if (skip) add_piece(skip + r * cols + c, v[k]);
      if (add) add_piece(add + c, v[k]);
#pragma unroll
      for (int i = 0; i < kVec; ++i) s += v[k][i];
    }
    const float mean = warp_reduce(s, SumOp()) / float(cols);
    float q = 0.0f;
#pragma unroll
    for (int k = 0; k < kPieces; ++k)
      if ((lane + 32 * k) < pieces)
#pragma unroll
        for (int i = 0; i < kVec; ++i) q += (v[k][i] - mean) * (v[k][i] - mean);
    const float inv_std = rsqrtf(warp_reduce(q, SumOp()) / float(cols) + eps);
#pragma unroll
    for (int k = 0; k < kPieces; ++k) {
      const int c = (lane + 32 * k) * kVec;
      if (c >= cols) continue;
      float g[kVec] = {}, b[kVec] = {};
      add_piece(scale + c, g);
      if (bias) add_piece(bias + c, b);
      uint4 u;
      T* t = reinterpret_cast<T*>(&u);
#pragma unroll
      for (int i = 0; i < kVec; ++i) t[i] = from_float<T>((v[k][i] - mean) * inv_std * g[i] + b[i]);
      *reinterpret_cast<uint4*>(y + r * cols + c) = u;
    }
    if (lane == 0) {
      if (mean_out) mean_out[r] = mean;
      if (inv_std_out) inv_std_out[r] = inv_std;
    }
  }
}

template <typename T>
__global__ void rms_norm_rows(const T* x, const T* scale, int64_t scale_n, T* y, int64_t rows,
                              int64_t cols, float eps) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    float q = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float v = to_float(xr[j]);
      q += v * v;
    }
    const float inv_rms = rsqrtf(block_reduce(q, SumOp()) / float(cols) + eps);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      yr[j] = from_float<T>(to_float(xr[j]) * inv_rms *
                            to_float(scale[scale_n == cols ? j : j % scale_n]));
  }
}

template <typename T>
void softmax_as(const void* x, void* y, int64_t rows, int64_t cols, bool log, cudaStream_t s) {
  softmax_rows<T><<<row_grid(rows), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y),
                                                      rows, cols, log);
}

template <typename T>
void layer_norm_as(const void* x, const void* skip, const void* add, const void* scale,
                   const void* bias, void* y, float* mean, float* inv_std, int64_t rows,
                   int64_t cols, float eps, cudaStream_t s) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  if (cols <= kWarpRowCols && cols % (16 / sizeof(T)) == 0 && aligned(x) && aligned(skip) &&
      aligned(add) && aligned(scale) && aligned(bias) && aligned(y)) {
    constexpr int kRowsPerBlock = kThreads / 32;
    layer_norm_warp_rows<T>
        <<<row_grid((rows + kRowsPerBlock - 1) / kRowsPerBlock), kThreads, 0, s>>>(
            static_cast<const T*>(x), static_cast<const T*>(skip), static_cast<const T*>(add),
            static_cast<const T*>(scale), static_cast<const T*>(bias), static_cast<T*>(y), mean,
            inv_std, rows, int(cols), eps);
    return;
  }
  layer_norm_rows<T><<<row_grid(rows), kThreads, 0, s>>>(
      static_cast<const T*>(x), static_cast<const T*>(skip), static_cast<const T*>(add),
      static_cast<const T*>(scale), static_cast<const T*>(bias), static_cast<T*>(y), mean, inv_std,
      rows, cols, eps);
}

template <typename T>
void rms_norm_as(const void* x, const void* scale, int64_t scale_n, void* y, int64_t rows,
                 int64_t cols, float eps, cudaStream_t s) {
  rms_norm_rows<T><<<row_grid(rows), kThreads, 0, s>>>(static_cast<const T*>(x),
                                                       static_cast<const T*>(scale), scale_n,
                                                       static_cast<T*>(y), rows, cols, eps);
}

}  // namespace

cudaError_t launch_softmax(ElemType t, const void* x, void* y, int64_t rows, int64_t cols, bool log,
                           cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto v) { softmax_as<decltype(v)>(x, y, rows, cols, log, stream); });
}

cudaError_t launch_layer_norm(ElemType t, const void* x, const void* scale, const void* bias,
                              void* y, float* mean, float* inv_std, int64_t rows, int64_t cols,
                              float epsilon, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto v) {
    layer_norm_as<decltype(v)>(x, nullptr, nullptr, scale, bias, y, mean, inv_std, rows, cols,
                               epsilon, stream);
  });
}

cudaError_t launch_skip_layer_norm(ElemType t, const void* x, const void* skip, const void* add,
                                   const void* scale, const void* bias, void* y, int64_t rows,
                                   int64_t cols, float epsilon, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto v) {
    layer_norm_as<decltype(v)>(x, skip, add, scale, bias, y, nullptr, nullptr, rows, cols, epsilon,
                               stream);
  });
}

cudaError_t launch_rms_norm(ElemType t, const void* x, const void* scale, int64_t scale_n, void* y,
                            int64_t rows, int64_t cols, float epsilon, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto v) {
    rms_norm_as<decltype(v)>(x, scale, scale_n, y, rows, cols, epsilon, stream);
  });
}

}  // namespace tessera::cuda
