// Reductions (ReduceSum ... ReduceLogSumExp) and ArgMax/ArgMin, accumulating
// in float. Two shapes of kernel cover every axis set: when the innermost
// input dim is reduced, a warp (few inputs per output) or a block (many)
// reduces each output, its threads reading neighbouring inputs; when the
// innermost dim is kept, each thread reduces its own output and neighbouring
// threads read neighbouring inputs. Results follow the CPU provider: an empty
// reduction gives the op's identity (Mean: NaN), NaN propagates through Max
// and Min.
#include "providers/cuda/device_math.cuh"
#include "providers/cuda/reduce_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;

// Accumulator of every op: `a` is the running value; LogSumExp also keeps
// `b`, the sum of exp(x - a) (a is then the running maximum).
struct Acc {
  float a, b;
};

__device__ __forceinline__ float max_nan(float a, float x) { return (x > a || isnan(x)) ? x : a; }
__device__ __forceinline__ float min_nan(float a, float x) { return (x < a || isnan(x)) ? x : a; }
// exp(x - m) with exp(0) exact when both are the same infinity.
__device__ __forceinline__ float exp_from(float x, float m) { return x == m ? 1.0f : expf(x - m); }

template <ReduceOp Op>
struct Reducer {
  __device__ static Acc init() {
    switch (Op) {
      case ReduceOp::kMax:
      case ReduceOp::kLogSumExp:
        return {-INFINITY, 0.0f};
      case ReduceOp::kMin:
        return {INFINITY, 0.0f};
      case ReduceOp::kProd:
        return {1.0f, 0.0f};
      default:
        return {0.0f, 0.0f};
    }
  }
  __device__ static void add(Acc& acc, float x) {
    switch (Op) {
      case ReduceOp::kMax:
        acc.a = max_nan(acc.a, x);
        break;
      case ReduceOp::kMin:
        acc.a = min_nan(acc.a, x);
        break;
      case ReduceOp::kProd:
        acc.a *= x;
        break;
      case ReduceOp::kL1:
        acc.a += fabsf(x);
        break;
      case ReduceOp::kL2:
      case ReduceOp::kSumSquare:
        acc.a += x * x;
        break;
      case ReduceOp::kLogSumExp:
        merge(acc, Acc{x, 1.0f});
        break;
      default:  // Sum, Mean, LogSum
        acc.a += x;
        break;
    }
  }
  __device__ static void merge(Acc& acc, Acc o) {
    switch (Op) {
      case ReduceOp::kMax:
        acc.a = max_nan(acc.a, o.a);
        break;
      case ReduceOp::kMin:
        acc.a = min_nan(acc.a, o.a);
        break;
      case ReduceOp::kProd:
        acc.a *= o.a;
        break;
      case ReduceOp::kLogSumExp: {
        // Rescale both sums to the larger maximum; an empty side (b == 0)
        // changes nothing.
        if (o.b == 0.0f) break;
        if (acc.b == 0.0f) {
          acc = o;
          break;
        }
        const float m = fmaxf(acc.a, o.a);
        acc.b = acc.b * exp_from(acc.a, m) + o.b * exp_from(o.a, m);
        acc.a = m;
        break;
      }
      default:
        acc.a += o.a;
        break;
    }
  }
  __device__ static float finish(Acc acc, int64_t count) {
    switch (Op) {
      case ReduceOp::kMean:
        return acc.a / float(count);  // 0 / 0: NaN for an empty reduction
      case ReduceOp::kL2:
        return sqrtf(acc.a);
      case ReduceOp::kLogSum:
        return logf(acc.a);
      case ReduceOp::kLogSumExp:
        return acc.b == 0.0f ? acc.a : acc.a + logf(acc.b);
      default:
        return acc.a;
    }
  }
};

template <ReduceOp Op>
__device__ Acc warp_merge(Acc v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    Acc o{__shfl_xor_sync(0xffffffffu, v.a, offset), __shfl_xor_sync(0xffffffffu, v.b, offset)};
    Reducer<Op>::merge(v, o);
  }
  return v;
}

// Input offset of output o (relative to x): o decomposed over the kept runs.
__device__ __forceinline__ int64_t kept_offset(const ReduceShape& s, int64_t o) {
  int64_t off = 0;
  for (int d = s.kept_runs - 1; d >= 0; --d) {
    off += (o % s.kept_sizes[d]) * s.kept_strides[d];
    o /= s.kept_sizes[d];
  }
  return off;
}

// Offset of the r-th reduced input of an output; one run (the common case)
// needs no division.
__device__ __forceinline__ int64_t red_offset(const ReduceShape& s, int64_t r) {
  if (s.red_runs == 1) return r * s.red_strides[0];
  int64_t off = 0;
  for (int d = s.red_runs - 1; d >= 0; --d) {
    off += (r % s.red_sizes[d]) * s.red_strides[d];
    r /= s.red_sizes[d];
  }
  return off;
}

// One output per warp (kBlock false) or per block (kBlock true), grid-stride
// over outputs; lane/thread t reads inputs t, t + width, ...
template <typename T, ReduceOp Op, bool kBlock>
__global__ void reduce_grouped(const T* x, T* y, ReduceShape s) {
  using R = Reducer<Op>;
  const int width = kBlock ? blockDim.x : 32;
  const int lane = kBlock ? threadIdx.x : threadIdx.x % 32;
  const int64_t group = kBlock ? blockIdx.x : (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int64_t groups = kBlock ? gridDim.x : int64_t(gridDim.x) * blockDim.x / 32;
  // Every thread runs the same number of iterations (the bound is uniform
  // over the block), so the block-wide reduction's barriers are reached by all.
  const int64_t rounds = (s.outputs + groups - 1) / groups;
  for (int64_t k = 0; k < rounds; ++k) {
    const int64_t o = group + k * groups;
    const bool live = o < s.outputs;
    Acc acc = R::init();
    if (live) {
      const T* base = x + kept_offset(s, o);
      for (int64_t r = lane; r < s.count; r += width) R::add(acc, to_float(base[red_offset(s, r)]));
    }
    acc = warp_merge<Op>(acc);
    if constexpr (kBlock) {
      __shared__ Acc partial[32];
      const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
      if (threadIdx.x % 32 == 0) partial[warp] = acc;
      __syncthreads();
      if (warp == 0) {
        acc = threadIdx.x < warps ? partial[threadIdx.x] : R::init();
        acc = warp_merge<Op>(acc);
      }
      __syncthreads();  // `partial` is written again by the next round
    }
    if (live && lane == 0) y[o] = from_float<T>(R::finish(acc, s.count));
  }
}

// One output per thread, grid-stride: used when the innermost input dim is
// kept, so neighbouring threads (outputs) read neighbouring inputs.
template <typename T, ReduceOp Op>
__global__ void reduce_per_thread(const T* x, T* y, ReduceShape s) {
  using R = Reducer<Op>;
  for (int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < s.outputs;
       o += int64_t(gridDim.x) * blockDim.x) {
    const T* base = x + kept_offset(s, o);
    Acc acc = R::init();
    for (int64_t r = 0; r < s.count; ++r) R::add(acc, to_float(base[red_offset(s, r)]));
    y[o] = from_float<T>(R::finish(acc, s.count));
  }
}

template <typename T, ReduceOp Op>
void reduce_as(const void* xv, void* yv, const ReduceShape& s, cudaStream_t stream) {
  const T* x = static_cast<const T*>(xv);
  T* y = static_cast<T*>(yv);
  if (!s.inner_reduced || s.count == 0) {
    reduce_per_thread<T, Op><<<grid_for(s.outputs, kThreads), kThreads, 0, stream>>>(x, y, s);
  } else if (s.count >= 4096 || s.outputs < 1024) {
    // Many inputs per output, or too few outputs to fill the GPU by warps.
    const unsigned blocks = unsigned(s.outputs < 65535 ? s.outputs : 65535);
    reduce_grouped<T, Op, true><<<blocks, kThreads, 0, stream>>>(x, y, s);
  } else {
    reduce_grouped<T, Op, false>
        <<<grid_for(s.outputs * 32, kThreads), kThreads, 0, stream>>>(x, y, s);
  }
}

template <typename T>
void reduce_dispatch(ReduceOp op, const void* x, void* y, const ReduceShape& s,
                     cudaStream_t stream) {
  switch (op) {
    case ReduceOp::kSum:
      return reduce_as<T, ReduceOp::kSum>(x, y, s, stream);
    case ReduceOp::kMean:
      return reduce_as<T, ReduceOp::kMean>(x, y, s, stream);
    case ReduceOp::kMax:
      return reduce_as<T, ReduceOp::kMax>(x, y, s, stream);
    case ReduceOp::kMin:
      return reduce_as<T, ReduceOp::kMin>(x, y, s, stream);
    case ReduceOp::kProd:
      return reduce_as<T, ReduceOp::kProd>(x, y, s, stream);
    case ReduceOp::kL1:
      return reduce_as<T, ReduceOp::kL1>(x, y, s, stream);
    case ReduceOp::kL2:
      return reduce_as<T, ReduceOp::kL2>(x, y, s, stream);
    case ReduceOp::kLogSum:
      return reduce_as<T, ReduceOp::kLogSum>(x, y, s, stream);
    case ReduceOp::kLogSumExp:
      return reduce_as<T, ReduceOp::kLogSumExp>(x, y, s, stream);
    case ReduceOp::kSumSquare:
      return reduce_as<T, ReduceOp::kSumSquare>(x, y, s, stream);
  }
}

// ArgMax/ArgMin candidates: a value and its index. NaN beats every number
// (as on the CPU); equal values (or two NaNs) go to the smaller index, or the
// larger with select_last.
struct Cand {
  float v;
  int64_t i;
};

template <bool kMax>
__device__ __forceinline__ Cand better(Cand a, Cand b, bool last) {
  const bool an = isnan(a.v), bn = isnan(b.v);
  if (an != bn) return an ? a : b;
  if (!an && a.v != b.v) return (kMax ? a.v > b.v : a.v < b.v) ? a : b;
  return (last ? a.i > b.i : a.i < b.i) ? a : b;
}

// Last axis (inner == 1): one warp per output reading along the row.
template <typename T, bool kMax>
__global__ void arg_rows(const T* x, int64_t* y, int64_t rows, int64_t len, bool last) {
  const int lane = threadIdx.x % 32;
  const int64_t warps = int64_t(gridDim.x) * blockDim.x / 32;
  for (int64_t r = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; r < rows; r += warps) {
    const T* row = x + r * len;
    // len > 0, so lane 0 always starts with a real element; the other
    // lanes start with element 0 too, which merging makes harmless.
    Cand best{to_float(row[0]), 0};
    for (int64_t k = lane; k < len; k += 32)
      best = better<kMax>(best, Cand{to_float(row[k]), k}, last);
    for (int offset = 16; offset > 0; offset /= 2) {
      Cand o{__shfl_xor_sync(0xffffffffu, best.v, offset),
             __shfl_xor_sync(0xffffffffu, best.i, offset)};
      best = better<kMax>(best, o, last);
    }
    if (lane == 0) y[r] = best.i;
  }
}

// Any other axis: one output (o, j) per thread, stepping by `inner`.
template <typename T, bool kMax>
__global__ void arg_strided(const T* x, int64_t* y, int64_t outer, int64_t len, int64_t inner,
                            bool last) {
  const int64_t n = outer * inner;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < n;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = t / inner, j = t - o * inner;
    const T* p = x + o * len * inner + j;
    Cand best{to_float(p[0]), 0};
    for (int64_t k = 1; k < len; ++k)
      best = better<kMax>(best, Cand{to_float(p[k * inner]), k}, last);
    y[t] = best.i;
  }
}

template <typename T, bool kMax>
void arg_as(const void* xv, int64_t* y, int64_t outer, int64_t len, int64_t inner, bool last,
            cudaStream_t stream) {
  const T* x = static_cast<const T*>(xv);
  if (inner == 1)
    arg_rows<T, kMax>
        <<<grid_for(outer * 32, kThreads), kThreads, 0, stream>>>(x, y, outer, len, last);
  else
    arg_strided<T, kMax>
        <<<grid_for(outer * inner, kThreads), kThreads, 0, stream>>>(x, y, outer, len, inner, last);
}

}  // namespace

cudaError_t launch_reduce(ReduceOp op, ElemType t, const void* x, void* y, const ReduceShape& s,
                          cudaStream_t stream) {
  if (s.outputs == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto v) { reduce_dispatch<decltype(v)>(op, x, y, s, stream); });
}

cudaError_t launch_arg_reduce(bool max, bool select_last, ElemType t, const void* x, int64_t* y,
                              int64_t outer, int64_t len, int64_t inner, cudaStream_t stream) {
  if (outer == 0 || inner == 0 || len == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto v) {
    using T = decltype(v);
    if (max)
      arg_as<T, true>(x, y, outer, len, inner, select_last, stream);
    else
      arg_as<T, false>(x, y, outer, len, inner, select_last, stream);
  });
}

}  // namespace tessera::cuda
