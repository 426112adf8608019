// MatMulInteger -> Cast -> Mul (-> Add) -> com.tessera MatMulIntegerToFloat:
// fused where the scale stays rank 0/1 and the zero points are simple, with
// the same outputs (the packed GEMM dequantizes exactly as the three nodes).
#include <gtest/gtest.h>

#include "optimizer/optimizer.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {
namespace {

Tensor int8_weights(Shape s, uint64_t seed) {
  Tensor t(DataType::kInt8, std::move(s));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(-127, 127);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.mutable_data<int8_t>()[i] = int8_t(u(rng));
  return t;
}

// x [2, 5, 24] -> DynamicQuantizeLinear -> MatMulInteger(W int8 [24, 40]) ->
// Cast -> Mul(x_scale * w_scale) -> Add(bias) -> y: quantize_dynamic's graph.
// w_scale has `scale_dims` (rank 0 or 1 fuse, rank 2 must not).
ir::Model quantized_linear(std::vector<int64_t> scale_dims, bool with_bias) {
  ir::Model m = float_model(13, {{"x", Shape{2, 5, 24}}}, {"y"});
  auto& g = m.graph;
  g.initializers["w"] = int8_weights(Shape{24, 40}, 3);
  g.initializers["wzp"] = Tensor::scalar<int8_t>(0);
  g.initializers["ws"] = random_floats(Shape(scale_dims), 4, 0.001f, 0.01f);
  g.initializers["bias"] = random_floats(Shape{40}, 5);
  g.nodes.push_back(op("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xzp"}));
  g.nodes.push_back(op("MatMulInteger", {"xq", "w", "xzp", "wzp"}, {"acc"}));
  g.nodes.push_back(op("Cast", {"acc"}, {"accf"}, {attr_i("to", 1)}));
  g.nodes.push_back(op("Mul", {"xs", "ws"}, {"s"}));
  g.nodes.push_back(op("Mul", {"accf", "s"},
                       with_bias ? std::vector<std::string>{"p"} : std::vector<std::string>{"y"}));
  if (with_bias) g.nodes.push_back(op("Add", {"bias", "p"}, {"y"}));
  return m;
}

TEST(OptimizerMatMulIntegerFusion, FusesTheDynamicQuantizedLinear) {
  for (bool bias : {false, true})
    for (std::vector<int64_t> scale_dims : {std::vector<int64_t>{}, std::vector<int64_t>{40}}) {
      ir::Model out =
          expect_same_outputs(quantized_linear(scale_dims, bias), GraphOptimizationLevel::kAll, 0);
      EXPECT_EQ(count_ops(out, "MatMulIntegerToFloat"), 1u) << bias;
      EXPECT_EQ(count_ops(out, "MatMulInteger"), 0u);
      EXPECT_EQ(count_ops(out, "Cast"), 0u);
      EXPECT_EQ(count_ops(out, "Add"), 0u);
      // DynamicQuantizeLinear, the scale's Mul, the fused product.
      EXPECT_EQ(out.graph.nodes.size(), 3u);
    }
}

TEST(OptimizerMatMulIntegerFusion, NotFusedWhereTheShapeOrAReaderWouldChange) {
  // A [1, 40] scale broadcasts the product up a rank: left alone.
  ir::Model out =
      expect_same_outputs(quantized_linear({1, 40}, true), GraphOptimizationLevel::kAll, 0);
  EXPECT_EQ(count_ops(out, "MatMulIntegerToFloat"), 0u);
  EXPECT_EQ(count_ops(out, "MatMulInteger"), 1u);
  // The int32 product is also an output: it must stay.
  ir::Model m = quantized_linear({}, true);
  m.graph.outputs.push_back({"acc", ir::TypeInfo::tensor(DataType::kInt32), ""});
  out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 0);
  EXPECT_EQ(count_ops(out, "MatMulIntegerToFloat"), 0u);
  // Not at the extended level (a CPU-internal op).
  out = expect_same_outputs(quantized_linear({}, true), GraphOptimizationLevel::kExtended, 0);
  EXPECT_EQ(count_ops(out, "MatMulIntegerToFloat"), 0u);
}

TEST(OptimizerMatMulIntegerFusion, ABiasOfAnotherWidthStaysAnAdd) {
  ir::Model m = quantized_linear({}, true);
  m.graph.initializers["bias"] = random_floats(Shape{1}, 6);  // broadcasts: not the fused form
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 0);
  EXPECT_EQ(count_ops(out, "MatMulIntegerToFloat"), 1u);
  EXPECT_EQ(count_ops(out, "Add"), 1u);
}

}  // namespace
}  // namespace tessera::test
