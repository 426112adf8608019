// Broadcasting binary math kernels (math_launch.hpp). Each output element
// finds its inputs' offsets under an ElementPlan; arithmetic is done in
// Calc<T> (float for float16/bfloat16), integers wrap on overflow as the CPU
// provider's do. Ops whose result bits do not depend on the integers'
// signedness run on the unsigned type of the same width, so fewer kernels
// are compiled.
#include "providers/cuda/math_types.cuh"

namespace tessera::cuda {

namespace {

template <MathBinary Op>
constexpr bool kCompares =
    Op == MathBinary::kEqual || Op == MathBinary::kLess || Op == MathBinary::kGreater ||
    Op == MathBinary::kLessOrEqual || Op == MathBinary::kGreaterOrEqual;

// Whether op has a kernel for T. Add/Sub/Mul/Div on float, float16 and
// bfloat16 are elementwise.cu's; the ops kernel_type maps to unsigned types
// and unsigned Fmod (which kernel_op maps to Mod) have none of their own.
template <MathBinary Op, typename T>
constexpr bool binary_serves() {
  using B = MathBinary;
  constexpr bool number = kIsFloat<T> || kIsInt<T>;
  constexpr bool signed_int = kIsInt<T> && std::is_signed_v<T>;
  constexpr bool bitwise_same = Op == B::kAdd || Op == B::kSub || Op == B::kMul ||
                                Op == B::kBitAnd || Op == B::kBitOr || Op == B::kBitXor;
  if constexpr (bitwise_same && signed_int) return false;
  if constexpr (Op == B::kEqual && signed_int) return false;
  if constexpr ((Op == B::kAdd || Op == B::kSub || Op == B::kMul || Op == B::kDiv) && kIsFloat<T>)
    return std::is_same_v<T, double>;
  if constexpr (Op == B::kFmod && kIsInt<T>) return std::is_signed_v<T>;
  if constexpr (Op == B::kPRelu) return kIsFloat<T>;
  if constexpr (Op == B::kShiftLeft || Op == B::kShiftRight)
    return kIsInt<T> && std::is_unsigned_v<T>;
  if constexpr (Op == B::kAnd || Op == B::kOr || Op == B::kXor) return std::is_same_v<T, Bool8>;
  if constexpr (Op == B::kBitAnd || Op == B::kBitOr || Op == B::kBitXor) return kIsInt<T>;
  if constexpr (Op == B::kEqual) return true;
  return number;  // arithmetic and comparisons
}

// Wrapping Add/Sub/Mul, the bitwise ops and Equal give the same bits on a
// signed integer type as on the unsigned type of its width.
MathType kernel_type(MathBinary op, MathType t) {
  using B = MathBinary;
  const bool same_bits = op == B::kAdd || op == B::kSub || op == B::kMul || op == B::kBitAnd ||
                         op == B::kBitOr || op == B::kBitXor || op == B::kEqual;
  if (!same_bits) return t;
  switch (t) {
    case MathType::kI8:
      return MathType::kU8;
    case MathType::kI16:
      return MathType::kU16;
    case MathType::kI32:
      return MathType::kU32;
    case MathType::kI64:
      return MathType::kU64;
    default:
      return t;
  }
}

// Fmod of unsigned integers is their Mod.
MathBinary kernel_op(MathBinary op, MathType t) {
  const bool is_unsigned =
      t == MathType::kU8 || t == MathType::kU16 || t == MathType::kU32 || t == MathType::kU64;
  return op == MathBinary::kFmod && is_unsigned ? MathBinary::kMod : op;
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

}  // namespace

cudaError_t launch_math_binary(MathBinary op, MathType t, const void* a, const void* b, void* y,
                               int64_t n, const ElementPlan& plan, int32_t* zero_divisor,
                               cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (plan.operands != 2) return cudaErrorInvalidValue;
  op = kernel_op(op, t);
  t = kernel_type(op, t);
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

}  // namespace tessera::cuda
