// The expansion driver with bodies from a test table: an op no provider
// knows runs through its body in the main graph and in subgraphs, with no
// kernel code; bodies that nest without end stop at the depth limit.
#include <gtest/gtest.h>

#include "ops/function_text.hpp"
#include "providers/cpu/cpu_provider.hpp"
#include "runtime/function_expansion.hpp"
#include "runtime/session.hpp"

namespace tessera::runtime {
namespace {

ops::FunctionBody body(const char* op, const char* text) {
  ops::FunctionBody b;
  b.domain = "com.test";
  b.op_type = op;
  b.since = 1;
  b.until = 1000;
  b.function = ops::parse_function_text(text);
  return b;
}

ir::Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
              const std::string& domain = "") {
  ir::Node n;
  n.name = op + "_" + out[0];
  n.op_type = op;
  n.domain = domain;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

ir::ValueInfo info(const std::string& name, DataType t) {
  return {name, ir::TypeInfo::tensor(t), ""};
}

// y = MyDouble(x) at the top, and again inside If's then-branch.
ir::Model model_with_custom_op() {
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports = {{"", 18}, {"com.test", 1}};
  m.graph.inputs = {info("x", DataType::kFloat), info("c", DataType::kBool)};
  m.graph.nodes.push_back(node("MyDouble", {"x"}, {"y"}, "com.test"));
  auto then_g = std::make_shared<ir::Graph>();
  then_g->nodes.push_back(node("MyDouble", {"y"}, {"t"}, "com.test"));
  then_g->outputs = {info("t", DataType::kFloat)};
  auto else_g = std::make_shared<ir::Graph>();
  else_g->nodes.push_back(node("Identity", {"y"}, {"e"}));
  else_g->outputs = {info("e", DataType::kFloat)};
  ir::Node iff = node("If", {"c"}, {"z"});
  ir::Attribute a;
  a.name = "then_branch";
  a.type = ir::AttrType::kGraph;
  a.g = then_g;
  iff.attributes.push_back(a);
  a.name = "else_branch";
  a.g = else_g;
  iff.attributes.push_back(a);
  m.graph.nodes.push_back(iff);
  m.graph.outputs = {info("z", DataType::kFloat)};
  return m;
}

Providers cpu_only() { return {cpu::make_cpu_provider_factory()->create({})}; }

TEST(FunctionExpansion, UnknownOpRunsThroughItsBodyInGraphAndSubgraph) {
  static const ops::FunctionBody doubled =
      body("MyDouble", "MyDouble (X) => (Y) { Y = Add (X, X) }");
  auto lookup = [](const ir::Node& n, int64_t) -> const ops::FunctionBody* {
    return n.op_type == "MyDouble" ? &doubled : nullptr;
  };
  ir::Model m = model_with_custom_op();
  auto done = expand_ops_without_kernels(m, cpu_only(), lookup);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].node_name, "MyDouble_y");
  EXPECT_EQ(done[1].node_name, "MyDouble_t");
  EXPECT_EQ(m.graph.nodes[0].op_type, "Add");
  EXPECT_EQ(m.graph.nodes[1].attr("then_branch")->g->nodes[0].op_type, "Add");

  auto s = Session::create_from_model(m);
  auto x = Tensor::from_vector<float>({1, 2.5f}, Shape{2});
  auto out = s->run({{"x", x}, {"c", Tensor::from_vector<bool>({true}, Shape{})}});
  EXPECT_EQ(out[0].tensor().data<float>()[1], 10.f);
  out = s->run({{"x", x}, {"c", Tensor::from_vector<bool>({false}, Shape{})}});
  EXPECT_EQ(out[0].tensor().data<float>()[1], 5.f);
}

TEST(FunctionExpansion, EndlessNestingStopsAtTheDepthLimit) {
  static const ops::FunctionBody loopy =
      body("MyDouble", "MyDouble (X) => (Y) { Y = com.test.MyDouble (X) }");
  auto lookup = [](const ir::Node& n, int64_t) -> const ops::FunctionBody* {
    return n.op_type == "MyDouble" ? &loopy : nullptr;
  };
  ir::Model m = model_with_custom_op();
  try {
    expand_ops_without_kernels(m, cpu_only(), lookup);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidGraph);
    EXPECT_NE(std::string(e.what()).find("deeper than 8 levels"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("MyDouble"), std::string::npos) << e.what();
  }
}

TEST(FunctionExpansion, OpsWithAKernelAreLeftAlone) {
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports = {{"", 18}};
  m.graph.inputs = {info("x", DataType::kFloat)};
  m.graph.nodes.push_back(node("Celu", {"x"}, {"y"}));
  m.graph.outputs = {info("y", DataType::kFloat)};
  EXPECT_TRUE(expand_ops_without_kernels(m, cpu_only()).empty());
  EXPECT_EQ(m.graph.nodes[0].op_type, "Celu");
  // With no provider at all, the table's body is used, and the Elu inside it
  // is expanded in turn.
  auto done = expand_ops_without_kernels(m, {});
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].body, "Celu-15");
  EXPECT_EQ(done[1].body, "Elu-15");
  EXPECT_EQ(done[1].depth, 1);
  for (const auto& n : m.graph.nodes) EXPECT_TRUE(n.op_type != "Celu" && n.op_type != "Elu");
}

}  // namespace
}  // namespace tessera::runtime
