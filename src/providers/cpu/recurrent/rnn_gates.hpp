// Element-wise work on blocks of gate values: activations, clip and the small
// vector updates the cells are made of. In float runs the default
// activations (Sigmoid, Tanh), and ScaledTanh and Softplus, go through the
// vector kernels of linalg/vec_math.hpp; the other activations, and every
// double run, use apply_activation.
#pragma once
#include <cstdint>

#include "providers/cpu/recurrent/rnn_common.hpp"

namespace tessera::cpu::rnn {

// x[i] = f(x[i]) for i < n.
void activate(const Activation& f, float* x, int64_t n);
void activate(const Activation& f, double* x, int64_t n);
// out[i] = f(x[i]) for i < n (x and out do not overlap).
void activate(const Activation& f, const float* x, float* out, int64_t n);
void activate(const Activation& f, const double* x, double* out, int64_t n);

// x[i] clamped to [-a.clip, a.clip] when the op has a clip.
template <typename A>
inline void clip_block(const RnnAttrs& a, A* x, int64_t n) {
  if (!a.has_clip) return;
  const A c = A(a.clip);
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] < -c ? -c : (x[i] > c ? c : x[i]);
}

// x[i] += y[i].
template <typename A>
inline void add_to(A* x, const A* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += y[i];
}

// x[i] += y[i] + bias[i] (bias may be null): a step's input projection and
// biases added to its recurrent product.
template <typename A>
inline void add_input(A* x, const A* y, const A* bias, int64_t n) {
  if (!bias) return add_to(x, y, n);
  for (int64_t i = 0; i < n; ++i) x[i] += y[i] + bias[i];
}

// x[i] += p[i] * c[i] (an LSTM peephole).
template <typename A>
inline void add_product(A* x, const A* p, const A* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += p[i] * c[i];
}

}  // namespace tessera::cpu::rnn
