// DequantizeLinear -> Conv -> QuantizeLinear -> QLinearConv (fuse_qdq_conv),
// and the same around a MatMul -> QLinearMatMul (fuse_qdq_matmul): fused
// only where the integer form means the same, and then within one
// quantization step of the float form.
#include <gtest/gtest.h>

#include "optimizer/optimizer.hpp"
#include "optimizer/passes.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {
namespace {

Tensor int8_tensor(Shape s, uint64_t seed, int lo = -127, int hi = 127) {
  Tensor t(DataType::kInt8, std::move(s));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.mutable_data<int8_t>()[i] = int8_t(u(rng));
  return t;
}

// x [1, 3, 10, 10] float -> Q -> DQ -> Conv(DQ(w int8 [8, 3, 3, 3], per
// channel), DQ(b int32, scale xs * ws)) -> Q -> y uint8: quantize_static's QDQ.
ir::Model qdq_conv(bool with_bias = true) {
  ir::Model m = float_model(13, {{"x", Shape{1, 3, 10, 10}}}, {});
  m.graph.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kUInt8), ""});
  auto& g = m.graph;
  const float xs = 0.03f;
  Tensor ws(DataType::kFloat, Shape{8});
  Tensor bs(DataType::kFloat, Shape{8});
  Tensor bq(DataType::kInt32, Shape{8});
  for (int64_t c = 0; c < 8; ++c) {
    ws.mutable_data<float>()[c] = 0.002f * float(c + 1);
    bs.mutable_data<float>()[c] = xs * ws.data<float>()[c];
    bq.mutable_data<int32_t>()[c] = int32_t(c * 50 - 200);
  }
  g.initializers["xs"] = Tensor::scalar<float>(xs);
  g.initializers["xzp"] = Tensor::scalar<uint8_t>(128);
  g.initializers["wq"] = int8_tensor(Shape{8, 3, 3, 3}, 9);
  g.initializers["ws"] = ws;
  g.initializers["wzp"] = Tensor(DataType::kInt8, Shape{8});
  for (int64_t c = 0; c < 8; ++c) g.initializers["wzp"].mutable_data<int8_t>()[c] = 0;
  g.initializers["bq"] = bq;
  g.initializers["bs"] = bs;
  g.initializers["ys"] = Tensor::scalar<float>(0.05f);
  g.initializers["yzp"] = Tensor::scalar<uint8_t>(100);
  g.nodes.push_back(op("QuantizeLinear", {"x", "xs", "xzp"}, {"xq"}));
  g.nodes.push_back(op("DequantizeLinear", {"xq", "xs", "xzp"}, {"xd"}));
  g.nodes.push_back(op("DequantizeLinear", {"wq", "ws", "wzp"}, {"wd"}, {attr_i("axis", 0)}));
  g.nodes.push_back(op("DequantizeLinear", {"bq", "bs"}, {"bd"}, {attr_i("axis", 0)}));
  std::vector<std::string> conv_in = {"xd", "wd"};
  if (with_bias) conv_in.push_back("bd");
  g.nodes.push_back(op("Conv", conv_in, {"c"}, {attr_ints("pads", {1, 1, 1, 1})}));
  g.nodes.push_back(op("QuantizeLinear", {"c", "ys", "yzp"}, {"y"}));
  return m;
}

// x [1, 3, 10, 10] float -> Q -> DQ -> MatMul(DQ(w int8 [10, 6], per column
// or per tensor, zero point given or not)) -> Q -> y int8.
ir::Model qdq_matmul(bool per_column, bool weight_zero_point) {
  ir::Model m = float_model(13, {{"x", Shape{1, 3, 10, 10}}}, {});
  m.graph.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kInt8), ""});
  auto& g = m.graph;
  Tensor ws(DataType::kFloat, per_column ? Shape{6} : Shape{});
  for (int64_t c = 0; c < ws.num_elements(); ++c)
    ws.mutable_data<float>()[c] = 0.004f * float(c + 2);
  g.initializers["xs"] = Tensor::scalar<float>(0.03f);
  g.initializers["xzp"] = Tensor::scalar<uint8_t>(128);
  g.initializers["wq"] = int8_tensor(Shape{10, 6}, 11);
  g.initializers["ws"] = ws;
  g.initializers["ys"] = Tensor::scalar<float>(0.02f);
  g.initializers["yzp"] = Tensor::scalar<int8_t>(-3);
  g.nodes.push_back(op("QuantizeLinear", {"x", "xs", "xzp"}, {"xq"}));
  g.nodes.push_back(op("DequantizeLinear", {"xq", "xs", "xzp"}, {"xd"}));
  std::vector<std::string> dw_in = {"wq", "ws"};
  if (weight_zero_point) {
    g.initializers["wzp"] = Tensor(DataType::kInt8, ws.shape());
    for (int64_t c = 0; c < ws.num_elements(); ++c)
      g.initializers["wzp"].mutable_data<int8_t>()[c] = int8_t(c - 2);
    dw_in.push_back("wzp");
  }
  g.nodes.push_back(op("DequantizeLinear", dw_in, {"wd"}, {attr_i("axis", 1)}));
  g.nodes.push_back(op("MatMul", {"xd", "wd"}, {"c"}));
  g.nodes.push_back(op("QuantizeLinear", {"c", "ys", "yzp"}, {"y"}));
  return m;
}

// Runs m at the basic level (QDQ in float) and at all (fused), on one input;
// returns the fused model. Outputs differ by at most one step, and rarely.
ir::Model expect_within_a_step(const ir::Model& m) {
  SessionOptions plain, opt;
  plain.graph_optimization_level = GraphOptimizationLevel::kBasic;
  opt.graph_optimization_level = GraphOptimizationLevel::kAll;
  auto a = Session::create_from_model(m, plain);
  auto b = Session::create_from_model(m, opt);
  std::vector<std::pair<std::string, Value>> feeds = {
      {"x", Value(random_floats(Shape{1, 3, 10, 10}, 3, -3, 3))}};
  const Tensor ya = a->run(feeds)[0].tensor(), yb = b->run(feeds)[0].tensor();
  EXPECT_EQ(ya.shape(), yb.shape());
  int64_t off_by_one = 0;
  for (int64_t i = 0; i < ya.num_elements(); ++i) {
    const double d = std::abs(ya.element_as_double(i) - yb.element_as_double(i));
    EXPECT_LE(d, 1.0) << "element " << i;
    off_by_one += d > 0;
  }
  EXPECT_LE(off_by_one, ya.num_elements() / 50) << "more than 2% of the outputs moved a step";
  return b->model();
}

TEST(OptimizerQdqConvFusion, FusesWithAndWithoutBias) {
  for (bool bias : {true, false}) {
    ir::Model out = expect_within_a_step(qdq_conv(bias));
    EXPECT_EQ(count_ops(out, "QLinearConv"), 1u) << bias;
    EXPECT_EQ(count_ops(out, "Conv"), 0u);
    // The input's QuantizeLinear stays; the DequantizeLinears go.
    EXPECT_EQ(count_ops(out, "DequantizeLinear"), 0u);
    EXPECT_EQ(out.graph.nodes.size(), 2u);
  }
}

TEST(OptimizerQdqConvFusion, LeavesWhatItCannotExpressInIntegers) {
  {  // A bias scale that is not x_scale * w_scale.
    ir::Model m = qdq_conv();
    m.graph.initializers["bs"].mutable_data<float>()[3] *= 1.5f;
    optimize_as_cpu_session(m, GraphOptimizationLevel::kAll);
    EXPECT_EQ(count_ops(m, "QLinearConv"), 0u);
  }
  {  // The float convolution is an output too.
    ir::Model m = qdq_conv();
    m.graph.outputs.push_back({"c", ir::TypeInfo::tensor(DataType::kFloat), ""});
    optimize_as_cpu_session(m, GraphOptimizationLevel::kAll);
    EXPECT_EQ(count_ops(m, "QLinearConv"), 0u);
  }
  {  // Weights that are not constant.
    ir::Model m = qdq_conv();
    m.graph.initializers.erase("wq");
    m.graph.inputs.push_back({"wq", ir::TypeInfo::tensor(DataType::kInt8), ""});
    EXPECT_EQ(cpu::fuse_qdq_conv(m.graph), 0u);
  }
  {  // Per-channel scales on another axis than the output channels.
    ir::Model m = qdq_conv();
    for (auto& n : m.graph.nodes)
      if (n.outputs[0] == "wd") n.attributes = {attr_i("axis", 1)};
    EXPECT_EQ(cpu::fuse_qdq_conv(m.graph), 0u);
  }
  {  // Not without the CPU's fusions (another provider's session).
    ir::Model m = qdq_conv();
    optimizer::optimize(m, GraphOptimizationLevel::kAll, cpu_folding());
    EXPECT_EQ(count_ops(m, "QLinearConv"), 0u);
  }
}

TEST(OptimizerQdqMatMulFusion, FusesPerTensorAndPerColumnWeights) {
  for (bool per_column : {false, true})
    for (bool zero_point : {false, true}) {
      SCOPED_TRACE(std::to_string(per_column) + std::to_string(zero_point));
      ir::Model out = expect_within_a_step(qdq_matmul(per_column, zero_point));
      EXPECT_EQ(count_ops(out, "QLinearMatMul"), 1u);
      EXPECT_EQ(count_ops(out, "MatMul") + count_ops(out, "DequantizeLinear"), 0u);
    }
}

TEST(OptimizerQdqMatMulFusion, LeavesPerRowWeightsAndOtherSessions) {
  {  // Scales along the weights' rows (K): not QLinearMatMul's per-column form.
    ir::Model m = qdq_matmul(false, false);
    m.graph.initializers["ws"] = Tensor(DataType::kFloat, Shape{10});
    for (int64_t k = 0; k < 10; ++k) m.graph.initializers["ws"].mutable_data<float>()[k] = 0.01f;
    for (auto& n : m.graph.nodes)
      if (n.outputs[0] == "wd") n.attributes = {attr_i("axis", 0)};
    EXPECT_EQ(cpu::fuse_qdq_matmul(m.graph), 0u);
  }
  {  // Not without the CPU's fusions.
    ir::Model m = qdq_matmul(true, true);
    optimizer::optimize(m, GraphOptimizationLevel::kAll, cpu_folding());
    EXPECT_EQ(count_ops(m, "QLinearMatMul"), 0u);
  }
}

}  // namespace
}  // namespace tessera::test
