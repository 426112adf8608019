// RNN, GRU and LSTM (every opset version: 1, 3 (GRU), 7, 14 (layout), 22).
// The input projection X * W^T + Wb is one matrix product for all steps; the
// recurrent part runs step by step per batch row.
#include "providers/cpu/recurrent/recurrent_kernels.hpp"
#include "providers/cpu/recurrent/rnn_common.hpp"

namespace tessera::cpu {

namespace {

using rnn::RnnAttrs;
using rnn::RnnDims;

// Inputs every recurrent op reads, in compute type A.
template <typename A>
struct Common {
  RnnDims d;
  std::vector<int64_t> lens;
  std::vector<A> x, w, r, b;
  std::vector<A> h;  // [dirs, batch, hidden], updated in place
  std::vector<A> y;  // [seq, dirs, batch, hidden] when Y is wanted

  A* y_ptr() { return y.empty() ? nullptr : y.data(); }
  const std::vector<A>* bias() const { return b.empty() ? nullptr : &b; }
  // Rb of direction `dir` (zeros when B is absent).
  const A* rb(int64_t dir, int64_t gates, const std::vector<A>& zeros) const {
    return b.empty() ? zeros.data() : b.data() + dir * 2 * gates * d.hidden + gates * d.hidden;
  }
};

template <typename A>
Common<A> load_common(ep::KernelContext& ctx, const RnnAttrs& a, int64_t gates,
                      const std::vector<size_t>& state_inputs) {
  Common<A> c;
  c.d = rnn::check_rnn_inputs(ctx, a, gates, state_inputs);
  c.lens = rnn::sequence_lengths(ctx, c.d);
  c.x = rnn::load_x<A>(ctx.required_input(0), c.d, a.layout);
  c.w = load_float<A>(ctx.required_input(1));
  c.r = load_float<A>(ctx.required_input(2));
  if (const Tensor* b = ctx.input(3)) c.b = load_float<A>(*b);
  c.h = rnn::load_state<A>(ctx.input(5), c.d, a.layout);
  if (ctx.has_output(0)) c.y.assign(size_t(c.d.seq * c.d.dirs * c.d.batch * c.d.hidden), A(0));
  return c;
}

bool is_reverse(const RnnAttrs& a, int64_t dir) { return a.bidirectional ? dir == 1 : a.reverse; }

// Ht = f(Xt*Wi^T + Ht-1*Ri^T + Wbi + Rbi)
class RnnKernel : public ep::OpKernel {
 public:
  explicit RnnKernel(const ep::KernelInfo& info) : a_(rnn::parse_rnn_attrs(info, {"Tanh"})) {}

  void compute(ep::KernelContext& ctx) const override {
    with_compute_type(ctx.required_input(0).dtype(), [&](auto z) { run<decltype(z)>(ctx); });
  }

 private:
  template <typename A>
  void run(ep::KernelContext& ctx) const {
    Common<A> c = load_common<A>(ctx, a_, 1, {5});
    const RnnDims& d = c.d;
    const int64_t H = d.hidden;
    std::vector<A> zeros(static_cast<size_t>(H), A(0));
    for (int64_t dir = 0; dir < d.dirs; ++dir) {
      auto xw = rnn::input_projection(ctx.thread_pool(), c.x, c.w, c.bias(), d, 1, dir);
      const A* R = c.r.data() + dir * H * H;
      const A* rb = c.rb(dir, 1, zeros);
      const rnn::Activation f = a_.acts[size_t(dir)];
      rnn::run_direction(ctx.thread_pool(), d, dir, is_reverse(a_, dir), c.lens, xw.data(), H,
                         c.h.data() + dir * d.batch * H, static_cast<A*>(nullptr), c.y_ptr(), H,
                         [&](const A* xr, A* h, A*, A* tmp) {
                           rnn::vec_mat_t(h, R, H, H, tmp);
                           for (int64_t j = 0; j < H; ++j)
                             tmp[j] = f(rnn::clip_value(a_, xr[j] + tmp[j] + rb[j]));
                           for (int64_t j = 0; j < H; ++j) h[j] = tmp[j];
                         });
    }
    rnn::store_y(ctx, 0, c.y, d, a_.layout);
    rnn::store_state(ctx, 1, c.h, d, a_.layout);
  }

  RnnAttrs a_;
};

// Gates z, r, h; linear_before_reset (opset 3+) applies r after the recurrent product.
class GruKernel : public ep::OpKernel {
 public:
  explicit GruKernel(const ep::KernelInfo& info)
      : a_(rnn::parse_rnn_attrs(info, {"Sigmoid", "Tanh"})),
        linear_before_reset_(info.attr_int("linear_before_reset", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    with_compute_type(ctx.required_input(0).dtype(), [&](auto z) { run<decltype(z)>(ctx); });
  }

 private:
  template <typename A>
  void run(ep::KernelContext& ctx) const {
    Common<A> c = load_common<A>(ctx, a_, 3, {5});
    const RnnDims& d = c.d;
    const int64_t H = d.hidden;
    std::vector<A> zeros(static_cast<size_t>(3 * H), A(0));
    for (int64_t dir = 0; dir < d.dirs; ++dir) {
      auto xw = rnn::input_projection(ctx.thread_pool(), c.x, c.w, c.bias(), d, 3, dir);
      const A* R = c.r.data() + dir * 3 * H * H;
      const A* rb = c.rb(dir, 3, zeros);
      const rnn::Activation f = a_.acts[size_t(dir * 2)], g = a_.acts[size_t(dir * 2 + 1)];
      // scratch: z and r pre-activations [2H], the h-gate product [H], r (.) H [H].
      rnn::run_direction(
          ctx.thread_pool(), d, dir, is_reverse(a_, dir), c.lens, xw.data(), 3 * H,
          c.h.data() + dir * d.batch * H, static_cast<A*>(nullptr), c.y_ptr(), 4 * H,
          [&](const A* xr, A* h, A*, A* tmp) {
            A* zr = tmp;
            A* hh = tmp + 2 * H;
            A* rh = tmp + 3 * H;
            rnn::vec_mat_t(h, R, 2 * H, H, zr);
            for (int64_t j = 0; j < 2 * H; ++j) zr[j] = f(rnn::clip_value(a_, xr[j] + zr[j] + rb[j]));
            const A* Rh = R + 2 * H * H;
            if (linear_before_reset_) {
              rnn::vec_mat_t(h, Rh, H, H, hh);
              for (int64_t j = 0; j < H; ++j) hh[j] = xr[2 * H + j] + zr[H + j] * (hh[j] + rb[2 * H + j]);
            } else {
              for (int64_t j = 0; j < H; ++j) rh[j] = zr[H + j] * h[j];
              rnn::vec_mat_t(rh, Rh, H, H, hh);
              for (int64_t j = 0; j < H; ++j) hh[j] = xr[2 * H + j] + hh[j] + rb[2 * H + j];
            }
            for (int64_t j = 0; j < H; ++j) {
              A ht = g(rnn::clip_value(a_, hh[j]));
              h[j] = (A(1) - zr[j]) * ht + zr[j] * h[j];
            }
          });
    }
    rnn::store_y(ctx, 0, c.y, d, a_.layout);
    rnn::store_state(ctx, 1, c.h, d, a_.layout);
  }

  RnnAttrs a_;
  bool linear_before_reset_;
};

// Gates i, o, f, c with optional peepholes P[iof] and coupled input/forget gates.
class LstmKernel : public ep::OpKernel {
 public:
  explicit LstmKernel(const ep::KernelInfo& info)
      : a_(rnn::parse_rnn_attrs(info, {"Sigmoid", "Tanh", "Tanh"})),
        input_forget_(info.attr_int("input_forget", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    with_compute_type(ctx.required_input(0).dtype(), [&](auto z) { run<decltype(z)>(ctx); });
  }

 private:
  template <typename A>
  void run(ep::KernelContext& ctx) const {
    Common<A> c = load_common<A>(ctx, a_, 4, {5, 6});
    const RnnDims& d = c.d;
    const int64_t H = d.hidden;
    std::vector<A> cell = rnn::load_state<A>(ctx.input(6), d, a_.layout);
    std::vector<A> p;
    if (const Tensor* pt = ctx.input(7)) {
      if (pt->shape() != Shape{d.dirs, 3 * H})
        ctx.fail_node("P has shape ", pt->shape().to_string(), ", expected ",
                      Shape{d.dirs, 3 * H}.to_string());
      p = load_float<A>(*pt);
    } else {
      p.assign(size_t(d.dirs * 3 * H), A(0));
    }
    std::vector<A> zeros(static_cast<size_t>(4 * H), A(0));
    for (int64_t dir = 0; dir < d.dirs; ++dir) {
      auto xw = rnn::input_projection(ctx.thread_pool(), c.x, c.w, c.bias(), d, 4, dir);
      const A* R = c.r.data() + dir * 4 * H * H;
      const A* rb = c.rb(dir, 4, zeros);
      const A* P = p.data() + dir * 3 * H;
      const rnn::Activation f = a_.acts[size_t(dir * 3)], g = a_.acts[size_t(dir * 3 + 1)],
                            hf = a_.acts[size_t(dir * 3 + 2)];
      rnn::run_direction(
          ctx.thread_pool(), d, dir, is_reverse(a_, dir), c.lens, xw.data(), 4 * H,
          c.h.data() + dir * d.batch * H, cell.data() + dir * d.batch * H, c.y_ptr(), 4 * H,
          [&](const A* xr, A* h, A* cs, A* g4) {
            rnn::vec_mat_t(h, R, 4 * H, H, g4);
            for (int64_t j = 0; j < 4 * H; ++j) g4[j] += xr[j] + rb[j];
            for (int64_t j = 0; j < H; ++j) {
              A i = f(rnn::clip_value(a_, g4[j] + P[j] * cs[j]));
              A fg = input_forget_ ? A(1) - i
                                   : f(rnn::clip_value(a_, g4[2 * H + j] + P[2 * H + j] * cs[j]));
              A ct = g(rnn::clip_value(a_, g4[3 * H + j]));
              A cn = fg * cs[j] + i * ct;
              A o = f(rnn::clip_value(a_, g4[H + j] + P[H + j] * cn));
              cs[j] = cn;
              h[j] = o * hf(cn);
            }
          });
    }
    rnn::store_y(ctx, 0, c.y, d, a_.layout);
    rnn::store_state(ctx, 1, c.h, d, a_.layout);
    rnn::store_state(ctx, 2, cell, d, a_.layout);
  }

  RnnAttrs a_;
  bool input_forget_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_rnn_kernel(const ep::KernelInfo& info) {
  return std::make_unique<RnnKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_gru_kernel(const ep::KernelInfo& info) {
  return std::make_unique<GruKernel>(info);
}
std::unique_ptr<ep::OpKernel> make_lstm_kernel(const ep::KernelInfo& info) {
  return std::make_unique<LstmKernel>(info);
}

}  // namespace tessera::cpu
