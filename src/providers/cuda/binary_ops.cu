// Broadcasting binary and variadic math kernels (math_launch.hpp). Each
// output element finds its inputs' offsets under an ElementPlan; arithmetic
// is done in Calc<T> (float for float16/bfloat16), integers wrap on overflow
// as the CPU provider's do.
#include "providers/cuda/math_types.cuh"

namespace tessera::cuda {

namespace {

// The coordinates of output element i over the plan's dims.
struct Coords {
  int64_t c[kMaxElementRank];
};
__device__ __forceinline__ Coords coords(const ElementPlan& p, int64_t i) {
  Coords r;
  for (int d = p.rank - 1; d >= 0; --d) {
    r.c[d] = i % p.dims[d];
    i /= p.dims[d];
  }
  return r;
}
__device__ __forceinline__ int64_t offset(const ElementPlan& p, const Coords& c, int k) {
  int64_t o = 0;
  for (int d = 0; d < p.rank; ++d) o += c.c[d] * p.strides[k][d];
  return o;
}

template <MathBinary Op>
constexpr bool kCompares =
    Op == MathBinary::kEqual || Op == MathBinary::kLess || Op == MathBinary::kGreater ||
    Op == MathBinary::kLessOrEqual || Op == MathBinary::kGreaterOrEqual;

template <MathBinary Op, typename T>
constexpr bool binary_serves() {
  using B = MathBinary;
  constexpr bool number = kIsFloat<T> || kIsInt<T>;
  if constexpr (Op == B::kPRelu) return kIsFloat<T>;
  if constexpr (Op == B::kShiftLeft || Op == B::kShiftRight)
    return kIsInt<T> && std::is_unsigned_v<T>;
  if constexpr (Op == B::kAnd || Op == B::kOr || Op == B::kXor) return std::is_same_v<T, Bool8>;
  if constexpr (Op == B::kBitAnd || Op == B::kBitOr || Op == B::kBitXor) return kIsInt<T>;
  if constexpr (Op == B::kEqual) return true;
  if constexpr (kCompares<Op>) return number;
  return number;  // arithmetic
}

// Output element type: bool for comparisons, else the inputs' type.
template <MathBinary Op, typename T>
using BinaryOut = std::conditional_t<kCompares<Op>, uint8_t, T>;

template <typename T>
__device__ __forceinline__ T wrap(std::make_unsigned_t<T> v) {
  return T(v);
}

template <MathBinary Op, typename T>
__device__ __forceinline__ BinaryOut<Op, T> apply_binary(T a, T b, int32_t* zero_divisor) {
  using B = MathBinary;
  if constexpr (std::is_same_v<T, Bool8>) {
    const bool x = a.v != 0, y = b.v != 0;
    if constexpr (Op == B::kAnd) return Bool8{uint8_t(x && y)};
    if constexpr (Op == B::kOr) return Bool8{uint8_t(x || y)};
    if constexpr (Op == B::kXor) return Bool8{uint8_t(x != y)};
    if constexpr (Op == B::kEqual) return uint8_t(x == y);
  } else if constexpr (kCompares<Op>) {
    const auto x = load(a), y = load(b);
    if constexpr (Op == B::kEqual) return uint8_t(x == y);
    if constexpr (Op == B::kLess) return uint8_t(x < y);
    if constexpr (Op == B::kGreater) return uint8_t(x > y);
    if constexpr (Op == B::kLessOrEqual) return uint8_t(x <= y);
    if constexpr (Op == B::kGreaterOrEqual) return uint8_t(x >= y);
  } else if constexpr (kIsFloat<T>) {
    using C = Calc<T>;
    const C x = load(a), y = load(b);
    if constexpr (Op == B::kAdd) return store<T>(x + y);
    if constexpr (Op == B::kSub) return store<T>(x - y);
    if constexpr (Op == B::kMul) return store<T>(x * y);
    if constexpr (Op == B::kDiv) return store<T>(x / y);
    if constexpr (Op == B::kPRelu) return x < C(0) ? store<T>(x * y) : a;
    if constexpr (Op == B::kMod || Op == B::kFmod) {
      C r = fmod(x, y);
      if (Op == B::kMod && r != C(0) && ((r < C(0)) != (y < C(0)))) r += y;
      return store<T>(r);
    }
  } else {  // integers
    using U = std::make_unsigned_t<T>;
    if constexpr (Op == B::kAdd) return wrap<T>(U(U(a) + U(b)));
    if constexpr (Op == B::kSub) return wrap<T>(U(U(a) - U(b)));
    if constexpr (Op == B::kMul) return wrap<T>(U(U(a) * U(b)));
    if constexpr (Op == B::kShiftLeft) return b >= T(sizeof(T) * 8) ? T(0) : T(U(a) << b);
    if constexpr (Op == B::kShiftRight) return b >= T(sizeof(T) * 8) ? T(0) : T(a >> b);
    if constexpr (Op == B::kBitAnd) return T(a & b);
    if constexpr (Op == B::kBitOr) return T(a | b);
    if constexpr (Op == B::kBitXor) return T(a ^ b);
    if constexpr (Op == B::kDiv || Op == B::kMod || Op == B::kFmod) {
      if (b == T(0)) {
        *zero_divisor = 1;
        return T(0);
      }
      if constexpr (std::is_signed_v<T>) {
        // The most negative value / -1 overflows: wrap like negation.
        if (b == T(-1)) return Op == B::kDiv ? wrap<T>(U(U(0) - U(a))) : T(0);
      }
      if constexpr (Op == B::kDiv) return T(a / b);  // toward zero
      T r = T(a % b);                                // the dividend's sign
      if constexpr (std::is_signed_v<T> && Op == B::kMod)
        if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = T(r + b);
      return r;
    }
  }
  return BinaryOut<Op, T>();
}

template <MathBinary Op, typename T>
__global__ void binary_kernel(const T* __restrict__ a, const T* __restrict__ b,
                              BinaryOut<Op, T>* __restrict__ y, int64_t n, ElementPlan plan,
                              int32_t* zero_divisor) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const Coords c = coords(plan, i);
    y[i] = apply_binary<Op, T>(a[offset(plan, c, 0)], b[offset(plan, c, 1)], zero_divisor);
  }
}

// Calls f(std::integral_constant<MathBinary, op>()).
template <int I = 0, typename F>
void with_binary(MathBinary op, F&& f) {
  if constexpr (I <= int(MathBinary::kGreaterOrEqual)) {
    if (int(op) == I) return f(std::integral_constant<MathBinary, MathBinary(I)>());
    with_binary<I + 1>(op, f);
  }
}

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

cudaError_t launch_math_binary(MathBinary op, MathType t, const void* a, const void* b, void* y,
                               int64_t n, const ElementPlan& plan, int32_t* zero_divisor,
                               cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (plan.operands != 2) return cudaErrorInvalidValue;
  bool served = false;
  with_math_type(t, [&](auto v) {
    using T = decltype(v);
    with_binary(op, [&](auto o) {
      constexpr MathBinary kOp = decltype(o)::value;
      if constexpr (binary_serves<kOp, T>()) {
        served = true;
        binary_kernel<kOp, T><<<grid_for(n, kMathThreads), kMathThreads, 0, stream>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), static_cast<BinaryOut<kOp, T>*>(y),
            n, plan, zero_divisor);
      }
    });
  });
  return served ? cudaGetLastError() : cudaErrorInvalidValue;
}

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
