// RNN, GRU and LSTM on the CUDA provider against the CPU provider, on random
// data: every direction, sequence_lens (rows ending early, a row of length
// 0), initial states, B and P present and absent, GRU's linear_before_reset
// both ways, LSTM's input_forget, clip, every activation of the spec with
// its alpha/beta, layout 0 and 1, any subset of the outputs, weights as
// graph inputs and as constants, in float32, float16 and bfloat16 (the CPU
// reference runs in float32 on the same rounded values). The kernel tests
// need a CUDA device and are skipped without one; the claim tests do not.
#include <optional>

#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

ir::Attribute attr_strings(const std::string& name, std::vector<std::string> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kStrings;
  a.strings = std::move(v);
  return a;
}

struct Case {
  std::string what;
  std::string direction = "forward";
  int64_t seq = 5, batch = 3, input = 4, hidden = 6;
  int64_t layout = 0;
  bool bias = true, init_h = false, init_c = false, peepholes = false;
  std::optional<std::vector<int32_t>> lens = std::nullopt;
  int64_t linear_before_reset = 0, input_forget = 0;
  std::optional<float> clip = std::nullopt;
  std::vector<std::string> activations = {};
  std::vector<float> alphas = {}, betas = {};
  bool y = true, y_h = true, y_c = true;  // which outputs the node has
  bool constant_weights = false;
};

int64_t gates_of(const std::string& op) { return op == "RNN" ? 1 : (op == "GRU" ? 3 : 4); }

// Builds the node twice (float inputs in `t`, and the same values in
// float32) and compares the CUDA run with the CPU run.
void compare_with_cpu(const std::string& op, int64_t opset, const Case& c, DataType t) {
  const int64_t dirs = c.direction == "bidirectional" ? 2 : 1, gh = gates_of(op) * c.hidden;
  std::vector<ir::Attribute> attrs = {attr_string("direction", c.direction),
                                      attr_int("hidden_size", c.hidden)};
  if (opset >= 14) attrs.push_back(attr_int("layout", c.layout));
  if (op == "GRU") attrs.push_back(attr_int("linear_before_reset", c.linear_before_reset));
  if (op == "LSTM") attrs.push_back(attr_int("input_forget", c.input_forget));
  if (c.clip) attrs.push_back(attr_float("clip", *c.clip));
  if (!c.activations.empty()) attrs.push_back(attr_strings("activations", c.activations));
  if (!c.alphas.empty()) attrs.push_back(attr_floats("activation_alpha", c.alphas));
  if (!c.betas.empty()) attrs.push_back(attr_floats("activation_beta", c.betas));
  OneNode m(op, opset, attrs), ref(op, opset, attrs);
  uint32_t seed = 7;
  const auto add = [&](const std::string& name, std::vector<int64_t> dims, bool constant,
                       float scale) {
    Tensor v = make_tensor(t, dims, random_values(count(dims), seed++, -scale, scale));
    m.input(name, v, constant);
    ref.input(name, as_float(v), constant);
  };
  const auto omit = [&] {
    m.omitted();
    ref.omitted();
  };
  const std::vector<int64_t> state = c.layout == 0 ? std::vector<int64_t>{dirs, c.batch, c.hidden}
                                                   : std::vector<int64_t>{c.batch, dirs, c.hidden};
  add("X",
      c.layout == 0 ? std::vector<int64_t>{c.seq, c.batch, c.input}
                    : std::vector<int64_t>{c.batch, c.seq, c.input},
      false, 1.0f);
  add("W", {dirs, gh, c.input}, c.constant_weights, 0.6f);
  add("R", {dirs, gh, c.hidden}, c.constant_weights, 0.6f);
  const bool lstm = op == "LSTM";
  const size_t last =
      lstm && c.peepholes ? 7 : (lstm && c.init_c ? 6 : (c.init_h ? 5 : (c.lens ? 4 : 3)));
  if (c.bias)
    add("B", {dirs, 2 * gh}, c.constant_weights, 0.5f);
  else if (last > 3)
    omit();
  if (c.lens) {
    Tensor l = Tensor::from_vector<int32_t>(*c.lens, Shape{c.batch});
    m.input("lens", l);
    ref.input("lens", l);
  } else if (last > 4) {
    omit();
  }
  if (c.init_h)
    add("initial_h", state, false, 1.0f);
  else if (last > 5)
    omit();
  if (lstm && c.init_c)
    add("initial_c", state, false, 1.0f);
  else if (last > 6)
    omit();
  if (lstm && c.peepholes) add("P", {dirs, 3 * c.hidden}, c.constant_weights, 0.5f);

  const std::vector<bool> wanted = {c.y, c.y_h, lstm && c.y_c};
  size_t n_out = 0;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (wanted[i]) {
      n_out = i + 1;
    }
  }
  for (size_t i = 0; i < n_out; ++i) {
    if (wanted[i]) {
      m.output("out" + std::to_string(i));
      ref.output("out" + std::to_string(i));
    } else {  // an omitted output before a wanted one
      m.model.graph.nodes[0].outputs.push_back("");
      ref.model.graph.nodes[0].outputs.push_back("");
    }
  }
  // Errors add up over the steps: float32 gets 10x its usual tolerance.
  expect_cuda_matches_cpu(
      m, ref, t,
      op + "-" + std::to_string(opset) + " " + std::string(data_type_name(t)) + " " + c.what,
      t == DataType::kFloat ? 10.0 : 1.0);
}

const std::vector<DataType> kTypes = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16};

// The newest opset of the ops for `t`: bfloat16 came with 22, layout with 14.
int64_t latest(DataType t) { return t == DataType::kBFloat16 ? 22 : 14; }

// The cases every op runs; the ops' own follow in their tests.
std::vector<Case> common_cases() {
  std::vector<Case> v;
  v.push_back({"forward, defaults"});
  Case c{"reverse, initial_h, no B"};
  c.direction = "reverse";
  c.init_h = true;
  c.bias = false;
  v.push_back(c);
  c = {"bidirectional with sequence_lens (one row empty) and initial_h"};
  c.direction = "bidirectional";
  c.lens = std::vector<int32_t>{5, 2, 0};
  c.init_h = true;
  v.push_back(c);
  c = {"reverse with sequence_lens, Y_h only"};
  c.direction = "reverse";
  c.lens = std::vector<int32_t>{3, 5, 1};
  c.y = false;
  v.push_back(c);
  c = {"bidirectional, Y only, constant weights"};
  c.direction = "bidirectional";
  c.y_h = c.y_c = false;
  c.constant_weights = true;
  v.push_back(c);
  c = {"clip 0.5"};
  c.clip = 0.5f;
  v.push_back(c);
  c = {"wide: batch 17, hidden 40, input 33, 9 steps"};
  c.batch = 17;
  c.hidden = 40;
  c.input = 33;
  c.seq = 9;
  c.direction = "bidirectional";
  v.push_back(c);
  return v;
}

// Layout 1 (batch first) versions of a few cases (opset 14).
std::vector<Case> layout1_cases() {
  std::vector<Case> v;
  Case c{"layout 1, bidirectional, sequence_lens, initial_h"};
  c.layout = 1;
  c.direction = "bidirectional";
  c.lens = std::vector<int32_t>{4, 5, 1};
  c.init_h = true;
  v.push_back(c);
  c = {"layout 1, reverse, Y_h only"};
  c.layout = 1;
  c.direction = "reverse";
  c.y = false;
  v.push_back(c);
  return v;
}

// Every activation of the spec, each as the first function of a one-gate
// RNN (its alpha/beta given or defaulted).
struct ActCase {
  std::string name;
  std::vector<float> alphas, betas;
};
const std::vector<ActCase> kActivations = {{"Relu", {}, {}},
                                           {"Tanh", {}, {}},
                                           {"Sigmoid", {}, {}},
                                           {"Affine", {0.7f}, {0.2f}},
                                           {"LeakyRelu", {0.3f}, {}},
                                           {"ThresholdedRelu", {0.4f}, {}},
                                           {"ScaledTanh", {1.5f}, {0.8f}},
                                           {"HardSigmoid", {0.3f}, {0.4f}},
                                           {"Elu", {0.9f}, {}},
                                           {"Softsign", {}, {}},
                                           {"Softplus", {}, {}},
                                           {"HardSigmoid", {}, {}}};

}  // namespace

TEST(CudaRnn, RnnAgainstTheCpu) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    for (const Case& c : common_cases()) {
      compare_with_cpu("RNN", latest(t), c, t);
      if (t != DataType::kBFloat16) compare_with_cpu("RNN", 7, c, t);
    }
    for (const Case& c : layout1_cases()) compare_with_cpu("RNN", latest(t), c, t);
  }
}

TEST(CudaRnn, RnnEveryActivation) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (const ActCase& a : kActivations) {
    Case c{"activation " + a.name};
    c.activations = {a.name};
    c.alphas = a.alphas;
    c.betas = a.betas;
    compare_with_cpu("RNN", 14, c, DataType::kFloat);
    // Bidirectional with one list per direction: Tanh backwards.
    c.what += ", bidirectional";
    c.direction = "bidirectional";
    c.activations = {a.name, "Tanh"};
    compare_with_cpu("RNN", 14, c, DataType::kFloat);
  }
}

TEST(CudaRnn, GruAgainstTheCpuBothLinearBeforeReset) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (int64_t lbr : {0, 1})
    for (DataType t : kTypes) {
      for (Case c : common_cases()) {
        c.linear_before_reset = lbr;
        c.what += ", linear_before_reset " + std::to_string(lbr);
        compare_with_cpu("GRU", latest(t), c, t);
        if (t != DataType::kBFloat16) compare_with_cpu("GRU", 7, c, t);
      }
      for (Case c : layout1_cases()) {
        c.linear_before_reset = lbr;
        c.what += ", linear_before_reset " + std::to_string(lbr);
        compare_with_cpu("GRU", latest(t), c, t);
      }
    }
}

TEST(CudaRnn, GruActivationsAndClip) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (int64_t lbr : {0, 1}) {
    Case c{"HardSigmoid and Softsign, clip 0.7, bidirectional with lens"};
    c.linear_before_reset = lbr;
    c.activations = {"HardSigmoid", "Softsign", "Sigmoid", "Elu"};
    c.alphas = {0.25f, 0.8f};
    c.betas = {0.45f};
    c.clip = 0.7f;
    c.direction = "bidirectional";
    c.lens = std::vector<int32_t>{2, 5, 3};
    compare_with_cpu("GRU", 14, c, DataType::kFloat);
  }
}

TEST(CudaRnn, LstmAgainstTheCpu) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    for (Case c : common_cases()) {
      c.init_c = c.init_h;
      compare_with_cpu("LSTM", latest(t), c, t);
      if (t != DataType::kBFloat16) compare_with_cpu("LSTM", 7, c, t);
    }
    for (Case c : layout1_cases()) {
      c.init_c = true;
      compare_with_cpu("LSTM", latest(t), c, t);
    }
  }
}

TEST(CudaRnn, LstmPeepholesInputForgetClipAndOutputs) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    Case c{"peepholes, bidirectional, sequence_lens, initial_h and initial_c"};
    c.peepholes = true;
    c.direction = "bidirectional";
    c.lens = std::vector<int32_t>{5, 3, 0};
    c.init_h = c.init_c = true;
    compare_with_cpu("LSTM", latest(t), c, t);
    c.what = "peepholes, input_forget, clip 0.6, constant weights";
    c.input_forget = 1;
    c.clip = 0.6f;
    c.constant_weights = true;
    compare_with_cpu("LSTM", t == DataType::kBFloat16 ? 22 : 7, c, t);
    c = {"peepholes without B, reverse, layout 1"};
    c.peepholes = true;
    c.bias = false;
    c.direction = "reverse";
    c.layout = 1;
    compare_with_cpu("LSTM", latest(t), c, t);
    c = {"Y_c only"};
    c.y = c.y_h = false;
    compare_with_cpu("LSTM", latest(t), c, t);
    c = {"Y and Y_c, no Y_h"};
    c.y_h = false;
    compare_with_cpu("LSTM", latest(t), c, t);
  }
}

TEST(CudaRnn, LstmActivations) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  Case c{"HardSigmoid, ScaledTanh, Softsign / Sigmoid, Tanh, Affine"};
  c.direction = "bidirectional";
  c.activations = {"HardSigmoid", "ScaledTanh", "Softsign", "Sigmoid", "Tanh", "Affine"};
  c.alphas = {0.25f, 1.2f, 0.5f};
  c.betas = {0.45f, 0.9f, 0.1f};
  c.peepholes = true;
  compare_with_cpu("LSTM", 14, c, DataType::kFloat);
}

TEST(CudaRnn, EmptySequenceKeepsTheInitialState) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    Case c{"no steps"};
    c.seq = 0;
    c.init_h = c.init_c = true;
    compare_with_cpu(op, 14, c, DataType::kFloat);
  }
}

TEST(CudaRnn, BadSequenceLensFailTheRunNamingTheEntry) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  OneNode m("LSTM", 14, {attr_int("hidden_size", 2)});
  m.input("X", make_tensor(DataType::kFloat, {3, 2, 1}, random_values(6, 1)));
  m.input("W", make_tensor(DataType::kFloat, {1, 8, 1}, random_values(8, 2)));
  m.input("R", make_tensor(DataType::kFloat, {1, 8, 2}, random_values(16, 3)));
  m.omitted();
  m.input("lens", Tensor::from_vector<int32_t>({2, 9}, Shape{2}));
  m.output("Y");
  auto s = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  ASSERT_EQ(assigned_provider(*s), kCuda);
  try {
    s->run(m.feeds);
    FAIL() << "a sequence length of 9 in a sequence of 3 was accepted";
  } catch (const Error& e) {
    expect_has(e.what(), "sequence_lens[1] = 9 is outside [0, 3]");
  }
}

// What the provider claims: every form of the three ops (no GPU needed).
TEST(CudaRnnClaims, EveryFormIsClaimedAndBadAttributesAreDeclined) {
  for (const char* op : {"RNN", "GRU", "LSTM"})
    for (int64_t opset : {7, 14, 22}) {
      OneNode m(op, opset, {attr_string("direction", "bidirectional"), attr_int("hidden_size", 4)});
      const int64_t gh = gates_of(op) * 4;
      m.input("X", Tensor(DataType::kFloat16, Shape{3, 2, 5}));
      m.input("W", Tensor(DataType::kFloat16, Shape{2, gh, 5}), true);
      m.input("R", Tensor(DataType::kFloat16, Shape{2, gh, 4}), true);
      m.output("Y");
      EXPECT_EQ(claim(m), "") << op << "-" << opset;
    }
  OneNode bad("GRU", 14, {attr_strings("activations", {"Sigmoid", "Gelu"})});
  bad.input("X", Tensor(DataType::kFloat, Shape{3, 2, 5}));
  bad.input("W", Tensor(DataType::kFloat, Shape{1, 12, 5}));
  bad.input("R", Tensor(DataType::kFloat, Shape{1, 12, 4}));
  bad.output("Y");
  expect_has(claim(bad), "unsupported activation 'Gelu'");
  OneNode dir("RNN", 14, {attr_string("direction", "sideways")});
  dir.input("X", Tensor(DataType::kFloat, Shape{3, 2, 5}));
  dir.input("W", Tensor(DataType::kFloat, Shape{1, 4, 5}));
  dir.input("R", Tensor(DataType::kFloat, Shape{1, 4, 4}));
  dir.output("Y");
  expect_has(claim(dir), "direction must be forward, reverse or bidirectional");
  // Double is the CPU's alone.
  OneNode dbl("LSTM", 14);
  dbl.input("X", Tensor(DataType::kDouble, Shape{3, 2, 5}));
  dbl.input("W", Tensor(DataType::kDouble, Shape{1, 16, 5}));
  dbl.input("R", Tensor(DataType::kDouble, Shape{1, 16, 4}));
  dbl.output("Y");
  EXPECT_NE(claim(dbl), "");
}

// Under enable_cuda_graph=1 the kernel is captured (it neither waits nor
// allocates outside the run's scratch) and replays match the CPU on new
// inputs of the same shapes; the sequence_lens check still fails a replay.
TEST(CudaRnn, LstmCapturedAsACudaGraphReplaysAndMatchesTheCpu) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const int64_t seq = 6, batch = 3, input = 5, hidden = 8;
  OneNode m("LSTM", 14,
            {attr_string("direction", "bidirectional"), attr_int("hidden_size", hidden)});
  const auto w = make_tensor(DataType::kFloat, {2, 4 * hidden, input},
                             random_values(2 * 4 * hidden * input, 1, -0.6f, 0.6f));
  const auto r = make_tensor(DataType::kFloat, {2, 4 * hidden, hidden},
                             random_values(2 * 4 * hidden * hidden, 2, -0.6f, 0.6f));
  const auto b =
      make_tensor(DataType::kFloat, {2, 8 * hidden}, random_values(2 * 8 * hidden, 3, -0.5f, 0.5f));
  const auto p =
      make_tensor(DataType::kFloat, {2, 3 * hidden}, random_values(2 * 3 * hidden, 4, -0.5f, 0.5f));
  m.input("X", make_tensor(DataType::kFloat, {seq, batch, input},
                           random_values(seq * batch * input, 5)));
  m.input("W", w, true).input("R", r, true).input("B", b, true);
  m.input("lens", Tensor::from_vector<int32_t>({6, 4, 1}, Shape{batch}));
  m.omitted().omitted().input("P", p, true);
  m.output("Y").output("Y_h").output("Y_c");
  auto s = Session::create_from_model(
      m.model, {}, {{kCuda, {{"enable_cuda_graph", "1"}, {"error_on_failure", "1"}}}, {kCpu, {}}});
  auto cpu = Session::create_from_model(m.model, {}, {{kCpu, {}}});
  ASSERT_EQ(s->run_capture().status, "on (CUDAExecutionProvider)");
  for (uint32_t run = 0; run < 5; ++run) {
    auto feeds = m.feeds;
    feeds[0].second = Value(make_tensor(DataType::kFloat, {seq, batch, input},
                                        random_values(seq * batch * input, 50 + run)));
    feeds[1].second = Value(
        Tensor::from_vector<int32_t>({int32_t(6 - run), int32_t(run), int32_t(3)}, Shape{batch}));
    auto got = s->run(feeds);
    auto want = cpu->run(feeds);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k)
      expect_close(got[k].tensor(), want[k].tensor(), {1e-3, 1e-4},
                   "run " + std::to_string(run) + " output " + std::to_string(k));
  }
  const auto c = s->run_capture();
  EXPECT_EQ(c.captures, 1);
  EXPECT_EQ(c.replays, 4);  // the captured run replays too
  EXPECT_EQ(c.failures, 0);
  auto bad = m.feeds;
  bad[1].second = Value(Tensor::from_vector<int32_t>({1, 2, -1}, Shape{batch}));
  try {
    s->run(bad);
    FAIL() << "a negative sequence length was accepted in a replay";
  } catch (const Error& e) {
    expect_has(e.what(), "sequence_lens[2] = -1 is outside [0, 6]");
  }
}
