// Pow (a float, int32 or int64 base with an exponent of any float or
// integer type) and the variadic Sum, Mean, Max and Min (math_launch.hpp),
// broadcasting under an ElementPlan as binary_ops.cu does.
#include "providers/cuda/math_types.cuh"

namespace tessera::cuda {

namespace {

// Integer power by squaring, wrapping on overflow; a negative exponent gives
// the integer part of 1 / x^-e (1, -1 or 0).
template <typename T, typename E>
__device__ T int_pow(T x, E e) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_signed_v<E>) {
    if (e < 0) {
      if (x == T(1)) return T(1);
      if (x == T(-1)) return (e % 2) ? T(-1) : T(1);
      return T(0);
    }
  }
  U r = 1, b = U(x);
  for (uint64_t n = uint64_t(e); n; n >>= 1) {
    if (n & 1u) r = U(r * b);
    b = U(b * b);
  }
  return T(r);
}

// A double toward zero into int64 (NaN gives 0, beyond int64 saturates),
// then T's low bits, as the CPU provider's float_to_int.
template <typename T>
__device__ __forceinline__ T double_to_int(double v) {
  if (isnan(v)) return T(0);
  if (v >= 9223372036854775808.0) return T(int64_t(0x7fffffffffffffffLL));
  if (v < -9223372036854775808.0) return T(int64_t(-0x7fffffffffffffffLL - 1));
  return T(static_cast<long long>(v));
}

template <typename T, typename E>
__device__ __forceinline__ T pow_elem(T x, E y) {
  if constexpr (kIsFloat<T>) {
    using C = Calc<T>;
    return store<T>(pow(C(load(x)), C(load(y))));
  } else if constexpr (kIsFloat<E>) {
    return double_to_int<T>(pow(double(x), double(load(y))));
  } else {
    return int_pow(x, y);
  }
}

template <typename T, typename E>
__global__ void pow_kernel(const T* __restrict__ a, const E* __restrict__ b, T* __restrict__ y,
                           int64_t n, ElementPlan plan) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const Coords c = coords(plan, i);
    y[i] = pow_elem(a[offset(plan, c, 0)], b[offset(plan, c, 1)]);
  }
}

template <MathFold Op, typename C>
__device__ __forceinline__ C fold(C acc, C x) {
  if constexpr (Op == MathFold::kSum || Op == MathFold::kMean) return acc + x;
  if constexpr (kIsFloat<C>) {  // a NaN anywhere wins
    if constexpr (Op == MathFold::kMax) return (x > acc || isnan(x)) ? x : acc;
    return (x < acc || isnan(x)) ? x : acc;
  } else {
    if constexpr (Op == MathFold::kMax) return x > acc ? x : acc;
    return x < acc ? x : acc;
  }
}

template <MathFold Op, typename T>
__global__ void fold_kernel(FoldInputs in, T* __restrict__ y, int64_t n, ElementPlan plan) {
  using C = Calc<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const Coords c = coords(plan, i);
    C acc = load(static_cast<const T*>(in.p[0])[offset(plan, c, 0)]);
    for (int k = 1; k < plan.operands; ++k)
      acc = fold<Op, C>(acc, load(static_cast<const T*>(in.p[k])[offset(plan, c, k)]));
    if constexpr (Op == MathFold::kMean) acc = acc / C(plan.operands);
    y[i] = store<T>(acc);
  }
}

}  // namespace

cudaError_t launch_pow(MathType base, MathType exponent, const void* a, const void* b, void* y,
                       int64_t n, const ElementPlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (plan.operands != 2) return cudaErrorInvalidValue;
  bool served = false;
  with_math_type(base, [&](auto tv) {
    using T = decltype(tv);
    if constexpr (kIsFloat<T> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
      with_math_type(exponent, [&](auto ev) {
        using E = decltype(ev);
        if constexpr (kIsFloat<E> || kIsInt<E>) {
          served = true;
          pow_kernel<T, E><<<grid_for(n, kMathThreads), kMathThreads, 0, stream>>>(
              static_cast<const T*>(a), static_cast<const E*>(b), static_cast<T*>(y), n, plan);
        }
      });
    }
  });
  return served ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t launch_fold(MathFold op, MathType t, const FoldInputs& inputs, void* y, int64_t n,
                        const ElementPlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (plan.operands < 1) return cudaErrorInvalidValue;
  bool served = false;
  with_math_type(t, [&](auto v) {
    using T = decltype(v);
    const auto go = [&](auto k) {
      constexpr MathFold kOp = decltype(k)::value;
      constexpr bool sums = kOp == MathFold::kSum || kOp == MathFold::kMean;
      if constexpr (kIsFloat<T> || (!sums && kIsInt<T>)) {
        served = true;
        fold_kernel<kOp, T><<<grid_for(n, kMathThreads), kMathThreads, 0, stream>>>(
            inputs, static_cast<T*>(y), n, plan);
      }
    };
    switch (op) {
      case MathFold::kSum:
        return go(std::integral_constant<MathFold, MathFold::kSum>());
      case MathFold::kMean:
        return go(std::integral_constant<MathFold, MathFold::kMean>());
      case MathFold::kMax:
        return go(std::integral_constant<MathFold, MathFold::kMax>());
      case MathFold::kMin:
        return go(std::integral_constant<MathFold, MathFold::kMin>());
    }
  });
  return served ? cudaGetLastError() : cudaErrorInvalidValue;
}

}  // namespace tessera::cuda
