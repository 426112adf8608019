// The tanh form of GELU, x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))),
// in the spellings torch exports, becomes Gelu approximate="tanh" with the
// outputs of the unfused graph; near misses stay as they are.
#include <cmath>

#include "optimizer/optimizer.hpp"
#include "optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

enum class Cube { kPowFloat, kPowInt, kSquareTimesX, kXTimesSquare };
enum class Half { kOnX, kOnProduct, kOnSum };

struct Spelling {
  Cube cube = Cube::kPowFloat;
  Half half = Half::kOnX;
  bool constants_first = false;  // constant as the first operand of each Mul / Add
};

// y = gelu_tanh(x) in `s`'s spelling, from element-wise nodes.
ir::Model gelu_tanh_model(int64_t opset, Spelling s) {
  ir::Model m = float_model(opset, {{"x", Shape{4, 6}}}, {"y"});
  auto& init = m.graph.initializers;
  init["k"] = Tensor::scalar<float>(0.7978845608f);
  init["c"] = Tensor::scalar<float>(0.044715f);
  init["one"] = Tensor::scalar<float>(1.f);
  init["half"] = Tensor::scalar<float>(0.5f);
  auto bin = [&](const char* type, const std::string& v, const std::string& c,
                 const std::string& out) {
    m.graph.nodes.push_back(s.constants_first ? op(type, {c, v}, {out}) : op(type, {v, c}, {out}));
  };
  switch (s.cube) {
    case Cube::kPowFloat:
      init["three"] = Tensor::scalar<float>(3.f);
      m.graph.nodes.push_back(op("Pow", {"x", "three"}, {"cube"}));
      break;
    case Cube::kPowInt:
      init["three"] = Tensor::scalar<int64_t>(3);
      m.graph.nodes.push_back(op("Pow", {"x", "three"}, {"cube"}));
      break;
    case Cube::kSquareTimesX:
    case Cube::kXTimesSquare:
      m.graph.nodes.push_back(op("Mul", {"x", "x"}, {"sq"}));
      bin("Mul", "sq", "x", "cube");
      if (s.cube == Cube::kXTimesSquare)
        std::swap(m.graph.nodes.back().inputs[0], m.graph.nodes.back().inputs[1]);
      break;
  }
  bin("Mul", "cube", "c", "t3");
  bin("Add", "t3", "x", "inner");  // x as the second operand here, the first when swapped
  bin("Mul", "inner", "k", "arg");
  m.graph.nodes.push_back(op("Tanh", {"arg"}, {"th"}));
  bin("Add", "th", "one", "sum");
  switch (s.half) {
    case Half::kOnX:
      bin("Mul", "x", "half", "hx");
      m.graph.nodes.push_back(op("Mul", {"hx", "sum"}, {"y"}));
      break;
    case Half::kOnProduct:
      m.graph.nodes.push_back(op("Mul", {"x", "sum"}, {"p"}));
      bin("Mul", "p", "half", "y");
      break;
    case Half::kOnSum:
      bin("Mul", "sum", "half", "hs");
      m.graph.nodes.push_back(op("Mul", {"x", "hs"}, {"y"}));
      break;
  }
  return m;
}

void expect_tanh_gelu(const ir::Model& out, const char* domain) {
  ASSERT_EQ(out.graph.nodes.size(), 1u);
  const ir::Node& n = out.graph.nodes[0];
  EXPECT_EQ(n.op_type, "Gelu");
  EXPECT_EQ(n.domain, domain);
  const ir::Attribute* a = n.attr("approximate");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->s, "tanh");
}

}  // namespace

TEST(OptimizerGeluTanhFusion, EverySpellingFuses) {
  for (Cube cube : {Cube::kPowFloat, Cube::kPowInt, Cube::kSquareTimesX, Cube::kXTimesSquare})
    for (Half half : {Half::kOnX, Half::kOnProduct, Half::kOnSum})
      for (bool first : {false, true}) {
        SCOPED_TRACE(testing::Message() << "cube " << int(cube) << " half " << int(half)
                                        << " constants first " << first);
        const ir::Model m = gelu_tanh_model(20, {cube, half, first});
        expect_tanh_gelu(expect_same_outputs(m, GraphOptimizationLevel::kExtended), "");
      }
}

TEST(OptimizerGeluTanhFusion, InternalGeluBelowOpset20) {
  const ir::Model out =
      expect_same_outputs(gelu_tanh_model(17, {}), GraphOptimizationLevel::kExtended);
  expect_tanh_gelu(out, "com.tessera");
  EXPECT_EQ(out.opset("com.tessera"), 1);
}

TEST(OptimizerGeluTanhFusion, NotFusedWithWrongConstant) {
  for (const char* name : {"k", "c", "one", "half", "three"}) {
    ir::Model m = gelu_tanh_model(20, {});
    m.graph.initializers[name] = Tensor::scalar<float>(2.0f);  // as Pow exponent: x < 0 stays real
    const ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
    EXPECT_EQ(count_ops(out, "Gelu"), 0u) << name;
    EXPECT_EQ(count_ops(out, "Tanh"), 1u) << name;
  }
}

TEST(OptimizerGeluTanhFusion, NotFusedWhenAnIntermediateIsShared) {
  for (Cube cube : {Cube::kPowFloat, Cube::kSquareTimesX})
    for (const char* shared : {"sq", "cube", "t3", "inner", "arg", "th", "sum", "hx"}) {
      ir::Model m = gelu_tanh_model(20, {cube, Half::kOnX, false});
      if (cube == Cube::kPowFloat && std::string(shared) == "sq") continue;
      m.graph.outputs.push_back({shared, ir::TypeInfo::tensor(DataType::kFloat), ""});
      const ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
      EXPECT_EQ(count_ops(out, "Gelu"), 0u) << shared;
    }
}

TEST(OptimizerGeluTanhFusion, NotFusedWhenTheCubeIsOfAnotherValue) {
  // x + 0.044715 z^3 with z != x is not GELU.
  ir::Model m = gelu_tanh_model(20, {});
  m.graph.inputs.push_back(float_model(20, {{"z", Shape{4, 6}}}, {}).graph.inputs[0]);
  // Pow(z, 3). (A string built, not a literal: a literal trips GCC 12's -Wrestrict.)
  m.graph.nodes[0].inputs[0] = std::string(1, 'z');
  const ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
  EXPECT_EQ(count_ops(out, "Gelu"), 0u);
}

// fuse_bias_gelu makes BiasGelu (the exact form) only: a bias Add before a
// tanh Gelu stays an Add (or goes into the MatMul) and the Gelu keeps its form.
TEST(OptimizerGeluTanhFusion, BiasGeluDeclinesTheTanhForm) {
  ir::Model m = float_model(20, {{"h", Shape{4, 5}}}, {"y"});
  m.graph.initializers["w"] = random_floats(Shape{5, 6}, 3);
  m.graph.initializers["b"] = random_floats(Shape{6}, 4);
  m.graph.nodes.push_back(op("MatMul", {"h", "w"}, {"mm"}));
  m.graph.nodes.push_back(op("Add", {"mm", "b"}, {"x"}));
  ir::Model g = gelu_tanh_model(20, {});
  for (auto& [k, t] : g.graph.initializers) m.graph.initializers[k] = t;
  for (auto& n : g.graph.nodes) m.graph.nodes.push_back(n);
  const ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll);
  EXPECT_EQ(count_ops(out, "BiasGelu"), 0u);
  ASSERT_EQ(count_ops(out, "Gelu"), 1u);
  for (const auto& n : out.graph.nodes)
    if (n.op_type == "Gelu") {
      EXPECT_EQ(n.attr("approximate")->s, "tanh");
    }
}
