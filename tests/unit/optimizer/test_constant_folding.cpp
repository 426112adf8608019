#include "optimizer/optimizer.hpp"
#include "optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

TEST(OptimizerConstantFolding, FoldsConstantSubgraphAndShapes) {
  // w2 = (w * 2) reshaped to [4, 3] by a Shape-derived target; y = x @ w2^T.
  ir::Model m = float_model(17, {{"x", Shape{2, 3}}}, {"y"});
  m.graph.initializers["w"] = random_floats(Shape{12}, 1);
  m.graph.initializers["two"] = Tensor::scalar<float>(2.f);
  m.graph.initializers["target"] = Tensor::from_vector<int64_t>({4, 3}, Shape{2});
  ir::Node c;
  c = op("Constant", {}, {"k"});
  ir::Attribute value;
  value.name = "value";
  value.type = ir::AttrType::kTensor;
  value.t = Tensor::scalar<float>(0.5f);
  c.attributes.push_back(value);
  m.graph.nodes.push_back(c);
  m.graph.nodes.push_back(op("Mul", {"w", "two"}, {"w2"}));
  m.graph.nodes.push_back(op("Add", {"w2", "k"}, {"w3"}));
  m.graph.nodes.push_back(op("Shape", {"x"}, {"xs"}));  // static: folds
  m.graph.nodes.push_back(op("Reshape", {"w3", "target"}, {"w4"}));
  m.graph.nodes.push_back(op("Transpose", {"w4"}, {"wt"}, {attr_ints("perm", {1, 0})}));
  m.graph.nodes.push_back(op("MatMul", {"x", "wt"}, {"mm"}));
  m.graph.nodes.push_back(op("Cast", {"xs"}, {"xsf"}, {attr_i("to", 1)}));
  m.graph.nodes.push_back(op("ReduceSum", {"xsf"}, {"n"}, {attr_i("keepdims", 0)}));
  m.graph.nodes.push_back(op("Add", {"mm", "n"}, {"y"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kBasic);
  // Only the MatMul and the final Add read the run-time input.
  EXPECT_EQ(out.graph.nodes.size(), 2u);
  EXPECT_EQ(count_ops(out, "MatMul"), 1u);
  EXPECT_EQ(count_ops(out, "Shape"), 0u);
}

TEST(OptimizerConstantFolding, LeavesRandomOpsAndOverridableInitializers) {
  ir::Model m = float_model(17, {{"x", Shape{3}}}, {"y"});
  // "b" is also a graph input: it may be overridden, so it is no constant.
  m.graph.inputs.push_back(
      {"b", ir::TypeInfo::tensor(DataType::kFloat, std::vector<ir::Dim>{ir::Dim{3, ""}}), ""});
  m.graph.initializers["b"] = random_floats(Shape{3}, 2);
  m.graph.initializers["c"] = random_floats(Shape{3}, 3);
  m.graph.nodes.push_back(op("Neg", {"b"}, {"nb"}));
  m.graph.nodes.push_back(op("RandomUniformLike", {"c"}, {"r"}));
  m.graph.nodes.push_back(op("Mul", {"r", "nb"}, {"z"}));
  m.graph.nodes.push_back(op("Add", {"x", "nb"}, {"s"}));
  m.graph.nodes.push_back(op("Sub", {"s", "z"}, {"y"}));
  SessionOptions o;
  auto s = Session::create_from_model(m, o);
  EXPECT_EQ(s->model().graph.nodes.size(), 5u);
}

// A Pad of nothing goes (torch writes one before DenseNet's average pools);
// one with a nonzero pad, or with pads a caller may override, stays.
TEST(OptimizerIdentityElimination, PadOfNothingGoes) {
  ir::Model m = float_model(17, {{"x", Shape{1, 2, 3, 3}}}, {"y", "z", "u"});
  m.graph.inputs.push_back(
      {"pu", ir::TypeInfo::tensor(DataType::kInt64, std::vector<ir::Dim>{ir::Dim{8, ""}}), ""});
  m.graph.initializers["p0"] = Tensor::from_vector<int64_t>({0, 0, 0, 0, 0, 0, 0, 0}, Shape{8});
  m.graph.initializers["p1"] = Tensor::from_vector<int64_t>({0, 0, 1, 0, 0, 0, 0, 0}, Shape{8});
  m.graph.initializers["pu"] = Tensor::from_vector<int64_t>({0, 0, 0, 0, 0, 0, 0, 0}, Shape{8});
  m.graph.nodes.push_back(op("Pad", {"x", "p0"}, {"a"}));
  m.graph.nodes.push_back(op("Relu", {"a"}, {"y"}));
  m.graph.nodes.push_back(op("Pad", {"x", "p1"}, {"z"}));
  m.graph.nodes.push_back(op("Pad", {"x", "pu"}, {"u"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kBasic);
  EXPECT_EQ(count_ops(out, "Pad"), 2u);
  EXPECT_EQ(out.graph.nodes[0].op_type, "Relu");
  EXPECT_EQ(out.graph.nodes[0].inputs[0], "x");
}

// torch exports Dropout with a ratio, a constant training_mode (false, or
// true with ratio 0) and a mask nobody reads: it goes. One whose mask is read, or whose
// training_mode is true or may be overridden, stays.
TEST(OptimizerIdentityElimination, InferenceDropoutGoes) {
  ir::Model m = float_model(17, {{"x", Shape{2, 3}}}, {"y", "z", "w", "mk"});
  m.graph.inputs.push_back(
      {"tu", ir::TypeInfo::tensor(DataType::kBool, std::vector<ir::Dim>{}), ""});
  m.graph.initializers["ratio"] = Tensor::scalar<float>(0.1f);
  m.graph.initializers["off"] = Tensor::from_vector<bool>({false}, Shape{});
  m.graph.initializers["on"] = Tensor::from_vector<bool>({true}, Shape{});
  m.graph.initializers["tu"] = Tensor::from_vector<bool>({false}, Shape{});
  m.graph.nodes.push_back(op("Dropout", {"x", "ratio", "off"}, {"a", "unused_mask"}));
  m.graph.nodes.push_back(op("Relu", {"a"}, {"y"}));
  m.graph.nodes.push_back(op("Dropout", {"x", "ratio", "off"}, {"b", "mk"}));
  m.graph.nodes.push_back(op("Neg", {"b"}, {"z"}));
  m.graph.nodes.push_back(op("Dropout", {"x", "ratio", "tu"}, {"c"}));
  m.graph.nodes.push_back(op("Sigmoid", {"c"}, {"w"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kBasic);
  EXPECT_EQ(count_ops(out, "Dropout"), 2u);
  EXPECT_EQ(out.graph.nodes[0].op_type, "Relu");
  EXPECT_EQ(out.graph.nodes[0].inputs[0], "x");
  m.graph.nodes[0].inputs[2] = "on";  // training: dropping at random, so not compared
  ir::Model kept = m;
  optimizer::optimize(kept, GraphOptimizationLevel::kBasic, cpu_folding());
  EXPECT_EQ(count_ops(kept, "Dropout"), 3u);
  // Training with a ratio of exactly 0 keeps everything, unscaled.
  m.graph.initializers["zero"] = Tensor::scalar<float>(0.f);
  m.graph.nodes[0].inputs[1] = "zero";
  ir::Model gone = expect_same_outputs(m, GraphOptimizationLevel::kBasic);
  EXPECT_EQ(count_ops(gone, "Dropout"), 2u);
}
