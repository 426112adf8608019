// Element-wise kernels: binary arithmetic with numpy broadcasting, unary
// activations, a convolution's per-channel epilogue, and the broadcast copy. Arithmetic is done in
// float for every element type.
#include <cstdint>
#include <type_traits>

#include "providers/cuda/cuda_launch.hpp"
#include "providers/cuda/device_math.cuh"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;

// Offsets of output element i in both inputs under the plan.
__device__ __forceinline__ void offsets(const BroadcastPlan& p, int64_t i, int64_t& a, int64_t& b) {
  if (p.rank == 1) {
    a = i * p.strides[0][0];
    b = i * p.strides[1][0];
    return;
  }
  a = b = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t c = i % p.dims[d];
    i /= p.dims[d];
    a += c * p.strides[0][d];
    b += c * p.strides[1][d];
  }
}

template <BinaryOp Op>
__device__ __forceinline__ float apply(float a, float b) {
  if constexpr (Op == BinaryOp::kAdd) return a + b;
  if constexpr (Op == BinaryOp::kSub) return a - b;
  if constexpr (Op == BinaryOp::kMul) return a * b;
  return a / b;
}

template <BinaryOp Op, typename T>
__global__ void binary_kernel(const T* a, const T* b, T* y, int64_t n, BroadcastPlan plan) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ia, ib;
    offsets(plan, i, ia, ib);
    y[i] = from_float<T>(apply<Op>(to_float(a[ia]), to_float(b[ib])));
  }
}

template <UnaryOp Op>
__device__ __forceinline__ float apply(float x, float alpha, float beta) {
  // NaN passes through every activation (comparisons with NaN are false).
  if constexpr (Op == UnaryOp::kRelu) return x < 0.0f ? 0.0f : x;
  if constexpr (Op == UnaryOp::kSigmoid) return 1.0f / (1.0f + expf(-x));
  if constexpr (Op == UnaryOp::kTanh) return tanhf(x);
  if constexpr (Op == UnaryOp::kErf) return erff(x);
  if constexpr (Op == UnaryOp::kGelu) return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  if constexpr (Op == UnaryOp::kGeluTanh)
    return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
  if constexpr (Op == UnaryOp::kLeakyRelu) return x < 0.0f ? alpha * x : x;
  return x < alpha ? alpha : (x > beta ? beta : x);  // kClip
}

// Calls f(std::integral_constant<UnaryOp, op>()), so the kernels take the
// op as a template argument (one instantiation each, no switch per element).
template <typename F>
void with_unary_op(UnaryOp op, F&& f) {
  using U = UnaryOp;
  switch (op) {
    case U::kRelu:
      return f(std::integral_constant<U, U::kRelu>());
    case U::kSigmoid:
      return f(std::integral_constant<U, U::kSigmoid>());
    case U::kTanh:
      return f(std::integral_constant<U, U::kTanh>());
    case U::kErf:
      return f(std::integral_constant<U, U::kErf>());
    case U::kGelu:
      return f(std::integral_constant<U, U::kGelu>());
    case U::kGeluTanh:
      return f(std::integral_constant<U, U::kGeluTanh>());
    case U::kLeakyRelu:
      return f(std::integral_constant<U, U::kLeakyRelu>());
    case U::kClip:
      return f(std::integral_constant<U, U::kClip>());
  }
}

template <UnaryOp Op, typename T>
__global__ void unary_kernel(const T* x, T* y, int64_t n, float alpha, float beta) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    y[i] = from_float<T>(apply<Op>(to_float(x[i]), alpha, beta));
}

// The bias is the innermost axis's: element i takes bias[i % cols].
template <typename T>
__global__ void bias_gelu_kernel(const T* x, const T* bias, T* y, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    y[i] =
        from_float<T>(apply<UnaryOp::kGelu>(to_float(x[i]) + to_float(bias[i % cols]), 0.0f, 0.0f));
}

// Four elements of T loaded or stored in one access.
template <typename T>
struct alignas(4 * sizeof(T)) Four {
  T v[4];
};

// bias_gelu_kernel four elements a step, with 32-bit index math: for n
// below 2^31, cols a multiple of 4 and every pointer aligned to Four<T>.
// BERT's 4096 x 3072 BiasGelu spent more on the per-element 64-bit modulo
// and 2-byte accesses than on moving its bytes.
template <typename T>
__global__ void bias_gelu_four(const Four<T>* x, const T* bias, Four<T>* y, uint32_t quads,
                               uint32_t cols) {
  for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
    const uint32_t col = (q * 4u) % cols;
    const Four<T> in = x[q];
    const Four<T> b = *reinterpret_cast<const Four<T>*>(bias + col);
    Four<T> out;
#pragma unroll
    for (int k = 0; k < 4; ++k)
      out.v[k] =
          from_float<T>(apply<UnaryOp::kGelu>(to_float(in.v[k]) + to_float(b.v[k]), 0.0f, 0.0f));
    y[q] = out;
  }
}

// kAct false: no activation (Op is then ignored). I is the index type:
// 32-bit where the sizes allow, since the channel's division costs several
// times the element's memory traffic in 64 bits.
template <bool kAct, UnaryOp Op, typename T, typename I>
__global__ void channel_epilogue_kernel(T* y, const T* bias, const T* z, I n, I c, I spatial,
                                        float alpha, float beta) {
  for (I i = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); i < n;
       i += I(gridDim.x) * I(blockDim.x)) {
    float v = to_float(y[i]);
    if (bias) v += to_float(bias[(i / spatial) % c]);
    if (z) v += to_float(z[i]);
    if constexpr (kAct) v = apply<Op>(v, alpha, beta);
    y[i] = from_float<T>(v);
  }
}

template <UnaryOp Op, typename T, bool kAct = true>
void channel_epilogue_as(void* y, const void* bias, const void* z, int64_t n, int64_t c,
                         int64_t spatial, float alpha, float beta, cudaStream_t s) {
  // The loop's last step may pass n by one grid stride (at most 2^24).
  if (n + (int64_t(1) << 24) <= int64_t(UINT32_MAX))
    channel_epilogue_kernel<kAct, Op, T, uint32_t><<<grid_for(n, kThreads), kThreads, 0, s>>>(
        static_cast<T*>(y), static_cast<const T*>(bias), static_cast<const T*>(z), uint32_t(n),
        uint32_t(c), uint32_t(spatial), alpha, beta);
  else
    channel_epilogue_kernel<kAct, Op, T, int64_t><<<grid_for(n, kThreads), kThreads, 0, s>>>(
        static_cast<T*>(y), static_cast<const T*>(bias), static_cast<const T*>(z), n, c, spatial,
        alpha, beta);
}

template <typename T>
void channel_epilogue_typed(bool act, UnaryOp op, void* y, const void* bias, const void* z,
                            int64_t n, int64_t c, int64_t spatial, float alpha, float beta,
                            cudaStream_t s) {
  if (!act)
    return channel_epilogue_as<UnaryOp::kRelu, T, false>(y, bias, z, n, c, spatial, 0, 0, s);
  with_unary_op(op, [&](auto o) {
    channel_epilogue_as<decltype(o)::value, T>(y, bias, z, n, c, spatial, alpha, beta, s);
  });
}

template <typename T>
__global__ void broadcast_copy_kernel(const T* x, T* y, int64_t n, BroadcastPlan plan) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ix, unused;
    offsets(plan, i, ix, unused);
    y[i] = x[ix];
  }
}

template <BinaryOp Op, typename T>
void binary_as(const void* a, const void* b, void* y, int64_t n, const BroadcastPlan& plan,
               cudaStream_t s) {
  binary_kernel<Op, T><<<grid_for(n, kThreads), kThreads, 0, s>>>(
      static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(y), n, plan);
}

template <typename T>
void binary_typed(BinaryOp op, const void* a, const void* b, void* y, int64_t n,
                  const BroadcastPlan& plan, cudaStream_t s) {
  switch (op) {
    case BinaryOp::kAdd:
      return binary_as<BinaryOp::kAdd, T>(a, b, y, n, plan, s);
    case BinaryOp::kSub:
      return binary_as<BinaryOp::kSub, T>(a, b, y, n, plan, s);
    case BinaryOp::kMul:
      return binary_as<BinaryOp::kMul, T>(a, b, y, n, plan, s);
    case BinaryOp::kDiv:
      return binary_as<BinaryOp::kDiv, T>(a, b, y, n, plan, s);
  }
}

template <UnaryOp Op, typename T>
void unary_as(const void* x, void* y, int64_t n, float alpha, float beta, cudaStream_t s) {
  unary_kernel<Op, T><<<grid_for(n, kThreads), kThreads, 0, s>>>(
      static_cast<const T*>(x), static_cast<T*>(y), n, alpha, beta);
}

template <typename T>
void unary_typed(UnaryOp op, const void* x, void* y, int64_t n, float alpha, float beta,
                 cudaStream_t s) {
  with_unary_op(op, [&](auto o) { unary_as<decltype(o)::value, T>(x, y, n, alpha, beta, s); });
}

}  // namespace

cudaError_t launch_binary(BinaryOp op, ElemType t, const void* a, const void* b, void* y, int64_t n,
                          const BroadcastPlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_type(t,
                        [&](auto v) { binary_typed<decltype(v)>(op, a, b, y, n, plan, stream); });
}

cudaError_t launch_unary(UnaryOp op, ElemType t, const void* x, void* y, int64_t n, float alpha,
                         float beta, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_type(
      t, [&](auto v) { unary_typed<decltype(v)>(op, x, y, n, alpha, beta, stream); });
}

cudaError_t launch_bias_gelu(ElemType t, const void* x, const void* bias, void* y, int64_t n,
                             int64_t cols, cudaStream_t stream) {
  if (n == 0 || cols == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto v) {
    using T = decltype(v);
    const auto aligned = [](const void* p) {
      return reinterpret_cast<uintptr_t>(p) % sizeof(Four<T>) == 0;
    };
    if (n < INT32_MAX && cols % 4 == 0 && aligned(x) && aligned(bias) && aligned(y)) {
      bias_gelu_four<T><<<grid_for(n / 4, kThreads), kThreads, 0, stream>>>(
          static_cast<const Four<T>*>(x), static_cast<const T*>(bias), static_cast<Four<T>*>(y),
          uint32_t(n / 4), uint32_t(cols));
      return;
    }
    bias_gelu_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(bias), static_cast<T*>(y), n, cols);
  });
}

cudaError_t launch_channel_epilogue(ElemType t, void* y, const void* bias, const void* z,
                                    int64_t total, int64_t c, int64_t spatial, bool act, UnaryOp op,
                                    float alpha, float beta, cudaStream_t stream) {
  if (total == 0) return cudaSuccess;
  if (c <= 0 || spatial <= 0) return cudaErrorInvalidValue;
  return with_elem_type(t, [&](auto v) {
    channel_epilogue_typed<decltype(v)>(act, op, y, bias, z, total, c, spatial, alpha, beta,
                                        stream);
  });
}

cudaError_t launch_broadcast_copy(int elem_bytes, const void* x, void* y, int64_t n,
                                  const BroadcastPlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (elem_bytes == 4)
    broadcast_copy_kernel<uint32_t><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const uint32_t*>(x), static_cast<uint32_t*>(y), n, plan);
  else if (elem_bytes == 2)
    broadcast_copy_kernel<uint16_t><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), n, plan);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

}  // namespace tessera::cuda
