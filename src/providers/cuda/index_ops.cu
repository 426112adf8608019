// Indexing and fill kernels: GatherElements, ScatterElements, GatherND,
// ScatterND, Trilu, OneHot, CumSum, Pad, fills and Range. Elements that are
// only moved are moved as unsigned integers of their size; scatter
// reductions combine in place through compare-and-swap on the aligned 4- or
// 8-byte word that holds the element, so every element size and type has an
// atomic form. Index math is 64-bit throughout: these ops are rarely the
// hot loop of a model, and one path keeps them simple.
#include "providers/cuda/device_math.cuh"
#include "providers/cuda/index_ops_launch.hpp"
#include "providers/cuda/num_dispatch.cuh"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;

#define GRID_STRIDE(i, n)                                                   \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

template <typename T>
__device__ T combine(ScatterReduction r, T old, T upd) {
  using A = typename Acc<T>::type;
  const A a = Acc<T>::up(old), b = Acc<T>::up(upd);
  switch (r) {
    case ScatterReduction::kAdd:
      return Acc<T>::down(A(a + b));
    case ScatterReduction::kMul:
      return Acc<T>::down(A(a * b));
    case ScatterReduction::kMax:
      return Acc<T>::down(b > a ? b : a);
    case ScatterReduction::kMin:
      return Acc<T>::down(b < a ? b : a);
    default:
      return upd;
  }
}

// *addr = combine(*addr, upd), atomically: a compare-and-swap loop on the
// aligned word holding the element (4 bytes for elements of 1, 2 or 4 bytes,
// 8 bytes for 8-byte elements), so concurrent updates of one element (and of
// its neighbours in the same word) are never lost.
template <typename T>
__device__ void atomic_combine(T* addr, ScatterReduction r, T upd) {
  if constexpr (sizeof(T) == 8) {
    auto* w = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *w, assumed;
    do {
      assumed = old;
      T v;
      memcpy(&v, &assumed, 8);
      const T nv = combine(r, v, upd);
      unsigned long long nb;
      memcpy(&nb, &nv, 8);
      old = atomicCAS(w, assumed, nb);
    } while (old != assumed);
  } else {
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    auto* w = reinterpret_cast<unsigned int*>(a & ~uintptr_t(3));
    const unsigned shift = unsigned(a & 3) * 8;
    const unsigned mask = sizeof(T) == 4 ? 0xffffffffu : ((1u << (8 * sizeof(T))) - 1) << shift;
    unsigned old = *w, assumed;
    do {
      assumed = old;
      const unsigned bits = (assumed & mask) >> shift;
      T v;
      memcpy(&v, &bits, sizeof(T));
      const T nv = combine(r, v, upd);
      unsigned nb = 0;
      memcpy(&nb, &nv, sizeof(T));
      old = atomicCAS(w, assumed, (assumed & ~mask) | ((nb << shift) & mask));
    } while (old != assumed);
  }
}

__device__ void record_bad(IndexError* error, int64_t index, int64_t dim) {
  // The first thread to claim the flag records its index and dim (any one
  // bad index will do for the message, but with its own dim); all are read
  // only after the kernel has ended.
  if (atomicCAS(reinterpret_cast<int*>(&error->flag), 0, 1) != 0) return;
  error->index = index;
  error->dim = dim;
}

// The data offset of element i of the indices with its axis coordinate
// replaced by `idx`; -1 (and the error recorded) when idx is out of range.
template <typename Ind>
__device__ int64_t elements_offset(const ElementsPlan& p, int64_t i, const Ind* indices,
                                   IndexError* error) {
  int64_t given = int64_t(indices[i]);
  const int64_t idx = given < 0 ? given + p.axis_dim : given;
  if (idx < 0 || idx >= p.axis_dim) {
    record_bad(error, given, p.axis_dim);
    return -1;
  }
  int64_t off = 0, rest = i;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t c = rest % p.dims[d];
    rest /= p.dims[d];
    off += (d == p.axis ? idx : c) * p.data_strides[d];
  }
  return off;
}

template <typename T, typename Ind>
__global__ void gather_elements_kernel(const T* __restrict__ data, const Ind* __restrict__ indices,
                                       T* __restrict__ y, int64_t n, ElementsPlan p,
                                       IndexError* error) {
  GRID_STRIDE(i, n) {
    const int64_t off = elements_offset(p, i, indices, error);
    if (off >= 0) y[i] = data[off];
  }
}

template <typename T, typename Ind>
__global__ void scatter_elements_kernel(const Ind* __restrict__ indices,
                                        const T* __restrict__ updates, T* y, int64_t n,
                                        ElementsPlan p, ScatterReduction r, IndexError* error) {
  GRID_STRIDE(i, n) {
    const int64_t off = elements_offset(p, i, indices, error);
    if (off < 0) continue;
    if (r == ScatterReduction::kNone)
      y[off] = updates[i];
    else
      atomic_combine(y + off, r, updates[i]);
  }
}

// The data offset of index tuple t (batch included); -1 when out of range.
__device__ int64_t tuple_offset(const NdPlan& p, const int64_t* indices, int64_t t,
                                IndexError* error) {
  int64_t off = (t / p.tuples_per_batch) * p.batch_stride;
  for (int j = 0; j < p.m; ++j) {
    const int64_t given = indices[t * p.m + j];
    const int64_t idx = given < 0 ? given + p.dims[j] : given;
    if (idx < 0 || idx >= p.dims[j]) {
      record_bad(error, given, p.dims[j]);
      return -1;
    }
    off += idx * p.strides[j];
  }
  return off;
}

template <typename T>
__global__ void gather_nd_kernel(const T* __restrict__ data, const int64_t* __restrict__ indices,
                                 T* __restrict__ y, int64_t n, NdPlan p, IndexError* error) {
  GRID_STRIDE(i, n) {
    const int64_t off = tuple_offset(p, indices, i / p.slice, error);
    if (off >= 0) y[i] = data[off + i % p.slice];
  }
}

template <typename T>
__global__ void scatter_nd_kernel(const int64_t* __restrict__ indices,
                                  const T* __restrict__ updates, T* y, int64_t n, NdPlan p,
                                  ScatterReduction r, IndexError* error) {
  GRID_STRIDE(i, n) {
    const int64_t off = tuple_offset(p, indices, i / p.slice, error);
    if (off < 0) continue;
    if (r == ScatterReduction::kNone)
      y[off + i % p.slice] = updates[i];
    else
      atomic_combine(y + off + i % p.slice, r, updates[i]);
  }
}

template <typename T>
__global__ void trilu_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n, int64_t rows,
                             int64_t cols, int64_t k, bool upper) {
  GRID_STRIDE(i, n) {
    const int64_t col = i % cols, row = (i / cols) % rows;
    const bool keep = upper ? col - row >= k : col - row <= k;
    y[i] = keep ? x[i] : T(0);
  }
}

template <typename T, typename Ind>
__global__ void one_hot_kernel(const Ind* __restrict__ indices, const T* __restrict__ values,
                               T* __restrict__ y, int64_t n, int64_t depth, int64_t inner) {
  GRID_STRIDE(i, n) {
    const int64_t in = i % inner, d = (i / inner) % depth, o = i / (inner * depth);
    const Ind given = indices[o * inner + in];
    // A NaN or a float beyond int64 matches no depth coordinate.
    int64_t v = given == given && double(given) > -9.2e18 && double(given) < 9.2e18
                    ? int64_t(given)
                    : int64_t(-1) - depth;
    if (v < 0) v += depth;  // still negative (or >= depth): out of range, all off
    y[i] = values[v == d ? 1 : 0];
  }
}

// One thread per line of the scan, walking it in order; adjacent threads
// take adjacent inner positions, so each step's reads are coalesced.
template <typename T>
__global__ void cumsum_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t lines,
                              int64_t dim, int64_t inner, bool exclusive, bool reverse) {
  using A = typename Acc<T>::type;
  GRID_STRIDE(line, lines) {
    const int64_t base = (line / inner) * dim * inner + line % inner;
    A sum = A(0);
    for (int64_t s = 0; s < dim; ++s) {
      const int64_t j = reverse ? dim - 1 - s : s;
      const int64_t at = base + j * inner;
      const A v = Acc<T>::up(x[at]);
      if (exclusive) {
        y[at] = Acc<T>::down(sum);
        sum = A(sum + v);
      } else {
        sum = A(sum + v);
        y[at] = Acc<T>::down(sum);
      }
    }
  }
}

template <typename T>
__global__ void pad_kernel(const T* __restrict__ x, const T* fill, T fill_value, T* __restrict__ y,
                           int64_t n, PadPlan p) {
  GRID_STRIDE(i, n) {
    int64_t off = 0, rest = i;
    bool outside = false;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t o = rest % p.out_dims[d];
      rest /= p.out_dims[d];
      int64_t c = o - p.pb[d];
      const int64_t len = p.len[d];
      if (c < 0 || c >= len) {
        switch (p.mode) {
          case PadMode::kConstant:
            outside = true;
            break;
          case PadMode::kEdge:
            c = c < 0 ? 0 : len - 1;
            break;
          case PadMode::kWrap:
            c = ((c % len) + len) % len;
            break;
          case PadMode::kReflect:
            if (len == 1) {
              c = 0;
            } else {
              const int64_t m = 2 * (len - 1);
              c = ((c % m) + m) % m;
              if (c >= len) c = m - c;
            }
            break;
        }
      }
      off += (p.lo[d] + c) * p.in_strides[d];
    }
    y[i] = outside ? (fill ? *fill : fill_value) : x[off];
  }
}

template <typename T>
__global__ void fill_kernel(T* __restrict__ y, int64_t n, T v) {
  GRID_STRIDE(i, n) y[i] = v;
}

template <typename T>
__global__ void range_kernel(T* __restrict__ y, int64_t n, int64_t start, int64_t delta,
                             double fstart, double fdelta) {
  GRID_STRIDE(i, n) {
    if constexpr (std::is_integral_v<T>) {
      y[i] = T(start + i * delta);
    } else {
      // Explicit rounding steps: a fused multiply-add would round once
      // where the host's reference rounds twice.
      const double v = __dadd_rn(fstart, __dmul_rn(double(i), fdelta));
      y[i] = Acc<T>::down(typename Acc<T>::type(v));
    }
  }
}

template <typename T>
__device__ __forceinline__ bool is_nonzero(T v) {
  return Acc<T>::up(v) != typename Acc<T>::type(0);
}

// Per chunk: how many of its elements are not zero (one block of
// kNonZeroChunk threads, an element each).
template <typename T>
__global__ void __launch_bounds__(kNonZeroChunk)
    nonzero_count_kernel(const T* __restrict__ x, int64_t n, int32_t* counts) {
  __shared__ int32_t total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  const int64_t i = int64_t(blockIdx.x) * kNonZeroChunk + threadIdx.x;
  const unsigned mask = __ballot_sync(0xffffffffu, i < n && is_nonzero(x[i < n ? i : 0]));
  if (threadIdx.x % 32 == 0 && mask != 0) atomicAdd(&total, __popc(mask));
  __syncthreads();
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// Per chunk: each nonzero element's position is the chunk's offset plus the
// nonzero elements before it in the chunk (warp ballots, then the warps'
// counts added up in order), so the output keeps row-major order.
template <typename T>
__global__ void __launch_bounds__(kNonZeroChunk)
    nonzero_write_kernel(const T* __restrict__ x, int64_t n, const int64_t* __restrict__ offsets,
                         NonZeroDims d, int64_t total, int64_t* __restrict__ y) {
  __shared__ int32_t warp_base[kNonZeroChunk / 32];
  const int64_t i = int64_t(blockIdx.x) * kNonZeroChunk + threadIdx.x;
  const bool nz = i < n && is_nonzero(x[i < n ? i : 0]);
  const unsigned mask = __ballot_sync(0xffffffffu, nz);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_base[warp] = __popc(mask);
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t sum = 0;
    for (int w = 0; w < kNonZeroChunk / 32; ++w) {
      const int32_t c = warp_base[w];
      warp_base[w] = sum;
      sum += c;
    }
  }
  __syncthreads();
  if (!nz) return;
  const int64_t pos = offsets[blockIdx.x] + warp_base[warp] + __popc(mask & ((1u << lane) - 1));
  int64_t rest = i;
  for (int k = d.rank - 1; k >= 0; --k) {
    y[k * total + pos] = rest % d.dims[k];
    rest /= d.dims[k];
  }
}

}  // namespace

cudaError_t launch_nonzero_count(NumType type, const void* x, int64_t n, int32_t* counts,
                                 cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const unsigned blocks = unsigned((n + kNonZeroChunk - 1) / kNonZeroChunk);
  return with_num_type(type, [&](auto v) {
    using T = decltype(v);
    nonzero_count_kernel<T>
        <<<blocks, kNonZeroChunk, 0, stream>>>(static_cast<const T*>(x), n, counts);
  });
}

cudaError_t launch_nonzero_write(NumType type, const void* x, int64_t n, const int64_t* offsets,
                                 const NonZeroDims& dims, int64_t total, int64_t* y,
                                 cudaStream_t stream) {
  if (n == 0 || total == 0) return cudaSuccess;
  const unsigned blocks = unsigned((n + kNonZeroChunk - 1) / kNonZeroChunk);
  return with_num_type(type, [&](auto v) {
    using T = decltype(v);
    nonzero_write_kernel<T><<<blocks, kNonZeroChunk, 0, stream>>>(static_cast<const T*>(x), n,
                                                                  offsets, dims, total, y);
  });
}

cudaError_t launch_gather_elements(int elem_bytes, const void* data, const void* indices,
                                   bool indices_are_int64, void* y, int64_t n,
                                   const ElementsPlan& plan, IndexError* error,
                                   cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    auto go = [&](auto ind) {
      using Ind = decltype(ind);
      gather_elements_kernel<T, Ind><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
          static_cast<const T*>(data), static_cast<const Ind*>(indices), static_cast<T*>(y), n,
          plan, error);
    };
    if (indices_are_int64)
      go(int64_t());
    else
      go(int32_t());
  });
}

cudaError_t launch_scatter_elements(int elem_bytes, NumType type, ScatterReduction reduction,
                                    const void* indices, bool indices_are_int64,
                                    const void* updates, void* y, int64_t n,
                                    const ElementsPlan& plan, IndexError* error,
                                    cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  auto run = [&](auto v) {
    using T = decltype(v);
    auto go = [&](auto ind) {
      using Ind = decltype(ind);
      scatter_elements_kernel<T, Ind><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
          static_cast<const Ind*>(indices), static_cast<const T*>(updates), static_cast<T*>(y), n,
          plan, reduction, error);
    };
    if (indices_are_int64)
      go(int64_t());
    else
      go(int32_t());
  };
  if (reduction == ScatterReduction::kNone) return with_elem_bytes(elem_bytes, run);
  return with_num_type(type, run);
}

cudaError_t launch_gather_nd(int elem_bytes, const void* data, const int64_t* indices, void* y,
                             int64_t n, const NdPlan& plan, IndexError* error,
                             cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    gather_nd_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(data), indices, static_cast<T*>(y), n, plan, error);
  });
}

cudaError_t launch_scatter_nd(int elem_bytes, NumType type, ScatterReduction reduction,
                              const int64_t* indices, const void* updates, void* y, int64_t n,
                              const NdPlan& plan, IndexError* error, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  auto run = [&](auto v) {
    using T = decltype(v);
    scatter_nd_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        indices, static_cast<const T*>(updates), static_cast<T*>(y), n, plan, reduction, error);
  };
  if (reduction == ScatterReduction::kNone) return with_elem_bytes(elem_bytes, run);
  return with_num_type(type, run);
}

cudaError_t launch_trilu(int elem_bytes, const void* x, void* y, int64_t batch, int64_t rows,
                         int64_t cols, int64_t k, bool upper, cudaStream_t stream) {
  const int64_t n = batch * rows * cols;
  if (n == 0) return cudaSuccess;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    trilu_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), n, rows, cols, k, upper);
  });
}

cudaError_t launch_one_hot(int elem_bytes, const void* indices, OneHotIndex index_type,
                           const void* values, void* y, int64_t outer, int64_t depth, int64_t inner,
                           cudaStream_t stream) {
  const int64_t n = outer * depth * inner;
  if (n == 0) return cudaSuccess;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    auto go = [&](auto ind) {
      using Ind = decltype(ind);
      one_hot_kernel<T, Ind><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
          static_cast<const Ind*>(indices), static_cast<const T*>(values), static_cast<T*>(y), n,
          depth, inner);
    };
    if (index_type == OneHotIndex::kI64)
      go(int64_t());
    else if (index_type == OneHotIndex::kI32)
      go(int32_t());
    else
      go(float());
  });
}

cudaError_t launch_cumsum(NumType type, const void* x, void* y, int64_t outer, int64_t dim,
                          int64_t inner, bool exclusive, bool reverse, cudaStream_t stream) {
  const int64_t lines = outer * inner;
  if (lines == 0 || dim == 0) return cudaSuccess;
  return with_num_type(type, [&](auto v) {
    using T = decltype(v);
    cumsum_kernel<T><<<grid_for(lines, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), lines, dim, inner, exclusive, reverse);
  });
}

cudaError_t launch_pad(int elem_bytes, const void* x, const void* fill, uint64_t fill_bits, void* y,
                       int64_t n, const PadPlan& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    pad_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(fill), T(fill_bits), static_cast<T*>(y), n,
        plan);
  });
}

cudaError_t launch_fill(int elem_bytes, uint64_t bits, void* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_bytes(elem_bytes, [&](auto v) {
    using T = decltype(v);
    fill_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(static_cast<T*>(y), n, T(bits));
  });
}

cudaError_t launch_range(NumType type, int64_t start, int64_t delta, double fstart, double fdelta,
                         void* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_num_type(type, [&](auto v) {
    using T = decltype(v);
    range_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(static_cast<T*>(y), n, start,
                                                                    delta, fstart, fdelta);
  });
}

}  // namespace tessera::cuda
