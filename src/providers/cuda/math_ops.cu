// Unary math kernels (math_launch.hpp): each element computed in Calc<T>
// (float for float16/bfloat16, else the type itself) with CUDA's math
// functions, which agree with the host's to a few units in the last place.
#include "providers/cuda/math_types.cuh"

namespace tessera::cuda {

namespace {

template <MathUnary Op, typename T>
constexpr bool kUnaryServes = Op == MathUnary::kBitNot
                                  ? kIsInt<T>
                                  : kIsFloat<T> ||
                                        (std::is_signed_v<T> && kIsInt<T> &&
                                         (Op == MathUnary::kAbs || Op == MathUnary::kNeg ||
                                          Op == MathUnary::kSign));

// -x of a signed integer, wrapping (the most negative value stays itself).
template <typename T>
__device__ __forceinline__ T wrap_neg(T x) {
  using U = std::make_unsigned_t<T>;
  return T(U(U(0) - U(x)));
}

template <typename C>
__device__ __forceinline__ C softplus(C x) {
  return x > C(0) ? x + log1p(exp(-x)) : log1p(exp(x));
}

// The comparisons keep std::min/std::max's order, so a NaN gives what the
// CPU provider's scalar code gives.
template <typename C>
__device__ __forceinline__ C clamp01(C v) {
  const C lo = v < C(1) ? v : C(1);
  return C(0) < lo ? lo : C(0);
}

template <MathUnary Op, typename C>
__device__ __forceinline__ C apply_unary(C x, C alpha, C beta) {
  using U = MathUnary;
  if constexpr (kIsInt<C>) {
    if constexpr (Op == U::kAbs) return x < C(0) ? wrap_neg(x) : x;
    if constexpr (Op == U::kNeg) return wrap_neg(x);
    if constexpr (Op == U::kSign) return C((x > C(0)) - (x < C(0)));
    if constexpr (Op == U::kBitNot) return C(~x);
  } else {
    if constexpr (Op == U::kAbs) return fabs(x);
    if constexpr (Op == U::kNeg) return -x;
    if constexpr (Op == U::kSign) return isnan(x) ? x : C((x > C(0)) - (x < C(0)));
    if constexpr (Op == U::kExp) return exp(x);
    if constexpr (Op == U::kLog) return log(x);
    if constexpr (Op == U::kSqrt) return sqrt(x);
    if constexpr (Op == U::kReciprocal) return C(1) / x;
    if constexpr (Op == U::kFloor) return floor(x);
    if constexpr (Op == U::kCeil) return ceil(x);
    if constexpr (Op == U::kRound) return rint(x);  // to nearest, ties to even
    if constexpr (Op == U::kSin) return sin(x);
    if constexpr (Op == U::kCos) return cos(x);
    if constexpr (Op == U::kTan) return tan(x);
    if constexpr (Op == U::kAsin) return asin(x);
    if constexpr (Op == U::kAcos) return acos(x);
    if constexpr (Op == U::kAtan) return atan(x);
    if constexpr (Op == U::kSinh) return sinh(x);
    if constexpr (Op == U::kCosh) return cosh(x);
    if constexpr (Op == U::kAsinh) return asinh(x);
    if constexpr (Op == U::kAcosh) return acosh(x);
    if constexpr (Op == U::kAtanh) return atanh(x);
    if constexpr (Op == U::kSoftplus) return softplus(x);
    if constexpr (Op == U::kSoftsign) return x / (C(1) + fabs(x));
    if constexpr (Op == U::kMish) return x * tanh(softplus(x));
    if constexpr (Op == U::kHardSigmoid) return clamp01(alpha * x + beta);
    if constexpr (Op == U::kHardSwish) return x * clamp01(x / C(6) + C(0.5));
    if constexpr (Op == U::kElu) return x < C(0) ? alpha * expm1(x) : x;
    if constexpr (Op == U::kSelu) return x > C(0) ? beta * x : beta * (alpha * exp(x) - alpha);
    if constexpr (Op == U::kCelu) return x > C(0) ? x : alpha * expm1(x / alpha);
    if constexpr (Op == U::kThresholdedRelu) return x > alpha ? x : C(0);
    if constexpr (Op == U::kShrink) {
      if (x < -alpha) return x + beta;
      if (x > alpha) return x - beta;
      return C(0);
    }
    if constexpr (Op == U::kSwish) return x / (C(1) + exp(-alpha * x));
  }
  return x;
}

template <MathUnary Op, typename T>
__global__ void unary_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n, float alpha,
                             float beta) {
  using C = Calc<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    y[i] = store<T>(apply_unary<Op, C>(load(x[i]), C(alpha), C(beta)));
}

// Calls f(std::integral_constant<MathUnary, op>()).
template <int I = 0, typename F>
void with_unary(MathUnary op, F&& f) {
  if constexpr (I <= int(MathUnary::kBitNot)) {
    if (int(op) == I) return f(std::integral_constant<MathUnary, MathUnary(I)>());
    with_unary<I + 1>(op, f);
  }
}

template <typename T>
__global__ void clip_kernel(const T* __restrict__ x, const T* __restrict__ lo,
                            const T* __restrict__ hi, T* __restrict__ y, int64_t n) {
  using C = Calc<T>;
  const bool has_lo = lo != nullptr, has_hi = hi != nullptr;
  const C l = has_lo ? load(*lo) : C(0), h = has_hi ? load(*hi) : C(0);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    C v = load(x[i]);
    if (has_lo && v < l) v = l;
    if (has_hi && v > h) v = h;
    y[i] = store<T>(v);
  }
}

template <typename T>
__global__ void float_class_kernel(const T* __restrict__ x, uint8_t* __restrict__ y, int64_t n,
                                   bool nan, bool negative, bool positive) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const auto v = load(x[i]);
    y[i] = nan ? uint8_t(isnan(v)) : uint8_t(isinf(v) && (v > 0 ? positive : negative));
  }
}

__global__ void not_kernel(const uint8_t* __restrict__ x, uint8_t* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    y[i] = x[i] == 0 ? 1 : 0;
}

}  // namespace

cudaError_t launch_math_unary(MathUnary op, MathType t, const void* x, void* y, int64_t n,
                              float alpha, float beta, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  bool served = false;
  with_math_type(t, [&](auto v) {
    using T = decltype(v);
    with_unary(op, [&](auto o) {
      constexpr MathUnary kOp = decltype(o)::value;
      if constexpr (kUnaryServes<kOp, T>) {
        served = true;
        unary_kernel<kOp, T><<<grid_for(n, kMathThreads), kMathThreads, 0, stream>>>(
            static_cast<const T*>(x), static_cast<T*>(y), n, alpha, beta);
      }
    });
  });
  return served ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t launch_clip(MathType t, const void* x, const void* lo, const void* hi, void* y,
                        int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  bool served = false;
  with_math_type(t, [&](auto v) {
    using T = decltype(v);
    if constexpr (kIsFloat<T> || kIsInt<T>) {
      served = true;
      clip_kernel<T><<<grid_for(n, kMathThreads), kMathThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<const T*>(lo), static_cast<const T*>(hi),
          static_cast<T*>(y), n);
    }
  });
  return served ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t launch_float_class(bool nan, bool negative, bool positive, MathType t, const void* x,
                               uint8_t* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  bool served = false;
  with_math_type(t, [&](auto v) {
    using T = decltype(v);
    if constexpr (kIsFloat<T>) {
      served = true;
      float_class_kernel<T><<<grid_for(n, kMathThreads), kMathThreads, 0, stream>>>(
          static_cast<const T*>(x), y, n, nan, negative, positive);
    }
  });
  return served ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t launch_not(const uint8_t* x, uint8_t* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  not_kernel<<<grid_for(n, kMathThreads), kMathThreads, 0, stream>>>(x, y, n);
  return cudaGetLastError();
}

}  // namespace tessera::cuda
