// Element-wise, activation and row kernels writing their output over an
// input the plan lets the node take over: the output's memory is the input's
// when allowed, the values are those of a fresh output, and a session never
// writes over a graph input, an initializer or a value another node reads.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/float16.hpp"
#include "ops/type_inference.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {

namespace {

struct Case {
  std::string op;
  std::vector<Tensor> inputs;
  size_t donate;  // the input the plan marks
  std::vector<ir::Attribute> attrs = {};
  int64_t opset = 21;
  std::string domain = "";
};

struct Result {
  Tensor out;
  bool over_input;  // the output's memory is the donated input's
};

// One node through the CPU kernel registry with input `c.donate` marked as
// the plan marks an input this node may take over (and no other); each
// input is a copy of its own, held by nothing else, as a dying value is.
Result run_marked(const Case& c, bool mark) {
  ir::Node node;
  node.name = c.op;
  node.op_type = c.op;
  node.domain = c.domain;
  node.attributes = c.attrs;
  std::vector<Value> values;
  std::vector<ir::TypeInfo> in_types;
  std::vector<DataType> in_dtypes;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    values.emplace_back(c.inputs[i].clone());
    node.inputs.push_back(std::string(1, 'x').append(std::to_string(i)));
    in_types.push_back(ir::TypeInfo::tensor(c.inputs[i].dtype()));
    in_dtypes.push_back(c.inputs[i].dtype());
  }
  node.outputs = {"out"};
  const auto out_types = ops::infer_output_types(node, c.opset, in_types);
  auto m = cpu::cpu_kernel_registry().lookup(c.domain, c.op, c.opset, in_dtypes);
  if (!m.entry) fail(ErrorCode::kNotImplemented, node.describe(), ": ", m.reason);
  ep::KernelInfo info(node, c.opset, in_types, out_types,
                      std::vector<const Tensor*>(c.inputs.size(), nullptr));
  auto kernel = m.entry->factory(info);
  std::vector<const Value*> in_ptrs;
  for (auto& v : values) in_ptrs.push_back(&v);
  const void* donated = values[c.donate].tensor().raw_data();
  Value out;
  std::vector<bool> marks(c.inputs.size(), false);
  marks[c.donate] = mark;
  ThreadPool pool(2);
  ep::KernelContext ctx(node, in_ptrs, {&out}, {out_types[0].elem_type}, default_cpu_allocator(),
                        &pool, nullptr, &marks);
  kernel->compute(ctx);
  return {out.tensor(), out.tensor().raw_data() == donated};
}

Tensor floats(Shape s, uint64_t seed, float lo = -3, float hi = 3) {
  return random_floats(std::move(s), seed, lo, hi);
}

Tensor halves(Shape s, uint64_t seed) {
  const Tensor f = floats(std::move(s), seed);
  Tensor h(DataType::kFloat16, f.shape());
  for (int64_t i = 0; i < f.num_elements(); ++i)
    h.mutable_data<Float16>()[i] = Float16(f.data<float>()[i]);
  return h;
}

Tensor ints(Shape s, uint64_t seed) {
  Tensor t(DataType::kInt64, std::move(s));
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < t.num_elements(); ++i)
    t.mutable_data<int64_t>()[i] = int64_t(rng() % 200) - 100;
  return t;
}

Tensor bools(Shape s, uint64_t seed) {
  Tensor t(DataType::kBool, std::move(s));
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.mutable_data<bool>()[i] = (rng() & 1) != 0;
  return t;
}

Tensor scalar(float v) {
  Tensor t(DataType::kFloat, Shape{});
  t.mutable_data<float>()[0] = v;
  return t;
}

void expect_same_bytes(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  ASSERT_EQ(a.shape(), b.shape()) << what;
  ASSERT_EQ(a.byte_size(), b.byte_size()) << what;
  EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()), 0) << what;
}

std::string describe(const Case& c) {
  // (appended piece by piece: `"literal" + std::string` trips a GCC 12
  // -Wrestrict false positive)
  std::string s = c.domain;
  if (!s.empty()) s.append(1, '.');
  s.append(c.op).append(" over input ").append(std::to_string(c.donate)).append(" of");
  for (const Tensor& t : c.inputs) s.append(1, ' ').append(t.description());
  return s;
}

}  // namespace

TEST(InplaceElementwise, WritesOverTheMarkedInputWithTheFreshOutputsValues) {
  const Shape s{2, 3, 37};  // an odd row: the vector loops' tails
  const std::vector<Case> cases = {
      {"Relu", {floats(s, 1)}, 0},
      {"Relu", {halves(s, 2)}, 0},
      {"Neg", {ints(s, 3)}, 0},
      {"Sigmoid", {floats(s, 4)}, 0},
      {"Tanh", {floats(s, 5)}, 0},
      {"Exp", {floats(s, 6)}, 0},
      {"Erf", {floats(s, 7)}, 0},
      {"Gelu", {floats(s, 8)}, 0},
      {"Gelu", {floats(s, 9)}, 0, {attr_string("approximate", "tanh")}},
      {"HardSwish", {floats(s, 10)}, 0},
      {"LeakyRelu", {floats(s, 11)}, 0, {attr_float("alpha", 0.1f)}},
      {"Softplus", {halves(s, 12)}, 0},
      {"Clip", {floats(s, 13), scalar(-0.5f), scalar(0.75f)}, 0},
      {"Not", {bools(s, 14)}, 0},
      {"Add", {floats(s, 15), floats(s, 16)}, 0},
      {"Add", {floats(s, 17), floats(s, 18)}, 1},
      {"Sub", {floats(s, 19), floats(Shape{37}, 20)}, 0},  // trailing vector
      {"Sub", {floats(Shape{37}, 21), floats(s, 22)}, 1},  // trailing vector left
      {"Mul", {scalar(1.5f), floats(s, 23)}, 1},           // scalar left
      {"Mul", {floats(Shape{2, 3, 4, 5}, 24), floats(Shape{2, 3, 1, 1}, 25)}, 0},  // per channel
      {"Div", {halves(s, 26), halves(s, 27)}, 1},
      {"Add", {ints(Shape{4, 5}, 28), ints(Shape{4, 1}, 29)}, 0},  // generic broadcast
      {"Max", {floats(s, 30), floats(Shape{3, 1}, 31)}, 0},
      {"Sum", {floats(s, 32), floats(s, 33), floats(s, 34)}, 2},
      {"Pow", {floats(s, 35, 0.5f, 2), scalar(2.f)}, 0},
      {"Pow", {floats(s, 36, 0.5f, 2), floats(s, 37, -2, 2)}, 1},
      {"PRelu", {floats(Shape{2, 5, 3, 7}, 38), floats(Shape{5, 1, 1}, 39)}, 0},
      {"Where", {bools(s, 40), floats(s, 41), floats(Shape{37}, 42)}, 1},
      {"Where", {bools(Shape{37}, 43), floats(Shape{37}, 44), floats(s, 45)}, 2},
      {"Softmax", {floats(Shape{4, 37}, 46)}, 0},
      {"Softmax", {floats(Shape{16, 5}, 47)}, 0},                              // short rows
      {"LogSoftmax", {floats(Shape{5, 6, 7}, 48)}, 0, {attr_int("axis", 1)}},  // inner > 1
      {"LayerNormalization",
       {floats(Shape{4, 37}, 49), floats(Shape{37}, 50), floats(Shape{37}, 51)},
       0,
       {},
       17},
      {"BatchNormalization",
       {floats(Shape{2, 3, 5}, 52), floats(Shape{3}, 53), floats(Shape{3}, 54),
        floats(Shape{3}, 55), floats(Shape{3}, 56, 0.5f, 2)},
       0,
       {},
       15},
      {"InstanceNormalization",
       {floats(Shape{2, 3, 11}, 57), floats(Shape{3}, 58), floats(Shape{3}, 59)},
       0},
      {"SkipLayerNormalization",
       {floats(Shape{4, 37}, 60), floats(Shape{4, 37}, 61), floats(Shape{37}, 62),
        floats(Shape{37}, 63)},
       1,
       {},
       1,
       "com.tessera"},
      {"BiasGelu", {floats(Shape{4, 37}, 64), floats(Shape{37}, 65)}, 0, {}, 1, "com.tessera"},
      {"Gelu", {floats(s, 66)}, 0, {}, 1, "com.tessera"},  // runs the ONNX Gelu kernel
  };
  for (const Case& c : cases) {
    const std::string what = describe(c);
    const Result fresh = run_marked(c, false);
    const Result over = run_marked(c, true);
    EXPECT_FALSE(fresh.over_input) << what;
    EXPECT_TRUE(over.over_input) << what;
    expect_same_bytes(over.out, fresh.out, what);
  }
}

TEST(InplaceElementwise, KeepsAnInputOfAnotherSizeOrType) {
  const Shape s{2, 3, 37};
  const std::vector<Case> cases = {
      {"Add", {floats(s, 1), floats(Shape{37}, 2)}, 1},          // broadcast operand
      {"Mul", {scalar(2.f), floats(s, 3)}, 0},                   // the scalar side
      {"Less", {floats(s, 4), floats(s, 5)}, 0},                 // bool output of float inputs
      {"Pow", {floats(s, 6), ints(Shape{}, 7)}, 1},              // exponent of another type
      {"Where", {bools(s, 8), floats(s, 9), floats(s, 10)}, 0},  // the condition
  };
  for (const Case& c : cases) {
    const std::string what = describe(c);
    const Result over = run_marked(c, true);
    EXPECT_FALSE(over.over_input) << what;
    expect_same_bytes(over.out, run_marked(c, false).out, what);
  }
}

namespace {

// Arena allocations of one run of `m` with input x (the session's warm-up
// and first run done before), and the run's output `name`.
size_t run_allocs(const ir::Model& m, const Value& x, ExecutionMode mode, std::vector<Value>* out) {
  SessionOptions o;
  o.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  o.execution_mode = mode;
  o.inter_op_num_threads = 2;
  auto session = Session::create_from_model(m, o);
  session->run({{"x", x}});
  auto count = [&] {
    size_t n = 0;
    for (const auto& [name, st] : session->allocator_stats()) n += st.num_allocs;
    return n;
  };
  const size_t before = count();
  *out = session->run({{"x", x}});
  return count() - before;
}

float relu(float v) { return v < 0 ? 0.f : v; }
float sigmoid(float v) { return 1.f / (1.f + std::exp(-v)); }

}  // namespace

// x -> Neg -> Relu -> Sigmoid -> Tanh: only Neg needs memory of its own (x
// is the caller's); each later node writes over the value it alone reads.
TEST(InplaceElementwise, ChainInASessionTakesNoNewMemory) {
  const Shape s{3, 1000};
  ir::Model one = float_model(17, {{"x", s}}, {"y"});
  one.graph.nodes.push_back(op("Neg", {"x"}, {"y"}));
  ir::Model chain = float_model(17, {{"x", s}}, {"y"});
  chain.graph.nodes.push_back(op("Neg", {"x"}, {"a"}));
  chain.graph.nodes.push_back(op("Relu", {"a"}, {"b"}));
  chain.graph.nodes.push_back(op("Sigmoid", {"b"}, {"c"}));
  chain.graph.nodes.push_back(op("Tanh", {"c"}, {"y"}));
  const Tensor xt = random_floats(s, 5, -3, 3);
  const Value x(xt.clone());
  for (ExecutionMode mode : {ExecutionMode::kSequential, ExecutionMode::kParallel}) {
    std::vector<Value> y1, yc;
    const size_t base = run_allocs(one, x, mode, &y1);
    EXPECT_EQ(run_allocs(chain, x, mode, &yc), base);
    const float* px = x.tensor().data<float>();
    const float* py = yc[0].tensor().data<float>();
    for (int64_t i = 0; i < xt.num_elements(); ++i) {
      ASSERT_EQ(px[i], xt.data<float>()[i]) << "the caller's input was written at " << i;
      ASSERT_NEAR(py[i], std::tanh(sigmoid(relu(-px[i]))), 1e-6f) << i;
    }
  }
}

// Reuse refused: Relu reads the graph input x; a is read by Relu and by
// Sigmoid; Add's second operand is an initializer of the output's shape.
// Every run gives the reference values and leaves x and w as they were.
TEST(InplaceElementwise, RefusedForGraphInputsSharedValuesAndInitializers) {
  const Shape s{2, 500};
  ir::Model m = float_model(17, {{"x", s}}, {"r", "y"});
  const Tensor w = random_floats(s, 7, -1, 1);
  m.graph.initializers["w"] = w.clone();
  m.graph.nodes.push_back(op("Relu", {"x"}, {"r"}));
  m.graph.nodes.push_back(op("Neg", {"x"}, {"a"}));
  m.graph.nodes.push_back(op("Relu", {"a"}, {"b"}));
  m.graph.nodes.push_back(op("Sigmoid", {"a"}, {"c"}));
  m.graph.nodes.push_back(op("Add", {"b", "c"}, {"d"}));
  m.graph.nodes.push_back(op("Add", {"w", "d"}, {"y"}));  // w first: tried and refused
  const Tensor xt = random_floats(s, 8, -3, 3);
  for (ExecutionMode mode : {ExecutionMode::kSequential, ExecutionMode::kParallel}) {
    SessionOptions o;
    o.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
    o.execution_mode = mode;
    o.inter_op_num_threads = 2;
    auto session = Session::create_from_model(m, o);
    const Value x(xt.clone());
    for (int run = 0; run < 3; ++run) {
      const auto out = session->run({{"x", x}});
      const float* px = x.tensor().data<float>();
      const float* pr = out[0].tensor().data<float>();
      const float* py = out[1].tensor().data<float>();
      for (int64_t i = 0; i < s.num_elements(); ++i) {
        ASSERT_EQ(px[i], xt.data<float>()[i]) << "run " << run << ": x written at " << i;
        ASSERT_EQ(pr[i], relu(px[i])) << "run " << run << " element " << i;
        const float a = -px[i];
        ASSERT_NEAR(py[i], relu(a) + sigmoid(a) + w.data<float>()[i], 1e-6f)
            << "run " << run << " element " << i;
      }
    }
  }
}

}  // namespace tessera::test
