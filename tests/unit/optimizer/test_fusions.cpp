// Each extended / all-level fusion: same outputs as the unoptimized model,
// and the pattern really became the fused node.
#include <cmath>

#include "optimizer/optimizer.hpp"
#include "optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

// y = gelu(x @ w + b), spelled the way torch exports the exact GELU.
ir::Model gelu_model(int64_t opset, bool half_first) {
  ir::Model m = float_model(opset, {{"x", Shape{4, 6}}}, {"y"});
  m.graph.initializers["sqrt2"] = Tensor::scalar<float>(1.4142135f);
  m.graph.initializers["one"] = Tensor::scalar<float>(1.f);
  m.graph.initializers["half"] = Tensor::scalar<float>(0.5f);
  m.graph.nodes.push_back(op("Div", {"x", "sqrt2"}, {"d"}));
  m.graph.nodes.push_back(op("Erf", {"d"}, {"e"}));
  m.graph.nodes.push_back(op("Add", {"one", "e"}, {"a"}));
  if (half_first) {
    m.graph.nodes.push_back(op("Mul", {"x", "half"}, {"h"}));
    m.graph.nodes.push_back(op("Mul", {"h", "a"}, {"y"}));
  } else {
    m.graph.nodes.push_back(op("Mul", {"x", "a"}, {"p"}));
    m.graph.nodes.push_back(op("Mul", {"p", "half"}, {"y"}));
  }
  return m;
}

}  // namespace

TEST(OptimizerGeluFusion, NativeGeluAtOpset20) {
  ir::Model out = expect_same_outputs(gelu_model(20, false), GraphOptimizationLevel::kExtended);
  ASSERT_EQ(out.graph.nodes.size(), 1u);
  EXPECT_EQ(out.graph.nodes[0].op_type, "Gelu");
  EXPECT_EQ(out.graph.nodes[0].domain, "");
}

TEST(OptimizerGeluFusion, InternalGeluBelowOpset20) {
  for (bool half_first : {false, true}) {
    ir::Model out =
        expect_same_outputs(gelu_model(17, half_first), GraphOptimizationLevel::kExtended);
    ASSERT_EQ(out.graph.nodes.size(), 1u);
    EXPECT_EQ(out.graph.nodes[0].op_type, "Gelu");
    EXPECT_EQ(out.graph.nodes[0].domain, "com.tessera");
    EXPECT_EQ(out.opset("com.tessera"), 1);
  }
}

TEST(OptimizerGeluFusion, NotFusedWhenIntermediateIsShared) {
  ir::Model m = gelu_model(17, false);
  m.graph.outputs.push_back({"e", ir::TypeInfo::tensor(DataType::kFloat), ""});
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
  EXPECT_EQ(count_ops(out, "Gelu"), 0u);
  EXPECT_EQ(out.graph.nodes.size(), 5u);
}

TEST(OptimizerGeluFusion, NotFusedWithWrongConstant) {
  ir::Model m = gelu_model(17, false);
  m.graph.initializers["half"] = Tensor::scalar<float>(0.6f);
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
  EXPECT_EQ(count_ops(out, "Gelu"), 0u);
}

namespace {

ir::Model layer_norm_model(int64_t opset) {
  ir::Model m = float_model(opset, {{"x", Shape{3, 5, 8}}}, {"y"});
  m.graph.initializers["two"] = Tensor::scalar<float>(2.f);
  m.graph.initializers["eps"] = Tensor::scalar<float>(1e-5f);
  m.graph.initializers["gamma"] = random_floats(Shape{8}, 11);
  m.graph.initializers["beta"] = random_floats(Shape{8}, 12);
  std::vector<ir::Attribute> axes;
  std::vector<std::string> mean_in = {"x"}, var_in = {"p"};
  if (opset >= 18) {
    m.graph.initializers["axes"] = Tensor::from_vector<int64_t>({-1}, Shape{1});
    mean_in.push_back("axes");
    var_in.push_back("axes");
  } else {
    axes.push_back(attr_ints("axes", {-1}));
  }
  m.graph.nodes.push_back(op("ReduceMean", mean_in, {"m"}, axes));
  m.graph.nodes.push_back(op("Sub", {"x", "m"}, {"d"}));
  m.graph.nodes.push_back(op("Pow", {"d", "two"}, {"p"}));
  m.graph.nodes.push_back(op("ReduceMean", var_in, {"v"}, axes));
  m.graph.nodes.push_back(op("Add", {"v", "eps"}, {"ve"}));
  m.graph.nodes.push_back(op("Sqrt", {"ve"}, {"s"}));
  m.graph.nodes.push_back(op("Div", {"d", "s"}, {"n"}));
  m.graph.nodes.push_back(op("Mul", {"n", "gamma"}, {"g"}));
  m.graph.nodes.push_back(op("Add", {"g", "beta"}, {"y"}));
  return m;
}

}  // namespace

TEST(OptimizerLayerNormFusion, FusesAtEachOpset) {
  for (int64_t opset : {13, 17, 18}) {
    ir::Model out =
        expect_same_outputs(layer_norm_model(opset), GraphOptimizationLevel::kExtended, 1e-4f);
    ASSERT_EQ(out.graph.nodes.size(), 1u) << "opset " << opset;
    EXPECT_EQ(out.graph.nodes[0].op_type, "LayerNormalization");
    EXPECT_EQ(out.graph.nodes[0].domain, opset >= 17 ? "" : "com.tessera");
  }
}

TEST(OptimizerLayerNormFusion, NotFusedOverOtherAxis) {
  ir::Model m = layer_norm_model(13);
  for (auto& n : m.graph.nodes)
    if (n.op_type == "ReduceMean") n.attributes = {attr_ints("axes", {1})};
  m.graph.initializers["gamma"] = random_floats(Shape{8}, 11);
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended, 1e-4f);
  EXPECT_EQ(count_ops(out, "LayerNormalization"), 0u);
}

TEST(OptimizerMatMulAddFusion, TwoDimensionalBecomesGemm) {
  ir::Model m = float_model(17, {{"x", Shape{5, 7}}}, {"y"});
  m.graph.initializers["w"] = random_floats(Shape{7, 4}, 3);
  m.graph.initializers["b"] = random_floats(Shape{4}, 4);
  m.graph.nodes.push_back(op("MatMul", {"x", "w"}, {"mm"}));
  m.graph.nodes.push_back(op("Add", {"b", "mm"}, {"y"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
  ASSERT_EQ(out.graph.nodes.size(), 1u);
  EXPECT_EQ(out.graph.nodes[0].op_type, "Gemm");
}

TEST(OptimizerMatMulAddFusion, ThreeDimensionalLeftAlone) {
  ir::Model m = float_model(17, {{"x", Shape{2, 5, 7}}}, {"y"});
  m.graph.initializers["w"] = random_floats(Shape{7, 4}, 3);
  m.graph.initializers["b"] = random_floats(Shape{4}, 4);
  m.graph.nodes.push_back(op("MatMul", {"x", "w"}, {"mm"}));
  m.graph.nodes.push_back(op("Add", {"mm", "b"}, {"y"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
  EXPECT_EQ(count_ops(out, "Gemm"), 0u);
}

TEST(OptimizerTransposeReshape, InverseTransposesCancelAndReshapesMerge) {
  ir::Model m = float_model(17, {{"x", Shape{2, 3, 4}}}, {"y", "z"});
  m.graph.initializers["s1"] = Tensor::from_vector<int64_t>({6, 4}, Shape{2});
  m.graph.initializers["s2"] = Tensor::from_vector<int64_t>({4, -1}, Shape{2});
  m.graph.nodes.push_back(op("Transpose", {"x"}, {"t1"}, {attr_ints("perm", {1, 2, 0})}));
  m.graph.nodes.push_back(op("Transpose", {"t1"}, {"t2"}, {attr_ints("perm", {2, 0, 1})}));
  m.graph.nodes.push_back(op("Neg", {"t2"}, {"y"}));
  m.graph.nodes.push_back(op("Transpose", {"x"}, {"u1"}, {attr_ints("perm", {1, 0, 2})}));
  m.graph.nodes.push_back(op("Transpose", {"u1"}, {"u2"}, {attr_ints("perm", {0, 2, 1})}));
  m.graph.nodes.push_back(op("Reshape", {"u2", "s1"}, {"r1"}));
  m.graph.nodes.push_back(op("Reshape", {"r1", "s2"}, {"z"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
  EXPECT_EQ(count_ops(out, "Transpose"), 1u);  // the non-inverse pair composes into one
  EXPECT_EQ(count_ops(out, "Reshape"), 1u);
  EXPECT_EQ(out.graph.nodes.size(), 3u);
}

TEST(OptimizerConvBnFolding, FoldsIntoWeightsAndBias) {
  ir::Model m = float_model(17, {{"x", Shape{1, 3, 6, 6}}}, {"y"});
  m.graph.initializers["w"] = random_floats(Shape{4, 3, 3, 3}, 5);
  m.graph.initializers["b"] = random_floats(Shape{4}, 6);
  m.graph.initializers["gamma"] = random_floats(Shape{4}, 7, 0.5f, 2.f);
  m.graph.initializers["beta"] = random_floats(Shape{4}, 8);
  m.graph.initializers["mean"] = random_floats(Shape{4}, 9);
  m.graph.initializers["var"] = random_floats(Shape{4}, 10, 0.1f, 2.f);
  m.graph.nodes.push_back(op("Conv", {"x", "w", "b"}, {"c"}, {attr_ints("pads", {1, 1, 1, 1})}));
  m.graph.nodes.push_back(op("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"y"},
                             {attr_f("epsilon", 1e-3f)}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-4f, without_nchwc());
  EXPECT_EQ(count_ops(out, "BatchNormalization"), 0u);
  EXPECT_EQ(out.graph.nodes.size(), 1u);
}

TEST(OptimizerActivationFusion, ConvReluConvClipGemmRelu) {
  ir::Model m = float_model(17, {{"x", Shape{1, 2, 5, 5}}}, {"y"});
  m.graph.initializers["w1"] = random_floats(Shape{3, 2, 3, 3}, 5);
  m.graph.initializers["w2"] = random_floats(Shape{3, 3, 1, 1}, 6);
  m.graph.initializers["lo"] = Tensor::scalar<float>(0.f);
  m.graph.initializers["hi"] = Tensor::scalar<float>(0.5f);
  m.graph.initializers["wg"] = random_floats(Shape{27, 4}, 7);
  m.graph.initializers["bg"] = random_floats(Shape{4}, 8);
  m.graph.nodes.push_back(op("Conv", {"x", "w1"}, {"c1"}));
  m.graph.nodes.push_back(op("Relu", {"c1"}, {"r1"}));
  m.graph.nodes.push_back(op("Conv", {"r1", "w2"}, {"c2"}));
  m.graph.nodes.push_back(op("Clip", {"c2", "lo", "hi"}, {"r2"}));
  m.graph.nodes.push_back(op("Flatten", {"r2"}, {"f"}));
  m.graph.nodes.push_back(op("Gemm", {"f", "wg", "bg"}, {"g"}));
  m.graph.nodes.push_back(op("Relu", {"g"}, {"y"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-5f, without_nchwc());
  EXPECT_EQ(count_ops(out, "FusedConv"), 2u);
  EXPECT_EQ(count_ops(out, "FusedGemm"), 1u);
  EXPECT_EQ(count_ops(out, "Relu") + count_ops(out, "Clip"), 0u);
  EXPECT_EQ(out.opset("com.tessera"), 1);
}

// A session whose other providers run com.tessera FusedConv (CUDA) gets the
// Conv fusions, but not FusedGemm, which they do not run.
TEST(OptimizerActivationFusion, SharedFusedConvLeavesGemmAlone) {
  ir::Model m = float_model(17, {{"x", Shape{1, 2, 5, 5}}}, {"y"});
  m.graph.initializers["w1"] = random_floats(Shape{3, 2, 3, 3}, 5);
  m.graph.initializers["wg"] = random_floats(Shape{27, 4}, 7);
  m.graph.nodes.push_back(op("Conv", {"x", "w1"}, {"c1"}));
  m.graph.nodes.push_back(op("Relu", {"c1"}, {"r1"}));
  m.graph.nodes.push_back(op("Flatten", {"r1"}, {"f"}));
  m.graph.nodes.push_back(op("Gemm", {"f", "wg"}, {"g"}));
  m.graph.nodes.push_back(op("Relu", {"g"}, {"y"}));
  optimize_for_shared(m, {"FusedConv"});
  EXPECT_EQ(count_ops(m, "FusedConv"), 1u);
  EXPECT_EQ(count_ops(m, "FusedGemm"), 0u);
  EXPECT_EQ(count_ops(m, "Gemm"), 1u);
  EXPECT_EQ(count_ops(m, "Relu"), 1u);  // the Gemm's
}

TEST(OptimizerActivationFusion, NotFusedWhenConvOutputIsShared) {
  ir::Model m = float_model(17, {{"x", Shape{1, 2, 5, 5}}}, {"y", "c1"});
  m.graph.initializers["w1"] = random_floats(Shape{3, 2, 3, 3}, 5);
  m.graph.nodes.push_back(op("Conv", {"x", "w1"}, {"c1"}));
  m.graph.nodes.push_back(op("Relu", {"c1"}, {"y"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-5f, without_nchwc());
  EXPECT_EQ(count_ops(out, "FusedConv"), 0u);
}

TEST(OptimizerActivationFusion, SkippedWhenOtherProvidersNeedStandardOps) {
  // A session with a non-CPU provider optimizes with cpu_internal_fusions off,
  // so providers that know only standard ops still see Conv and Relu.
  ir::Model m = float_model(17, {{"x", Shape{1, 2, 5, 5}}}, {"y"});
  m.graph.initializers["w1"] = random_floats(Shape{3, 2, 3, 3}, 5);
  m.graph.nodes.push_back(op("Conv", {"x", "w1"}, {"c1"}));
  m.graph.nodes.push_back(op("Relu", {"c1"}, {"y"}));
  ir::Model kept = m;
  optimizer::optimize(kept, GraphOptimizationLevel::kAll, cpu_folding());
  EXPECT_EQ(count_ops(kept, "FusedConv"), 0u);
  EXPECT_EQ(count_ops(kept, "Relu"), 1u);
  optimize_as_cpu_session(m, GraphOptimizationLevel::kAll, without_nchwc());
  EXPECT_EQ(count_ops(m, "FusedConv"), 1u);
}

// The CPU provider's own fusions take Sigmoid, Tanh, HardSigmoid, HardSwish and
// SiLU (x * Sigmoid(x), either operand order; also after a residual Add)
// into the convolution; the result equals the unfused graph's.
TEST(OptimizerActivationFusion, SigmoidFamilyFusesForTheCpu) {
  ir::Model m = float_model(17, {{"x", Shape{1, 3, 6, 6}}}, {"y"});
  uint64_t seed = 20;
  for (const char* w : {"w1", "w2", "w3", "w4", "w5", "w6", "w7"})
    m.graph.initializers[w] = random_floats(Shape{3, 3, 3, 3}, ++seed, -0.5f, 0.5f);
  auto& n = m.graph.nodes;
  auto pads = attr_ints("pads", {1, 1, 1, 1});
  n.push_back(op("Conv", {"x", "w1"}, {"c1"}, {pads}));
  n.push_back(op("Sigmoid", {"c1"}, {"s1"}));
  n.push_back(op("Mul", {"c1", "s1"}, {"a1"}));  // SiLU
  n.push_back(op("Conv", {"a1", "w2"}, {"c2"}, {pads}));
  n.push_back(op("Sigmoid", {"c2"}, {"s2"}));
  n.push_back(op("Mul", {"s2", "c2"}, {"a2"}));  // SiLU, operands swapped
  n.push_back(op("Conv", {"a2", "w3"}, {"c3"}, {pads}));
  n.push_back(op("HardSwish", {"c3"}, {"a3"}));
  n.push_back(op("Conv", {"a3", "w4"}, {"c4"}, {pads}));
  n.push_back(op("HardSigmoid", {"c4"}, {"a4"}, {attr_f("alpha", 0.3f), attr_f("beta", 0.4f)}));
  n.push_back(op("Conv", {"a4", "w5"}, {"c5"}, {pads}));
  n.push_back(op("Add", {"c5", "a3"}, {"r5"}));
  n.push_back(op("Sigmoid", {"r5"}, {"s5"}));
  n.push_back(op("Mul", {"r5", "s5"}, {"a5"}));  // residual, then SiLU
  n.push_back(op("Conv", {"a5", "w6"}, {"c6"}, {pads}));
  n.push_back(op("Tanh", {"c6"}, {"t6"}));
  n.push_back(op("Conv", {"t6", "w7"}, {"c7"}, {pads}));
  n.push_back(op("Sigmoid", {"c7"}, {"y"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-6f, without_nchwc());
  EXPECT_EQ(count_ops(out, "FusedConv"), 7u);
  EXPECT_EQ(out.graph.nodes.size(), 7u);
  std::vector<std::string> acts;
  for (const auto& node : out.graph.nodes)
    acts.push_back(node.attr("activation") ? node.attr("activation")->s : "");
  EXPECT_EQ(acts, (std::vector<std::string>{"Swish", "Swish", "HardSwish", "HardSigmoid", "Swish",
                                            "Tanh", "Sigmoid"}));
  EXPECT_EQ(out.graph.nodes[3].attr("activation_params")->floats, (std::vector<float>{0.3f, 0.4f}));
  EXPECT_EQ(out.graph.nodes[4].inputs.size(), 4u);  // the residual
}

// Not fused: a SiLU whose sigmoid is read elsewhere too, or whose Mul
// squares the sigmoid; and none of the family when other providers share the
// fusions (CUDA's FusedConv runs Relu, LeakyRelu and Clip only).
TEST(OptimizerActivationFusion, SigmoidFamilyLeftWhereItCannotFuse) {
  ir::Model m = float_model(17, {{"x", Shape{1, 3, 6, 6}}}, {"y", "s1"});
  m.graph.initializers["w1"] = random_floats(Shape{3, 3, 1, 1}, 31);
  m.graph.initializers["w2"] = random_floats(Shape{3, 3, 1, 1}, 32);
  m.graph.initializers["w3"] = random_floats(Shape{3, 3, 1, 1}, 33);
  auto& n = m.graph.nodes;
  n.push_back(op("Conv", {"x", "w1"}, {"c1"}));
  n.push_back(op("Sigmoid", {"c1"}, {"s1"}));  // also a graph output
  n.push_back(op("Mul", {"c1", "s1"}, {"a1"}));
  n.push_back(op("Conv", {"a1", "w2"}, {"c2"}));
  n.push_back(op("Sigmoid", {"c2"}, {"s2"}));
  n.push_back(op("Mul", {"s2", "s2"}, {"a2"}));  // not x * sigmoid(x): Conv + Sigmoid fuse
  n.push_back(op("Conv", {"a2", "w3"}, {"c3"}));
  n.push_back(op("HardSwish", {"c3"}, {"y"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-6f, without_nchwc());
  EXPECT_EQ(count_ops(out, "Sigmoid"), 1u);
  EXPECT_EQ(count_ops(out, "Mul"), 2u);
  EXPECT_EQ(count_ops(out, "HardSwish"), 0u);
  EXPECT_EQ(count_ops(out, "FusedConv"), 2u);
  optimize_for_shared(m, {"FusedConv"});
  EXPECT_EQ(count_ops(m, "FusedConv"), 0u);
  EXPECT_EQ(count_ops(m, "HardSwish"), 1u);
}

// A ResNet-style block: conv -> relu -> conv, plus a 1x1 projection of the
// input, added and activated. Each Add takes one of its Conv inputs into a
// FusedConv; the other Conv (the projection) stays and feeds it.
TEST(OptimizerResidualFusion, ConvAddReluBecomesFusedConvWithResidual) {
  ir::Model m = float_model(17, {{"x", Shape{1, 4, 6, 6}}}, {"y", "y2"});
  m.graph.initializers["w1"] = random_floats(Shape{4, 4, 3, 3}, 11);
  m.graph.initializers["b1"] = random_floats(Shape{4}, 12);
  m.graph.initializers["w2"] = random_floats(Shape{4, 4, 3, 3}, 13);
  m.graph.initializers["wp"] = random_floats(Shape{4, 4, 1, 1}, 14);
  m.graph.initializers["lo"] = Tensor::scalar<float>(0.f);
  m.graph.initializers["hi"] = Tensor::scalar<float>(0.3f);
  const auto pad1 = attr_ints("pads", {1, 1, 1, 1});
  m.graph.nodes.push_back(op("Conv", {"x", "w1", "b1"}, {"c1"}, {pad1}));
  m.graph.nodes.push_back(op("Relu", {"c1"}, {"r1"}));
  m.graph.nodes.push_back(op("Conv", {"r1", "w2"}, {"c2"}, {pad1}));  // no bias
  m.graph.nodes.push_back(op("Conv", {"x", "wp"}, {"p"}));
  m.graph.nodes.push_back(op("Add", {"p", "c2"}, {"s"}));
  m.graph.nodes.push_back(op("Relu", {"s"}, {"y"}));
  // A second block whose Add is followed by Clip, with the residual first.
  m.graph.nodes.push_back(op("Conv", {"y", "w2"}, {"c3"}, {pad1}));
  m.graph.nodes.push_back(op("Add", {"y", "c3"}, {"s2"}));
  m.graph.nodes.push_back(op("Clip", {"s2", "lo", "hi"}, {"y2"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-4f, without_nchwc());
  EXPECT_EQ(count_ops(out, "Add"), 0u);
  EXPECT_EQ(count_ops(out, "Relu") + count_ops(out, "Clip"), 0u);
  EXPECT_EQ(count_ops(out, "FusedConv"), 3u);
  EXPECT_EQ(count_ops(out, "Conv"), 1u);
  size_t with_residual = 0;
  for (const auto& n : out.graph.nodes)
    if (n.op_type == "FusedConv" && n.inputs.size() == 4) ++with_residual;
  EXPECT_EQ(with_residual, 2u);
}

// Half-precision Conv + Add + Relu/Clip fuse too: FusedConv computes the half
// types in float (on the CPU, the fallback, as on CUDA) and rounds once.
TEST(OptimizerResidualFusion, HalfPrecisionConvsFuse) {
  ir::Model f = float_model(22, {{"x", Shape{1, 4, 6, 6}}}, {"y", "y2"});
  f.graph.initializers["w1"] = random_floats(Shape{4, 4, 3, 3}, 11);
  f.graph.initializers["b1"] = random_floats(Shape{4}, 12);
  f.graph.initializers["w2"] = random_floats(Shape{4, 4, 3, 3}, 13);
  f.graph.initializers["lo"] = Tensor::scalar<float>(0.f);
  f.graph.initializers["hi"] = Tensor::scalar<float>(6.f);
  const auto pad1 = attr_ints("pads", {1, 1, 1, 1});
  f.graph.nodes.push_back(op("Conv", {"x", "w1", "b1"}, {"c1"}, {pad1}));
  f.graph.nodes.push_back(op("Relu", {"c1"}, {"r1"}));
  f.graph.nodes.push_back(op("Conv", {"r1", "w2"}, {"c2"}, {pad1}));
  f.graph.nodes.push_back(op("Add", {"x", "c2"}, {"s"}));
  f.graph.nodes.push_back(op("Relu", {"s"}, {"y"}));
  f.graph.nodes.push_back(op("Conv", {"y", "w2"}, {"c3"}, {pad1}));
  f.graph.nodes.push_back(op("Clip", {"c3", "lo", "hi"}, {"y2"}));  // ReLU6, half bounds
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16}) {
    const float tol = t == DataType::kFloat16 ? 2e-2f : 1e-1f;
    ir::Model out =
        expect_same_outputs(in_half_type(f, t), GraphOptimizationLevel::kAll, tol, without_nchwc());
    EXPECT_EQ(count_ops(out, "FusedConv"), 3u) << data_type_name(t);
    EXPECT_EQ(count_ops(out, "Add") + count_ops(out, "Relu") + count_ops(out, "Clip"), 0u)
        << data_type_name(t);
  }
}

TEST(OptimizerResidualFusion, BroadcastAddAndSharedConvOutput) {
  // Add of a per-channel constant [4,1,1] (broadcasting) is fused and still
  // right; a Conv whose output is also a graph output is left alone.
  ir::Model m = float_model(17, {{"x", Shape{1, 3, 5, 5}}}, {"y", "c2", "y2"});
  m.graph.initializers["w1"] = random_floats(Shape{4, 3, 3, 3}, 21);
  m.graph.initializers["k"] = random_floats(Shape{4, 1, 1}, 22);
  m.graph.nodes.push_back(op("Conv", {"x", "w1"}, {"c1"}));
  m.graph.nodes.push_back(op("Add", {"c1", "k"}, {"y"}));
  m.graph.nodes.push_back(op("Conv", {"x", "w1"}, {"c2"}));
  m.graph.nodes.push_back(op("Add", {"c2", "c2"}, {"y2"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-4f, without_nchwc());
  EXPECT_EQ(count_ops(out, "FusedConv"), 1u);
  EXPECT_EQ(count_ops(out, "Add"), 1u);
}

TEST(OptimizerResidualFusion, SkippedWhenOtherProvidersNeedStandardOps) {
  ir::Model m = float_model(17, {{"x", Shape{1, 2, 5, 5}}}, {"y"});
  m.graph.initializers["w1"] = random_floats(Shape{2, 2, 1, 1}, 5);
  m.graph.nodes.push_back(op("Conv", {"x", "w1"}, {"c1"}));
  m.graph.nodes.push_back(op("Add", {"c1", "x"}, {"y"}));
  ir::Model kept = m;
  optimizer::optimize(kept, GraphOptimizationLevel::kAll, cpu_folding());
  EXPECT_EQ(count_ops(kept, "Add"), 1u);
  optimize_as_cpu_session(m, GraphOptimizationLevel::kAll, without_nchwc());
  EXPECT_EQ(count_ops(m, "Add"), 0u);
  EXPECT_EQ(count_ops(m, "FusedConv"), 1u);
}

// Half-precision weights fold too (computed in double, rounded once), with
// statistics of another float type as opset 15 allows.
TEST(OptimizerConvBnFolding, FoldsHalfPrecisionWeights) {
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16}) {
    ir::Model m = float_model(17, {{"x", Shape{1, 3, 6, 6}}}, {"y"});
    m.opset_imports[0].version = 22;  // Conv takes bfloat16 from opset 22
    auto as = [&](const Tensor& f) { return to_half(f, t); };
    m.graph.initializers["w"] = as(random_floats(Shape{4, 3, 3, 3}, 5));
    m.graph.initializers["b"] = as(random_floats(Shape{4}, 6));
    m.graph.initializers["gamma"] = as(random_floats(Shape{4}, 7, 0.5f, 2.f));
    m.graph.initializers["beta"] = as(random_floats(Shape{4}, 8));
    m.graph.initializers["mean"] = random_floats(Shape{4}, 9);  // float32 statistics
    m.graph.initializers["var"] = random_floats(Shape{4}, 10, 0.1f, 2.f);
    m.graph.nodes.push_back(op("Cast", {"x"}, {"xh"}, {attr_int("to", int64_t(t))}));
    m.graph.nodes.push_back(op("Conv", {"xh", "w", "b"}, {"c"}, {attr_ints("pads", {1, 1, 1, 1})}));
    m.graph.nodes.push_back(op("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"yh"},
                               {attr_f("epsilon", 1e-3f)}));
    m.graph.nodes.push_back(op("Cast", {"yh"}, {"y"}, {attr_int("to", 1)}));
    // One rounding of the folded weights instead of the BatchNormalization's
    // rounding of its output: equal within the type's precision.
    const float tol = t == DataType::kFloat16 ? 1e-2f : 6e-2f;
    ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, tol, without_nchwc());
    EXPECT_EQ(count_ops(out, "BatchNormalization"), 0u) << data_type_name(t);
    EXPECT_EQ(count_ops(out, "Conv"), 1u) << data_type_name(t);
  }
}
