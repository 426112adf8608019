// RNN, GRU and LSTM at sizes where every batch row advances in one product
// per step: several rows with different sequence_lens (zero included) in
// both directions, hidden sizes that are no multiple of a vector width, and
// W and R either fed at run time or constant initializers packed at session
// creation (float and float16). Checked against a plain per-row reference of
// the spec's equations, computed in double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "runtime/session.hpp"
#include "unit/kernel_test_util.hpp"
#include "unit/providers/one_node_model.hpp"

namespace tessera::test {

namespace {

struct Case {
  std::string op;  // RNN, GRU or LSTM
  std::string direction;
  int64_t seq, batch, input, hidden;
  std::vector<int32_t> lens;  // empty: no sequence_lens input
  bool linear_before_reset = false;
  int64_t dirs() const { return direction == "bidirectional" ? 2 : 1; }
  int64_t gates() const { return op == "LSTM" ? 4 : (op == "GRU" ? 3 : 1); }
};

struct Data {
  std::vector<double> x, w, r, b, h0, c0;
};

std::vector<double> uniform(std::mt19937& rng, int64_t n, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& e : v) e = u(rng);
  return v;
}

Data make_data(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t gh = c.gates() * c.hidden, D = c.dirs();
  Data d;
  d.x = uniform(rng, c.seq * c.batch * c.input, 1.0);
  d.w = uniform(rng, D * gh * c.input, 0.5);
  d.r = uniform(rng, D * gh * c.hidden, 0.5);
  d.b = uniform(rng, D * 2 * gh, 0.3);
  d.h0 = uniform(rng, D * c.batch * c.hidden, 0.5);
  d.c0 = uniform(rng, D * c.batch * c.hidden, 0.5);
  return d;
}

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// Y [seq, dirs, batch, hidden], then Y_h and Y_c [dirs, batch, hidden].
struct Outputs {
  std::vector<double> y, yh, yc;
};

// One row's step of one direction, straight from the spec.
void reference_step(const Case& c, const Data& d, int64_t dir, const double* x,
                    std::vector<double>& h, std::vector<double>& cell) {
  const int64_t H = c.hidden, I = c.input, gh = c.gates() * H;
  const double* W = d.w.data() + dir * gh * I;
  const double* R = d.r.data() + dir * gh * H;
  const double* Wb = d.b.data() + dir * 2 * gh;
  const double* Rb = Wb + gh;
  auto xw = [&](int64_t row) {
    double s = Wb[row];
    for (int64_t k = 0; k < I; ++k) s += x[k] * W[row * I + k];
    return s;
  };
  auto hr = [&](const std::vector<double>& v, int64_t row) {
    double s = Rb[row];
    for (int64_t k = 0; k < H; ++k) s += v[size_t(k)] * R[row * H + k];
    return s;
  };
  std::vector<double> n(size_t(H), 0.0);
  for (int64_t j = 0; j < H; ++j) {
    if (c.op == "RNN") {
      n[size_t(j)] = std::tanh(xw(j) + hr(h, j));
    } else if (c.op == "LSTM") {
      double i = sigmoid(xw(j) + hr(h, j)), o = sigmoid(xw(H + j) + hr(h, H + j));
      double f = sigmoid(xw(2 * H + j) + hr(h, 2 * H + j));
      double ct = std::tanh(xw(3 * H + j) + hr(h, 3 * H + j));
      cell[size_t(j)] = f * cell[size_t(j)] + i * ct;
      n[size_t(j)] = o * std::tanh(cell[size_t(j)]);
    }
  }
  if (c.op == "GRU") {
    const size_t n_h = static_cast<size_t>(H);
    std::vector<double> z(n_h), r(n_h), rh(n_h);
    for (int64_t j = 0; j < H; ++j) {
      z[size_t(j)] = sigmoid(xw(j) + hr(h, j));
      r[size_t(j)] = sigmoid(xw(H + j) + hr(h, H + j));
      rh[size_t(j)] = r[size_t(j)] * h[size_t(j)];
    }
    for (int64_t j = 0; j < H; ++j) {
      double hh = c.linear_before_reset ? xw(2 * H + j) + r[size_t(j)] * hr(h, 2 * H + j)
                                        : xw(2 * H + j) + hr(rh, 2 * H + j);
      n[size_t(j)] = (1 - z[size_t(j)]) * std::tanh(hh) + z[size_t(j)] * h[size_t(j)];
    }
  }
  h = n;
}

Outputs reference(const Case& c, const Data& d) {
  const int64_t H = c.hidden, B = c.batch, D = c.dirs();
  Outputs o;
  o.y.assign(size_t(c.seq * D * B * H), 0.0);
  o.yh = d.h0;
  o.yc = d.c0;
  for (int64_t dir = 0; dir < D; ++dir) {
    const bool reverse = c.direction == "reverse" || dir == 1;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t len = c.lens.empty() ? c.seq : c.lens[size_t(b)];
      const size_t s0 = size_t((dir * B + b) * H);
      std::vector<double> h(o.yh.begin() + s0, o.yh.begin() + s0 + H);
      std::vector<double> cell(o.yc.begin() + s0, o.yc.begin() + s0 + H);
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        reference_step(c, d, dir, d.x.data() + (t * B + b) * c.input, h, cell);
        std::copy(h.begin(), h.end(), o.y.begin() + ((t * D + dir) * B + b) * H);
      }
      std::copy(h.begin(), h.end(), o.yh.begin() + s0);
      std::copy(cell.begin(), cell.end(), o.yc.begin() + s0);
    }
  }
  return o;
}

template <typename T>
Tensor tensor_of(const std::vector<double>& v, Shape s) {
  std::vector<T> t;
  for (double e : v) t.push_back(T(float(e)));
  return Tensor::from_vector<T>(t, std::move(s));
}
template <>
Tensor tensor_of<double>(const std::vector<double>& v, Shape s) {
  return Tensor::from_vector<double>(v, std::move(s));
}

std::vector<ir::Attribute> attrs_of(const Case& c) {
  std::vector<ir::Attribute> a = {attr_string("direction", c.direction),
                                  attr_int("hidden_size", c.hidden)};
  if (c.op == "GRU") a.push_back(attr_int("linear_before_reset", c.linear_before_reset));
  return a;
}

// X, W, R, B, sequence_lens, initial_h (, initial_c) in element type T.
template <typename T>
std::vector<Tensor> inputs_of(const Case& c, const Data& d) {
  const int64_t D = c.dirs(), gh = c.gates() * c.hidden;
  std::vector<int32_t> lens = c.lens;
  if (lens.empty()) lens.assign(size_t(c.batch), int32_t(c.seq));
  std::vector<Tensor> in = {
      tensor_of<T>(d.x, {c.seq, c.batch, c.input}),  tensor_of<T>(d.w, {D, gh, c.input}),
      tensor_of<T>(d.r, {D, gh, c.hidden}),          tensor_of<T>(d.b, {D, 2 * gh}),
      Tensor::from_vector<int32_t>(lens, {c.batch}), tensor_of<T>(d.h0, {D, c.batch, c.hidden})};
  if (c.op == "LSTM") in.push_back(tensor_of<T>(d.c0, {D, c.batch, c.hidden}));
  return in;
}

size_t num_outputs(const Case& c) { return c.op == "LSTM" ? 3 : 2; }

void expect_outputs(const std::vector<Value>& got, const Outputs& want, const Case& c, double tol,
                    const std::string& what) {
  const std::vector<const std::vector<double>*> refs = {&want.y, &want.yh, &want.yc};
  for (size_t i = 0; i < num_outputs(c); ++i) {
    const Tensor& t = got[i].tensor();
    ASSERT_EQ(size_t(t.num_elements()), refs[i]->size()) << what << " output " << i;
    for (int64_t e = 0; e < t.num_elements(); ++e)
      ASSERT_NEAR(t.element_as_double(e), (*refs[i])[size_t(e)], tol)
          << what << " " << c.op << " output " << i << " element " << e;
  }
}

// Runs the case with W and R fed at run time, in float and double.
void check_fed(const Case& c, uint32_t seed) {
  const Data d = make_data(c, seed);
  const Outputs want = reference(c, d);
  std::vector<Value> fin, din;
  for (auto& t : inputs_of<float>(c, d)) fin.emplace_back(t);
  for (auto& t : inputs_of<double>(c, d)) din.emplace_back(t);
  expect_outputs(run_node(c.op, fin, attrs_of(c), 14, num_outputs(c)), want, c, 2e-5, "float");
  expect_outputs(run_node(c.op, din, attrs_of(c), 14, num_outputs(c)), want, c, 1e-10, "double");
}

// Runs the case in a session where W and R are constant initializers, so
// the kernel packs them at creation; `threads` intra-op threads.
template <typename T>
std::vector<Value> run_constant(const Case& c, const Data& d, int threads) {
  OneNode m(c.op, 14, attrs_of(c));
  const std::vector<Tensor> in = inputs_of<T>(c, d);
  const char* names[] = {"X", "W", "R", "B", "lens", "h0", "c0"};
  for (size_t i = 0; i < in.size(); ++i) m.input(names[i], in[i], i == 1 || i == 2);
  m.output("Y").output("Y_h");
  if (c.op == "LSTM") m.output("Y_c");
  SessionOptions opts;
  opts.intra_op_num_threads = threads;
  auto s = Session::create_from_model(m.model, opts, {});
  return s->run(m.feeds);
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"LSTM", "bidirectional", 6, 4, 5, 17, {6, 3, 0, 5}},
      {"LSTM", "reverse", 5, 3, 9, 33, {2, 5, 4}},
      {"LSTM", "forward", 7, 1, 3, 20, {}},
      {"GRU", "bidirectional", 6, 3, 4, 19, {4, 6, 1}, false},
      {"GRU", "bidirectional", 6, 3, 4, 19, {4, 6, 1}, true},
      {"GRU", "reverse", 4, 2, 7, 65, {3, 4}, false},
      {"RNN", "reverse", 7, 3, 6, 33, {2, 7, 7}},
      {"RNN", "bidirectional", 5, 5, 2, 3, {5, 0, 1, 4, 2}},
      // Steps big enough for a pool of more than two threads to take one
      // direction at a time.
      {"LSTM", "bidirectional", 3, 4, 8, 256, {3, 1, 2, 0}},
  };
  return all;
}

}  // namespace

TEST(RecurrentBatched, WeightsFedAtRunTimeMatchTheReference) {
  uint32_t seed = 1;
  for (const Case& c : cases()) check_fed(c, seed++);
}

TEST(RecurrentBatched, ConstantWeightsPackedAtCreationMatchFedWeights) {
  uint32_t seed = 100;
  for (const Case& c : cases()) {
    const Data d = make_data(c, seed++);
    const Outputs want = reference(c, d);
    std::vector<Value> fed;
    for (auto& t : inputs_of<float>(c, d)) fed.emplace_back(t);
    const auto from_fed = run_node(c.op, fed, attrs_of(c), 14, num_outputs(c));
    for (int threads : {1, 2, 4}) {
      const auto packed = run_constant<float>(c, d, threads);
      expect_outputs(packed, want, c, 2e-5, "constant, threads " + std::to_string(threads));
      for (size_t i = 0; i < num_outputs(c); ++i)
        for (int64_t e = 0; e < packed[i].tensor().num_elements(); ++e)
          ASSERT_NEAR(packed[i].tensor().element_as_double(e),
                      from_fed[i].tensor().element_as_double(e), 1e-6)
              << c.op << " output " << i << " element " << e;
    }
  }
}

TEST(RecurrentBatched, ConstantFloat16WeightsAreWidenedBeforePacking) {
  for (const Case& c : {cases()[0], cases()[4]}) {
    Data d = make_data(c, 7);
    // Round every input to float16 first, so the reference sees what the kernel does.
    for (auto* v : {&d.x, &d.w, &d.r, &d.b, &d.h0, &d.c0})
      for (double& e : *v) e = double(float(Float16(float(e))));
    const Outputs want = reference(c, d);
    expect_outputs(run_constant<Float16>(c, d, 2), want, c, 5e-3, "float16 constant");
  }
}

// Every activation of a float run (vector kernels for some) against the same
// run in double (scalar formulas), at a hidden size with a vector tail.
TEST(RecurrentBatched, FloatActivationsMatchTheDoubleRun) {
  const Case c{"RNN", "bidirectional", 4, 3, 5, 19, {4, 2, 3}};
  const Data d = make_data(c, 11);
  for (const char* act : {"Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu",
                          "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus"}) {
    std::vector<ir::Attribute> attrs = attrs_of(c);
    ir::Attribute names;
    names.name = "activations";
    names.type = ir::AttrType::kStrings;
    names.strings = {act};
    attrs.push_back(names);
    attrs.push_back(attr_floats("activation_alpha", {0.7f}));
    attrs.push_back(attr_floats("activation_beta", {1.3f}));
    std::vector<Value> fin, din;
    for (auto& t : inputs_of<float>(c, d)) fin.emplace_back(t);
    for (auto& t : inputs_of<double>(c, d)) din.emplace_back(t);
    const auto f = run_node("RNN", fin, attrs, 14, 2);
    const auto g = run_node("RNN", din, attrs, 14, 2);
    for (size_t i = 0; i < 2; ++i)
      for (int64_t e = 0; e < g[i].tensor().num_elements(); ++e)
        ASSERT_NEAR(f[i].tensor().element_as_double(e), g[i].tensor().element_as_double(e), 1e-5)
            << act << " output " << i << " element " << e;
  }
}

}  // namespace tessera::test
