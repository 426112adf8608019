// CNN kernels: pooling windows (one thread per output), global pooling (one
// block per plane), inference BatchNormalization (per-channel factors, then
// one thread per element) and a crop. Arithmetic in float. Loops index in 32
// bits when the sizes allow, so their divisions stay 32-bit.
#include <cfloat>
#include <climits>

#include "providers/cuda/cnn_launch.hpp"
#include "providers/cuda/device_math.cuh"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;

// Calls f(I()) with the narrowest index type that holds every index below n
// plus one grid stride (grid_for's grid is at most 65535 * kThreads < 2^24).
template <typename F>
void with_index_type(int64_t n, F&& f) {
  if (n <= int64_t(INT32_MAX))
    f(uint32_t());
  else
    f(int64_t());
}

template <typename T, typename I>
__global__ void pool_windows(const T* x, T* y, PoolGeometry g, PoolKind kind, I total) {
  const I step = I(gridDim.x) * I(blockDim.x);
  const int64_t in_plane = int64_t(g.in[0]) * g.in[1] * g.in[2];
  for (I i = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); i < total; i += step) {
    I rest = i;
    int o[3];
    for (int d = 2; d >= 0; --d) {
      o[d] = int(rest % I(g.out[d]));
      rest /= I(g.out[d]);
    }
    const int64_t plane = int64_t(rest);
    // Window start per dim, and its taps inside the input (valid) and
    // inside the padded input (padded: what count_include_pad divides by).
    int64_t start[3];
    int64_t valid = 1, padded = 1;
    for (int d = 0; d < 3; ++d) {
      start[d] = int64_t(o[d]) * g.stride[d] - g.pad_begin[d];
      int64_t v = 0, p = 0;
      for (int k = 0; k < g.kernel[d]; ++k) {
        const int64_t pos = start[d] + int64_t(k) * g.dilation[d];
        if (pos >= -g.pad_begin[d] && pos < int64_t(g.in[d]) + g.pad_end[d]) ++p;
        if (pos >= 0 && pos < g.in[d]) ++v;
      }
      valid *= v;
      padded *= p;
    }
    const T* xp = x + plane * in_plane;
    const bool is_max = kind == PoolKind::kMax;
    float acc = is_max ? -FLT_MAX : 0.0f;
    bool found = false;
    for (int k0 = 0; k0 < g.kernel[0]; ++k0) {
      const int64_t p0 = start[0] + int64_t(k0) * g.dilation[0];
      if (p0 < 0 || p0 >= g.in[0]) continue;
      for (int k1 = 0; k1 < g.kernel[1]; ++k1) {
        const int64_t p1 = start[1] + int64_t(k1) * g.dilation[1];
        if (p1 < 0 || p1 >= g.in[1]) continue;
        const T* row = xp + (p0 * g.in[1] + p1) * g.in[2];
        for (int k2 = 0; k2 < g.kernel[2]; ++k2) {
          const int64_t p2 = start[2] + int64_t(k2) * g.dilation[2];
          if (p2 < 0 || p2 >= g.in[2]) continue;
          const float v = to_float(row[p2]);
          if (!is_max) {
            acc += v;
          } else if (!found || v > acc) {  // the CPU provider's rule, NaN included
            acc = v;
            found = true;
          }
        }
      }
    }
    if (!is_max) {
      const int64_t div = kind == PoolKind::kAverageIncludePad ? padded : valid;
      acc = div > 0 ? acc / float(div) : 0.0f;
    }
    y[i] = from_float<T>(acc);
  }
}

// Max that returns NaN when either side is NaN (the CPU provider's
// GlobalMaxPool propagates NaN).
struct NanMaxOp {
  __device__ float operator()(float a, float b) const {
    if (a != a) return a;
    if (b != b) return b;
    return a > b ? a : b;
  }
  __device__ float identity() const { return -INFINITY; }
};

template <typename T, bool kMax>
__global__ void global_pool_planes(const T* x, T* y, int64_t planes, int64_t n) {
  for (int64_t p = blockIdx.x; p < planes; p += gridDim.x) {
    const T* xp = x + p * n;
    float acc = kMax ? -INFINITY : 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float v = to_float(xp[j]);
      acc = kMax ? NanMaxOp()(acc, v) : acc + v;
    }
    if constexpr (kMax) {
      acc = block_reduce(acc, NanMaxOp());
    } else {
      acc = block_reduce(acc, SumOp());
      acc = n > 0 ? acc / float(n) : 0.0f;
    }
    if (threadIdx.x == 0) y[p] = from_float<T>(acc);
  }
}

__device__ float load_as_float(const void* p, ElemType t, int64_t i) {
  switch (t) {
    case ElemType::kF16:
      return __half2float(static_cast<const __half*>(p)[i]);
    case ElemType::kBF16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    default:
      return static_cast<const float*>(p)[i];
  }
}

// factors = [mean | scale / sqrt(var + eps) | bias], c floats each.
__global__ void batch_norm_factors(ElemType param_t, ElemType stats_t, const void* scale,
                                   const void* bias, const void* mean, const void* var,
                                   float* factors, int64_t c, float eps) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < c;
       i += int64_t(gridDim.x) * blockDim.x) {
    const float v = load_as_float(var, stats_t, i);
    factors[i] = load_as_float(mean, stats_t, i);
    factors[c + i] = load_as_float(scale, param_t, i) / sqrtf(v + eps);
    factors[2 * c + i] = load_as_float(bias, param_t, i);
  }
}

template <typename T, typename I>
__global__ void batch_norm_apply(const T* x, T* y, const float* factors, I total, I spatial, I c) {
  const I step = I(gridDim.x) * I(blockDim.x);
  for (I i = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); i < total; i += step) {
    const I ch = (i / spatial) % c;
    const float v = (to_float(x[i]) - factors[ch]) * factors[c + ch] + factors[2 * c + ch];
    y[i] = from_float<T>(v);
  }
}

template <typename E, typename I>
__global__ void crop_corner(const E* x, E* y, I total, int in1, int in2, int out0, int out1,
                            int out2, int64_t in_plane) {
  const I step = I(gridDim.x) * I(blockDim.x);
  for (I i = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); i < total; i += step) {
    I rest = i;
    const int64_t c2 = int64_t(rest % I(out2));
    rest /= I(out2);
    const int64_t c1 = int64_t(rest % I(out1));
    rest /= I(out1);
    const int64_t c0 = int64_t(rest % I(out0));
    const int64_t plane = int64_t(rest / I(out0));
    y[i] = x[plane * in_plane + (c0 * in1 + c1) * in2 + c2];
  }
}

}  // namespace

cudaError_t launch_pool(PoolKind kind, ElemType t, const void* x, void* y, const PoolGeometry& g,
                        cudaStream_t stream) {
  const int64_t total = g.planes * g.out[0] * g.out[1] * g.out[2];
  if (total == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto v) {
    using T = decltype(v);
    with_index_type(total, [&](auto index) {
      using I = decltype(index);
      pool_windows<T, I><<<grid_for(total, kThreads), kThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<T*>(y), g, kind, I(total));
    });
  });
}

cudaError_t launch_global_pool(bool max, ElemType t, const void* x, void* y, int64_t planes,
                               int64_t plane_size, cudaStream_t stream) {
  if (planes == 0) return cudaSuccess;
  const unsigned grid = unsigned(planes < 65535 ? planes : 65535);
  return with_elem_type(t, [&](auto v) {
    using T = decltype(v);
    if (max)
      global_pool_planes<T, true><<<grid, kThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<T*>(y), planes, plane_size);
    else
      global_pool_planes<T, false><<<grid, kThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<T*>(y), planes, plane_size);
  });
}

cudaError_t launch_batch_norm(ElemType t, ElemType param_t, ElemType stats_t, const void* x,
                              const void* scale, const void* bias, const void* mean,
                              const void* var, void* y, float* factors, int64_t n, int64_t c,
                              int64_t spatial, float epsilon, cudaStream_t stream) {
  const int64_t total = n * c * spatial;
  if (total == 0) return cudaSuccess;
  batch_norm_factors<<<grid_for(c, kThreads), kThreads, 0, stream>>>(
      param_t, stats_t, scale, bias, mean, var, factors, c, epsilon);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  return with_elem_type(t, [&](auto v) {
    using T = decltype(v);
    with_index_type(total, [&](auto index) {
      using I = decltype(index);
      batch_norm_apply<T, I><<<grid_for(total, kThreads), kThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<T*>(y), factors, I(total), I(spatial), I(c));
    });
  });
}

cudaError_t launch_crop(int elem_bytes, const void* x, void* y, int64_t planes, const int in[3],
                        const int out[3], cudaStream_t stream) {
  const int64_t total = planes * out[0] * out[1] * out[2];
  if (total == 0) return cudaSuccess;
  const int64_t in_plane = int64_t(in[0]) * in[1] * in[2];
  auto run = [&](auto elem) {
    using E = decltype(elem);
    // The index type covers the source offsets too (they exceed the output's).
    with_index_type(planes * in_plane, [&](auto index) {
      using I = decltype(index);
      crop_corner<E, I><<<grid_for(total, kThreads), kThreads, 0, stream>>>(
          static_cast<const E*>(x), static_cast<E*>(y), I(total), in[1], in[2], out[0], out[1],
          out[2], in_plane);
    });
  };
  if (elem_bytes == 2)
    run(uint16_t());
  else
    run(uint32_t());
  return cudaGetLastError();
}

}  // namespace tessera::cuda
