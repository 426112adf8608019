// fuse_quantize_pairs: QuantizeLinear(DequantizeLinear(q)) with one scale and
// zero point is q, with a Relu between them Max(q, zero point); exact.
#include <gtest/gtest.h>

#include "optimizer/optimizer.hpp"
#include "optimizer/passes.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {
namespace {

// x -> Q(s1, z1) -> DQ(s1, z1) -> [Relu] -> Q(s2, z2) -> DQ(s2, z2) -> y.
ir::Model pair_model(bool relu, uint8_t z1, float s2, uint8_t z2) {
  ir::Model m = float_model(13, {{"x", Shape{4, 33}}}, {"y"});
  auto& g = m.graph;
  g.initializers["s1"] = Tensor::scalar<float>(0.04f);
  g.initializers["z1"] = Tensor::scalar<uint8_t>(z1);
  g.initializers["s2"] = Tensor::scalar<float>(s2);
  g.initializers["z2"] = Tensor::scalar<uint8_t>(z2);
  g.nodes.push_back(op("QuantizeLinear", {"x", "s1", "z1"}, {"q1"}));
  g.nodes.push_back(op("DequantizeLinear", {"q1", "s1", "z1"}, {"d1"}));
  if (relu) g.nodes.push_back(op("Relu", {"d1"}, {"r"}));
  g.nodes.push_back(op("QuantizeLinear", {relu ? "r" : "d1", "s2", "z2"}, {"q2"}));
  g.nodes.push_back(op("DequantizeLinear", {"q2", "s2", "z2"}, {"y"}));
  return m;
}

TEST(OptimizerQuantizePairs, RoundTripsVanishExactly) {
  // Without a Relu, and with one over a zero point of 0: q itself.
  for (bool relu : {false, true}) {
    ir::Model out = expect_same_outputs(pair_model(relu, relu ? 0 : 77, 0.04f, relu ? 0 : 77),
                                        GraphOptimizationLevel::kAll, 0);
    EXPECT_EQ(count_ops(out, "Relu"), 0u);
    EXPECT_EQ(count_ops(out, "Max"), 0u);
    EXPECT_EQ(out.graph.nodes.size(), 2u) << relu;  // the first Q and the last DQ
  }
  // A Relu over zero point 77: Max(q, 77), same values.
  ir::Model out =
      expect_same_outputs(pair_model(true, 77, 0.04f, 77), GraphOptimizationLevel::kAll, 0);
  EXPECT_EQ(count_ops(out, "Max"), 1u);
  EXPECT_EQ(count_ops(out, "Relu"), 0u);
}

TEST(OptimizerQuantizePairs, OtherScalesOrZeroPointsStay) {
  for (auto [s2, z2] : {std::pair{0.05f, uint8_t(77)}, std::pair{0.04f, uint8_t(78)}}) {
    ir::Model out =
        expect_same_outputs(pair_model(true, 77, s2, z2), GraphOptimizationLevel::kAll, 0);
    EXPECT_EQ(count_ops(out, "Relu"), 1u);
    EXPECT_EQ(count_ops(out, "QuantizeLinear"), 2u);
  }
}

TEST(OptimizerQuantizePairs, AQuantizedGraphOutputIsKept) {
  ir::Model m = pair_model(false, 77, 0.04f, 77);
  m.graph.outputs.push_back({"q2", ir::TypeInfo::tensor(DataType::kUInt8), ""});
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 0);
  EXPECT_EQ(count_ops(out, "Identity"), 1u);  // q2 still made, from q1
  EXPECT_EQ(count_ops(out, "DequantizeLinear"), 1u);
}

}  // namespace
}  // namespace tessera::test
