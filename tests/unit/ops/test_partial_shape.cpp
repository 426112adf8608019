// The schema's shape rules over partial shapes (ops::partial_output_shapes):
// symbols pass through where the rule passes a dim through, equal symbols
// are one size, and what depends on an unknown dim's value stays unknown.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "ops/partial_shape.hpp"
#include "ops/schema.hpp"
#include "unit/kernel_test_util.hpp"

namespace tessera::test {

namespace {

// "[N,?,768]" -> dims: numbers, '?' unknown, anything else a symbol.
ops::PartialShape parse(const std::string& text) {
  ops::PartialShape p;
  std::stringstream in(text.substr(1, text.size() - 2));
  std::string tok;
  while (std::getline(in, tok, ',')) {
    if (tok == "?")
      p.push_back(ir::Dim{});
    else if (std::isdigit(static_cast<unsigned char>(tok[0])))
      p.push_back(ir::Dim{std::stoll(tok), ""});
    else
      p.push_back(ir::Dim{std::nullopt, tok});
  }
  return p;
}

// Output `k` of `node` at `opset` for inputs of the shapes given ("" for an
// input of unknown rank), with constant integer inputs `ints`: its shape
// as text, "unknown" when the rule gives none.
std::string infer(const ir::Node& node, int64_t opset, const std::vector<std::string>& shapes,
                  const std::map<size_t, std::vector<int64_t>>& ints = {}, size_t k = 0) {
  std::vector<ops::PartialShape> held;
  for (const auto& s : shapes) held.push_back(s.empty() ? ops::PartialShape{} : parse(s));
  std::vector<const ops::PartialShape*> in;
  for (size_t i = 0; i < shapes.size(); ++i) in.push_back(shapes[i].empty() ? nullptr : &held[i]);
  const ops::IntsOf ints_of = [&](size_t i) -> std::optional<std::vector<int64_t>> {
    auto it = ints.find(i);
    return it == ints.end() ? std::nullopt : std::optional<std::vector<int64_t>>(it->second);
  };
  const auto out =
      ops::partial_output_shapes(ops::schema_of(node, opset), node, opset, in, ints_of);
  return k < out.size() && out[k] ? ops::partial_to_string(*out[k]) : "unknown";
}

ir::Node node(const std::string& op, size_t inputs, std::vector<ir::Attribute> attrs = {}) {
  static const std::vector<std::string> kIn = {"X0", "X1", "X2", "X3"};
  return make_node(op, {kIn.begin(), kIn.begin() + int64_t(inputs)}, {"Y"}, std::move(attrs));
}

}  // namespace

TEST(PartialShape, FullShapesGiveTheRulesAnswer) {
  EXPECT_EQ(infer(node("Add", 2), 17, {"[2,768]", "[768]"}), "[2,768]");
  // An invalid full input is the rule's error, naming the node.
  EXPECT_THROW(infer(node("Add", 2), 17, {"[2,768]", "[3,768]"}), Error);
}

TEST(PartialShape, BroadcastWithSymbols) {
  const ir::Node add = node("Add", 2);
  EXPECT_EQ(infer(add, 17, {"[N,768]", "[N,768]"}), "[N,768]");
  EXPECT_EQ(infer(add, 17, {"[N,768]", "[768]"}), "[N,768]");
  EXPECT_EQ(infer(add, 17, {"[N,1,S]", "[1,12,S]"}), "[N,12,S]");
  EXPECT_EQ(infer(add, 17, {"[?,768]", "[1,768]"}), "[?,768]");
  // Two different symbols: either may be 1, so the result is not known.
  EXPECT_EQ(infer(add, 17, {"[N,768]", "[M,768]"}), "unknown");
  // An unknown dim against a number: it may be 1 or the number.
  EXPECT_EQ(infer(add, 17, {"[N,?]", "[N,5]"}), "unknown");
  EXPECT_EQ(infer(add, 17, {"[N,768]", ""}), "unknown");
}

TEST(PartialShape, ReshapeWithZeroAndMinusOne) {
  const ir::Node r = node("Reshape", 2);
  EXPECT_EQ(infer(r, 14, {"[N,S,768]", "[4]"}, {{1, {0, 0, 12, 64}}}), "[N,S,12,64]");
  EXPECT_EQ(infer(r, 14, {"[N,768]", "[3]"}, {{1, {-1, 12, 64}}}), "[N,12,64]");
  // -1 stands for N*S: not one of the dims.
  EXPECT_EQ(infer(r, 14, {"[N,S,768]", "[2]"}, {{1, {-1, 768}}}), "[?,768]");
  EXPECT_EQ(infer(r, 14, {"[N,768]", "[2]"}, {{1, {2, -1}}}), "[2,?]");
  EXPECT_EQ(infer(r, 14, {"[?,3,4]", "[3]"}, {{1, {0, 12, 1}}}), "[?,12,1]");
  // A target that is not constant: nothing known.
  EXPECT_EQ(infer(r, 14, {"[N,768]", "[3]"}), "unknown");
}

TEST(PartialShape, ConcatAlongAKnownAxis) {
  const ir::Node c = node("Concat", 2, {attr_int("axis", 1)});
  EXPECT_EQ(infer(c, 13, {"[N,3,H]", "[N,5,H]"}), "[N,8,H]");
  EXPECT_EQ(infer(c, 13, {"[N,?]", "[N,4]"}), "[N,?]");
  const ir::Node c0 = node("Concat", 2, {attr_int("axis", 0)});
  EXPECT_EQ(infer(c0, 13, {"[N,16]", "[M,16]"}), "[?,16]");
}

TEST(PartialShape, ConvWithUnknownBatchOrImage) {
  const ir::Node conv =
      node("Conv", 2, {attr_ints("strides", {2, 2}), attr_ints("pads", {3, 3, 3, 3})});
  EXPECT_EQ(infer(conv, 11, {"[N,3,224,224]", "[64,3,7,7]"}), "[N,64,112,112]");
  EXPECT_EQ(infer(conv, 11, {"[N,3,H,W]", "[64,3,7,7]"}), "[N,64,?,?]");
  // A 3x3 window without padding: an image of size 1 is too small for it,
  // which does not make the other dims unknown.
  EXPECT_EQ(infer(node("Conv", 2), 11, {"[N,3,H,W]", "[8,3,3,3]"}), "[N,8,?,?]");
}

TEST(PartialShape, GatherTransposeMatMul) {
  EXPECT_EQ(infer(node("Gather", 2, {attr_int("axis", 1)}), 13, {"[N,S,768]", "[]"}), "[N,768]");
  EXPECT_EQ(infer(node("Gather", 2), 13, {"[V,768]", "[N,S]"}), "[N,S,768]");
  EXPECT_EQ(infer(node("Transpose", 1, {attr_ints("perm", {0, 2, 1, 3})}), 13, {"[N,S,12,64]"}),
            "[N,12,S,64]");
  EXPECT_EQ(infer(node("Transpose", 1), 13, {"[N,S,7]"}), "[7,S,N]");
  const ir::Node mm = node("MatMul", 2);
  EXPECT_EQ(infer(mm, 13, {"[N,S,768]", "[768,3072]"}), "[N,S,3072]");
  EXPECT_EQ(infer(mm, 13, {"[N,12,S,64]", "[N,12,64,S]"}), "[N,12,S,S]");
  // The inner dims: an unknown one may not match.
  EXPECT_EQ(infer(mm, 13, {"[N,K]", "[768,10]"}), "unknown");
}

TEST(PartialShape, WhatDependsOnAnUnknownValueStaysUnknown) {
  // Slice's end clamps to the dim: [N] sliced to 10 is 10 only when N >= 10.
  EXPECT_EQ(infer(node("Slice", 4), 13, {"[N,768]", "[1]", "[1]", "[1]"},
                  {{1, {0}}, {2, {10}}, {3, {0}}}),
            "[?,768]");
  // Slicing to the end keeps the symbol.
  EXPECT_EQ(infer(node("Slice", 4), 13, {"[N,768]", "[1]", "[1]", "[1]"},
                  {{1, {0}}, {2, {INT64_MAX}}, {3, {0}}}),
            "[N,768]");
  // Squeeze without axes drops every dim of size 1, so an unknown dim's
  // presence is unknown.
  EXPECT_EQ(infer(node("Squeeze", 1), 13, {"[N,1,768]"}), "unknown");
  EXPECT_EQ(infer(node("Squeeze", 2), 13, {"[N,1,768]", "[1]"}, {{1, {1}}}), "[N,768]");
  // Shape's output is known from the rank alone.
  EXPECT_EQ(infer(node("Shape", 1), 15, {"[N,?,768]"}), "[3]");
}

}  // namespace tessera::test
