// Resize on the device: per output element, each resized axis maps the
// output coordinate to the input (the coordinate transformation), takes the
// n input samples nearest it (ties to the left, clamped at the edges) with
// their weights, and the element is the weighted sum over every combination
// of the axes' taps (nearest: the one tap of weight 1 per axis). The taps
// follow the spec's reference as the CPU provider's kernel does; the
// coordinate is computed with explicitly rounded double operations, so a
// multiply-add the compiler would fuse cannot move a nearest pick or a
// floor across a tie.
#include <climits>
#include <cmath>

#include "providers/cuda/device_math.cuh"
#include "providers/cuda/num_dispatch.cuh"
#include "providers/cuda/resize_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxTaps = 4;  // cubic; linear and nearest use 2

__device__ double to_original(const ResizePlan& p, const ResizeAxis& a, int64_t x) {
  const double xr = double(x), s = a.scale, in = double(a.in), out = double(a.out);
  const ResizeCoord c = p.legacy ? ResizeCoord::kAsymmetric : p.coord;
  const double half = __dsub_rn(__ddiv_rn(__dadd_rn(xr, 0.5), s), 0.5);  // (x + 0.5) / s - 0.5
  switch (c) {
    case ResizeCoord::kHalfPixel:
      return half;
    case ResizeCoord::kHalfPixelSymmetric: {
      const double adj = __ddiv_rn(out, __dmul_rn(s, in));
      const double center = in / 2;
      return __dadd_rn(__dmul_rn(center, __dsub_rn(1.0, adj)), __ddiv_rn(__dadd_rn(xr, 0.5), s)) -
             0.5;
    }
    case ResizeCoord::kPytorchHalfPixel:
      return a.out > 1 ? half : 0.0;
    case ResizeCoord::kAlignCorners: {
      const double w = a.out_width > 0 ? a.out_width : out;
      return a.out > 1 && w != 1 ? __ddiv_rn(__dmul_rn(xr, in - 1), w - 1) : 0.0;
    }
    case ResizeCoord::kAsymmetric:
      return __ddiv_rn(xr, s);
    case ResizeCoord::kTfHalfPixelForNn:
      return __ddiv_rn(__dadd_rn(xr, 0.5), s);
    case ResizeCoord::kTfCropAndResize:
    default:
      if (a.out > 1)
        return __dadd_rn(
            __dmul_rn(a.roi_start, in - 1),
            __ddiv_rn(__dmul_rn(__dmul_rn(xr, a.roi_end - a.roi_start), in - 1), out - 1));
      return __dmul_rn(__dmul_rn(0.5, a.roi_start + a.roi_end), in - 1);
  }
}

// The taps of output coordinate x on axis a: n input indices with weights;
// false when x lies outside a tf_crop_and_resize roi.
__device__ bool taps(const ResizePlan& p, const ResizeAxis& a, int64_t x, int& n,
                     int64_t (&idx)[kMaxTaps], double (&w)[kMaxTaps]) {
  const double xo = to_original(p, a, x);
  if (p.coord == ResizeCoord::kTfCropAndResize && !p.legacy && (xo < 0 || xo > double(a.in - 1)))
    return false;
  const double fl = floor(xo);
  const bool integral = xo == fl;
  const double ratio = integral ? 1.0 : xo - fl;
  const int64_t base = int64_t(fl) - (integral ? 1 : 0);
  if (p.mode == ResizeMode::kNearest) {
    n = 2;
    bool up;
    if (ratio == 1.0)
      up = true;  // weights {0, 1}
    else if (p.legacy)
      up = a.scale < 1;
    else if (p.nearest == NearestMode::kRoundPreferCeil)
      up = ratio >= 0.5;
    else if (p.nearest == NearestMode::kFloor)
      up = false;
    else if (p.nearest == NearestMode::kCeil)
      up = true;
    else
      up = ratio > 0.5;
    w[0] = up ? 0.0 : 1.0;
    w[1] = up ? 1.0 : 0.0;
  } else if (p.mode == ResizeMode::kLinear) {
    n = 2;
    w[0] = 1 - ratio;
    w[1] = ratio;
  } else {
    n = 4;
    const double A = p.cubic_a, r1 = ratio + 1, r2 = 1 - ratio, r3 = 2 - ratio;
    w[0] = ((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A;
    w[1] = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1;
    w[2] = ((A + 2) * r2 - (A + 3)) * r2 * r2 + 1;
    w[3] = ((A * r3 - 5 * A) * r3 + 8 * A) * r3 - 4 * A;
  }
  const int64_t pad = (n + 1) / 2;
  int64_t start = base + 1 - n / 2;
  const int64_t hi = a.in + pad - n > -pad ? a.in + pad - n : -pad;
  start = start < -pad ? -pad : (start > hi ? hi : start);
  if (p.exclude_outside) {
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      const int64_t i = start + j;
      if (i < 0 || i >= a.in) w[j] = 0;
      sum += w[j];
    }
    if (sum != 0)
      for (int j = 0; j < n; ++j) w[j] /= sum;
  }
  const int64_t last = a.in - 1 > 0 ? a.in - 1 : 0;
  for (int j = 0; j < n; ++j) {
    const int64_t i = start + j;
    idx[j] = i < 0 ? 0 : (i > last ? last : i);
  }
  return true;
}

template <typename T>
__global__ void resize_nearest_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n, T fill,
                                      ResizePlan p) {
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += int64_t(gridDim.x) * blockDim.x) {
    int64_t rest = e, off = 0;
    bool outside = false;
    for (int k = p.rank - 1; k >= 0; --k) {
      const ResizeAxis& a = p.axes[k];
      const int64_t c = rest % a.out;
      rest /= a.out;
      if (a.identity) {
        off += c * a.in_stride;
        continue;
      }
      int nt;
      int64_t idx[kMaxTaps];
      double w[kMaxTaps];
      if (!taps(p, a, c, nt, idx, w)) {
        outside = true;
        break;
      }
      int64_t pick = idx[0];  // the last tap of positive weight, as the reference
      for (int j = 0; j < nt; ++j)
        if (w[j] > 0) pick = idx[j];
      off += pick * a.in_stride;
    }
    y[e] = outside ? fill : x[off];
  }
}

template <typename T>
__device__ T from_acc(double v) {
  if constexpr (std::is_integral_v<T>) {
    // Clamped to T's range, then truncated, as the CPU provider converts.
    constexpr int bits = 8 * sizeof(T);
    constexpr bool is_signed = std::is_signed_v<T>;
    const T lowest = is_signed ? T(uint64_t(1) << (bits - 1)) : T(0);
    const T highest = T(~lowest);
    if (v != v) return T(0);
    if (v <= (is_signed ? -ldexp(1.0, bits - 1) : 0.0)) return lowest;
    if (v >= ldexp(1.0, is_signed ? bits - 1 : bits)) return highest;
    return T(v);
  } else {
    return Acc<T>::down(typename Acc<T>::type(v));
  }
}

template <typename T, typename A>
__global__ void resize_weighted_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n,
                                       ResizePlan p) {
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += int64_t(gridDim.x) * blockDim.x) {
    int64_t rest = e, base = 0;
    int axes = 0;
    int nt[kMaxIndexRank];
    int64_t idx[kMaxIndexRank][kMaxTaps];
    double w[kMaxIndexRank][kMaxTaps];
    int64_t stride[kMaxIndexRank];
    bool outside = false;
    for (int k = p.rank - 1; k >= 0; --k) {
      const ResizeAxis& a = p.axes[k];
      const int64_t c = rest % a.out;
      rest /= a.out;
      if (a.identity) {
        base += c * a.in_stride;
        continue;
      }
      if (!taps(p, a, c, nt[axes], idx[axes], w[axes])) outside = true;
      stride[axes++] = a.in_stride;
    }
    if (outside) {
      y[e] = from_acc<T>(double(p.extrapolation));
      continue;
    }
    // Every combination of the resized axes' taps, as an odometer.
    int pos[kMaxIndexRank] = {};
    A sum = 0;
    for (;;) {
      A weight = 1;
      int64_t off = base;
      for (int r = 0; r < axes; ++r) {
        weight *= A(w[r][pos[r]]);
        off += idx[r][pos[r]] * stride[r];
      }
      if (weight != 0) sum += weight * A(Acc<T>::up(x[off]));
      int r = 0;
      while (r < axes && ++pos[r] == nt[r]) pos[r++] = 0;
      if (r == axes) break;
    }
    y[e] = from_acc<T>(double(sum));
  }
}

}  // namespace

cudaError_t launch_resize_nearest(int elem_bytes, const void* x, void* y, int64_t n,
                                  uint64_t fill_bits, const ResizePlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    resize_nearest_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), n, T(fill_bits), plan);
  });
}

cudaError_t launch_resize_weighted(NumType type, const void* x, void* y, int64_t n,
                                   const ResizePlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_num_type(type, [&](auto v) {
    using T = decltype(v);
    using A = std::conditional_t<std::is_same_v<typename Acc<T>::type, float>, float, double>;
    resize_weighted_kernel<T, A><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), n, plan);
  });
}

}  // namespace tessera::cuda
