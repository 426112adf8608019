// A model exported with a dynamic batch gets the fused nodes of its static
// twin: the passes read the ranks and dims they need from partial shapes.
#include <algorithm>

#include "optimizer/optimizer.hpp"
#include "optimizer/passes.hpp"
#include "optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

// Input dims: the batch `b` (a number, or nullopt for the symbol "batch"),
// then `rest`.
ir::TypeInfo batched(std::optional<int64_t> b, std::vector<int64_t> rest) {
  std::vector<ir::Dim> d = {b ? ir::Dim{*b, ""} : ir::Dim{std::nullopt, "batch"}};
  for (int64_t x : rest) d.push_back(ir::Dim{x, ""});
  return ir::TypeInfo::tensor(DataType::kFloat, d);
}

// Attention over a packed projection x [B, S, C] @ W [C, 3*H*D] + bias,
// split three ways without sizes (so the split's width must be known) and
// a layer norm over axis 2 (the last, where the rank is known); then a
// residual block of two convolutions whose second adds the input
// (a Conv with a plain residual, which the blocked layout takes only where
// the residual's rank and channels are known).
ir::Model model(std::optional<int64_t> batch) {
  constexpr int64_t S = 5, H = 2, D = 4, C = 8, HD = H * D, M = 16;
  ir::Model m = float_model(17, {}, {"y", "z"});
  auto& g = m.graph;
  g.inputs.push_back({"x", batched(batch, {S, C}), ""});
  g.inputs.push_back({"img", batched(batch, {M, 6, 6}), ""});
  g.initializers["w"] = random_floats(Shape{C, 3 * HD}, 1);
  g.initializers["b"] = random_floats(Shape{3 * HD}, 2);
  g.initializers["shape4"] = Tensor::from_vector<int64_t>({-1, S, H, D}, Shape{4});
  g.initializers["shape3"] = Tensor::from_vector<int64_t>({-1, S, HD}, Shape{3});
  g.initializers["c"] = Tensor::scalar<float>(2.0f);
  auto& n = g.nodes;
  n.push_back(op("MatMul", {"x", "w"}, {"mm"}));
  n.push_back(op("Add", {"mm", "b"}, {"qkv"}));
  n.push_back(op("Split", {"qkv"}, {"q", "k", "v"}, {attr_i("axis", 2)}));
  for (const char* t : {"q", "k", "v"})
    n.push_back(op("Reshape", {t, "shape4"}, {std::string(t) + "4"}));
  n.push_back(op("Transpose", {"q4"}, {"qt"}, {attr_ints("perm", {0, 2, 1, 3})}));
  n.push_back(op("Transpose", {"k4"}, {"kt"}, {attr_ints("perm", {0, 2, 3, 1})}));
  n.push_back(op("Transpose", {"v4"}, {"vt"}, {attr_ints("perm", {0, 2, 1, 3})}));
  n.push_back(op("MatMul", {"qt", "kt"}, {"qk"}));
  n.push_back(op("Div", {"qk", "c"}, {"scaled"}));
  n.push_back(op("Softmax", {"scaled"}, {"p"}, {attr_i("axis", -1)}));
  n.push_back(op("MatMul", {"p", "vt"}, {"ctx"}));
  n.push_back(op("Transpose", {"ctx"}, {"ct"}, {attr_ints("perm", {0, 2, 1, 3})}));
  n.push_back(op("Reshape", {"ct", "shape3"}, {"att"}));
  // A layer norm spelled out over axis 2, the last where the rank is known.
  g.initializers["two"] = Tensor::scalar<float>(2.0f);
  g.initializers["eps"] = Tensor::scalar<float>(1e-5f);
  g.initializers["gamma"] = random_floats(Shape{HD}, 5, 0.5f, 1.5f);
  g.initializers["beta"] = random_floats(Shape{HD}, 6);
  n.push_back(op("ReduceMean", {"att"}, {"mean"}, {attr_ints("axes", {2})}));
  n.push_back(op("Sub", {"att", "mean"}, {"d"}));
  n.push_back(op("Pow", {"d", "two"}, {"d2"}));
  n.push_back(op("ReduceMean", {"d2"}, {"var"}, {attr_ints("axes", {2})}));
  n.push_back(op("Add", {"var", "eps"}, {"ve"}));
  n.push_back(op("Sqrt", {"ve"}, {"sd"}));
  n.push_back(op("Div", {"d", "sd"}, {"normed"}));
  n.push_back(op("Mul", {"normed", "gamma"}, {"scaled_ln"}));
  n.push_back(op("Add", {"scaled_ln", "beta"}, {"y"}));
  g.initializers["cw1"] = random_floats(Shape{M, M, 3, 3}, 3);
  g.initializers["cw2"] = random_floats(Shape{M, M, 3, 3}, 4);
  n.push_back(op("Conv", {"img", "cw1"}, {"c1"}, {attr_ints("pads", {1, 1, 1, 1})}));
  n.push_back(op("Relu", {"c1"}, {"r1"}));
  n.push_back(op("Conv", {"r1", "cw2"}, {"c2"}, {attr_ints("pads", {1, 1, 1, 1})}));
  n.push_back(op("Add", {"c2", "img"}, {"z"}));
  return m;
}

// The optimized graph's nodes as "domain:op" (plus packed_qkv), sorted.
std::vector<std::string> fused_nodes(ir::Model m) {
  optimize_as_cpu_session(m, GraphOptimizationLevel::kAll);
  std::vector<std::string> out;
  for (const auto& nd : m.graph.nodes)
    out.push_back(nd.domain + ":" + nd.op_type + (nd.attr("packed_qkv") ? "+packed" : ""));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(PartialShapeFusions, DynamicBatchFusesAsItsStaticTwin) {
  const auto static_nodes = fused_nodes(model(2));
  const auto dynamic_nodes = fused_nodes(model(std::nullopt));
  EXPECT_EQ(dynamic_nodes, static_nodes);
  // The twin really is fused: packed attention and a blocked residual conv.
  EXPECT_NE(
      std::find(static_nodes.begin(), static_nodes.end(), "com.tessera:MultiHeadAttention+packed"),
      static_nodes.end());
  EXPECT_EQ(std::count(static_nodes.begin(), static_nodes.end(), ":Split"), 0);
  EXPECT_EQ(std::count(static_nodes.begin(), static_nodes.end(), ":LayerNormalization"), 1);
  EXPECT_GE(std::count(static_nodes.begin(), static_nodes.end(), "com.tessera:NchwcConv"), 2);
  // And the dynamic model computes what it did unoptimized, at two batch sizes.
  SessionOptions plain, opt;
  plain.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  opt.graph_optimization_level = GraphOptimizationLevel::kAll;
  auto a = Session::create_from_model(model(std::nullopt), plain);
  auto b = Session::create_from_model(model(std::nullopt), opt);
  for (int64_t batch : {1, 3}) {
    SCOPED_TRACE(testing::Message() << "batch " << batch);
    const std::vector<std::pair<std::string, Value>> feeds = {
        {"x", Value(random_floats(Shape{batch, 5, 8}, 10))},
        {"img", Value(random_floats(Shape{batch, 16, 6, 6}, 11))}};
    auto ya = a->run(feeds), yb = b->run(feeds);
    ASSERT_EQ(ya.size(), 2u);
    ASSERT_EQ(yb.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      const Tensor& ta = ya[k].tensor();
      const Tensor& tb = yb[k].tensor();
      ASSERT_EQ(ta.shape(), tb.shape()) << "output " << k;
      EXPECT_EQ(ta.shape()[0], batch);
      for (int64_t i = 0; i < ta.num_elements(); ++i) {
        const double x = ta.element_as_double(i), y = tb.element_as_double(i);
        EXPECT_NEAR(x, y, 1e-4 * (1 + std::abs(x))) << "output " << k << " element " << i;
      }
    }
  }
}

// The value_info the static-shape pass records for the dynamic model: the
// batch symbol where the rules pass it through.
TEST(PartialShapeFusions, RecordsPartialShapesWithSymbols) {
  ir::Model m = model(std::nullopt);
  optimizer::infer_static_shapes(m, m.graph);
  auto shape_of = [&](const std::string& v) {
    const ir::ValueInfo* vi = m.graph.find_value_info(v);
    return vi ? vi->type.shape_string() : std::string("none");
  };
  EXPECT_EQ(shape_of("qkv"), "[batch,5,24]");
  EXPECT_EQ(shape_of("qt"), "[batch,2,5,4]");
  EXPECT_EQ(shape_of("p"), "[batch,2,5,5]");
  EXPECT_EQ(shape_of("c2"), "[batch,16,6,6]");
}

// torch's x.size(-1) of a [batch, 7, 4] value: Shape -> Gather folds to 4
// though the batch is unknown, and what reads it folds after; x.size(0)
// stays computed.
TEST(PartialShapeFusions, GatherOfAKnownDimOfAShapeFolds) {
  ir::Model m = float_model(17, {}, {"y", "z"});
  m.graph.inputs.push_back({"x", batched(std::nullopt, {7, 4}), ""});
  m.graph.initializers["last"] = Tensor::scalar<int64_t>(-1);
  m.graph.initializers["first"] = Tensor::from_vector<int64_t>({0}, Shape{1});
  auto& n = m.graph.nodes;
  n.push_back(op("Relu", {"x"}, {"r"}));
  n.push_back(op("Shape", {"r"}, {"s"}));
  n.push_back(op("Gather", {"s", "last"}, {"c"}));
  n.push_back(op("Cast", {"c"}, {"cf"}, {attr_i("to", int64_t(DataType::kFloat))}));
  n.push_back(op("Div", {"r", "cf"}, {"y"}));
  n.push_back(op("Gather", {"s", "first"}, {"b"}));
  n.push_back(op("Concat", {"b", "first"}, {"z"}, {attr_i("axis", 0)}));
  optimizer::fold_constants(m, m.graph, &cpu::cpu_kernel_registry());
  EXPECT_EQ(count_ops(m, "Cast"), 0u);
  ASSERT_TRUE(m.graph.initializers.count("cf"));
  EXPECT_EQ(m.graph.initializers.at("cf").element_as_double(0), 4.0);
  EXPECT_EQ(count_ops(m, "Gather"), 1u);  // the batch: unknown until a run
  EXPECT_EQ(count_ops(m, "Shape"), 1u);
}

// Transposes without perm reverse the dims: with the rank known from a
// partial shape, two of them cancel, and one with a perm composes.
TEST(PartialShapeFusions, TransposesWithoutPermCancelWhereTheRankIsKnown) {
  auto make = [](bool second_perm) {
    ir::Model m = float_model(17, {}, {"y"});
    m.graph.inputs.push_back({"x", batched(std::nullopt, {3, 5}), ""});
    m.graph.nodes.push_back(op("Transpose", {"x"}, {"t1"}));
    std::vector<ir::Attribute> attrs;
    if (second_perm) attrs.push_back(attr_ints("perm", {0, 2, 1}));
    m.graph.nodes.push_back(op("Transpose", {"t1"}, {"t2"}, attrs));
    m.graph.nodes.push_back(op("Relu", {"t2"}, {"y"}));
    return m;
  };
  ir::Model inverse = make(false);
  optimizer::optimize(inverse, GraphOptimizationLevel::kExtended, cpu_folding());
  EXPECT_EQ(count_ops(inverse, "Transpose"), 0u);
  ir::Model composed = make(true);
  optimizer::optimize(composed, GraphOptimizationLevel::kExtended, cpu_folding());
  ASSERT_EQ(count_ops(composed, "Transpose"), 1u);
  for (const auto& n : composed.graph.nodes)
    if (n.op_type == "Transpose") {
      ASSERT_NE(n.attr("perm"), nullptr);
      EXPECT_EQ(n.attr("perm")->ints, (std::vector<int64_t>{2, 0, 1}));
      EXPECT_EQ(n.inputs[0], "x");
    }
  // The composed one computes the pair's result, at batch 2.
  SessionOptions plain, opt;
  plain.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  opt.graph_optimization_level = GraphOptimizationLevel::kExtended;
  const Tensor x = random_floats(Shape{2, 3, 5}, 12);
  auto ya = Session::create_from_model(make(true), plain)->run({{"x", Value(x)}});
  auto yb = Session::create_from_model(make(true), opt)->run({{"x", Value(x)}});
  ASSERT_EQ(ya[0].tensor().shape(), (Shape{5, 2, 3}));
  ASSERT_EQ(yb[0].tensor().shape(), ya[0].tensor().shape());
  for (int64_t i = 0; i < ya[0].tensor().num_elements(); ++i)
    EXPECT_EQ(ya[0].tensor().element_as_double(i), yb[0].tensor().element_as_double(i));
}
