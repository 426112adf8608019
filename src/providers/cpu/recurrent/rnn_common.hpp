// What RNN, GRU and LSTM share: the activation list, the direction and layout
// attributes, input shape checks, and a driver that walks the time steps of
// one direction while the op's cell updates the state of one batch row.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ep/kernel.hpp"
#include "providers/cpu/recurrent/float_io.hpp"

namespace tessera::cpu::rnn {

enum class ActKind {
  kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh, kHardSigmoid,
  kElu, kSoftsign, kSoftplus
};

struct Activation {
  ActKind kind = ActKind::kTanh;
  float alpha = 0.f, beta = 0.f;

  template <typename A>
  A operator()(A x) const {
    switch (kind) {
      case ActKind::kRelu: return x > A(0) ? x : A(0);
      case ActKind::kTanh: return std::tanh(x);
      case ActKind::kSigmoid: return sigmoid(x);
      case ActKind::kAffine: return A(alpha) * x + A(beta);
      case ActKind::kLeakyRelu: return x >= A(0) ? x : A(alpha) * x;
      case ActKind::kThresholdedRelu: return x >= A(alpha) ? x : A(0);
      case ActKind::kScaledTanh: return A(alpha) * std::tanh(A(beta) * x);
      case ActKind::kHardSigmoid: {
        A v = A(alpha) * x + A(beta);
        return v < A(0) ? A(0) : (v > A(1) ? A(1) : v);
      }
      case ActKind::kElu: return x >= A(0) ? x : A(alpha) * (std::exp(x) - A(1));
      case ActKind::kSoftsign: return x / (A(1) + std::abs(x));
      case ActKind::kSoftplus:
        // log(1 + e^x) without overflow for large x.
        return x > A(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    }
    return x;
  }
};

// Attributes every recurrent op has, parsed once.
struct RnnAttrs {
  int64_t num_directions = 1;
  bool bidirectional = false;
  bool reverse = false;  // direction == "reverse" (single direction)
  int64_t hidden_size = -1;  // -1: take it from R
  int64_t layout = 0;
  bool has_clip = false;
  float clip = 0.f;
  // acts_per_dir activations for direction 0, then for direction 1.
  std::vector<Activation> acts;
};

// `defaults` are the op's activation names for one direction.
RnnAttrs parse_rnn_attrs(const ep::KernelInfo& info, const std::vector<std::string>& defaults);

struct RnnDims {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
};

// Checks X, W, R (and B, sequence_lens, initial_h, and extra [dirs, batch, hidden]
// state inputs listed in `state_inputs`) against `gates` gates; returns the dims.
RnnDims check_rnn_inputs(const ep::KernelContext& ctx, const RnnAttrs& a, int64_t gates,
                         const std::vector<size_t>& state_inputs);

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

// out[m, n] = sum_k a[m, k] * b[n, k] + bias[n] (bias may be null): X * W^T.
template <typename A>
void matmul_bt(ThreadPool& pool, const A* a, const A* b, const A* bias, int64_t m, int64_t n,
               int64_t k, A* out) {
  pool.parallel_for(m, double(n * k), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      for (int64_t j = 0; j < n; ++j) {
        A s = bias ? bias[j] : A(0);
        const A* ar = a + i * k;
        const A* br = b + j * k;
        for (int64_t q = 0; q < k; ++q) s += ar[q] * br[q];
        out[i * n + j] = s;
      }
  });
}

// y[n] = sum_k x[k] * m[n, k] (+ y[n] when accumulate).
template <typename A>
inline void vec_mat_t(const A* x, const A* m, int64_t n, int64_t k, A* y) {
  for (int64_t j = 0; j < n; ++j) {
    A s = A(0);
    const A* row = m + j * k;
    for (int64_t q = 0; q < k; ++q) s += x[q] * row[q];
    y[j] = s;
  }
}

template <typename A>
inline A clip_value(const RnnAttrs& a, A x) {
  if (!a.has_clip) return x;
  A c = A(a.clip);
  return x < -c ? -c : (x > c ? c : x);
}

// Walks the steps of direction `dir` for every batch row. `xw` holds
// X * W^T + Wb for this direction ([seq, batch, G*hidden]); `step(xw_row, h, c,
// scratch)` updates the hidden (and cell) state of one row in place, given
// `scratch_size` elements of scratch space. h and c are
// [batch, hidden] slices for this direction; y (may be null) is the
// [seq, dirs, batch, hidden] output. Rows past their length keep their state
// and get zeros in Y, as the spec's padded sequences require.
template <typename A, typename Step>
void run_direction(ThreadPool& pool, const RnnDims& d, int64_t dir, bool reverse,
                   const std::vector<int64_t>& lens, const A* xw, int64_t gate_width, A* h,
                   A* c, A* y, int64_t scratch_size, const Step& step) {
  pool.parallel_for(d.batch, double(d.seq * gate_width * d.hidden), [&](int64_t b0, int64_t b1) {
    std::vector<A> scratch(static_cast<size_t>(scratch_size));
    for (int64_t b = b0; b < b1; ++b) {
      int64_t len = lens[size_t(b)];
      A* hb = h + b * d.hidden;
      A* cb = c ? c + b * d.hidden : nullptr;
      for (int64_t s = 0; s < len; ++s) {
        int64_t t = reverse ? len - 1 - s : s;
        step(xw + (t * d.batch + b) * gate_width, hb, cb, scratch.data());
        if (y) {
          A* yr = y + ((t * d.dirs + dir) * d.batch + b) * d.hidden;
          for (int64_t k = 0; k < d.hidden; ++k) yr[k] = hb[k];
        }
      }
      if (y)
        for (int64_t t = len; t < d.seq; ++t) {
          A* yr = y + ((t * d.dirs + dir) * d.batch + b) * d.hidden;
          for (int64_t k = 0; k < d.hidden; ++k) yr[k] = A(0);
        }
    }
  });
}

// Precomputes X * W[dir]^T + Wb[dir] for all steps: [seq, batch, gates*hidden].
template <typename A>
std::vector<A> input_projection(ThreadPool& pool, const std::vector<A>& x, const std::vector<A>& w,
                                 const std::vector<A>* bias, const RnnDims& d, int64_t gates,
                                 int64_t dir) {
  int64_t gh = gates * d.hidden;
  std::vector<A> out(static_cast<size_t>(d.seq * d.batch * gh));
  const A* wb = bias ? bias->data() + dir * 2 * gh : nullptr;
  matmul_bt(pool, x.data(), w.data() + dir * gh * d.input, wb, d.seq * d.batch, gh, d.input,
            out.data());
  return out;
}

}  // namespace tessera::cpu::rnn
