// Outputs written over a dying input's memory: KernelContext::output_reusing
// takes the input's buffer only when the executor allows it and nothing else
// holds it, and blocked convolutions whose residual is taken over give the
// same results under the sequential and the parallel executor.
#include "ep/kernel.hpp"
#include "linalg/nchwc.hpp"
#include "optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

struct Fixture {
  ir::Node node = op("Relu", {"a"}, {"y"});
  Value in{Tensor(DataType::kFloat, Shape{4})};
  Value out;
  std::vector<bool> marks;  // the context points at them, as at the plan's
  ep::KernelContext context(std::vector<bool> donatable) {
    marks = std::move(donatable);
    return ep::KernelContext(node, {&in}, {&out}, {DataType::kFloat}, default_cpu_allocator(),
                             nullptr, nullptr, &marks);
  }
};

}  // namespace

TEST(OutputReuse, TakesADonatedInputNobodyElseHolds) {
  Fixture f;
  auto ctx = f.context({true});
  Tensor& y = ctx.output_reusing(0, 0, Shape{2, 2});
  EXPECT_EQ(y.raw_data(), f.in.tensor().raw_data());
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
}

TEST(OutputReuse, AllocatesWhenItMayNot) {
  {  // the executor did not mark the input
    Fixture f;
    auto ctx = f.context({false});
    EXPECT_NE(ctx.output_reusing(0, 0, Shape{4}).raw_data(), f.in.tensor().raw_data());
  }
  {  // no marks at all (a context built without them)
    Fixture f;
    auto ctx = f.context({});
    EXPECT_NE(ctx.output_reusing(0, 0, Shape{4}).raw_data(), f.in.tensor().raw_data());
  }
  {  // another value shares the buffer (a view, a user's array)
    Fixture f;
    const Value view = f.in;
    auto ctx = f.context({true});
    EXPECT_NE(ctx.output_reusing(0, 0, Shape{4}).raw_data(), view.tensor().raw_data());
  }
  {  // a different byte size
    Fixture f;
    auto ctx = f.context({true});
    EXPECT_NE(ctx.output_reusing(0, 0, Shape{5}).raw_data(), f.in.tensor().raw_data());
  }
  {  // the output is bound to a preallocated tensor: that one is written
    Fixture f;
    f.out = Value(Tensor(DataType::kFloat, Shape{4}));
    const void* bound = f.out.tensor().raw_data();
    auto ctx = f.context({true});
    EXPECT_EQ(ctx.output_reusing(0, 0, Shape{4}).raw_data(), bound);
  }
}

namespace {

// x -> conv1 + Relu = r1 -> conv2 (3x3) + Relu = r2 -> conv3 + r1 (residual)
// + Relu: r1 is read first by conv2, last by conv3, whose output may take
// its memory. A second block repeats it on the result.
ir::Model identity_blocks() {
  ir::Model m = float_model(13, {{"x", Shape{1, 8, 10, 10}}}, {"y"});
  auto& in = m.graph.initializers;
  auto& n = m.graph.nodes;
  std::string prev = "x";
  for (int b = 0; b < 2; ++b) {
    // (appended, not concatenated: `"b" + ...` trips a GCC 12 -Wrestrict false positive)
    auto v = [b](const char* name) {
      std::string r(1, 'b');
      r.append(std::to_string(b)).append(1, '_').append(name);
      return r;
    };
    in[v("w1")] = random_floats(Shape{16, b ? 16 : 8, 1, 1}, 10 * b + 1, -0.4f, 0.4f);
    in[v("w2")] = random_floats(Shape{16, 16, 3, 3}, 10 * b + 2, -0.2f, 0.2f);
    in[v("w3")] = random_floats(Shape{16, 16, 1, 1}, 10 * b + 3, -0.3f, 0.3f);
    n.push_back(op("Conv", {prev, v("w1")}, {v("c1")}));
    n.push_back(op("Relu", {v("c1")}, {v("r1")}));
    n.push_back(op("Conv", {v("r1"), v("w2")}, {v("c2")}, {attr_ints("pads", {1, 1, 1, 1})}));
    n.push_back(op("Relu", {v("c2")}, {v("r2")}));
    n.push_back(op("Conv", {v("r2"), v("w3")}, {v("c3")}));
    n.push_back(op("Add", {v("c3"), v("r1")}, {v("a")}));
    prev = b ? "y" : v("out");
    n.push_back(op("Relu", {v("a")}, {prev}));
  }
  return m;
}

}  // namespace

TEST(OutputReuse, ResidualTakenOverGivesTheSameOutputs) {
  const ir::Model m = identity_blocks();
  const ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-4f);
  if (linalg::nchwc::fast_path_available()) {
    EXPECT_EQ(count_ops(out, "NchwcConv"), 6u);
  }
  // The parallel executor may run independent steps at once; r1's last
  // reader still runs after its first.
  SessionOptions plain, par;
  plain.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  par.graph_optimization_level = GraphOptimizationLevel::kAll;
  par.execution_mode = ExecutionMode::kParallel;
  par.inter_op_num_threads = 2;
  auto a = Session::create_from_model(m, plain);
  auto b = Session::create_from_model(m, par);
  const Value x(random_floats(Shape{1, 8, 10, 10}, 99, -2, 2));
  for (int run = 0; run < 3; ++run) {
    const auto ya = a->run({{"x", x}});
    const auto yb = b->run({{"x", x}});
    const float* pa = ya[0].tensor().data<float>();
    const float* pb = yb[0].tensor().data<float>();
    for (int64_t i = 0; i < ya[0].tensor().num_elements(); ++i)
      ASSERT_NEAR(pa[i], pb[i], 1e-4f * (1 + std::abs(pa[i]))) << "run " << run << " element " << i;
  }
}
