// The provider-transform stage: parts cut out and put back, and mixed
// sessions keeping the CPU provider's fusions on the nodes it runs.
#include <gtest/gtest.h>

#include <algorithm>

#include "ep/partitioner.hpp"
#include "ep/provider_registry.hpp"
#include "ir/graph_algorithms.hpp"
#include "ops/graph_types.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"
#include "runtime/provider_transforms.hpp"
#include "unit/ep/synthetic_providers.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {

namespace {

std::shared_ptr<ep::ExecutionProvider> cpu_provider() {
  return ep::ProviderRegistry::instance().find("CPUExecutionProvider")->create({});
}

bool has_input(const ir::Graph& g, const std::string& name) {
  return std::any_of(g.inputs.begin(), g.inputs.end(),
                     [&](const ir::ValueInfo& v) { return v.name == name; });
}
bool has_output(const ir::Graph& g, const std::string& name) {
  return std::any_of(g.outputs.begin(), g.outputs.end(),
                     [&](const ir::ValueInfo& v) { return v.name == name; });
}

// x -> Relu(a) -> Sigmoid(s) -> Add(s, w) (b) -> Relu (y); w an initializer.
ir::Model chain() {
  ir::Model m = float_model(17, {{"x", Shape{2, 3}}}, {"y"});
  m.graph.initializers["w"] = random_floats(Shape{2, 3}, 1);
  m.graph.nodes = {op("Relu", {"x"}, {"a"}), op("Sigmoid", {"a"}, {"s"}),
                   op("Add", {"s", "w"}, {"b"}), op("Relu", {"b"}, {"y"})};
  return m;
}

// Two Conv -> Relu blocks with a Sigmoid between them, static shapes.
ir::Model conv_blocks() {
  ir::Model m = float_model(17, {{"x", Shape{1, 16, 8, 8}}}, {"y"});
  m.graph.initializers["w1"] = random_floats(Shape{16, 16, 3, 3}, 2, -0.2f, 0.2f);
  m.graph.initializers["w2"] = random_floats(Shape{16, 16, 3, 3}, 3, -0.2f, 0.2f);
  ir::Attribute pads;
  pads.name = "pads";
  pads.type = ir::AttrType::kInts;
  pads.ints = {1, 1, 1, 1};
  m.graph.nodes = {op("Conv", {"x", "w1"}, {"c1"}, {pads}), op("Relu", {"c1"}, {"r1"}),
                   op("Sigmoid", {"r1"}, {"s"}), op("Conv", {"s", "w2"}, {"c2"}, {pads}),
                   op("Relu", {"c2"}, {"y"})};
  return m;
}

std::vector<std::string> ops_of(const ir::Graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes) out.push_back(n.domain + ":" + n.op_type);
  return out;
}

}  // namespace

TEST(ProviderTransforms, PartHasTheBoundaryAsInputsAndOutputs) {
  ir::Model m = chain();
  ir::Model part = runtime::extract_part(m, {0, 2, 3});
  ASSERT_EQ(part.graph.nodes.size(), 3u);
  // Made outside the part (by the Sigmoid) or fed by the caller: inputs.
  EXPECT_TRUE(has_input(part.graph, "x"));
  EXPECT_TRUE(has_input(part.graph, "s"));
  // The initializer comes along as a constant, not as an input.
  EXPECT_TRUE(part.graph.initializers.count("w"));
  EXPECT_FALSE(has_input(part.graph, "w"));
  // Read outside (by the Sigmoid) or by the caller: outputs; b is internal.
  EXPECT_TRUE(has_output(part.graph, "a"));
  EXPECT_TRUE(has_output(part.graph, "y"));
  EXPECT_FALSE(has_output(part.graph, "b"));
  EXPECT_EQ(part.graph.outputs.size(), 2u);
}

TEST(ProviderTransforms, OverridableInitializerStaysAnInputOfThePart) {
  ir::Model m = chain();
  m.graph.inputs.push_back({"w", ir::TypeInfo::tensor(DataType::kFloat), ""});
  ir::Model part = runtime::extract_part(m, {2});
  EXPECT_TRUE(has_input(part.graph, "w"));
  EXPECT_TRUE(part.graph.initializers.count("w"));
}

TEST(ProviderTransforms, SpliceRenamesNamesThatClashOutsideThePart) {
  ir::Model m = chain();
  ir::Model part = runtime::extract_part(m, {2, 3});
  // A transform that makes a value whose name the Relu outside already uses.
  part.graph.nodes[0].outputs[0] = "a";
  part.graph.nodes[1].inputs[0] = "a";
  m.graph.nodes[0].name = "Add";  // a node outside with the name a part node would get
  auto names = runtime::splice_part(m, {2, 3}, std::move(part));
  ASSERT_EQ(m.graph.nodes.size(), 4u);
  std::set<std::string> made, node_names;
  for (const auto& n : m.graph.nodes) {
    for (const auto& o : n.outputs) EXPECT_TRUE(made.insert(o).second) << "two nodes make " << o;
    EXPECT_TRUE(node_names.insert(n.name).second) << "two nodes are named " << n.name;
  }
  // The names returned are those of the spliced nodes, in the graph.
  ASSERT_EQ(names.size(), 2u);
  for (const auto& name : names) EXPECT_TRUE(node_names.count(name)) << name;
  EXPECT_EQ(m.graph.nodes[3].outputs[0], "y");
}

TEST(ProviderTransforms, SpliceDropsInitializersNothingReads) {
  ir::Model m = chain();
  ir::Model part = runtime::extract_part(m, {2, 3});
  // The transform replaced Add(s, w) by a Relu of its own: w is unread.
  part.graph.nodes[0] = op("Relu", {"s"}, {"b"});
  part.graph.initializers.clear();
  runtime::splice_part(m, {2, 3}, std::move(part));
  EXPECT_FALSE(m.graph.initializers.count("w"));
}

// A provider that claims the Sigmoid: the Conv -> Relu blocks on either side
// are the CPU's, and its transform fuses and lays them out as in a CPU-only
// session; the Sigmoid is left to its provider as it was.
TEST(ProviderTransforms, MixedSessionKeepsTheCpuFusions) {
  runtime::Providers mixed = {
      std::make_shared<SyntheticProvider>("Other", std::set<std::string>{"Sigmoid"}),
      cpu_provider()};
  ir::Model m = conv_blocks();
  optimizer::optimize(m, GraphOptimizationLevel::kAll, cpu_folding());
  const auto pins = runtime::apply_provider_transforms(m, mixed, {}, {});
  std::set<std::string> pinned;
  for (const auto& r : pins) {
    EXPECT_EQ(r.provider, "CPUExecutionProvider");
    pinned.insert(r.value);
  }
  size_t sigmoids = 0, fused = 0;
  for (const auto& n : m.graph.nodes) {
    EXPECT_NE(n.op_type, "Conv") << "a Conv the CPU runs was not fused";
    EXPECT_NE(n.op_type, "Relu") << "a Relu after a CPU Conv was not fused";
    if (n.op_type == "Sigmoid" && n.domain.empty()) {
      ++sigmoids;
      EXPECT_FALSE(pinned.count(n.name)) << "the other provider's node was taken";
    } else {
      fused += n.domain == "com.tessera";
      EXPECT_TRUE(pinned.count(n.name)) << n.describe() << " is not pinned to the CPU";
    }
  }
  EXPECT_EQ(sigmoids, 1u);
  EXPECT_GE(fused, 2u);
}

// A provider that claims nothing leaves the CPU-only plan.
TEST(ProviderTransforms, ProviderClaimingNothingGivesTheCpuOnlyGraph) {
  ir::Model alone = conv_blocks(), behind = conv_blocks();
  optimizer::optimize(alone, GraphOptimizationLevel::kAll, cpu_folding());
  optimizer::optimize(behind, GraphOptimizationLevel::kAll, cpu_folding());
  runtime::apply_provider_transforms(alone, {cpu_provider()}, {}, {});
  runtime::apply_provider_transforms(
      behind,
      {std::make_shared<SyntheticProvider>("Idle", std::set<std::string>{}), cpu_provider()}, {},
      {});
  EXPECT_EQ(ops_of(alone.graph), ops_of(behind.graph));
  size_t own = 0;
  for (const auto& n : behind.graph.nodes) own += n.domain == "com.tessera";
  EXPECT_GE(own, 2u) << "the convolutions should be CPU fused ops";
}

// The same outputs with the mixed provider list as without optimization.
TEST(ProviderTransforms, MixedGraphRunsToTheSameOutputs) {
  ir::Model m = conv_blocks();
  optimizer::optimize(m, GraphOptimizationLevel::kAll, cpu_folding());
  runtime::apply_provider_transforms(
      m,
      {std::make_shared<SyntheticProvider>("Other", std::set<std::string>{"Sigmoid"}),
       cpu_provider()},
      {}, {});
  expect_same_as(conv_blocks(), m);
}

}  // namespace tessera::test

namespace tessera::test {

// Every node pinned away from the first provider: the later ones still get
// their turn (the first provider has no candidates, which ends nothing).
TEST(ProviderTransforms, NodesPinnedPastTheFirstProviderAreAssigned) {
  ir::Model m = chain();
  ir::name_unnamed_nodes(m.graph);
  std::vector<ep::PlacementRule> pins;
  for (const auto& n : m.graph.nodes) {
    ep::PlacementRule r;
    r.match = ep::PlacementRule::Match::kTransformed;
    r.value = n.name;
    r.provider = "CPUExecutionProvider";
    pins.push_back(r);
  }
  ops::ValueTypes types;
  ops::infer_graph_types(m, m.graph, types);
  ep::GraphView view;
  view.model = &m;
  view.graph = &m.graph;
  view.value_types = &types;
  runtime::Providers providers = {
      std::make_shared<SyntheticProvider>("Other", std::set<std::string>{"Relu", "Sigmoid"}),
      cpu_provider()};
  const auto r = ep::partition_graph(view, providers, pins);
  for (size_t i = 0; i < m.graph.nodes.size(); ++i) {
    EXPECT_EQ(r.node_provider[i], 1) << m.graph.nodes[i].describe();
    EXPECT_NE(r.override_rule[i].find("graph transform"), std::string::npos) << r.override_rule[i];
  }
}

}  // namespace tessera::test
