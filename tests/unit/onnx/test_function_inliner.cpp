// Model-local functions expanded in place.
#include <gtest/gtest.h>

#include <set>

#include "onnx/function_inliner.hpp"
#include "onnx/model_reader.hpp"
#include "onnx/model_writer.hpp"
#include "onnx_test_util.hpp"

using namespace tessera;
using test::expect_error;

namespace {

ir::Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
              const std::string& domain = "", const std::string& name = "") {
  ir::Node n;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.domain = domain;
  n.name = name;
  return n;
}

ir::Attribute float_attr(const std::string& name, float v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloat;
  a.f = v;
  return a;
}

ir::Attribute ref_attr(const std::string& name, const std::string& ref) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloat;
  a.ref_attr_name = ref;
  return a;
}

// custom.ScaledAdd(a, b) -> c:  t = Add(a, b); c = LeakyRelu<alpha = @scale>(t);
// custom.Plain(a) -> c:  c = Elu<alpha = @missing>(a)
ir::Function scaled_add() {
  ir::Function f;
  f.name = "ScaledAdd";
  f.domain = "custom";
  f.inputs = {"a", "b"};
  f.outputs = {"c"};
  f.attribute_defaults.push_back(float_attr("scale", 0.1f));
  f.opset_imports = {{"", 18}};
  f.nodes.push_back(node("Add", {"a", "b"}, {"t"}, "", "add"));
  ir::Node lr = node("LeakyRelu", {"t"}, {"c"}, "", "lrelu");
  lr.attributes.push_back(ref_attr("alpha", "scale"));
  f.nodes.push_back(lr);
  f.value_info.push_back({"t", ir::TypeInfo::tensor(DataType::kFloat), ""});
  return f;
}

ir::Model base_model() {
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports = {{"", 18}, {"custom", 1}};
  m.graph.inputs = {{"x", ir::TypeInfo::tensor(DataType::kFloat), ""},
                    {"y", ir::TypeInfo::tensor(DataType::kFloat), ""}};
  m.functions.push_back(scaled_add());
  return m;
}

std::set<std::string> all_outputs(const ir::Graph& g) {
  std::set<std::string> s;
  for (const auto& n : g.nodes) s.insert(n.outputs.begin(), n.outputs.end());
  return s;
}

}  // namespace

TEST(OnnxFunctionInliner, ExpandsCallsWithAttributesAndDefaults) {
  ir::Model m = base_model();
  ir::Node call1 = node("ScaledAdd", {"x", "y"}, {"z1"}, "custom", "call1");
  call1.attributes.push_back(float_attr("scale", 0.5f));
  ir::Node call2 = node("ScaledAdd", {"z1", "y"}, {"z2"}, "custom", "call2");  // uses the default
  m.graph.nodes = {call1, call2, node("Relu", {"z2"}, {"out"})};
  m.graph.outputs = {{"out", ir::TypeInfo::tensor(DataType::kFloat), ""}};
  onnx::inline_functions(m);

  const auto& nodes = m.graph.nodes;
  ASSERT_EQ(nodes.size(), 5u);
  EXPECT_EQ(nodes[0].op_type, "Add");
  EXPECT_EQ(nodes[0].inputs, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(nodes[1].op_type, "LeakyRelu");
  EXPECT_EQ(nodes[1].outputs, (std::vector<std::string>{"z1"}));
  EXPECT_EQ(nodes[1].inputs[0], nodes[0].outputs[0]);  // the internal value is wired through
  ASSERT_NE(nodes[1].attr("alpha"), nullptr);
  EXPECT_EQ(nodes[1].attr("alpha")->f, 0.5f);
  EXPECT_TRUE(nodes[1].attr("alpha")->ref_attr_name.empty());
  EXPECT_EQ(nodes[2].inputs, (std::vector<std::string>{"z1", "y"}));
  EXPECT_EQ(nodes[3].attr("alpha")->f, 0.1f);
  EXPECT_EQ(nodes[3].outputs[0], "z2");
  EXPECT_EQ(nodes[4].op_type, "Relu");
  // Internal values and node names are unique across the two expansions.
  EXPECT_NE(nodes[0].outputs[0], nodes[2].outputs[0]);
  EXPECT_NE(nodes[0].outputs[0], "t");
  EXPECT_NE(nodes[0].name, nodes[2].name);
  // The function's value_info comes along, renamed.
  ASSERT_EQ(m.graph.value_info.size(), 2u);
  EXPECT_EQ(m.graph.value_info[0].name, nodes[0].outputs[0]);
  EXPECT_EQ(m.functions.size(), 1u);  // kept, harmless
}

TEST(OnnxFunctionInliner, DropsUnresolvedReferenceAndHandlesOmittedIO) {
  ir::Model m = base_model();
  ir::Function f;
  f.name = "Opt";
  f.domain = "custom";
  f.inputs = {"a", "b"};
  f.outputs = {"c", "d"};
  ir::Node elu = node("Elu", {"a"}, {"c"});
  elu.attributes.push_back(ref_attr("alpha", "missing"));
  f.nodes.push_back(elu);
  f.nodes.push_back(node("Identity", {"b"}, {"d"}));
  m.functions.push_back(f);
  m.graph.nodes = {node("Opt", {"x"}, {"out"}, "custom")};
  onnx::inline_functions(m);
  ASSERT_EQ(m.graph.nodes.size(), 2u);
  EXPECT_TRUE(m.graph.nodes[0].attributes.empty());
  EXPECT_EQ(m.graph.nodes[0].outputs[0], "out");
  EXPECT_EQ(m.graph.nodes[1].inputs[0], "");  // omitted optional input stays omitted
  EXPECT_FALSE(m.graph.nodes[1].outputs[0].empty());  // unused output gets a fresh name
  EXPECT_NE(m.graph.nodes[1].outputs[0], "d");
}

TEST(OnnxFunctionInliner, NestedCallsAndSubgraphs) {
  ir::Model m = base_model();
  ir::Function outer;
  outer.name = "Outer";
  outer.domain = "custom";
  outer.inputs = {"p"};
  outer.outputs = {"q"};
  ir::Node inner_call = node("ScaledAdd", {"p", "p"}, {"q"}, "custom");
  inner_call.attributes.push_back(ref_attr("scale", "s"));
  outer.nodes.push_back(inner_call);
  m.functions.push_back(outer);

  // The call sits inside an If's then_branch.
  auto then_g = std::make_shared<ir::Graph>();
  ir::Node call = node("Outer", {"x"}, {"r"}, "custom", "c");
  call.attributes.push_back(float_attr("s", 2.0f));
  then_g->nodes.push_back(call);
  then_g->outputs = {{"r", ir::TypeInfo::tensor(DataType::kFloat), ""}};
  ir::Node iff = node("If", {"cond"}, {"out"});
  ir::Attribute ga;
  ga.name = "then_branch";
  ga.type = ir::AttrType::kGraph;
  ga.g = then_g;
  iff.attributes.push_back(ga);
  m.graph.nodes = {iff};
  onnx::inline_functions(m);

  const auto& sub = m.graph.nodes.at(0).attributes.at(0).g->nodes;
  ASSERT_EQ(sub.size(), 2u);
  EXPECT_EQ(sub[0].op_type, "Add");
  EXPECT_EQ(sub[0].inputs, (std::vector<std::string>{"x", "x"}));
  EXPECT_EQ(sub[1].op_type, "LeakyRelu");
  EXPECT_EQ(sub[1].outputs[0], "r");
  EXPECT_EQ(sub[1].attr("alpha")->f, 2.0f);  // s -> scale -> alpha through two levels
}

TEST(OnnxFunctionInliner, FunctionBodySubgraphsAreRenamedAndOwned) {
  ir::Model m = base_model();
  ir::Function f;
  f.name = "WithLoop";
  f.domain = "custom";
  f.inputs = {"a"};
  f.outputs = {"b"};
  auto body = std::make_shared<ir::Graph>();
  body->nodes.push_back(node("Neg", {"a"}, {"inner"}));  // outer-scope reference to a formal
  body->outputs = {{"inner", {}, ""}};
  ir::Node ifn = node("If", {"a"}, {"b"});
  ir::Attribute ga;
  ga.name = "then_branch";
  ga.type = ir::AttrType::kGraph;
  ga.g = body;
  ifn.attributes.push_back(ga);
  f.nodes.push_back(ifn);
  m.functions.push_back(f);
  m.graph.nodes = {node("WithLoop", {"x"}, {"o1"}, "custom"), node("WithLoop", {"y"}, {"o2"}, "custom")};
  onnx::inline_functions(m);
  ASSERT_EQ(m.graph.nodes.size(), 2u);
  const auto& g1 = *m.graph.nodes[0].attributes[0].g;
  const auto& g2 = *m.graph.nodes[1].attributes[0].g;
  EXPECT_EQ(g1.nodes[0].inputs[0], "x");
  EXPECT_EQ(g2.nodes[0].inputs[0], "y");
  EXPECT_NE(g1.nodes[0].outputs[0], g2.nodes[0].outputs[0]);
  EXPECT_EQ(g1.outputs[0].name, g1.nodes[0].outputs[0]);
  // The definition itself is untouched.
  EXPECT_EQ(m.functions.back().nodes[0].attributes[0].g->nodes[0].inputs[0], "a");
}

TEST(OnnxFunctionInliner, Errors) {
  {
    ir::Model m = base_model();
    ir::Function r;
    r.name = "Rec";
    r.domain = "custom";
    r.inputs = {"a"};
    r.outputs = {"b"};
    r.nodes.push_back(node("Rec", {"a"}, {"b"}, "custom"));
    m.functions.push_back(r);
    m.graph.nodes = {node("Rec", {"x"}, {"o"}, "custom")};
    expect_error([&] { onnx::inline_functions(m); }, ErrorCode::kInvalidGraph,
                 "function 'Rec' is recursive (Rec -> Rec)");
  }
  {
    ir::Model m = base_model();
    m.graph.nodes = {node("ScaledAdd", {"x", "y", "z"}, {"o"}, "custom", "bad")};
    expect_error([&] { onnx::inline_functions(m); }, ErrorCode::kInvalidGraph,
                 "passes 3 inputs and 1 outputs to function 'ScaledAdd', which takes 2 inputs");
  }
  {
    ir::Model m = base_model();
    m.opset_imports[0].version = 17;
    m.graph.nodes = {node("ScaledAdd", {"x", "y"}, {"o"}, "custom")};
    expect_error([&] { onnx::inline_functions(m); }, ErrorCode::kInvalidGraph,
                 "imports opset 'ai.onnx' version 18 but the model imports version 17");
  }
}

TEST(OnnxFunctionInliner, MergesOpsetsAndMatchesOverloads) {
  ir::Model m = base_model();
  m.opset_imports = {{"custom", 1}};
  ir::Function v2 = scaled_add();
  v2.overload = "v2";
  v2.nodes = {node("Sub", {"a", "b"}, {"c"})};
  v2.opset_imports = {{"", 18}, {"com.other", 2}};
  m.functions.push_back(v2);
  ir::Node call = node("ScaledAdd", {"x", "y"}, {"o"}, "custom");
  call.overload = "v2";
  m.graph.nodes = {call};
  onnx::inline_functions(m);
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "Sub");
  EXPECT_EQ(m.opset(""), 18);
  EXPECT_EQ(m.opset("com.other"), 2);
}

TEST(OnnxFunctionInliner, SurvivesSerialization) {
  ir::Model m = base_model();
  ir::Node call = node("ScaledAdd", {"x", "y"}, {"o"}, "custom");
  call.attributes.push_back(float_attr("scale", 0.25f));
  m.graph.nodes = {call};
  std::string bytes = onnx::serialize_model(m);
  ir::Model back = onnx::parse_model(bytes.data(), bytes.size());
  onnx::inline_functions(back);
  ASSERT_EQ(back.graph.nodes.size(), 2u);
  EXPECT_EQ(back.graph.nodes[1].attr("alpha")->f, 0.25f);
  EXPECT_TRUE(all_outputs(back.graph).count("o"));
}
