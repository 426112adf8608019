// The optimizer's passes reach into control-flow bodies: a Loop body's
// Constants become its initializers and its patterns fuse as the main
// graph's do, while the model the caller holds keeps its body unchanged.
#include <cmath>

#include "optimizer/optimizer.hpp"
#include "optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

ir::Node constant(const std::string& out, float v) {
  return op("Constant", {}, {out}, {attr_tensor("value", Tensor::scalar<float>(v))});
}

// y = three rounds of v <- gelu(v) (the exact GELU spelled out with Constant
// nodes, as torch exports a scripted loop), starting from x.
ir::Model gelu_loop_model() {
  ir::Model m = float_model(17, {{"x", Shape{4, 6}}}, {"y"});
  m.graph.initializers["trips"] = Tensor::scalar<int64_t>(3);
  auto body = std::make_shared<ir::Graph>();
  body->name = std::string("body");
  body->inputs.push_back({"iter", ir::TypeInfo::tensor(DataType::kInt64, {}), ""});
  body->inputs.push_back({"cond_in", ir::TypeInfo::tensor(DataType::kBool, {}), ""});
  body->inputs.push_back({"v", ir::TypeInfo::tensor(DataType::kFloat), ""});
  body->nodes.push_back(constant("sqrt2", 1.4142135f));
  body->nodes.push_back(constant("one", 1.f));
  body->nodes.push_back(constant("half", 0.5f));
  body->nodes.push_back(op("Div", {"v", "sqrt2"}, {"d"}));
  body->nodes.push_back(op("Erf", {"d"}, {"e"}));
  body->nodes.push_back(op("Add", {"one", "e"}, {"a"}));
  body->nodes.push_back(op("Mul", {"v", "a"}, {"p"}));
  body->nodes.push_back(op("Mul", {"p", "half"}, {"g"}));
  body->nodes.push_back(op("Identity", {"cond_in"}, {"cond_out"}));
  body->outputs.push_back({"cond_out", ir::TypeInfo::tensor(DataType::kBool, {}), ""});
  body->outputs.push_back({"g", ir::TypeInfo::tensor(DataType::kFloat), ""});
  ir::Node loop = op("Loop", {"trips", "", "x"}, {"y"});
  ir::Attribute a;
  a.name = "body";
  a.type = ir::AttrType::kGraph;
  a.g = body;
  loop.attributes.push_back(a);
  m.graph.nodes.push_back(loop);
  return m;
}

size_t count_in(const ir::Graph& g, const std::string& type) {
  size_t c = 0;
  for (const auto& n : g.nodes) c += n.op_type == type;
  return c;
}

const ir::Graph& loop_body(const ir::Model& m) {
  for (const auto& n : m.graph.nodes)
    if (n.op_type == "Loop") return *n.attributes.at(0).g;
  throw std::runtime_error("no Loop");
}

}  // namespace

TEST(OptimizerSubgraphs, LoopBodyConstantsFoldAndItsGeluFuses) {
  const ir::Model m = gelu_loop_model();
  const ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
  const ir::Graph& body = loop_body(out);
  EXPECT_EQ(count_in(body, "Constant"), 0u);
  EXPECT_EQ(count_in(body, "Erf"), 0u);
  EXPECT_EQ(count_in(body, "Gelu"), 1u);
  // The caller's model shares nothing that changed.
  EXPECT_EQ(count_in(loop_body(m), "Constant"), 3u);
  EXPECT_EQ(count_in(loop_body(m), "Erf"), 1u);
}

TEST(OptimizerSubgraphs, BasicLevelFoldsBodyConstantsOnly) {
  ir::Model m = gelu_loop_model();
  optimizer::optimize(m, GraphOptimizationLevel::kBasic, cpu_folding());
  const ir::Graph& body = loop_body(m);
  EXPECT_EQ(count_in(body, "Constant"), 0u);
  EXPECT_EQ(body.initializers.count("half"), 1u);
  EXPECT_EQ(count_in(body, "Erf"), 1u);
}

TEST(OptimizerSubgraphs, DisabledLevelLeavesBodies) {
  ir::Model m = gelu_loop_model();
  optimizer::optimize(m, GraphOptimizationLevel::kDisableAll, cpu_folding());
  EXPECT_EQ(count_in(loop_body(m), "Constant"), 3u);
}
