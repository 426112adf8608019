// RNN, GRU and LSTM (every opset version: 1, 3 (GRU), 7, 14 (layout), 22).
// Per direction, the input projection X * W^T (+ biases) is one GEMM over all
// steps; then each step is one GEMM of the [batch, hidden] state with R^T on
// weights packed once, and one pass of vectorised gate math per batch row.
#include <functional>

#include "providers/cpu/recurrent/recurrent_kernels.hpp"
#include "providers/cpu/recurrent/rnn_common.hpp"
#include "providers/cpu/recurrent/rnn_gates.hpp"

namespace tessera::cpu {

namespace {

using rnn::GateWeights;
using rnn::RnnAttrs;
using rnn::RnnDims;

template <typename A>
constexpr DataType kComputeType = std::is_same_v<A, double> ? DataType::kDouble : DataType::kFloat;

// What every recurrent op reads and writes in one run, in compute type A (W
// and R apart). X and Y are used in place when they are of type A in layout
// 0, and copied (converted, transposed) otherwise.
template <typename A>
struct Run {
  RnnDims d;
  std::vector<int64_t> lens;
  const A* x = nullptr;  // [seq, batch, input]
  std::vector<A> b;
  std::vector<A> h;  // [dirs, batch, hidden], updated in place
  A* y = nullptr;    // [seq, dirs, batch, hidden]; null when Y is not wanted
  std::vector<A> x_copy, y_copy;

  Run(ep::KernelContext& ctx, const RnnAttrs& a, int64_t gates)
      : d(rnn::check_rnn_inputs(ctx, a, gates)), lens(rnn::sequence_lengths(ctx, d)) {
    const Tensor& xt = ctx.required_input(0);
    const bool in_place = a.layout == 0 && xt.dtype() == kComputeType<A>;
    if (in_place) {
      x = xt.data<A>();
    } else {
      x_copy = rnn::load_x<A>(xt, d, a.layout);
      x = x_copy.data();
    }
    if (const Tensor* bt = ctx.input(3)) b = load_float<A>(*bt);
    h = rnn::load_state<A>(ctx.input(5), d, a.layout);
    if (!ctx.has_output(0)) return;
    if (in_place) {
      y = ctx.output(0, Shape{d.seq, d.dirs, d.batch, d.hidden}).mutable_data<A>();
      zero_padding();
    } else {
      y_copy.assign(size_t(d.seq * d.dirs * d.batch * d.hidden), A(0));
      y = y_copy.data();
    }
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Y entries past each row's length, which no step writes.
  void zero_padding() {
    for (int64_t dir = 0; dir < d.dirs; ++dir)
      for (int64_t r = 0; r < d.batch; ++r)
        for (int64_t t = lens[size_t(r)]; t < d.seq; ++t)
          std::fill_n(y + ((t * d.dirs + dir) * d.batch + r) * d.hidden, d.hidden, A(0));
  }
  // Y when it was computed in a copy, and Y_h.
  void store(ep::KernelContext& ctx, int64_t layout) const {
    if (!y_copy.empty()) rnn::store_y(ctx, 0, y_copy, d, layout);
    rnn::store_state(ctx, 1, h, d, layout);
  }

  A* h_of(int64_t dir) { return h.data() + dir * d.batch * d.hidden; }
  // Rb of direction `dir`, or null without B.
  const A* rb(int64_t dir, int64_t gates) const {
    return b.empty() ? nullptr : b.data() + (2 * dir + 1) * gates * d.hidden;
  }
  // The bias a step adds to its input projection: Wb, plus Rb for the first
  // `fold` gates (the sums are the same whichever side of the product Rb is
  // added on). Empty without B.
  std::vector<A> folded_bias(int64_t dir, int64_t gates, int64_t fold) const {
    if (b.empty()) return {};
    const int64_t gh = gates * d.hidden;
    const A* wb = b.data() + 2 * dir * gh;
    std::vector<A> out(wb, wb + gh);
    for (int64_t j = 0; j < fold * d.hidden; ++j) out[size_t(j)] += wb[gh + j];
    return out;
  }
};

// Rough operations per gate value of a row's gate math (the exp of an
// activation dominates), for for_active_rows.
constexpr double kRowCost = 20.0;

bool is_reverse(const RnnAttrs& a, int64_t dir) { return a.bidirectional ? dir == 1 : a.reverse; }

// Runs fn(dir) for every direction. A bidirectional op's two directions run
// concurrently when the pool has threads: each then computes its products on
// its own thread (nested pool calls run inline), with no hand-off per step.
// With more than two threads, steps whose product is worth splitting
// (`step_flops`) run one direction at a time, every product on the whole pool.
void for_each_direction(ThreadPool& pool, const RnnDims& d, int64_t gates,
                        const std::function<void(int64_t)>& fn) {
  const double step_flops = 2.0 * double(d.batch) * double(gates * d.hidden) * double(d.hidden);
  if (d.dirs == 1 || (pool.num_threads() > 2 && step_flops >= 2.0e6)) {
    for (int64_t dir = 0; dir < d.dirs; ++dir) fn(dir);
    return;
  }
  pool.parallel_for(d.dirs, 1e9, [&](int64_t b, int64_t e) {
    for (int64_t dir = b; dir < e; ++dir) fn(dir);
  });
}

// What the three ops share: their attributes, and W and R packed at creation
// when they are constant initializers.
class RecurrentKernel : public ep::OpKernel {
 public:
  RecurrentKernel(const ep::KernelInfo& info, RnnAttrs a, int64_t gates,
                  const std::vector<int64_t>& r_split)
      : a_(std::move(a)),
        gates_(gates),
        r_split_(r_split),
        packed_w_(rnn::pack_constant_gates(info, 1, gates, {0, gates})),
        packed_r_(rnn::pack_constant_gates(info, 2, gates, r_split)) {}

  // Packed W and R are all a float-family run reads of them.
  bool reads_constant_data(size_t i) const override {
    if (i == 1) return !packed_w_;
    if (i == 2) return !packed_r_;
    return true;
  }

 protected:
  template <typename A>
  GateWeights<A> w_weights(const ep::KernelContext& ctx, const RnnDims& d) const {
    return GateWeights<A>(ctx.required_input(1), packed_w_, d.dirs, gates_, d.hidden, {0, gates_});
  }
  template <typename A>
  GateWeights<A> r_weights(const ep::KernelContext& ctx, const RnnDims& d) const {
    return GateWeights<A>(ctx.required_input(2), packed_r_, d.dirs, gates_, d.hidden, r_split_);
  }

  RnnAttrs a_;
  int64_t gates_;
  std::vector<int64_t> r_split_;
  std::shared_ptr<const rnn::PackedGates> packed_w_, packed_r_;
};

// Ht = f(Xt*Wi^T + Ht-1*Ri^T + Wbi + Rbi)
class RnnKernel : public RecurrentKernel {
 public:
  explicit RnnKernel(const ep::KernelInfo& info)
      : RecurrentKernel(info, ops::rnn::parse_rnn_attrs(info.node(), info.opset()), 1, {0, 1}) {}

  void compute(ep::KernelContext& ctx) const override {
    with_compute_type(ctx.required_input(0).dtype(), [&](auto z) { run<decltype(z)>(ctx); });
  }

 private:
  template <typename A>
  void run(ep::KernelContext& ctx) const {
    Run<A> c(ctx, a_, 1);
    const RnnDims& d = c.d;
    const int64_t H = d.hidden;
    const GateWeights<A> W = w_weights<A>(ctx, d), R = r_weights<A>(ctx, d);
    ThreadPool& pool = ctx.thread_pool();
    for_each_direction(pool, d, 1, [&](int64_t dir) {
      const std::vector<A> bias = c.folded_bias(dir, 1, 1);
      const A* bias_p = bias.empty() ? nullptr : bias.data();
      const auto xw = rnn::project_inputs(pool, c.x, W.block(dir, 0), d.seq * d.batch);
      const rnn::GateBlock<A> r = R.block(dir, 0);
      const rnn::Activation f = a_.acts[size_t(dir)];
      std::vector<A> g(size_t(d.batch * H));
      rnn::walk_steps(d, dir, is_reverse(a_, dir), c.lens, c.h_of(dir), c.y,
                      [&](const int64_t* t, A* h) {
                        rnn::gate_product(&pool, d.batch, h, H, r, g.data(), H, false);
                        rnn::for_active_rows(pool, d.batch, t, kRowCost * H, [&](int64_t b) {
                          A* gb = g.data() + b * H;
                          rnn::add_input(gb, xw.get() + (t[b] * d.batch + b) * H, bias_p, H);
                          rnn::clip_block(a_, gb, H);
                          rnn::activate(f, gb, h + b * H, H);
                        });
                      });
    });
    c.store(ctx, a_.layout);
  }
};

// Gates z, r, h; linear_before_reset (opset 3+) applies r after the recurrent
// product. Without it the h gate's product is of r (.) Ht-1, known only once
// r is: R is then packed as two blocks, the z and r gates and the h gate, and
// each step makes two products. With it, one product covers all three gates.
class GruKernel : public RecurrentKernel {
 public:
  explicit GruKernel(const ep::KernelInfo& info)
      : RecurrentKernel(info, ops::rnn::parse_rnn_attrs(info.node(), info.opset()), 3,
                        r_split(info.attr_int("linear_before_reset", 0) != 0)),
        linear_before_reset_(info.attr_int("linear_before_reset", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    with_compute_type(ctx.required_input(0).dtype(), [&](auto z) { run<decltype(z)>(ctx); });
  }

 private:
  template <typename A>
  void run(ep::KernelContext& ctx) const {
    Run<A> c(ctx, a_, 3);
    const RnnDims& d = c.d;
    const GateWeights<A> W = w_weights<A>(ctx, d), R = r_weights<A>(ctx, d);
    ThreadPool& pool = ctx.thread_pool();
    for_each_direction(pool, d, 3, [&](int64_t dir) {
      // Under linear_before_reset Rbh sits inside r's product; otherwise it folds.
      const std::vector<A> bias = c.folded_bias(dir, 3, linear_before_reset_ ? 2 : 3);
      const A* bias_p = bias.empty() ? nullptr : bias.data();
      const auto xw = rnn::project_inputs(pool, c.x, W.block(dir, 0), d.seq * d.batch);
      const A* rbh = linear_before_reset_ && c.rb(dir, 3) ? c.rb(dir, 3) + 2 * d.hidden : nullptr;
      Cell<A> cell{*this,
                   pool,
                   d,
                   xw.get(),
                   bias_p,
                   R.block(dir, 0),
                   linear_before_reset_ ? rnn::GateBlock<A>{} : R.block(dir, 1),
                   rbh,
                   a_.acts[size_t(dir * 2)],
                   a_.acts[size_t(dir * 2 + 1)]};
      rnn::walk_steps(d, dir, is_reverse(a_, dir), c.lens, c.h_of(dir), c.y,
                      [&](const int64_t* t, A* h) { cell.step(t, h); });
    });
    c.store(ctx, a_.layout);
  }

  // One direction's step: the products and gate math for every active row.
  template <typename A>
  struct Cell {
    const GruKernel& k;
    ThreadPool& pool;
    const RnnDims& d;
    const A* xw;                // [seq, batch, 3 * hidden]
    const A* bias;              // added to xw (see folded_bias), or null
    rnn::GateBlock<A> r_first;  // the z and r gates' rows, and the h gate's under lbr
    rnn::GateBlock<A> r_h;      // the h gate's rows without lbr
    const A* rbh;               // Rbh under linear_before_reset, else null
    rnn::Activation f, g;
    std::vector<A> gates = std::vector<A>(size_t(d.batch * 3 * d.hidden));
    std::vector<A> rh = std::vector<A>(size_t(d.batch * d.hidden), A(0));

    void step(const int64_t* t, A* h) {
      const int64_t H = d.hidden, G = 3 * H;
      rnn::gate_product(&pool, d.batch, h, H, r_first, gates.data(), G, false);
      rnn::for_active_rows(pool, d.batch, t, kRowCost * 2 * H, [&](int64_t b) {
        A* zr = gates.data() + b * G;
        rnn::add_input(zr, xw + (t[b] * d.batch + b) * G, bias, 2 * H);
        rnn::clip_block(k.a_, zr, 2 * H);
        rnn::activate(f, zr, 2 * H);
        if (!k.linear_before_reset_)
          for (int64_t j = 0; j < H; ++j) rh[size_t(b * H + j)] = zr[H + j] * h[b * H + j];
      });
      if (!k.linear_before_reset_)
        rnn::gate_product(&pool, d.batch, rh.data(), H, r_h, gates.data() + 2 * H, G, false);
      rnn::for_active_rows(pool, d.batch, t, kRowCost * H, [&](int64_t b) {
        A* z = gates.data() + b * G;
        const A* r = z + H;
        A* hh = z + 2 * H;
        const A* xh = xw + (t[b] * d.batch + b) * G + 2 * H;
        const A* bh = bias ? bias + 2 * H : nullptr;
        if (k.linear_before_reset_)
          for (int64_t j = 0; j < H; ++j)
            hh[j] = xh[j] + (bh ? bh[j] : A(0)) + r[j] * (hh[j] + (rbh ? rbh[j] : A(0)));
        else
          rnn::add_input(hh, xh, bh, H);
        rnn::clip_block(k.a_, hh, H);
        rnn::activate(g, hh, H);
        A* hb = h + b * H;
        for (int64_t j = 0; j < H; ++j) hb[j] = (A(1) - z[j]) * hh[j] + z[j] * hb[j];
      });
    }
  };

  static std::vector<int64_t> r_split(bool linear_before_reset) {
    return linear_before_reset ? std::vector<int64_t>{0, 3} : std::vector<int64_t>{0, 2, 3};
  }

  bool linear_before_reset_;
};

// Gates i, o, f, c with optional peepholes P[iof] and coupled input/forget gates.
class LstmKernel : public RecurrentKernel {
 public:
  explicit LstmKernel(const ep::KernelInfo& info)
      : RecurrentKernel(info, ops::rnn::parse_rnn_attrs(info.node(), info.opset()), 4, {0, 4}),
        input_forget_(info.attr_int("input_forget", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    with_compute_type(ctx.required_input(0).dtype(), [&](auto z) { run<decltype(z)>(ctx); });
  }

 private:
  template <typename A>
  void run(ep::KernelContext& ctx) const {
    Run<A> c(ctx, a_, 4);
    const RnnDims& d = c.d;
    const int64_t H = d.hidden;
    std::vector<A> cell = rnn::load_state<A>(ctx.input(6), d, a_.layout);
    std::vector<A> p;
    if (const Tensor* pt = ctx.input(7)) p = load_float<A>(*pt);
    const GateWeights<A> W = w_weights<A>(ctx, d), R = r_weights<A>(ctx, d);
    ThreadPool& pool = ctx.thread_pool();
    for_each_direction(pool, d, 4, [&](int64_t dir) {
      const std::vector<A> bias = c.folded_bias(dir, 4, 4);
      const A* bias_p = bias.empty() ? nullptr : bias.data();
      const auto xw = rnn::project_inputs(pool, c.x, W.block(dir, 0), d.seq * d.batch);
      Cell<A> st{*this,
                 d,
                 p.empty() ? nullptr : p.data() + dir * 3 * H,
                 a_.acts[size_t(dir * 3)],
                 a_.acts[size_t(dir * 3 + 1)],
                 a_.acts[size_t(dir * 3 + 2)]};
      const rnn::GateBlock<A> r = R.block(dir, 0);
      A* cs = cell.data() + dir * d.batch * H;
      std::vector<A> g(size_t(d.batch * 4 * H));
      rnn::walk_steps(
          d, dir, is_reverse(a_, dir), c.lens, c.h_of(dir), c.y, [&](const int64_t* t, A* h) {
            rnn::gate_product(&pool, d.batch, h, H, r, g.data(), 4 * H, false);
            rnn::for_active_rows(pool, d.batch, t, kRowCost * 4 * H, [&](int64_t b) {
              A* gb = g.data() + b * 4 * H;
              rnn::add_input(gb, xw.get() + (t[b] * d.batch + b) * 4 * H, bias_p, 4 * H);
              st.row(gb, h + b * H, cs + b * H, st.tmp.data() + b * H);
            });
          });
    });
    c.store(ctx, a_.layout);
    rnn::store_state(ctx, 2, cell, d, a_.layout);
  }

  // The gate math of one batch row of one direction.
  template <typename A>
  struct Cell {
    const LstmKernel& k;
    const RnnDims& d;
    const A* p;  // Pi, Po, Pf of this direction, or null
    rnn::Activation f, g, hf;
    std::vector<A> tmp = std::vector<A>(size_t(d.batch * d.hidden));  // f(cell) per row

    // gi: the row's pre-activations [i, o, f, c]; h and cs: its state; tmp:
    // `hidden` values of scratch.
    void row(A* gi, A* h, A* cs, A* tmp) const {
      const int64_t H = d.hidden;
      const RnnAttrs& a = k.a_;
      A* go = gi + H;
      A* gf = gi + 2 * H;
      A* gc = gi + 3 * H;
      if (!p) {
        // Without peepholes no gate waits on the new cell: one pass over i, o, f.
        rnn::clip_block(a, gi, 4 * H);
        rnn::activate(f, gi, k.input_forget_ ? 2 * H : 3 * H);
      } else {
        rnn::add_product(gi, p, cs, H);
        rnn::add_product(gf, p + 2 * H, cs, H);
        rnn::clip_block(a, gi, H);
        rnn::clip_block(a, gf, 2 * H);
        rnn::activate(f, gi, H);
        if (!k.input_forget_) rnn::activate(f, gf, H);
      }
      if (k.input_forget_)
        for (int64_t j = 0; j < H; ++j) gf[j] = A(1) - gi[j];
      rnn::activate(g, gc, H);
      for (int64_t j = 0; j < H; ++j) cs[j] = gf[j] * cs[j] + gi[j] * gc[j];
      if (p) {
        rnn::add_product(go, p + H, cs, H);
        rnn::clip_block(a, go, H);
        rnn::activate(f, go, H);
      }
      rnn::activate(hf, cs, tmp, H);
      for (int64_t j = 0; j < H; ++j) h[j] = go[j] * tmp[j];
    }
  };

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
