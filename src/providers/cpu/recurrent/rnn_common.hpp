// What RNN, GRU and LSTM share: the activation list, the direction and layout
// attributes, input shape checks, the input projection, and a driver that
// walks the time steps of one direction while the op's cell updates the state
// of every batch row at once.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ep/kernel.hpp"
#include "ops/rnn_attrs.hpp"
#include "providers/cpu/recurrent/float_io.hpp"
#include "providers/cpu/recurrent/rnn_weights.hpp"

namespace tessera::cpu::rnn {

using ActKind = ops::rnn::ActKind;

using Activation = ops::rnn::Activation;
using RnnAttrs = ops::rnn::RnnAttrs;
using RnnDims = ops::rnn::RnnDims;

// f(x) for one element, in the run's compute type.
template <typename A>
A apply_activation(const Activation& f, A x) {
  const A alpha = A(f.alpha), beta = A(f.beta);
  switch (f.kind) {
    case ActKind::kRelu:
      return x > A(0) ? x : A(0);
    case ActKind::kTanh:
      return std::tanh(x);
    case ActKind::kSigmoid:
      return sigmoid(x);
    case ActKind::kAffine:
      return alpha * x + beta;
    case ActKind::kLeakyRelu:
      return x >= A(0) ? x : alpha * x;
    case ActKind::kThresholdedRelu:
      return x >= alpha ? x : A(0);
    case ActKind::kScaledTanh:
      return alpha * std::tanh(beta * x);
    case ActKind::kHardSigmoid: {
      A v = alpha * x + beta;
      return v < A(0) ? A(0) : (v > A(1) ? A(1) : v);
    }
    case ActKind::kElu:
      return x >= A(0) ? x : alpha * (std::exp(x) - A(1));
    case ActKind::kSoftsign:
      return x / (A(1) + std::abs(x));
    case ActKind::kSoftplus:
      // log(1 + e^x) without overflow for large x.
      return x > A(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
  return x;
}

// The run's inputs checked by the rule every provider shares
// (ops::rnn::check_rnn_inputs) for `gates` gates; returns the dims.
RnnDims check_rnn_inputs(const ep::KernelContext& ctx, const RnnAttrs& a, int64_t gates);

// sequence_lens (input 4) as a vector; all `seq` when absent. Checked in [0, seq].
std::vector<int64_t> sequence_lengths(const ep::KernelContext& ctx, const RnnDims& d);

// X in [seq, batch, input] order whatever the layout.
template <typename A>
std::vector<A> load_x(const Tensor& x, const RnnDims& d, int64_t layout) {
  std::vector<A> v = load_float<A>(x);
  if (layout == 0) return v;
  std::vector<A> out(v.size());
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t t = 0; t < d.seq; ++t)
      for (int64_t i = 0; i < d.input; ++i)
        out[size_t((t * d.batch + b) * d.input + i)] = v[size_t((b * d.seq + t) * d.input + i)];
  return out;
}

// A [dirs, batch, hidden] state input in layout-0 order, zeros when absent.
template <typename A>
std::vector<A> load_state(const Tensor* t, const RnnDims& d, int64_t layout) {
  std::vector<A> out(static_cast<size_t>(d.dirs * d.batch * d.hidden), A(0));
  if (!t) return out;
  std::vector<A> v = load_float<A>(*t);
  for (int64_t k = 0; k < d.dirs; ++k)
    for (int64_t b = 0; b < d.batch; ++b)
      for (int64_t h = 0; h < d.hidden; ++h) {
        size_t src = layout == 0 ? size_t((k * d.batch + b) * d.hidden + h)
                                 : size_t((b * d.dirs + k) * d.hidden + h);
        out[size_t((k * d.batch + b) * d.hidden + h)] = v[src];
      }
  return out;
}

// Writes Y ([seq, dirs, batch, hidden] internally) as output `i` in the layout.
template <typename A>
void store_y(ep::KernelContext& ctx, size_t i, const std::vector<A>& y, const RnnDims& d,
             int64_t layout) {
  if (!ctx.has_output(i)) return;
  if (layout == 0) {
    Tensor& out = ctx.output(i, Shape{d.seq, d.dirs, d.batch, d.hidden});
    store_float(y, out);
    return;
  }
  Tensor& out = ctx.output(i, Shape{d.batch, d.seq, d.dirs, d.hidden});
  std::vector<A> v(y.size());
  for (int64_t t = 0; t < d.seq; ++t)
    for (int64_t k = 0; k < d.dirs; ++k)
      for (int64_t b = 0; b < d.batch; ++b)
        for (int64_t h = 0; h < d.hidden; ++h)
          v[size_t(((b * d.seq + t) * d.dirs + k) * d.hidden + h)] =
              y[size_t(((t * d.dirs + k) * d.batch + b) * d.hidden + h)];
  store_float(v, out);
}

// Writes a [dirs, batch, hidden] state as output `i` in the layout.
template <typename A>
void store_state(ep::KernelContext& ctx, size_t i, const std::vector<A>& s, const RnnDims& d,
                 int64_t layout) {
  if (!ctx.has_output(i)) return;
  if (layout == 0) {
    Tensor& out = ctx.output(i, Shape{d.dirs, d.batch, d.hidden});
    store_float(s, out);
    return;
  }
  Tensor& out = ctx.output(i, Shape{d.batch, d.dirs, d.hidden});
  std::vector<A> v(s.size());
  for (int64_t k = 0; k < d.dirs; ++k)
    for (int64_t b = 0; b < d.batch; ++b)
      for (int64_t h = 0; h < d.hidden; ++h)
        v[size_t((b * d.dirs + k) * d.hidden + h)] = s[size_t((k * d.batch + b) * d.hidden + h)];
  store_float(v, out);
}

// X * W^T for every step of one direction: [rows, w.n], where x is
// [rows, w.k]. One GEMM for all steps; the cells add the biases as they read
// it, which saves a pass over the whole block.
template <typename A>
std::unique_ptr<A[]> project_inputs(ThreadPool& pool, const A* x, const GateBlock<A>& w,
                                    int64_t rows) {
  auto out = std::make_unique_for_overwrite<A[]>(static_cast<size_t>(rows * w.n));
  gate_product(&pool, rows, x, w.k, w, out.get(), w.n, false);
  return out;
}

// Calls fn(b) for the batch rows active at a step (t[b] >= 0), split over the
// pool when the rows' gate math (`cost_per_row` operations each) is worth a
// hand-off; the step's product has used the pool just before, so its
// workers are awake.
template <typename Fn>
void for_active_rows(ThreadPool& pool, int64_t batch, const int64_t* t, double cost_per_row,
                     const Fn& fn) {
  pool.parallel_for(batch, cost_per_row, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      if (t[b] >= 0) fn(b);
  });
}

// Walks the steps of direction `dir` for all batch rows at once. At step s,
// row b reads time index t[b]: s going forward, len[b] - 1 - s in reverse
// (each row starts from its own last valid step), or -1 once s is past the
// row's length. `step(t, h)` advances the rows with t[b] >= 0 (h is this
// direction's [batch, hidden] state); rows past their length keep their state
// and their Y stays zero, as the spec's padded sequences require. The new h of
// the active rows is copied into y ([seq, dirs, batch, hidden]; may be null).
template <typename A, typename Step>
void walk_steps(const RnnDims& d, int64_t dir, bool reverse, const std::vector<int64_t>& lens, A* h,
                A* y, const Step& step) {
  const int64_t steps = lens.empty() ? 0 : *std::max_element(lens.begin(), lens.end());
  std::vector<int64_t> t(static_cast<size_t>(d.batch));
  for (int64_t s = 0; s < steps; ++s) {
    for (int64_t b = 0; b < d.batch; ++b) {
      const int64_t len = lens[size_t(b)];
      t[size_t(b)] = s >= len ? -1 : (reverse ? len - 1 - s : s);
    }
    step(t.data(), h);
    if (!y) continue;
    for (int64_t b = 0; b < d.batch; ++b) {
      if (t[size_t(b)] < 0) continue;
      const A* hb = h + b * d.hidden;
      std::copy(hb, hb + d.hidden, y + ((t[size_t(b)] * d.dirs + dir) * d.batch + b) * d.hidden);
    }
  }
}

}  // namespace tessera::cpu::rnn
