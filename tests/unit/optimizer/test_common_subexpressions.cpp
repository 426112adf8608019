// eliminate_common_subexpressions (basic level): repeated nodes merge, their
// readers rewired; what must stay stays.
#include <gtest/gtest.h>

#include "optimizer/optimizer.hpp"
#include "optimizer/passes.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {
namespace {

TEST(OptimizerCse, RepeatedNodesMergeAndTheirReadersFollow) {
  // Two Softmax(x, axis 1) (attributes listed in either order), each read by
  // its own Add; then the two Adds repeat each other too.
  ir::Model m = float_model(13, {{"x", Shape{2, 6}}, {"y", Shape{2, 6}}}, {"z"});
  auto& g = m.graph;
  g.nodes.push_back(op("LeakyRelu", {"x"}, {"a"}, {attr_f("alpha", 0.2f)}));
  g.nodes.push_back(op("LeakyRelu", {"x"}, {"b"}, {attr_f("alpha", 0.2f)}));
  g.nodes.push_back(op("Add", {"a", "y"}, {"c"}));
  g.nodes.push_back(op("Add", {"b", "y"}, {"d"}));
  g.nodes.push_back(op("Mul", {"c", "d"}, {"z"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kBasic, 0);
  EXPECT_EQ(count_ops(out, "LeakyRelu"), 1u);
  EXPECT_EQ(count_ops(out, "Add"), 1u);
  ASSERT_EQ(out.graph.nodes.back().op_type, "Mul");
  EXPECT_EQ(out.graph.nodes.back().inputs[0], out.graph.nodes.back().inputs[1]);
}

TEST(OptimizerCse, DifferentAttributesRandomOpsAndOutputsStay) {
  ir::Graph g;
  g.nodes.push_back(op("LeakyRelu", {"x"}, {"a"}, {attr_f("alpha", 0.2f)}));
  g.nodes.push_back(op("LeakyRelu", {"x"}, {"b"}, {attr_f("alpha", 0.3f)}));
  g.nodes.push_back(op("RandomNormalLike", {"x"}, {"r1"}));
  g.nodes.push_back(op("RandomNormalLike", {"x"}, {"r2"}));
  g.nodes.push_back(op("Relu", {"x"}, {"o1"}));
  g.nodes.push_back(op("Relu", {"x"}, {"o2"}));  // a graph output: must stay
  g.outputs.push_back({"o2", ir::TypeInfo::tensor(DataType::kFloat), ""});
  EXPECT_EQ(optimizer::eliminate_common_subexpressions(g), 0u);
  EXPECT_EQ(g.nodes.size(), 6u);
  // A later copy of a graph-output node merges into it (the output stays made).
  g.nodes.push_back(op("Relu", {"x"}, {"o3"}));
  g.nodes.push_back(op("Neg", {"o3"}, {"n"}));
  EXPECT_EQ(optimizer::eliminate_common_subexpressions(g), 1u);
  EXPECT_EQ(g.nodes.back().inputs[0], "o1");
}

TEST(OptimizerCse, ValuesASubgraphReadsAreKept) {
  ir::Graph g;
  g.nodes.push_back(op("Relu", {"x"}, {"a"}));
  g.nodes.push_back(op("Relu", {"x"}, {"b"}));
  auto body = std::make_shared<ir::Graph>();
  body->nodes.push_back(op("Identity", {"b"}, {"out"}));  // reads "b" from the outer scope
  body->outputs.push_back({"out", ir::TypeInfo::tensor(DataType::kFloat), ""});
  ir::Node branch = op("If", {"cond"}, {"y"});
  ir::Attribute then_branch;
  then_branch.name = "then_branch";
  then_branch.type = ir::AttrType::kGraph;
  then_branch.g = body;
  branch.attributes.push_back(then_branch);
  g.nodes.push_back(branch);
  EXPECT_EQ(optimizer::eliminate_common_subexpressions(g), 0u);
}

}  // namespace
}  // namespace tessera::test
