#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "ops/function_bodies.hpp"
#include "ops/function_text.hpp"

namespace tessera::ops {
namespace {

TEST(FunctionText, ParsesHeaderNodesAttributesAndOmittedInputs) {
  ir::Function f = parse_function_text(R"(
    Foo <alpha: float = 1.5, axes: ints = [0, 2], mode: string = "x", n: int, k = 3>
        (X, B) => (Y, Z) {
      # a comment
      a = Constant <value_float = @alpha> ()
      Y, Z = com.example.Bar <to = 7, f = 0.5, fs: floats = [1, 2], s = "hi"> (X, , a)
    })");
  EXPECT_EQ(f.name, "Foo");
  EXPECT_EQ(f.inputs, (std::vector<std::string>{"X", "B"}));
  EXPECT_EQ(f.outputs, (std::vector<std::string>{"Y", "Z"}));
  EXPECT_EQ(f.attribute_names.size(), 5u);
  // "n" has no default, so only four defaults remain.
  ASSERT_EQ(f.attribute_defaults.size(), 4u);
  EXPECT_EQ(f.attribute_defaults[0].type, ir::AttrType::kFloat);
  EXPECT_FLOAT_EQ(f.attribute_defaults[0].f, 1.5f);
  EXPECT_EQ(f.attribute_defaults[1].ints, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(f.attribute_defaults[2].s, "x");
  EXPECT_EQ(f.attribute_defaults[3].type, ir::AttrType::kInt);
  ASSERT_EQ(f.nodes.size(), 2u);
  EXPECT_EQ(f.nodes[0].attributes[0].ref_attr_name, "alpha");
  const ir::Node& bar = f.nodes[1];
  EXPECT_EQ(bar.domain, "com.example");
  EXPECT_EQ(bar.op_type, "Bar");
  EXPECT_EQ(bar.inputs, (std::vector<std::string>{"X", "", "a"}));
  EXPECT_EQ(bar.outputs, (std::vector<std::string>{"Y", "Z"}));
  EXPECT_EQ(bar.attr("to")->i, 7);
  EXPECT_FLOAT_EQ(bar.attr("f")->f, 0.5f);
  EXPECT_EQ(bar.attr("fs")->type, ir::AttrType::kFloats);
  EXPECT_EQ(bar.attr("s")->s, "hi");
}

TEST(FunctionText, ErrorsNameLineAndColumn) {
  try {
    parse_function_text("F (X) => (Y) {\n  Y = Relu (X\n}");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidGraph);
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_function_text("F (X) => (Y) { Y = Relu <a = > (X) }"), Error);
  EXPECT_THROW(parse_function_text("F (X) => (Y) { Y = Relu (X) } extra"), Error);
  EXPECT_THROW(parse_function_text("F (X) => (Y) { Y = Relu <s = \"open> (X) }"), Error);
}

TEST(FunctionText, EveryTableBodyParsesAndUsesOnlyItsOwnNames) {
  const auto& bodies = function_bodies();  // throws if a body does not parse
  ASSERT_FALSE(bodies.empty());
  for (const auto& b : bodies) {
    // Every value a node reads is a function input or an earlier node's output.
    std::set<std::string> known(b.function.inputs.begin(), b.function.inputs.end());
    for (const auto& n : b.function.nodes) {
      for (const auto& in : n.inputs)
        EXPECT_TRUE(in.empty() || known.count(in)) << b.describe() << ": " << in;
      known.insert(n.outputs.begin(), n.outputs.end());
      for (const auto& a : n.attributes) {
        if (a.ref_attr_name.empty()) continue;
        const auto& names = b.function.attribute_names;
        EXPECT_NE(std::find(names.begin(), names.end(), a.ref_attr_name), names.end())
            << b.describe() << ": @" << a.ref_attr_name;
      }
    }
    for (const auto& out : b.function.outputs)
      EXPECT_TRUE(known.count(out)) << b.describe() << ": " << out;
  }
}

}  // namespace
}  // namespace tessera::ops
