// QuantizeLinear and DequantizeLinear kernels (math_launch.hpp), computing
// each element as the CPU provider does: the quotient in float rounded to the
// input's precision, rint (ties to even), the zero point added in double and
// the result clamped to the output's range.
#include "providers/cuda/math_types.cuh"

namespace tessera::cuda {

namespace {

template <typename T>
constexpr bool kQuantized = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                            std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t>;
template <typename T>
constexpr bool kHalfOrFloat = kIsHalf<T> || std::is_same_v<T, float>;

template <typename X, typename Y>
__global__ void quantize_kernel(const X* __restrict__ x, const X* __restrict__ scale,
                                const Y* __restrict__ zero, Y* __restrict__ y, int64_t n,
                                int64_t channels, int64_t inner) {
  // The range of Y (numeric_limits is host code for nvcc).
  constexpr bool kSigned = std::is_signed_v<Y>;
  constexpr double kBits = sizeof(Y) == 1 ? 256.0 : 65536.0;
  constexpr double lo = kSigned ? -kBits / 2 : 0.0;
  constexpr double hi = kSigned ? kBits / 2 - 1 : kBits - 1;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t s = channels == 1 ? 0 : (i / inner) % channels;
    // X's values and scales are exact in float; the quotient is rounded to
    // X's precision, as float16/bfloat16 arithmetic would.
    const float v = load(store<X>(load(x[i]) / load(scale[s])));
    double r = double(rintf(v)) + (zero ? double(zero[s]) : 0.0);
    if (isnan(r)) r = 0;
    y[i] = Y(r < lo ? lo : (r > hi ? hi : r));
  }
}

template <typename X, typename Y>
__global__ void dequantize_kernel(const X* __restrict__ x, const Y* __restrict__ scale,
                                  const X* __restrict__ zero, Y* __restrict__ y, int64_t n,
                                  int64_t channels, int64_t inner) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t s = channels == 1 ? 0 : (i / inner) % channels;
    const int64_t z = zero ? int64_t(zero[s]) : 0;
    // int32 does not fit a float exactly: the difference is taken in
    // integers first (exact for the narrower types either way).
    y[i] = store<Y>(float(int64_t(x[i]) - z) * load(scale[s]));
  }
}

}  // namespace

cudaError_t launch_quantize(MathType x_type, MathType y_type, const void* x, const void* scale,
                            const void* zero, void* y, int64_t n, int64_t channels, int64_t inner,
                            cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (channels < 1 || inner < 1) return cudaErrorInvalidValue;
  bool served = false;
  with_math_type(x_type, [&](auto xv) {
    using X = decltype(xv);
    if constexpr (kHalfOrFloat<X>) {
      with_math_type(y_type, [&](auto yv) {
        using Y = decltype(yv);
        if constexpr (kQuantized<Y>) {
          served = true;
          quantize_kernel<X, Y><<<grid_for(n, kMathThreads), kMathThreads, 0, stream>>>(
              static_cast<const X*>(x), static_cast<const X*>(scale), static_cast<const Y*>(zero),
              static_cast<Y*>(y), n, channels, inner);
        }
      });
    }
  });
  return served ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t launch_dequantize(MathType x_type, MathType y_type, const void* x, const void* scale,
                              const void* zero, void* y, int64_t n, int64_t channels, int64_t inner,
                              cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (channels < 1 || inner < 1) return cudaErrorInvalidValue;
  bool served = false;
  with_math_type(x_type, [&](auto xv) {
    using X = decltype(xv);
    if constexpr (kQuantized<X> || std::is_same_v<X, int32_t>) {
      with_math_type(y_type, [&](auto yv) {
        using Y = decltype(yv);
        if constexpr (kHalfOrFloat<Y>) {
          served = true;
          dequantize_kernel<X, Y><<<grid_for(n, kMathThreads), kMathThreads, 0, stream>>>(
              static_cast<const X*>(x), static_cast<const Y*>(scale), static_cast<const X*>(zero),
              static_cast<Y*>(y), n, channels, inner);
        }
      });
    }
  });
  return served ? cudaGetLastError() : cudaErrorInvalidValue;
}

}  // namespace tessera::cuda
