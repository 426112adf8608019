// FreshNames: the names a pass makes avoid the graph's names and each other,
// as fresh_name's one-off answer does for a single name.
#include <gtest/gtest.h>

#include <set>

#include "optimizer/def_use.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {
namespace {

ir::Graph named_graph() {
  ir::Graph g;
  g.inputs.push_back({"x", {}, ""});
  g.initializers["w"] = Tensor(DataType::kFloat, Shape{1});
  g.initializers["w_1"] = Tensor(DataType::kFloat, Shape{1});
  g.nodes.push_back(op("Relu", {"x"}, {"y"}));
  return g;
}

TEST(OptimizerFreshNames, AvoidsTheGraphsNamesAndThoseItGave) {
  ir::Graph g = named_graph();
  optimizer::FreshNames fresh(g);
  EXPECT_EQ(fresh("z"), "z");
  EXPECT_EQ(fresh("z"), "z_1");  // "z" was handed out
  EXPECT_EQ(fresh("w"), "w_2");  // w and w_1 are initializers
  EXPECT_EQ(fresh("x"), "x_1");  // a graph input
  EXPECT_EQ(fresh("y"), "y_1");  // a node output
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(seen.insert(fresh("y")).second);
}

TEST(OptimizerFreshNames, OneOffNameMatchesAFreshSet) {
  ir::Graph g = named_graph();
  EXPECT_EQ(optimizer::fresh_name(g, "w"), "w_2");
  EXPECT_EQ(optimizer::fresh_name(g, "w"), "w_2");  // nothing was added to g
  EXPECT_EQ(optimizer::fresh_name(g, "v"), "v");
}

}  // namespace
}  // namespace tessera::test
