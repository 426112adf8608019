// Cast between float, float16, bfloat16, double, bool and every 8- to 64-bit
// integer type, converting each element exactly as the CPU provider does (see
// shape_ops_launch.hpp): to float kinds through float (to double directly),
// floats to integers through int64.
#include <type_traits>

#include "providers/cuda/device_math.cuh"
#include "providers/cuda/shape_ops_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;

// A bool tensor's byte (0 or 1 as written; any nonzero byte reads as true),
// kept apart from uint8_t so the conversions can tell them apart.
struct Bool8 {
  uint8_t v;
};

template <typename T>
constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, __half> ||
                          std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, double>;

// A float element as double (exact), the type the CPU provider converts
// floats to integers through.
template <typename S>
__device__ __forceinline__ double wide(S s) {
  if constexpr (std::is_same_v<S, double>)
    return s;
  else
    return double(to_float(s));
}

template <typename D, typename S>
__device__ __forceinline__ D convert(S s) {
  if constexpr (std::is_same_v<D, S>) {
    return s;
  } else if constexpr (std::is_same_v<S, Bool8>) {
    if constexpr (std::is_same_v<D, double>)
      return s.v != 0 ? 1.0 : 0.0;
    else if constexpr (kIsFloat<D>)
      return from_float<D>(s.v != 0 ? 1.0f : 0.0f);
    else
      return D(s.v != 0 ? 1 : 0);
  } else if constexpr (std::is_same_v<D, Bool8>) {
    if constexpr (kIsFloat<S>)
      return Bool8{uint8_t(wide(s) != 0.0 ? 1 : 0)};  // NaN is true
    else
      return Bool8{uint8_t(s != 0 ? 1 : 0)};
  } else if constexpr (std::is_same_v<D, double>) {
    if constexpr (kIsFloat<S>)
      return wide(s);
    else
      return double(s);
  } else if constexpr (kIsFloat<D>) {
    // Round to nearest even; beyond the range, infinity. Doubles and
    // integers go through float first, as on the CPU.
    if constexpr (std::is_same_v<S, double>)
      return from_float<D>(float(s));
    else if constexpr (kIsFloat<S>)
      return from_float<D>(to_float(s));
    else
      return from_float<D>(float(s));
  } else if constexpr (kIsFloat<S>) {
    // Toward zero into int64 (NaN gives 0, beyond int64 saturates), then the
    // low bits, as the CPU provider's float_to_int does; uint64 also takes
    // the values from 2^63 up to its own limit.
    const double v = wide(s);
    if (isnan(v)) return D(0);
    if constexpr (std::is_same_v<D, uint64_t>) {
      if (v >= 18446744073709551616.0) return D(0xffffffffffffffffULL);
      if (v >= 9223372036854775808.0) return D(static_cast<unsigned long long>(v));
    }
    if (v >= 9223372036854775808.0) return D(int64_t(0x7fffffffffffffffLL));
    if (v < -9223372036854775808.0) return D(int64_t(-0x7fffffffffffffffLL - 1));
    return D(static_cast<long long>(v));
  } else {
    return D(s);  // integers: keep the low bits (two's complement)
  }
}

template <typename S, typename D>
__global__ void cast_kernel(const S* __restrict__ x, D* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    y[i] = convert<D>(x[i]);
}

// Calls f(T()) with the device type of `t`.
template <typename F>
void with_cast_type(CastType t, F&& f) {
  switch (t) {
    case CastType::kF32:
      return f(float());
    case CastType::kF16:
      return f(__half());
    case CastType::kBF16:
      return f(__nv_bfloat16());
    case CastType::kI32:
      return f(int32_t());
    case CastType::kI64:
      return f(int64_t());
    case CastType::kBool:
      return f(Bool8());
    case CastType::kI8:
      return f(int8_t());
    case CastType::kU8:
      return f(uint8_t());
    case CastType::kF64:
      return f(double());
    case CastType::kI16:
      return f(int16_t());
    case CastType::kU16:
      return f(uint16_t());
    case CastType::kU32:
      return f(uint32_t());
    case CastType::kU64:
      return f(uint64_t());
  }
}

}  // namespace

cudaError_t launch_cast(CastType from, CastType to, const void* x, void* y, int64_t n,
                        cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  with_cast_type(from, [&](auto s) {
    with_cast_type(to, [&](auto d) {
      using S = decltype(s);
      using D = decltype(d);
      cast_kernel<S, D><<<grid_for(n, kThreads), kThreads, 0, stream>>>(static_cast<const S*>(x),
                                                                        static_cast<D*>(y), n);
    });
  });
  return cudaGetLastError();
}

}  // namespace tessera::cuda
