// The partitioner's passes and the executor's compiled partitions, with
// synthetic providers that claim chosen patterns.
#include <gtest/gtest.h>

#include <unordered_map>

#include "core/logging.hpp"
#include "ep/partition_passes.hpp"
#include "runtime/graph_plan.hpp"
#include "unit/ep/synthetic_providers.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

using Ops = std::set<std::string>;

ir::Node node(const std::string& name, const std::string& type, std::vector<std::string> in,
              std::vector<std::string> out) {
  ir::Node n = op(type, std::move(in), std::move(out));
  n.name = name;
  return n;
}

std::shared_ptr<ep::ExecutionProvider> cpu_provider() {
  return cpu::make_cpu_provider_factory()->create({});
}

ep::PartitionResult partition(const ir::Model& m, const runtime::Providers& providers) {
  std::unordered_map<std::string, ir::TypeInfo> types;
  for (const auto& in : m.graph.inputs) types[in.name] = in.type;
  for (const auto& n : m.graph.nodes)
    for (const auto& o : n.outputs) types[o] = ir::TypeInfo::tensor(DataType::kFloat);
  ep::GraphView v;
  v.model = &m;
  v.graph = &m.graph;
  v.value_types = &types;
  return ep::partition_graph(v, providers);
}

// Every node (or its fused group) runs after all of its producers.
void expect_valid_order(const ir::Model& m, const ep::PartitionResult& r) {
  std::vector<int> position(m.graph.nodes.size(), -1);
  auto order = ep::schedule(m.graph, r);
  for (size_t s = 0; s < order.size(); ++s) {
    if (order[s].fused)
      for (size_t i : r.groups[order[s].index].nodes) position[i] = int(s);
    else
      position[order[s].index] = int(s);
  }
  auto preds = ep::node_predecessors(m.graph);
  for (size_t i = 0; i < preds.size(); ++i) {
    ASSERT_GE(position[i], 0) << "node " << i << " is not scheduled";
    for (size_t p : preds[i]) {
      if (position[p] != position[i]) {
        EXPECT_LT(position[p], position[i]) << p << " -> " << i;
      }
    }
  }
}

std::vector<Value> run(const runtime::GraphPlan& plan, std::vector<Value> inputs) {
  runtime::RunState state;
  return plan.execute(std::move(inputs), nullptr, state);
}

void expect_same(const Value& a, const Value& b) {
  const Tensor& x = a.tensor();
  const Tensor& y = b.tensor();
  ASSERT_EQ(x.shape(), y.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i)
    EXPECT_NEAR(x.data<float>()[i], y.data<float>()[i], 1e-6) << "element " << i;
}

// Collects the partitioner's verbose log lines while alive.
struct LogCapture {
  std::vector<std::string> lines;
  Severity saved = log_severity();
  LogCapture() {
    set_log_severity(Severity::kVerbose);
    set_log_sink([this](Severity, const std::string& line) {
      if (line.find("partition") != std::string::npos) lines.push_back(line);
    });
  }
  ~LogCapture() {
    set_log_sink(nullptr);
    set_log_severity(saved);
  }
};

}  // namespace

TEST(PartitionPasses, AlternatingClaimsAlternateProviders) {
  ir::Model m = float_model(17, {{"x", Shape{4}}}, {"d"});
  m.graph.nodes = {node("r1", "Relu", {"x"}, {"a"}), node("s1", "Sigmoid", {"a"}, {"b"}),
                   node("r2", "Relu", {"b"}, {"c"}), node("s2", "Sigmoid", {"c"}, {"d"})};
  auto a = std::make_shared<SyntheticProvider>("A", Ops{"Relu"});
  auto b = std::make_shared<SyntheticProvider>("B", Ops{"Sigmoid"});
  LogCapture log;
  auto r = partition(m, {a, b});
  EXPECT_EQ(r.node_provider, (std::vector<int>{0, 1, 0, 1}));
  auto order = ep::schedule(m.graph, r);
  ASSERT_EQ(order.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(order[i].index, i);
  // Each decision is logged: two claims by A, A declining both Sigmoids, two claims by B.
  EXPECT_EQ(log.lines.size(), 6u);
  // Both providers use host memory: no copies anywhere.
  runtime::GraphPlan plan(m, m.graph, {a, b}, {}, "test");
  EXPECT_TRUE(plan.copies().empty());
}

TEST(PartitionPasses, FusedGroupThatWouldWaitOnItselfIsSplit) {
  // a = Relu(x); b = Sigmoid(a); c = Add(a, b). A group {Relu, Add} would need
  // Sigmoid's output while Sigmoid needs the group's: a cycle between partitions.
  ir::Model m = float_model(17, {{"x", Shape{4}}}, {"c"});
  m.graph.nodes = {node("r", "Relu", {"x"}, {"a"}), node("s", "Sigmoid", {"a"}, {"b"}),
                   node("add", "Add", {"a", "b"}, {"c"})};
  auto f = std::make_shared<SyntheticProvider>("F", Ops{"Relu", "Add"}, true);
  LogCapture log;
  auto r = partition(m, {f, cpu_provider()});
  // F's group {0, 2} becomes {0} and (appended after the CPU's {1}) {2}.
  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(r.groups[0].nodes, (std::vector<size_t>{0}));
  EXPECT_EQ(r.groups[2].nodes, (std::vector<size_t>{2}));
  EXPECT_TRUE(r.groups[2].fused);
  EXPECT_EQ(r.group_provider[2], 0);
  bool logged = false;
  for (const auto& line : log.lines) logged |= line.find("split-cycles") != std::string::npos;
  EXPECT_TRUE(logged);
  expect_valid_order(m, r);
}

TEST(PartitionPasses, CycleBetweenTwoProvidersGroupsIsSplit) {
  // A fuses {p = Relu(x), s = Relu(q)}, B fuses {q = Sigmoid(x), r = Sigmoid(p)}:
  // A feeds B (p -> r) and B feeds A (q -> s). Neither group alone re-enters
  // itself, but together they would wait on each other.
  ir::Model m = float_model(17, {{"x", Shape{4}}}, {"r", "s"});
  m.graph.nodes = {node("p", "Relu", {"x"}, {"p"}), node("q", "Sigmoid", {"x"}, {"q"}),
                   node("r", "Sigmoid", {"p"}, {"r"}), node("s", "Relu", {"q"}, {"s"})};
  auto a = std::make_shared<ScriptedProvider>("A", std::vector<ep::NodeGroup>{{{0, 3}, true}});
  auto b = std::make_shared<ScriptedProvider>("B", std::vector<ep::NodeGroup>{{{1, 2}, true}});
  auto r = partition(m, {a, b});
  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(r.groups[0].nodes, (std::vector<size_t>{0, 3}));
  EXPECT_EQ(r.groups[1].nodes, (std::vector<size_t>{1}));
  EXPECT_EQ(r.groups[2].nodes, (std::vector<size_t>{2}));
  EXPECT_EQ(r.group_provider, (std::vector<int>{0, 1, 1}));
  expect_valid_order(m, r);
}

TEST(PartitionPasses, GroupSupportedNodesFindsMaximalConnectedGroups) {
  ir::Model m = float_model(17, {{"x", Shape{4}}, {"y", Shape{4}}}, {"c", "e"});
  m.graph.nodes = {node("r", "Relu", {"x"}, {"a"}), node("n", "Neg", {"a"}, {"b"}),
                   node("s", "Sigmoid", {"b"}, {"c"}), node("r2", "Relu", {"y"}, {"d"}),
                   node("n2", "Neg", {"d"}, {"e"})};
  std::unordered_map<std::string, ir::TypeInfo> types;
  ep::GraphView v;
  v.model = &m;
  v.graph = &m.graph;
  v.value_types = &types;
  v.candidates = {0, 1, 2, 3, 4};
  auto groups =
      ep::group_supported_nodes(v, [&](size_t i) { return m.graph.nodes[i].op_type != "Sigmoid"; });
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].nodes, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(groups[1].nodes, (std::vector<size_t>{3, 4}));
  EXPECT_TRUE(groups[0].fused);
  auto boundary = ep::group_boundary(m.graph, groups[0].nodes);
  EXPECT_EQ(boundary.inputs, (std::vector<std::string>{"x"}));
  EXPECT_EQ(boundary.outputs, (std::vector<std::string>{"b"}));
}

TEST(PartitionPasses, FusingProviderRunsCompiledGroupsLikeCpu) {
  // F fuses Relu/Neg/Add; the Sigmoid between them splits its group in two.
  ir::Model m = float_model(17, {{"x", Shape{2, 3}}}, {"d", "b"});
  m.graph.nodes = {node("r", "Relu", {"x"}, {"a"}), node("n", "Neg", {"a"}, {"b"}),
                   node("s", "Sigmoid", {"b"}, {"s"}), node("add", "Add", {"b", "s"}, {"c"}),
                   node("r2", "Relu", {"c"}, {"d"})};
  auto f = std::make_shared<SyntheticProvider>("F", Ops{"Relu", "Neg", "Add"}, true);
  runtime::GraphPlan fused(m, m.graph, {f, cpu_provider()}, {}, "fused");
  runtime::GraphPlan reference(m, m.graph, {cpu_provider()}, {}, "cpu");
  EXPECT_EQ(f->compiled_sizes, (std::vector<size_t>{2, 2}));
  EXPECT_TRUE(fused.copies().empty());
  Tensor x = Tensor::from_vector<float>({-1, 2, -3, 4, 0.5f, -0.25f}, Shape{2, 3});
  auto got = run(fused, {Value(x)});
  auto want = run(reference, {Value(x)});
  ASSERT_EQ(got.size(), 2u);
  expect_same(got[0], want[0]);
  expect_same(got[1], want[1]);
  // The parallel executor runs the compiled steps by their dependencies too.
  ThreadPool inter(2);
  runtime::RunState parallel;
  parallel.inter_pool = &inter;
  for (int k = 0; k < 20; ++k) {
    auto again = fused.execute({Value(x)}, nullptr, parallel);
    expect_same(again[0], want[0]);
    expect_same(again[1], want[1]);
  }
}

class OtherMemorySpace : public ::testing::TestWithParam<bool> {};

TEST_P(OtherMemorySpace, CopiesOnlyWhereValuesCrossSpaces) {
  // O (in its own memory space) runs Relu and Add; Sigmoid stays on the CPU.
  ir::Model m = float_model(17, {{"x", Shape{4}}}, {"d"});
  m.graph.initializers.emplace("w", Tensor::from_vector<float>({1, 2, 3, 4}, Shape{4}));
  m.graph.nodes = {node("r", "Relu", {"x"}, {"a"}), node("s", "Sigmoid", {"a"}, {"s"}),
                   node("add", "Add", {"a", "w"}, {"c"}), node("add2", "Add", {"c", "s"}, {"d"})};
  auto o = std::make_shared<SyntheticProvider>("O", Ops{"Relu", "Add"}, GetParam(), true);
  runtime::GraphPlan plan(m, m.graph, {o, cpu_provider()}, {}, "other");
  runtime::GraphPlan reference(m, m.graph, {cpu_provider()}, {}, "cpu");
  std::map<std::string, bool> copied;  // value -> at creation
  for (const auto& c : plan.copies()) copied[c.value] = c.at_creation;
  // x in, a out to Sigmoid, s back in, d out as the graph output; w once at creation.
  EXPECT_EQ(copied, (std::map<std::string, bool>{
                        {"x", false}, {"a", false}, {"s", false}, {"d", false}, {"w", true}}));
  Tensor x = Tensor::from_vector<float>({-1, 2, -3, 4}, Shape{4});
  int before = o->transfer()->copies;
  auto got = run(plan, {Value(x)});
  EXPECT_EQ(o->transfer()->copies - before, 4);
  EXPECT_EQ(got[0].tensor().memory_info().device_type, DeviceType::kCPU);
  expect_same(got[0], run(reference, {Value(x)})[0]);
}

INSTANTIATE_TEST_SUITE_P(NodeByNodeAndFused, OtherMemorySpace, ::testing::Bool());

TEST(PartitionPasses, NodesInsideSubgraphsArePartitioned) {
  ir::Model m = float_model(17, {{"x", Shape{4}}}, {"y"});
  m.graph.inputs.push_back({"cond", ir::TypeInfo::tensor(DataType::kBool, {}), ""});
  auto branch = [](const std::string& type, const std::string& out) {
    auto g = std::make_shared<ir::Graph>();
    g->name = out;
    g->nodes = {node(out + "_node", type, {"x"}, {out})};
    g->outputs.push_back({out, ir::TypeInfo::tensor(DataType::kFloat), ""});
    return g;
  };
  ir::Node cond = node("if", "If", {"cond"}, {"y"});
  ir::Attribute then_a, else_a;
  then_a.name = "then_branch";
  then_a.type = ir::AttrType::kGraph;
  then_a.g = branch("Relu", "t");
  else_a.name = "else_branch";
  else_a.type = ir::AttrType::kGraph;
  else_a.g = branch("Neg", "e");
  cond.attributes = {then_a, else_a};
  m.graph.nodes = {cond};
  // O lives in another memory space, so the branches also need copies.
  auto o = std::make_shared<SyntheticProvider>("O", Ops{"Relu", "Neg"}, false, true);
  runtime::GraphPlan plan(m, m.graph, {o, cpu_provider()}, {}, "if");
  ASSERT_EQ(plan.subplans().size(), 2u);
  EXPECT_EQ(plan.partition().node_provider, (std::vector<int>{1}));  // If itself: CPU
  EXPECT_EQ(plan.subplans()[0]->partition().node_provider, (std::vector<int>{0}));
  EXPECT_EQ(plan.subplans()[1]->partition().node_provider, (std::vector<int>{0}));
  Tensor x = Tensor::from_vector<float>({-1, 2, -3, 4}, Shape{4});
  auto y = run(plan, {Value(x), Value(Tensor::scalar<bool>(true))});
  EXPECT_EQ(y[0].tensor().data<float>()[0], 0.f);
  EXPECT_EQ(y[0].tensor().data<float>()[1], 2.f);
  y = run(plan, {Value(x), Value(Tensor::scalar<bool>(false))});
  EXPECT_EQ(y[0].tensor().data<float>()[0], 1.f);
}
