// Static shapes: every rule against what the kernels produce, and the
// folding they allow (Shape of an activation, and the arithmetic after it),
// which stops at symbolic dims.
#include "optimizer/optimizer.hpp"
#include "optimizer/passes.hpp"
#include "optimizer/shape_inference.hpp"
#include "optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

Tensor ints(std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return Tensor::from_vector<int64_t>(v, Shape{n});
}

// One node per rule, each output a graph output; inputs x [2, 3, 8, 8] and
// s [4, 6].
ir::Model rules_model() {
  ir::Model m = float_model(18, {{"x", Shape{2, 3, 8, 8}}, {"s", Shape{4, 6}}}, {});
  auto& in = m.graph.initializers;
  in["w"] = random_floats(Shape{5, 3, 3, 3}, 1);
  in["wm"] = random_floats(Shape{6, 7}, 2);
  in["v6"] = random_floats(Shape{6}, 3);
  in["shape"] = ints({0, 3, -1});
  in["axes0"] = ints({0});
  in["axes_neg"] = ints({-1, 1});
  in["starts"] = ints({7, 1});
  in["ends"] = ints({0, 3});
  in["sl_axes"] = ints({3, 1});
  in["steps"] = ints({-2, 1});
  in["split"] = ints({1, 2});
  in["idx"] = Tensor::from_vector<int64_t>({0, 2, 1, 1}, Shape{2, 2});
  in["target"] = ints({3, 4, 1});
  in["reps"] = ints({1, 2});
  in["pads"] = ints({0, 1, 2, 0, 0, 3, 0, 1});
  in["red_axes"] = ints({1, -1});
  in["cos"] = ints({2, 5});
  in["one"] = Tensor::scalar<float>(1.f);
  auto& n = m.graph.nodes;
  auto node = [&](ir::Node nd) {
    for (const auto& o : nd.outputs)
      m.graph.outputs.push_back({o, ir::TypeInfo::tensor(DataType::kUndefined), ""});
    n.push_back(std::move(nd));
  };
  node(op("Relu", {"x"}, {"relu"}));
  node(op("Add", {"s", "v6"}, {"add"}));
  node(op("Where", {"cond", "s", "one"}, {"where"}));
  node(op("MatMul", {"s", "wm"}, {"mm"}));
  node(op("MatMul", {"v6", "wm"}, {"mm_vec"}));
  node(op("Gemm", {"s", "s"}, {"gemm"}, {attr_i("transB", 1)}));
  node(op("Conv", {"x", "w"}, {"conv_same"},
          {attr_string("auto_pad", "SAME_UPPER"), attr_ints("strides", {2, 3})}));
  node(op("Conv", {"x", "w"}, {"conv_pads"},
          {attr_ints("pads", {1, 0, 2, 1}), attr_ints("dilations", {2, 1})}));
  node(op("MaxPool", {"x"}, {"maxpool"},
          {attr_ints("kernel_shape", {3, 2}), attr_ints("strides", {2, 2})}));
  node(op("AveragePool", {"x"}, {"avgpool"},
          {attr_ints("kernel_shape", {2, 2}), attr_string("auto_pad", "VALID")}));
  node(op("GlobalAveragePool", {"x"}, {"gap"}));
  node(op("Transpose", {"x"}, {"tr"}, {attr_ints("perm", {0, 2, 3, 1})}));
  node(op("Transpose", {"s"}, {"tr_default"}));
  node(op("Reshape", {"x", "shape"}, {"reshape"}));
  node(op("Flatten", {"x"}, {"flatten"}, {attr_i("axis", 2)}));
  node(op("Unsqueeze", {"s", "axes_neg"}, {"unsq"}));
  node(op("Squeeze", {"unsq", "axes_neg"}, {"sq"}));
  node(op("Concat", {"s", "s", "add"}, {"concat"}, {attr_i("axis", -2)}));
  node(op("Slice", {"x", "starts", "ends", "sl_axes", "steps"}, {"slice"}));
  node(op("Split", {"x", "split"}, {"split_a", "split_b"}, {attr_i("axis", 1)}));
  node(op("Gather", {"x", "idx"}, {"gather"}, {attr_i("axis", 2)}));
  node(op("Shape", {"x"}, {"shape_of"}, {attr_i("start", 1), attr_i("end", -1)}));
  node(op("Size", {"x"}, {"size_of"}));
  node(op("Expand", {"v6", "target"}, {"expand"}));
  node(op("Tile", {"s", "reps"}, {"tile"}));
  node(op("Pad", {"x", "pads"}, {"pad"}));
  node(op("ReduceMean", {"x", "red_axes"}, {"rmean"}, {attr_i("keepdims", 0)}));
  node(op("ReduceSum", {"x"}, {"rsum"}));
  node(op("ArgMax", {"x"}, {"argmax"}, {attr_i("axis", -2)}));
  node(op("ConstantOfShape", {"cos"}, {"cos_out"}));
  node(op("Softmax", {"s"}, {"softmax"}));
  // "cond": a bool computed from s, for Where above (nodes run in order of
  // their inputs, the list order is what the walk sees).
  n.insert(n.begin(), op("Greater", {"s", "one"}, {"cond"}));
  return m;
}

}  // namespace

// Every recorded shape is the one the kernel produces.
TEST(ShapeInference, RulesMatchTheKernels) {
  const ir::Model m = rules_model();
  optimizer::ShapeInferrer inf(m, m.graph);
  for (const auto& n : m.graph.nodes) inf.visit(n);
  SessionOptions plain;
  plain.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto s = Session::create_from_model(m, plain);
  auto y = s->run({{"x", Value(random_floats(Shape{2, 3, 8, 8}, 5))},
                   {"s", Value(random_floats(Shape{4, 6}, 6))}});
  ASSERT_EQ(y.size(), m.graph.outputs.size());
  size_t checked = 0;
  for (size_t k = 0; k < y.size(); ++k) {
    const std::string& name = m.graph.outputs[k].name;
    const auto* d = inf.dims(name);
    ASSERT_NE(d, nullptr) << name << " has no inferred shape";
    EXPECT_EQ(Shape(*d), y[k].tensor().shape()) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 32u);
}

// Shapes the rules cannot be sure of stay unknown: a symbolic dim, a
// Reshape to a computed shape, an invalid MatMul, products that overflow. A
// pool with ceil_mode is known: its rule is the one its kernel sizes with.
TEST(ShapeInference, UnsureStaysUnknown) {
  ir::Model m = float_model(18, {{"x", Shape{2, 3, 8, 8}}, {"s", Shape{4, 6}}}, {"y"});
  std::vector<ir::Dim> sym = {ir::Dim{std::nullopt, "batch"}, ir::Dim{6, ""}};
  m.graph.inputs.push_back({"b", ir::TypeInfo::tensor(DataType::kFloat, sym), ""});
  m.graph.initializers["w"] = random_floats(Shape{5, 5}, 1);
  auto& n = m.graph.nodes;
  n.push_back(op("Relu", {"b"}, {"sym"}));
  n.push_back(op("Shape", {"s"}, {"sh"}));
  n.push_back(op("Reshape", {"x", "sh"}, {"computed"}));
  n.push_back(op(
      "MaxPool", {"x"}, {"ceil"},
      {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}), attr_i("ceil_mode", 1)}));
  n.push_back(op("MatMul", {"s", "w"}, {"bad"}));
  // Declared dims whose products overflow int64: no shape, and no UB.
  const int64_t big = int64_t(1) << 40;
  std::vector<ir::Dim> huge = {ir::Dim{big, ""}, ir::Dim{big, ""}};
  m.graph.inputs.push_back({"h", ir::TypeInfo::tensor(DataType::kFloat, huge), ""});
  m.graph.initializers["reps"] = Tensor::from_vector<int64_t>({big, 1}, Shape{2});
  n.push_back(op("Flatten", {"h"}, {"flat"}, {attr_i("axis", 2)}));
  n.push_back(op("Tile", {"h", "reps"}, {"tiled"}));
  optimizer::ShapeInferrer inf(m, m.graph);
  for (const auto& nd : m.graph.nodes) inf.visit(nd);
  EXPECT_EQ(inf.dims("sym"), nullptr);
  EXPECT_NE(inf.dims("sh"), nullptr);
  EXPECT_EQ(inf.dims("computed"), nullptr);  // sh is not a constant (yet)
  ASSERT_NE(inf.dims("ceil"), nullptr);
  EXPECT_EQ(*inf.dims("ceil"), (std::vector<int64_t>{2, 3, 4, 4}));
  EXPECT_EQ(inf.dims("bad"), nullptr);
  EXPECT_EQ(inf.dims("flat"), nullptr);
  EXPECT_EQ(inf.dims("tiled"), nullptr);
}

// torch's shape arithmetic: Shape of an activation -> Gather -> Div ->
// Unsqueeze -> Concat -> Reshape, then a Shape of the reshaped value and a
// Pad by an amount computed from it. All of it folds at the basic level
// (several levels deep, in one optimize), the results unchanged; with a
// symbolic batch the Shape of the activation stays.
TEST(ShapeInference, ShapeArithmeticFolds) {
  auto build = [](bool symbolic) {
    ir::Model m = float_model(18, {{"x", Shape{2, 3, 8, 8}}}, {"y"});
    if (symbolic) (*m.graph.inputs[0].type.shape)[0] = ir::Dim{std::nullopt, "n"};
    auto& in = m.graph.initializers;
    in["w"] = random_floats(Shape{4, 3, 3, 3}, 1);
    in["i2"] = Tensor::scalar<int64_t>(2);
    in["i0"] = Tensor::scalar<int64_t>(0);
    in["two"] = Tensor::scalar<int64_t>(2);
    in["ax0"] = ints({0});
    in["m1"] = ints({-1});
    in["four"] = ints({4});
    in["z6"] = ints({0, 0, 0, 0, 0, 0});
    auto& n = m.graph.nodes;
    n.push_back(op("Conv", {"x", "w"}, {"c"}, {attr_ints("pads", {1, 1, 1, 1})}));
    n.push_back(op("Shape", {"c"}, {"sh"}));
    n.push_back(op("Gather", {"sh", "i2"}, {"h"}));
    n.push_back(op("Div", {"h", "two"}, {"h2"}));
    n.push_back(op("Unsqueeze", {"h2", "ax0"}, {"h2u"}));
    n.push_back(op("Gather", {"sh", "i0"}, {"nb"}));
    n.push_back(op("Unsqueeze", {"nb", "ax0"}, {"nbu"}));
    n.push_back(op("Concat", {"nbu", "four", "h2u", "m1"}, {"target"}, {attr_i("axis", 0)}));
    n.push_back(op("Reshape", {"c", "target"}, {"r"}));
    n.push_back(op("Shape", {"r"}, {"rs"}, {attr_i("start", -1)}));
    n.push_back(op("Concat", {"z6", "rs", "rs"}, {"pads"}, {attr_i("axis", 0)}));
    n.push_back(op("Pad", {"r", "pads"}, {"y"}));
    return m;
  };
  const ir::Model out = expect_same_outputs(build(false), GraphOptimizationLevel::kBasic);
  EXPECT_EQ(count_ops(out, "Shape"), 0u);
  EXPECT_EQ(count_ops(out, "Concat"), 0u);
  EXPECT_EQ(count_ops(out, "Gather"), 0u);
  EXPECT_EQ(out.graph.nodes.size(), 3u);  // Conv, Reshape, Pad
  ir::Model sym = build(true);
  optimizer::optimize(sym, GraphOptimizationLevel::kBasic, cpu_folding());
  EXPECT_EQ(count_ops(sym, "Shape"), 2u);
}

// infer_static_shapes records the shapes it finds in value_info (not for
// graph inputs or outputs), with their element types.
TEST(ShapeInference, RecordsValueInfo) {
  ir::Model m = float_model(18, {{"x", Shape{2, 3}}}, {"y"});
  m.graph.initializers["w"] = random_floats(Shape{3, 5}, 1);
  m.graph.nodes.push_back(op("MatMul", {"x", "w"}, {"mm"}));
  m.graph.nodes.push_back(op("Shape", {"mm"}, {"sh"}));
  m.graph.nodes.push_back(op("Relu", {"mm"}, {"y"}));
  EXPECT_EQ(optimizer::infer_static_shapes(m, m.graph), 2u);
  const ir::ValueInfo* mm = m.graph.find_value_info("mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->type.elem_type, DataType::kFloat);
  EXPECT_EQ(mm->type.shape_string(), "[2,5]");
  const ir::ValueInfo* sh = m.graph.find_value_info("sh");
  ASSERT_NE(sh, nullptr);
  EXPECT_EQ(sh->type.elem_type, DataType::kInt64);
  EXPECT_EQ(optimizer::infer_static_shapes(m, m.graph), 0u);  // nothing new
}
