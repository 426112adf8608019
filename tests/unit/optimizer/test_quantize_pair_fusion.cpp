// fuse_quantize_pairs: QuantizeLinear(DequantizeLinear(q)) with one scale and
// zero point is q, with a Relu or a Clip between them a Clip of q to the
// quantized bounds; exact.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "optimizer/optimizer.hpp"
#include "optimizer/passes.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {
namespace {

// x -> Q(s1, z1) -> DQ(s1, z1) -> [Relu] -> Q(s2, z2) -> DQ(s2, z2) -> y.
// clip: [lo, hi] of a Clip in the Relu's place (NaN: that bound omitted).
ir::Model pair_model(bool relu, uint8_t z1, float s2, uint8_t z2,
                     std::optional<std::pair<float, float>> clip = std::nullopt) {
  ir::Model m = float_model(13, {{"x", Shape{4, 33}}}, {"y"});
  auto& g = m.graph;
  g.initializers["s1"] = Tensor::scalar<float>(0.04f);
  g.initializers["z1"] = Tensor::scalar<uint8_t>(z1);
  g.initializers["s2"] = Tensor::scalar<float>(s2);
  g.initializers["z2"] = Tensor::scalar<uint8_t>(z2);
  g.nodes.push_back(op("QuantizeLinear", {"x", "s1", "z1"}, {"q1"}));
  g.nodes.push_back(op("DequantizeLinear", {"q1", "s1", "z1"}, {"d1"}));
  if (relu) g.nodes.push_back(op("Relu", {"d1"}, {"r"}));
  if (clip) {
    std::vector<std::string> in = {"d1", "", ""};
    if (!std::isnan(clip->first)) g.initializers[in[1] = "lo"] = Tensor::scalar<float>(clip->first);
    if (!std::isnan(clip->second))
      g.initializers[in[2] = "hi"] = Tensor::scalar<float>(clip->second);
    while (in.back().empty()) in.pop_back();
    g.nodes.push_back(op("Clip", in, {"r"}));
  }
  g.nodes.push_back(op("QuantizeLinear", {relu || clip ? "r" : "d1", "s2", "z2"}, {"q2"}));
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
  // A Relu over zero point 77: Clip(q, 77, 255), same values.
  ir::Model out =
      expect_same_outputs(pair_model(true, 77, 0.04f, 77), GraphOptimizationLevel::kAll, 0);
  EXPECT_EQ(count_ops(out, "Clip"), 1u);
  EXPECT_EQ(count_ops(out, "Relu"), 0u);
}

TEST(OptimizerQuantizePairs, ClipsBecomeIntegerClamps) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Relu6 (MobileNet's), bounds between steps and on a midpoint, one bound
  // omitted, bounds past the type's range (nothing left to do), lo > hi.
  for (auto b : {std::pair{0.0f, 6.0f}, std::pair{-1.01f, 2.345f}, std::pair{-0.1f, 0.1f},
                 std::pair{nan, 1.5f}, std::pair{0.5f, nan}, std::pair{-100.0f, 100.0f},
                 std::pair{2.0f, 1.0f}}) {
    SCOPED_TRACE(std::to_string(b.first) + " " + std::to_string(b.second));
    ir::Model out =
        expect_same_outputs(pair_model(false, 77, 0.04f, 77, b), GraphOptimizationLevel::kAll, 0);
    EXPECT_EQ(count_ops(out, "QuantizeLinear"), 1u);  // only the first
    EXPECT_EQ(count_ops(out, "Clip"), b.first == -100.0f ? 0u : 1u);
  }
  // On other parameters than the pair's, not a clamp: a lookup (below).
  ir::Model out = expect_same_outputs(pair_model(false, 77, 0.05f, 77, std::pair{0.0f, 6.0f}),
                                      GraphOptimizationLevel::kAll, 0);
  EXPECT_EQ(count_ops(out, "QuantizedLookup"), 1u);
}

TEST(OptimizerQuantizePairs, OtherScalesBecomeOneLookup) {
  // Q(act(DQ(q))) on other parameters: one 256-byte table, the same bytes.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (auto [s2, z2] : {std::pair{0.05f, uint8_t(77)}, std::pair{0.04f, uint8_t(78)},
                        std::pair{0.013f, uint8_t(3)}})
    for (int act = 0; act < 4; ++act) {
      SCOPED_TRACE(std::to_string(s2) + " " + std::to_string(z2) + " act " + std::to_string(act));
      std::optional<std::pair<float, float>> clip;
      if (act == 2) clip = std::pair{-0.7f, 1.3f};
      if (act == 3) clip = std::pair{nan, 0.9f};
      ir::Model out = expect_same_outputs(pair_model(act == 1, 77, s2, z2, clip),
                                          GraphOptimizationLevel::kAll, 0);
      EXPECT_EQ(count_ops(out, "QuantizedLookup"), 1u);
      EXPECT_EQ(count_ops(out, "QuantizeLinear"), 1u);  // only the first
      EXPECT_EQ(count_ops(out, "Relu") + count_ops(out, "Clip"), 0u);
    }
}

TEST(OptimizerQuantizePairs, LookupsOnlyInCpuSessions) {
  // Other providers would need the standard ops: the chain stays for them.
  ir::Model m = pair_model(true, 77, 0.05f, 77);
  optimizer::optimize(m, GraphOptimizationLevel::kAll, cpu_folding());
  EXPECT_EQ(count_ops(m, "QuantizedLookup"), 0u);
  EXPECT_EQ(count_ops(m, "Relu"), 1u);
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
