// Loop, Scan and If bodies that read the outer graph's initializers: the
// body's kernels get them as constants (and prepack them), the results match
// the same arithmetic written out as straight-line code, an overridable
// initializer stays a run-time value, and a body whose value shapes change
// from one iteration to the next still runs correctly.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/environment.hpp"
#include "runtime/session.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;

namespace {

ir::ValueInfo tensor_info(const std::string& name, DataType t, std::vector<ir::Dim> dims) {
  return {name, ir::TypeInfo::tensor(t, dims), ""};
}
ir::Dim dim(int64_t v) { return ir::Dim{v, ""}; }
ir::Dim sym(const std::string& s) { return ir::Dim{std::nullopt, s}; }

ir::Attribute graph_attr(const std::string& name, std::shared_ptr<ir::Graph> g) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kGraph;
  a.g = std::move(g);
  return a;
}

std::vector<float> values(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5f * (1.f + std::fabs(want[i]))) << "element " << i;
}

constexpr int64_t kWidth = 8;

// W [8,8] and b [8]: values with no pattern a wrong index would reproduce.
void add_weights(ir::Graph& g) {
  std::vector<float> w(kWidth * kWidth), b(kWidth);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * float(int((i * 7) % 11) - 5);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.1f * float(int(i % 3) - 1);
  g.initializers["W"] = Tensor::from_vector<float>(w, Shape{kWidth, kWidth});
  g.initializers["b"] = Tensor::from_vector<float>(b, Shape{kWidth});
}

Tensor start_state() {
  std::vector<float> h(kWidth);
  for (size_t i = 0; i < h.size(); ++i) h[i] = 0.3f * float(int(i) - 3);
  return Tensor::from_vector<float>(h, Shape{1, kWidth});
}

// "_k": a per-step name suffix (appended, not built with operator+, which
// GCC 12 misreports as overlapping copies).
std::string step_suffix(int k) {
  std::string s = "_";
  s += std::to_string(k);
  return s;
}

// One cell step, h -> Tanh(MatMul(h, W) + b), appended to `g` (names suffixed).
std::string add_cell(ir::Graph& g, const std::string& h, const std::string& suffix) {
  g.nodes.push_back(test::make_node("MatMul", {h, "W"}, {"mm" + suffix}));
  g.nodes.push_back(test::make_node("Add", {"mm" + suffix, "b"}, {"pre" + suffix}));
  g.nodes.push_back(test::make_node("Tanh", {"pre" + suffix}, {"h" + suffix}));
  return "h" + suffix;
}

// Loop(M) over the cell, W and b read from the outer graph; the carried
// state and each step's state as a scan output.
std::shared_ptr<ir::Graph> loop_body() {
  auto body = std::make_shared<ir::Graph>();
  body->inputs.push_back(tensor_info("i", DataType::kInt64, {}));
  body->inputs.push_back(tensor_info("cin", DataType::kBool, {}));
  body->inputs.push_back(tensor_info("hin", DataType::kFloat, {dim(1), dim(kWidth)}));
  body->nodes.push_back(test::make_node("Identity", {"cin"}, {"cout"}));
  const std::string h = add_cell(*body, "hin", "_b");
  body->nodes.push_back(test::make_node("Identity", {h}, {"each"}));
  body->outputs.push_back(tensor_info("cout", DataType::kBool, {}));
  body->outputs.push_back(tensor_info(h, DataType::kFloat, {dim(1), dim(kWidth)}));
  body->outputs.push_back(tensor_info("each", DataType::kFloat, {dim(1), dim(kWidth)}));
  return body;
}

ir::Model loop_model() {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("M", DataType::kInt64, {}));
  m.graph.inputs.push_back(tensor_info("h0", DataType::kFloat, {dim(1), dim(kWidth)}));
  add_weights(m.graph);
  m.graph.initializers["cond0"] = Tensor::scalar<bool>(true);
  m.graph.nodes.push_back(test::make_node("Loop", {"M", "cond0", "h0"}, {"h_last", "all"},
                                          {graph_attr("body", loop_body())}));
  m.graph.outputs.push_back(tensor_info("h_last", DataType::kFloat, {dim(1), dim(kWidth)}));
  m.graph.outputs.push_back(tensor_info("all", DataType::kFloat, {sym("T"), dim(1), dim(kWidth)}));
  return m;
}

// The same `steps` cell steps written out, one after another.
ir::Model unrolled_model(int steps) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("h0", DataType::kFloat, {dim(1), dim(kWidth)}));
  add_weights(m.graph);
  std::string h = "h0";
  for (int s = 0; s < steps; ++s) {
    h = add_cell(m.graph, h, step_suffix(s));
    m.graph.outputs.push_back(tensor_info(h, DataType::kFloat, {dim(1), dim(kWidth)}));
  }
  return m;
}

std::vector<Value> run_unrolled(int steps) {
  auto s = Session::create_from_model(unrolled_model(steps));
  return s->run({{"h0", start_state()}});
}

}  // namespace

TEST(RuntimeSubgraphConstants, LoopBodyMatMulPrepacksTheOuterInitializer) {
  auto& cache = Environment::global().prepacked_weights();
  const size_t before = cache.size();
  auto s = Session::create_from_model(loop_model());
  // The body's MatMul got W as a constant and packed it (in the shared cache).
  EXPECT_GT(cache.size(), before);
  auto out = s->run({{"M", Tensor::scalar<int64_t>(4)}, {"h0", start_state()}});
  auto unrolled = run_unrolled(4);
  expect_close(values(out[0]), values(unrolled[3]));
  ASSERT_EQ(out[1].tensor().shape(), (Shape{4, 1, kWidth}));
  std::vector<float> all;
  for (const auto& v : unrolled) {
    auto x = values(v);
    all.insert(all.end(), x.begin(), x.end());
  }
  expect_close(values(out[1]), all);
  // Runs again with another trip count on the same plan.
  auto again = s->run({{"M", Tensor::scalar<int64_t>(2)}, {"h0", start_state()}});
  expect_close(values(again[0]), values(unrolled[1]));
}

TEST(RuntimeSubgraphConstants, OverridableInitializerStaysARunTimeValueInTheBody) {
  ir::Model m = loop_model();
  // W is also a graph input: a run may feed another W, which the body must use.
  m.graph.inputs.push_back(tensor_info("W", DataType::kFloat, {dim(kWidth), dim(kWidth)}));
  auto s = Session::create_from_model(m);
  auto fed =
      Tensor::from_vector<float>(std::vector<float>(kWidth * kWidth, 0.f), Shape{kWidth, kWidth});
  auto out = s->run({{"M", Tensor::scalar<int64_t>(2)}, {"h0", start_state()}, {"W", fed}});
  // With W zero the state is Tanh(b) after any number of steps.
  const auto b = values(Value(m.graph.initializers.at("b")));
  std::vector<float> want;
  for (float x : b) want.push_back(std::tanh(x));
  expect_close(values(out[0]), want);
  // Not fed: the initializer is used, as in the unrolled graph.
  auto plain = s->run({{"M", Tensor::scalar<int64_t>(2)}, {"h0", start_state()}});
  expect_close(values(plain[0]), values(run_unrolled(2)[1]));
}

TEST(RuntimeSubgraphConstants, ScanBodyReadsTheOuterInitializer) {
  // state' = Tanh(MatMul(state, W) + b) + x_t, x scanned over 3 steps.
  auto body = std::make_shared<ir::Graph>();
  body->inputs.push_back(tensor_info("st", DataType::kFloat, {dim(1), dim(kWidth)}));
  body->inputs.push_back(tensor_info("xt", DataType::kFloat, {dim(1), dim(kWidth)}));
  const std::string h = add_cell(*body, "st", "_s");
  body->nodes.push_back(test::make_node("Add", {h, "xt"}, {"st_next"}));
  body->nodes.push_back(test::make_node("Identity", {"st_next"}, {"y"}));
  body->outputs.push_back(tensor_info("st_next", DataType::kFloat, {dim(1), dim(kWidth)}));
  body->outputs.push_back(tensor_info("y", DataType::kFloat, {dim(1), dim(kWidth)}));
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("h0", DataType::kFloat, {dim(1), dim(kWidth)}));
  m.graph.inputs.push_back(tensor_info("x", DataType::kFloat, {dim(3), dim(1), dim(kWidth)}));
  add_weights(m.graph);
  m.graph.nodes.push_back(
      test::make_node("Scan", {"h0", "x"}, {"h_last", "ys"},
                      {graph_attr("body", body), test::attr_int("num_scan_inputs", 1)}));
  m.graph.outputs.push_back(tensor_info("h_last", DataType::kFloat, {dim(1), dim(kWidth)}));
  m.graph.outputs.push_back(tensor_info("ys", DataType::kFloat, {dim(3), dim(1), dim(kWidth)}));
  std::vector<float> xs(3 * kWidth);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = 0.02f * float(int(i % 5) - 2);
  auto s = Session::create_from_model(m);
  auto out =
      s->run({{"h0", start_state()}, {"x", Tensor::from_vector<float>(xs, Shape{3, 1, kWidth})}});

  // Straight-line: the same three steps with the x rows as constants.
  ir::Model u;
  u.ir_version = 8;
  u.opset_imports.push_back({"", 17});
  u.graph.inputs.push_back(tensor_info("h0", DataType::kFloat, {dim(1), dim(kWidth)}));
  add_weights(u.graph);
  std::string st = "h0";
  for (int t = 0; t < 3; ++t) {
    const std::string sx = step_suffix(t);
    u.graph.initializers["x" + sx] = Tensor::from_vector<float>(
        std::vector<float>(xs.begin() + t * kWidth, xs.begin() + (t + 1) * kWidth),
        Shape{1, kWidth});
    const std::string c = add_cell(u.graph, st, sx);
    u.graph.nodes.push_back(test::make_node("Add", {c, "x" + sx}, {"st" + sx}));
    st = "st" + sx;
    u.graph.outputs.push_back(tensor_info(st, DataType::kFloat, {dim(1), dim(kWidth)}));
  }
  auto want = Session::create_from_model(u)->run({{"h0", start_state()}});
  expect_close(values(out[0]), values(want[2]));
  std::vector<float> all;
  for (const auto& v : want) {
    auto x = values(v);
    all.insert(all.end(), x.begin(), x.end());
  }
  expect_close(values(out[1]), all);
}

TEST(RuntimeSubgraphConstants, LoopNestedInIfReadsTheTopLevelInitializer) {
  // If(c) then: Loop(M) over the cell (W and b two scopes up); else: h0 + b.
  auto then_g = std::make_shared<ir::Graph>();
  then_g->initializers["cond1"] = Tensor::scalar<bool>(true);
  then_g->nodes.push_back(test::make_node("Loop", {"M", "cond1", "h0"}, {"h_then", "all_then"},
                                          {graph_attr("body", loop_body())}));
  then_g->outputs.push_back(tensor_info("h_then", DataType::kFloat, {dim(1), dim(kWidth)}));
  auto else_g = std::make_shared<ir::Graph>();
  else_g->nodes.push_back(test::make_node("Add", {"h0", "b"}, {"h_else"}));
  else_g->outputs.push_back(tensor_info("h_else", DataType::kFloat, {dim(1), dim(kWidth)}));
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("c", DataType::kBool, {}));
  m.graph.inputs.push_back(tensor_info("M", DataType::kInt64, {}));
  m.graph.inputs.push_back(tensor_info("h0", DataType::kFloat, {dim(1), dim(kWidth)}));
  add_weights(m.graph);
  m.graph.nodes.push_back(test::make_node(
      "If", {"c"}, {"h"}, {graph_attr("then_branch", then_g), graph_attr("else_branch", else_g)}));
  m.graph.outputs.push_back(tensor_info("h", DataType::kFloat, {dim(1), dim(kWidth)}));
  auto& cache = Environment::global().prepacked_weights();
  const size_t before = cache.size();
  auto s = Session::create_from_model(m);
  EXPECT_GT(cache.size(), before);  // the innermost MatMul packed W
  auto then_out = s->run({{"c", Tensor::scalar<bool>(true)},
                          {"M", Tensor::scalar<int64_t>(3)},
                          {"h0", start_state()}});
  expect_close(values(then_out[0]), values(run_unrolled(3)[2]));
  auto else_out = s->run({{"c", Tensor::scalar<bool>(false)},
                          {"M", Tensor::scalar<int64_t>(3)},
                          {"h0", start_state()}});
  auto h0 = values(Value(start_state()));
  auto b = values(Value(m.graph.initializers.at("b")));
  std::vector<float> want;
  for (size_t i = 0; i < h0.size(); ++i) want.push_back(h0[i] + b[i]);
  expect_close(values(else_out[0]), want);
}

TEST(RuntimeSubgraphConstants, LoopValuesChangingShapeAcrossIterations) {
  // acc' = Concat(acc, MatMul(row, W)) along axis 0: acc grows by a row each
  // iteration, so no value of the body keeps its shape from one to the next.
  auto body = std::make_shared<ir::Graph>();
  body->inputs.push_back(tensor_info("i", DataType::kInt64, {}));
  body->inputs.push_back(tensor_info("cin", DataType::kBool, {}));
  body->inputs.push_back(tensor_info("acc", DataType::kFloat, {sym("R"), dim(kWidth)}));
  body->initializers["last"] = Tensor::from_vector<int64_t>({-1}, Shape{1});
  body->initializers["end"] = Tensor::from_vector<int64_t>({INT64_MAX}, Shape{1});
  body->initializers["axis0"] = Tensor::from_vector<int64_t>({0}, Shape{1});
  body->nodes.push_back(test::make_node("Identity", {"cin"}, {"cout"}));
  body->nodes.push_back(test::make_node("Slice", {"acc", "last", "end", "axis0"}, {"row"}));
  body->nodes.push_back(test::make_node("MatMul", {"row", "W"}, {"next"}));
  body->nodes.push_back(
      test::make_node("Concat", {"acc", "next"}, {"acc_next"}, {test::attr_int("axis", 0)}));
  body->nodes.push_back(
      test::make_node("ReduceSum", {"acc_next"}, {"total"}, {test::attr_int("keepdims", 0)}));
  body->outputs.push_back(tensor_info("cout", DataType::kBool, {}));
  body->outputs.push_back(tensor_info("acc_next", DataType::kFloat, {sym("R2"), dim(kWidth)}));
  body->outputs.push_back(tensor_info("total", DataType::kFloat, {}));
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("M", DataType::kInt64, {}));
  m.graph.inputs.push_back(tensor_info("h0", DataType::kFloat, {dim(1), dim(kWidth)}));
  add_weights(m.graph);
  m.graph.initializers["cond0"] = Tensor::scalar<bool>(true);
  m.graph.nodes.push_back(test::make_node("Loop", {"M", "cond0", "h0"}, {"acc_last", "totals"},
                                          {graph_attr("body", body)}));
  m.graph.outputs.push_back(tensor_info("acc_last", DataType::kFloat, {sym("R3"), dim(kWidth)}));
  m.graph.outputs.push_back(tensor_info("totals", DataType::kFloat, {sym("T")}));
  auto s = Session::create_from_model(m);

  // The rows by hand: row k+1 = row k x W.
  const auto w = values(Value(m.graph.initializers.at("W")));
  std::vector<std::vector<float>> rows{values(Value(start_state()))};
  for (int k = 0; k < 4; ++k) {
    std::vector<float> r(kWidth, 0.f);
    for (int64_t j = 0; j < kWidth; ++j)
      for (int64_t q = 0; q < kWidth; ++q)
        r[size_t(j)] += rows.back()[size_t(q)] * w[size_t(q * kWidth + j)];
    rows.push_back(r);
  }
  for (int64_t trips : {4, 2, 4}) {
    auto out = s->run({{"M", Tensor::scalar<int64_t>(trips)}, {"h0", start_state()}});
    ASSERT_EQ(out[0].tensor().shape(), (Shape{trips + 1, kWidth}));
    std::vector<float> want_acc, want_totals;
    float total = 0;
    for (int64_t k = 0; k <= trips; ++k) {
      want_acc.insert(want_acc.end(), rows[size_t(k)].begin(), rows[size_t(k)].end());
      for (float x : rows[size_t(k)]) total += x;
      if (k > 0) want_totals.push_back(total);
    }
    expect_close(values(out[0]), want_acc);
    expect_close(values(out[1]), want_totals);
  }
}
