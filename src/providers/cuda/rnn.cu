// The step kernels of RNN, GRU and LSTM (rnn_launch.hpp) and their helpers:
// one thread per (direction, batch row, hidden unit), reading that unit's
// gate pre-activations from the input projection and the step's recurrent
// product, so each thread updates its own state element in place.
#include <cstdint>

#include "providers/cuda/device_math.cuh"
#include "providers/cuda/rnn_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int kThreads = 256;

// The spec's activation functions, as the CPU provider computes them.
__device__ __forceinline__ float activate(const RnnActivation& a, float x) {
  switch (a.kind) {
    case 0:  // Relu
      return x > 0.0f ? x : 0.0f;
    case 1:  // Tanh
      return tanhf(x);
    case 2:  // Sigmoid
      return 1.0f / (1.0f + expf(-x));
    case 3:  // Affine
      return a.alpha * x + a.beta;
    case 4:  // LeakyRelu
      return x >= 0.0f ? x : a.alpha * x;
    case 5:  // ThresholdedRelu
      return x >= a.alpha ? x : 0.0f;
    case 6:  // ScaledTanh
      return a.alpha * tanhf(a.beta * x);
    case 7: {  // HardSigmoid
      const float v = a.alpha * x + a.beta;
      return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
    case 8:  // Elu
      return x >= 0.0f ? x : a.alpha * (expf(x) - 1.0f);
    case 9:  // Softsign
      return x / (1.0f + fabsf(x));
    default:  // Softplus, without overflow for large x
      return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));
  }
}

// Clamped to [-clip, clip] when the op has a clip; NaN passes.
__device__ __forceinline__ float clipped(const RnnStep& s, float x) {
  if (!s.has_clip) return x;
  return x < -s.clip ? -s.clip : (x > s.clip ? s.clip : x);
}

// Where one thread's unit reads and writes.
struct Unit {
  int64_t d, b, j;
  int64_t t;        // the time index this step reads, or -1 when the row has ended
  int64_t pad;      // the time index this step zeroes in Y when the row has ended
  const float* x;   // the row's input projection for this direction, gate 0
  const float* wb;  // Wb of this direction, or null
  const float* rb;  // Rb of this direction, or null
  int64_t state;    // index into h, c: [dirs, batch, hidden]
};

__device__ __forceinline__ Unit unit_of(const RnnStep& s, int64_t i) {
  Unit u;
  u.j = i % s.hidden;
  u.b = (i / s.hidden) % s.batch;
  u.d = i / (s.hidden * s.batch);
  int64_t len = s.seq;
  if (s.lens) {
    len = s.lens[u.b];
    len = len < 0 ? 0 : (len > s.seq ? s.seq : len);  // bad entries fail the node afterwards
  }
  const bool reverse = s.dirs == 2 ? u.d == 1 : s.reverse;
  u.t = s.step < len ? (reverse ? len - 1 - s.step : s.step) : -1;
  u.pad = s.step;
  const int64_t gh = s.gates * s.hidden;
  const int64_t row = u.t < 0 ? 0 : (s.layout == 0 ? u.t * s.batch + u.b : u.b * s.seq + u.t);
  u.x = s.xw + row * s.dirs * gh + u.d * gh;
  u.wb = s.bias ? s.bias + u.d * 2 * gh : nullptr;
  u.rb = s.bias ? s.bias + u.d * 2 * gh + gh : nullptr;
  u.state = (u.d * s.batch + u.b) * s.hidden + u.j;
  return u;
}

// Gate g's input side: X * W^T + Wb (+ Rb when `with_rb`).
__device__ __forceinline__ float input_side(const RnnStep& s, const Unit& u, int g, bool with_rb) {
  const int64_t k = g * s.hidden + u.j;
  float v = u.x[k];
  if (u.wb) v += u.wb[k];
  if (with_rb && u.rb) v += u.rb[k];
  return v;
}

template <typename T>
__device__ __forceinline__ void write_y(const RnnStep& s, const Unit& u, int64_t t, float v) {
  if (!s.y) return;
  const int64_t i = s.layout == 0 ? ((t * s.dirs + u.d) * s.batch + u.b) * s.hidden + u.j
                                  : ((u.b * s.seq + t) * s.dirs + u.d) * s.hidden + u.j;
  static_cast<T*>(s.y)[i] = from_float<T>(v);
}

// Direction d's function k (f, g, h). Selected with constant indices so the
// parameter array is read in place rather than copied to local memory.
__device__ __forceinline__ const RnnActivation& act_of(const RnnStep& s, int64_t d, int k) {
  if (k == 0) return d == 0 ? s.act[0] : s.act[3];
  if (k == 1) return d == 0 ? s.act[1] : s.act[4];
  return d == 0 ? s.act[2] : s.act[5];
}

template <typename T, RnnCell C>
__global__ void step_kernel(RnnStep s) {
  const int64_t n = s.dirs * s.batch * s.hidden;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const Unit u = unit_of(s, i);
    const RnnActivation& f = act_of(s, u.d, 0);
    const RnnActivation& g = act_of(s, u.d, 1);
    const int64_t H = s.hidden;
    if (u.t < 0) {
      if constexpr (C == RnnCell::kGruGates) {
        s.rh[u.state] = 0.0f;  // the product's row is not read; keep it finite
      } else {
        write_y<T>(s, u, u.pad, 0.0f);
      }
      continue;
    }
    const int64_t row = (u.d * s.batch + u.b);
    if constexpr (C == RnnCell::kRnn) {
      const float v = input_side(s, u, 0, true) + s.hr[row * H + u.j];
      const float h = activate(f, clipped(s, v));
      s.h[u.state] = h;
      write_y<T>(s, u, u.t, h);
    } else if constexpr (C == RnnCell::kGruLinear) {
      const float* hr = s.hr + row * 3 * H;
      const float z = activate(f, clipped(s, input_side(s, u, 0, true) + hr[u.j]));
      const float r = activate(f, clipped(s, input_side(s, u, 1, true) + hr[H + u.j]));
      const float rbh = u.rb ? u.rb[2 * H + u.j] : 0.0f;
      const float hh =
          activate(g, clipped(s, input_side(s, u, 2, false) + r * (hr[2 * H + u.j] + rbh)));
      const float h = (1.0f - z) * hh + z * s.h[u.state];
      s.h[u.state] = h;
      write_y<T>(s, u, u.t, h);
    } else if constexpr (C == RnnCell::kGruGates) {
      const float* hr = s.hr + row * 2 * H;
      const float z = activate(f, clipped(s, input_side(s, u, 0, true) + hr[u.j]));
      const float r = activate(f, clipped(s, input_side(s, u, 1, true) + hr[H + u.j]));
      s.zr[row * 2 * H + u.j] = z;
      s.zr[row * 2 * H + H + u.j] = r;
      s.rh[u.state] = r * s.h[u.state];
    } else if constexpr (C == RnnCell::kGruHidden) {
      const float z = s.zr[row * 2 * H + u.j];
      const float hh = activate(g, clipped(s, input_side(s, u, 2, true) + s.hr[row * H + u.j]));
      const float h = (1.0f - z) * hh + z * s.h[u.state];
      s.h[u.state] = h;
      write_y<T>(s, u, u.t, h);
    } else {  // kLstm: gates i, o, f, c; P holds Pi, Po, Pf
      const float* hr = s.hr + row * 4 * H;
      const float* p = s.peep ? s.peep + u.d * 3 * H : nullptr;
      const float c_prev = s.c[u.state];
      float pi = input_side(s, u, 0, true) + hr[u.j];
      float po = input_side(s, u, 1, true) + hr[H + u.j];
      float pf = input_side(s, u, 2, true) + hr[2 * H + u.j];
      const float pc = input_side(s, u, 3, true) + hr[3 * H + u.j];
      if (p) {
        pi += p[u.j] * c_prev;
        pf += p[2 * H + u.j] * c_prev;
      }
      const float ig = activate(f, clipped(s, pi));
      const float fg = s.input_forget ? 1.0f - ig : activate(f, clipped(s, pf));
      const float cg = activate(g, clipped(s, pc));
      const float c = fg * c_prev + ig * cg;
      if (p) po += p[H + u.j] * c;
      const float og = activate(f, clipped(s, po));
      const float h = og * activate(act_of(s, u.d, 2), c);
      s.c[u.state] = c;
      s.h[u.state] = h;
      write_y<T>(s, u, u.t, h);
    }
  }
}

template <RnnCell C>
cudaError_t launch_cell(const RnnStep& s, cudaStream_t stream) {
  const int64_t n = s.dirs * s.batch * s.hidden;
  return with_elem_type(s.type, [&](auto z) {
    using T = decltype(z);
    step_kernel<T, C><<<grid_for(n, kThreads), kThreads, 0, stream>>>(s);
  });
}

template <typename T>
__global__ void to_float_kernel(const T* src, float* dst, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = to_float(src[i]);
}

// Index of state element (d, b, j) in a tensor of the layout.
__device__ __forceinline__ int64_t layout_index(int64_t d, int64_t b, int64_t j, int64_t dirs,
                                                int64_t batch, int64_t hidden, int layout) {
  return layout == 0 ? (d * batch + b) * hidden + j : (b * dirs + d) * hidden + j;
}

template <typename T>
__global__ void load_state_kernel(const T* src, float* state, int64_t dirs, int64_t batch,
                                  int64_t hidden, int layout) {
  const int64_t n = dirs * batch * hidden;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = i % hidden, b = (i / hidden) % batch, d = i / (hidden * batch);
    state[i] = src ? to_float(src[layout_index(d, b, j, dirs, batch, hidden, layout)]) : 0.0f;
  }
}

template <typename T>
__global__ void store_state_kernel(const float* state, T* dst, int64_t dirs, int64_t batch,
                                   int64_t hidden, int layout) {
  const int64_t n = dirs * batch * hidden;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = i % hidden, b = (i / hidden) % batch, d = i / (hidden * batch);
    dst[layout_index(d, b, j, dirs, batch, hidden, layout)] = from_float<T>(state[i]);
  }
}

// One block: the lowest bad index wins, so the message names the first.
__global__ void check_lens_kernel(const int32_t* lens, int64_t batch, int64_t seq,
                                  RnnLensError* error) {
  __shared__ int first;
  if (threadIdx.x == 0) first = 0x7fffffff;
  __syncthreads();
  for (int64_t b = threadIdx.x; b < batch; b += blockDim.x)
    if (lens[b] < 0 || lens[b] > seq) atomicMin(&first, int(b));
  __syncthreads();
  if (threadIdx.x == 0) {
    error->index = first == 0x7fffffff ? -1 : first;
    error->value = first == 0x7fffffff ? 0 : lens[first];
  }
}

}  // namespace

cudaError_t launch_rnn_step(const RnnStep& s, cudaStream_t stream) {
  switch (s.cell) {
    case RnnCell::kRnn:
      return launch_cell<RnnCell::kRnn>(s, stream);
    case RnnCell::kGruLinear:
      return launch_cell<RnnCell::kGruLinear>(s, stream);
    case RnnCell::kGruGates:
      return launch_cell<RnnCell::kGruGates>(s, stream);
    case RnnCell::kGruHidden:
      return launch_cell<RnnCell::kGruHidden>(s, stream);
    case RnnCell::kLstm:
      return launch_cell<RnnCell::kLstm>(s, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_rnn_to_float(ElemType t, const void* src, float* dst, int64_t n,
                                cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto z) {
    using T = decltype(z);
    to_float_kernel<T>
        <<<grid_for(n, kThreads), kThreads, 0, stream>>>(static_cast<const T*>(src), dst, n);
  });
}

cudaError_t launch_rnn_load_state(ElemType t, const void* src, float* state, int64_t dirs,
                                  int64_t batch, int64_t hidden, int layout, cudaStream_t stream) {
  const int64_t n = dirs * batch * hidden;
  if (n == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto z) {
    using T = decltype(z);
    load_state_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        static_cast<const T*>(src), state, dirs, batch, hidden, layout);
  });
}

cudaError_t launch_rnn_store_state(ElemType t, const float* state, void* dst, int64_t dirs,
                                   int64_t batch, int64_t hidden, int layout, cudaStream_t stream) {
  const int64_t n = dirs * batch * hidden;
  if (n == 0) return cudaSuccess;
  return with_elem_type(t, [&](auto z) {
    using T = decltype(z);
    store_state_kernel<T><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
        state, static_cast<T*>(dst), dirs, batch, hidden, layout);
  });
}

cudaError_t launch_rnn_check_lens(const int32_t* lens, int64_t batch, int64_t seq,
                                  RnnLensError* error, cudaStream_t stream) {
  check_lens_kernel<<<1, kThreads, 0, stream>>>(lens, batch, seq, error);
  return cudaGetLastError();
}

}  // namespace tessera::cuda
