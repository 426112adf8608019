#include <gtest/gtest.h>

#include "ir/graph_algorithms.hpp"

using namespace tessera;
using namespace tessera::ir;

namespace {

Node make_node(const std::string& name, const std::string& op, std::vector<std::string> in,
               std::vector<std::string> out) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

Model model_with(std::vector<Node> nodes) {
  Model m;
  m.opset_imports.push_back({"", 17});
  m.graph.name = "g";
  m.graph.inputs.push_back({"x", TypeInfo::tensor(DataType::kFloat), ""});
  m.graph.nodes = std::move(nodes);
  m.graph.outputs.push_back({"y", TypeInfo::tensor(DataType::kFloat), ""});
  return m;
}

std::string validate_error(Model& m) {
  try {
    validate_graph(m, m.graph, {}, "test.onnx");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidGraph);
    return e.what();
  }
  return "";
}

}  // namespace

TEST(IrGraph, TopologicalSortReordersNodes) {
  Model m = model_with({make_node("b", "Relu", {"t"}, {"y"}), make_node("a", "Relu", {"x"}, {"t"})});
  validate_graph(m, m.graph, {}, "test");
  ASSERT_EQ(m.graph.nodes.size(), 2u);
  EXPECT_EQ(m.graph.nodes[0].name, "a");
  EXPECT_EQ(m.graph.nodes[1].name, "b");
}

TEST(IrGraph, CycleIsNamed) {
  Model m = model_with({make_node("a", "Add", {"x", "u"}, {"t"}), make_node("b", "Relu", {"t"}, {"u"}),
                        make_node("c", "Relu", {"t"}, {"y"})});
  std::string err = validate_error(m);
  EXPECT_NE(err.find("cycle"), std::string::npos) << err;
  EXPECT_NE(err.find("'a'"), std::string::npos) << err;
  EXPECT_NE(err.find("'b'"), std::string::npos) << err;
}

TEST(IrGraph, UndefinedInputIsNamed) {
  Model m = model_with({make_node("a", "Add", {"x", "nowhere"}, {"y"})});
  std::string err = validate_error(m);
  EXPECT_NE(err.find("'nowhere'"), std::string::npos) << err;
  EXPECT_NE(err.find("test.onnx"), std::string::npos) << err;
}

TEST(IrGraph, DuplicateOutputIsRejected) {
  Model m = model_with({make_node("a", "Relu", {"x"}, {"y"}), make_node("b", "Relu", {"x"}, {"y"})});
  EXPECT_NE(validate_error(m).find("defined more than once"), std::string::npos);
}

TEST(IrGraph, UnknownDomainIsRejected) {
  Model m = model_with({make_node("a", "Relu", {"x"}, {"y"})});
  m.graph.nodes[0].domain = "com.example";
  EXPECT_NE(validate_error(m).find("com.example"), std::string::npos);
}

TEST(IrGraph, MissingGraphOutputIsRejected) {
  Model m = model_with({make_node("a", "Relu", {"x"}, {"z"})});
  EXPECT_NE(validate_error(m).find("graph output 'y'"), std::string::npos);
}

TEST(IrGraph, SubgraphReadsOuterScope) {
  auto body = std::make_shared<Graph>();
  body->nodes.push_back(make_node("inner", "Add", {"x", "local"}, {"out"}));
  body->initializers["local"] = Tensor::scalar<float>(1.0f);
  body->outputs.push_back({"out", TypeInfo::tensor(DataType::kFloat), ""});
  auto reads = outer_scope_reads(*body);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0], "x");

  // An If whose branch reads 'x' must be ordered after x's producer.
  Node iff = make_node("if", "If", {"c"}, {"y"});
  Attribute a;
  a.name = "then_branch";
  a.type = AttrType::kGraph;
  a.g = body;
  iff.attributes.push_back(a);
  a.name = "else_branch";
  iff.attributes.push_back(a);
  Model m = model_with({iff, make_node("c", "Cast", {"x"}, {"c"})});
  m.graph.nodes[1].outputs = {"c"};
  validate_graph(m, m.graph, {}, "test");
  EXPECT_EQ(m.graph.nodes[0].name, "c");
}

TEST(IrGraph, UnnamedNodesGetStableNames) {
  Model m = model_with({make_node("", "Relu", {"x"}, {"t"}), make_node("Relu_0", "Relu", {"t"}, {"y"})});
  name_unnamed_nodes(m.graph);
  EXPECT_EQ(m.graph.nodes[0].name, "Relu_1");
  EXPECT_EQ(m.graph.nodes[1].name, "Relu_0");
}
