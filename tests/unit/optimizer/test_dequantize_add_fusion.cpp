// fuse_dequantize_add: DequantizeLinear -> Add -> [Relu] -> [QuantizeLinear]
// as one com.tessera DequantizeAdd, with the unfused graph's exact values.
#include <gtest/gtest.h>

#include "optimizer/optimizer.hpp"
#include "optimizer/passes.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {
namespace {

struct Form {
  bool b_quantized = false;  // B dequantized too (else the float input x2)
  bool relu = true;
  bool quantize = true;    // a QuantizeLinear reads the result
  bool float_read = true;  // and the float result is a graph output too
  bool int8 = false;       // int8 zero points (else uint8)
  Shape b_shape = Shape{4, 1030};
};

// x1 -> Q -> DQ -+-> Add -> [Relu] -> r -> [Q -> DQ -> y]
// x2 (-> Q -> DQ) +
ir::Model join_model(const Form& f) {
  std::vector<std::string> outs;
  if (f.quantize) outs.push_back("y");
  if (f.float_read || !f.quantize) outs.push_back("r");
  ir::Model m = float_model(13, {{"x1", Shape{4, 1030}}, {"x2", f.b_shape}}, outs);
  auto& g = m.graph;
  auto zp = [&](int v) {
    return f.int8 ? Tensor::scalar<int8_t>(int8_t(v - 128)) : Tensor::scalar<uint8_t>(uint8_t(v));
  };
  g.initializers["s1"] = Tensor::scalar<float>(0.031f);
  g.initializers["z1"] = zp(120);
  g.initializers["s2"] = Tensor::scalar<float>(0.017f);
  g.initializers["z2"] = zp(140);
  g.initializers["s3"] = Tensor::scalar<float>(0.045f);
  g.initializers["z3"] = zp(60);
  g.nodes.push_back(op("QuantizeLinear", {"x1", "s1", "z1"}, {"q1"}));
  g.nodes.push_back(op("DequantizeLinear", {"q1", "s1", "z1"}, {"d1"}));
  std::string b = "x2";
  if (f.b_quantized) {
    g.nodes.push_back(op("QuantizeLinear", {"x2", "s2", "z2"}, {"q2"}));
    g.nodes.push_back(op("DequantizeLinear", {"q2", "s2", "z2"}, {"d2"}));
    b = "d2";
  }
  g.nodes.push_back(op("Add", {b, "d1"}, {f.relu ? "sum" : "r"}));
  if (f.relu) g.nodes.push_back(op("Relu", {"sum"}, {"r"}));
  if (f.quantize) {
    g.nodes.push_back(op("QuantizeLinear", {"r", "s3", "z3"}, {"q3"}));
    g.nodes.push_back(op("DequantizeLinear", {"q3", "s3", "z3"}, {"y"}));
  }
  return m;
}

TEST(OptimizerDequantizeAdd, EveryFormGivesTheUnfusedValues) {
  for (int bits = 0; bits < 32; ++bits) {
    Form f;
    f.b_quantized = bits & 1;
    f.relu = bits & 2;
    f.quantize = bits & 4;
    f.float_read = bits & 8;
    f.int8 = bits & 16;
    SCOPED_TRACE(bits);
    ir::Model out = expect_same_outputs(join_model(f), GraphOptimizationLevel::kAll, 0);
    EXPECT_EQ(count_ops(out, "DequantizeAdd"), 1u);
    EXPECT_EQ(count_ops(out, "Add") + count_ops(out, "Relu"), 0u);
    // Left: x1's Q (and x2's), and the DQ making y.
    EXPECT_EQ(count_ops(out, "QuantizeLinear"), f.b_quantized ? 2u : 1u);
    EXPECT_EQ(count_ops(out, "DequantizeLinear"), f.quantize ? 1u : 0u);
    for (const auto& n : out.graph.nodes) {
      if (n.op_type != "DequantizeAdd") continue;
      // The float result only where it is read.
      EXPECT_EQ(n.outputs[0].empty(), f.quantize && !f.float_read);
    }
  }
}

TEST(OptimizerDequantizeAdd, BroadcastSidesGiveTheUnfusedValues) {
  for (bool b_quantized : {false, true})
    for (Shape s : {Shape{1, 1030}, Shape{4, 1}, Shape{}}) {
      Form f;
      f.b_quantized = b_quantized;
      f.b_shape = s;
      SCOPED_TRACE(s.to_string());
      ir::Model out = expect_same_outputs(join_model(f), GraphOptimizationLevel::kAll, 0);
      EXPECT_EQ(count_ops(out, "DequantizeAdd"), 1u);
    }
}

TEST(OptimizerDequantizeAdd, OnlyInCpuSessions) {
  ir::Model m = join_model(Form{});
  optimizer::optimize(m, GraphOptimizationLevel::kAll, cpu_folding());
  EXPECT_EQ(count_ops(m, "DequantizeAdd"), 0u);
  EXPECT_EQ(count_ops(m, "Add"), 1u);
}

TEST(OptimizerDequantizeAdd, ADequantizedValueReadElsewhereIsNotFused) {
  ir::Model m = join_model(Form{});
  m.graph.outputs.push_back({"d1", ir::TypeInfo::tensor(DataType::kFloat), ""});
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 0);
  EXPECT_EQ(count_ops(out, "DequantizeAdd"), 0u);
}

}  // namespace
}  // namespace tessera::test
