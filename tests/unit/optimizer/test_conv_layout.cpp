// choose_conv_layout: ResNet- and MobileNetV2-like blocks run in the blocked
// layout with the same outputs, with exactly the expected reorders, the graph
// outputs under their names, and nothing blocked when the session opts out.
#include <set>

#include "linalg/nchwc.hpp"
#include "optimizer/optimizer.hpp"
#include "optimizer/passes.hpp"
#include "optimizer_test_util.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

ir::Node conv(const std::string& x, const std::string& w, const std::string& b,
              const std::string& y, std::vector<ir::Attribute> attrs = {}) {
  return op("Conv", {x, w, b}, {y}, std::move(attrs));
}

// Conv(3->16, 7x7 s2) + Relu, MaxPool, bottleneck (1x1, 3x3, 1x1) with the
// residual Add + Relu, GlobalAveragePool, Flatten, Gemm.
ir::Model resnet_block() {
  ir::Model m = float_model(13, {{"x", Shape{2, 3, 32, 32}}}, {"logits"});
  auto& in = m.graph.initializers;
  in["w1"] = random_floats(Shape{16, 3, 7, 7}, 1, -0.2f, 0.2f);
  in["b1"] = random_floats(Shape{16}, 2);
  in["w2"] = random_floats(Shape{8, 16, 1, 1}, 3, -0.3f, 0.3f);
  in["b2"] = random_floats(Shape{8}, 4);
  in["w3"] = random_floats(Shape{8, 8, 3, 3}, 5, -0.3f, 0.3f);
  in["b3"] = random_floats(Shape{8}, 6);
  in["w4"] = random_floats(Shape{16, 8, 1, 1}, 7, -0.3f, 0.3f);
  in["b4"] = random_floats(Shape{16}, 8);
  in["wg"] = random_floats(Shape{10, 16}, 9);
  in["bg"] = random_floats(Shape{10}, 10);
  auto& n = m.graph.nodes;
  n.push_back(
      conv("x", "w1", "b1", "c1", {attr_ints("strides", {2, 2}), attr_ints("pads", {3, 3, 3, 3})}));
  n.push_back(op("Relu", {"c1"}, {"r1"}));
  n.push_back(op("MaxPool", {"r1"}, {"p1"},
                 {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
                  attr_ints("pads", {1, 1, 1, 1})}));
  n.push_back(conv("p1", "w2", "b2", "c2"));
  n.push_back(op("Relu", {"c2"}, {"r2"}));
  n.push_back(conv("r2", "w3", "b3", "c3", {attr_ints("pads", {1, 1, 1, 1})}));
  n.push_back(op("Relu", {"c3"}, {"r3"}));
  n.push_back(conv("r3", "w4", "b4", "c4"));
  n.push_back(op("Add", {"c4", "p1"}, {"a"}));
  n.push_back(op("Relu", {"a"}, {"r4"}));
  n.push_back(op("GlobalAveragePool", {"r4"}, {"gap"}));
  n.push_back(op("Flatten", {"gap"}, {"f"}));
  n.push_back(op("Gemm", {"f", "wg", "bg"}, {"logits"}, {attr_i("transB", 1)}));
  return m;
}

// Expand 1x1 + Clip(0, 6), depthwise 3x3 + Clip, project 1x1 with the residual
// Add (24 and 40 channels, not multiples of 16); then a conv that is a graph
// output and one with a Sigmoid. The block output is a graph output too.
ir::Model mobilenet_block() {
  ir::Model m = float_model(13, {{"x", Shape{1, 24, 12, 12}}}, {"y1", "z1", "z2"});
  auto& in = m.graph.initializers;
  in["lo"] = Tensor::scalar<float>(0.f);
  in["hi"] = Tensor::scalar<float>(6.f);
  in["we"] = random_floats(Shape{40, 24, 1, 1}, 11, -0.5f, 0.5f);
  in["be"] = random_floats(Shape{40}, 12);
  in["wd"] = random_floats(Shape{40, 1, 3, 3}, 13, -0.5f, 0.5f);
  in["bd"] = random_floats(Shape{40}, 14);
  in["wp"] = random_floats(Shape{24, 40, 1, 1}, 15, -0.3f, 0.3f);
  in["bp"] = random_floats(Shape{24}, 16);
  in["w5"] = random_floats(Shape{40, 24, 1, 1}, 17, -0.3f, 0.3f);
  in["b5"] = random_floats(Shape{40}, 18);
  in["w6"] = random_floats(Shape{20, 24, 3, 3}, 19, -0.2f, 0.2f);
  in["b6"] = random_floats(Shape{20}, 20);
  auto& n = m.graph.nodes;
  n.push_back(conv("x", "we", "be", "e"));
  n.push_back(op("Clip", {"e", "lo", "hi"}, {"e6"}));
  n.push_back(conv("e6", "wd", "bd", "d", {attr_i("group", 40), attr_ints("pads", {1, 1, 1, 1})}));
  n.push_back(op("Clip", {"d", "lo", "hi"}, {"d6"}));
  n.push_back(conv("d6", "wp", "bp", "p"));
  n.push_back(op("Add", {"p", "x"}, {"y1"}));
  n.push_back(conv("y1", "w5", "b5", "z1", {attr_ints("strides", {2, 2})}));
  n.push_back(conv("y1", "w6", "b6", "s", {attr_ints("pads", {1, 1, 1, 1})}));
  n.push_back(op("Sigmoid", {"s"}, {"z2"}));
  return m;
}

size_t count_domain_ops(const ir::Model& m, const std::string& type) {
  size_t c = 0;
  for (const auto& n : m.graph.nodes) c += n.op_type == type && n.domain == "com.tessera";
  return c;
}

size_t count_nchwc_ops(const ir::Model& m) {
  size_t c = 0;
  for (const auto& n : m.graph.nodes) c += n.op_type.find("Nchwc") != std::string::npos;
  return c;
}

// Every node input is a graph input, an initializer or an earlier output, and
// every graph output is still produced under its name.
void expect_well_formed(const ir::Model& orig, const ir::Model& m) {
  std::set<std::string> known;
  for (const auto& i : m.graph.inputs) known.insert(i.name);
  for (const auto& [k, t] : m.graph.initializers) known.insert(k);
  for (const auto& n : m.graph.nodes) {
    for (const auto& i : n.inputs)
      EXPECT_TRUE(i.empty() || known.count(i))
          << n.describe() << " reads '" << i << "' before it is produced";
    for (const auto& o : n.outputs) EXPECT_TRUE(known.insert(o).second) << "'" << o << "' twice";
  }
  ASSERT_EQ(orig.graph.outputs.size(), m.graph.outputs.size());
  for (size_t i = 0; i < m.graph.outputs.size(); ++i) {
    EXPECT_EQ(orig.graph.outputs[i].name, m.graph.outputs[i].name);
    EXPECT_TRUE(known.count(m.graph.outputs[i].name)) << m.graph.outputs[i].name;
  }
}

// The passes of level all without the layout pass, then the layout pass: what
// optimize() does where the AVX-512 kernels run (the pass itself runs
// anywhere; the kernels have a portable path).
ir::Model with_layout_pass(const ir::Model& m, size_t* converted) {
  ir::Model out = m;
  optimize_as_cpu_session(out, GraphOptimizationLevel::kAll, without_nchwc());
  *converted = cpu::choose_conv_layout(out, out.graph);
  return out;
}

}  // namespace

TEST(ConvLayout, ResNetBlock) {
  const ir::Model m = resnet_block();
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  expect_well_formed(m, out);
  // 4 convs (the stem reads the plain 3-channel input), MaxPool, GlobalAveragePool.
  EXPECT_EQ(converted, 6u);
  EXPECT_EQ(count_domain_ops(out, "NchwcConv"), 4u);
  EXPECT_EQ(count_domain_ops(out, "NchwcMaxPool"), 1u);
  EXPECT_EQ(count_domain_ops(out, "NchwcGlobalAveragePool"), 1u);
  EXPECT_EQ(count_domain_ops(out, "ReorderToNchwc"), 0u);
  EXPECT_EQ(count_domain_ops(out, "ReorderFromNchwc"), 1u);  // for Flatten
  EXPECT_EQ(count_ops(out, "FusedConv") + count_ops(out, "Conv"), 0u);
  for (const auto& n : out.graph.nodes)
    if (n.op_type == "NchwcConv" && n.inputs[0] == "x") {
      ASSERT_NE(n.attr("input_layout"), nullptr);
      EXPECT_EQ(n.attr("input_layout")->i, 0);
    }
  EXPECT_EQ(out.opset("com.tessera"), 1);
  expect_same_as(m, out);
}

TEST(ConvLayout, MobileNetBlock) {
  const ir::Model m = mobilenet_block();
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  expect_well_formed(m, out);
  EXPECT_EQ(converted, 5u);
  EXPECT_EQ(count_domain_ops(out, "NchwcConv"), 5u);
  // x is reordered once, for the expand conv and the project conv's residual.
  EXPECT_EQ(count_domain_ops(out, "ReorderToNchwc"), 1u);
  // y1, z1 and z2 (graph outputs; the Sigmoid is fused into its conv).
  EXPECT_EQ(count_domain_ops(out, "ReorderFromNchwc"), 3u);
  std::set<std::string> plain;
  for (const auto& n : out.graph.nodes)
    if (n.op_type == "ReorderFromNchwc") {
      plain.insert(n.outputs[0]);
      const int64_t want = n.outputs[0] == "y1" ? 24 : n.outputs[0] == "z1" ? 40 : 20;
      EXPECT_EQ(n.attr("channels")->i, want) << n.outputs[0];
    }
  EXPECT_EQ(plain, (std::set<std::string>{"y1", "z1", "z2"}));
  expect_same_as(m, out);
}

// An EfficientNet block: expand + SiLU, depthwise + SiLU, squeeze-excitation
// (pool, 1x1 + SiLU, 1x1 + Sigmoid, x * scale), project, residual. With the
// SiLU and Sigmoid fused into the convolutions and the Mul taking two blocked
// values, the block stays blocked: one reorder in, one out.
TEST(ConvLayout, SqueezeExcitationStaysBlocked) {
  ir::Model m = float_model(17, {{"x", Shape{1, 24, 8, 8}}}, {"y"});
  auto& in = m.graph.initializers;
  in["we"] = random_floats(Shape{40, 24, 1, 1}, 41, -0.5f, 0.5f);
  in["wd"] = random_floats(Shape{40, 1, 3, 3}, 42, -0.5f, 0.5f);
  in["w1"] = random_floats(Shape{10, 40, 1, 1}, 43, -0.5f, 0.5f);
  in["b1"] = random_floats(Shape{10}, 44);
  in["w2"] = random_floats(Shape{40, 10, 1, 1}, 45, -0.5f, 0.5f);
  in["b2"] = random_floats(Shape{40}, 46);
  in["wp"] = random_floats(Shape{24, 40, 1, 1}, 47, -0.3f, 0.3f);
  auto& n = m.graph.nodes;
  auto silu = [&](const std::string& v) {
    n.push_back(op("Sigmoid", {v}, {v + "_s"}));
    n.push_back(op("Mul", {v, v + "_s"}, {v + "_a"}));
  };
  n.push_back(op("Conv", {"x", "we"}, {"e"}));
  silu("e");
  n.push_back(
      op("Conv", {"e_a", "wd"}, {"d"}, {attr_i("group", 40), attr_ints("pads", {1, 1, 1, 1})}));
  silu("d");
  n.push_back(op("GlobalAveragePool", {"d_a"}, {"g"}));
  n.push_back(conv("g", "w1", "b1", "q"));
  silu("q");
  n.push_back(conv("q_a", "w2", "b2", "k"));
  n.push_back(op("Sigmoid", {"k"}, {"sc"}));
  n.push_back(op("Mul", {"d_a", "sc"}, {"se"}));
  n.push_back(op("Conv", {"se", "wp"}, {"p"}));
  n.push_back(op("Add", {"p", "x"}, {"y"}));
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  expect_well_formed(m, out);
  EXPECT_EQ(count_domain_ops(out, "NchwcConv"), 5u);
  EXPECT_EQ(count_domain_ops(out, "ReorderToNchwc"), 1u);
  EXPECT_EQ(count_domain_ops(out, "ReorderFromNchwc"), 1u);  // y
  EXPECT_EQ(count_ops(out, "Sigmoid"), 0u);
  EXPECT_EQ(count_ops(out, "Mul"), 1u);
  expect_same_as(m, out);
}

// A DenseNet block: each layer normalizes the Concat of everything before it
// (BatchNormalization -> Relu -> 1x1 -> BN -> Relu -> 3x3), then a
// transition (BN -> Relu -> 1x1 -> Pad of nothing -> AveragePool). The
// Concats stay blocked, the standalone normalizations become depthwise 1x1
// convolutions: one reorder out, for y. A Concat whose first input does not
// fill whole blocks (z: 24 + 16 channels) is left plain.
TEST(ConvLayout, DenseBlockStaysBlocked) {
  ir::Model m = float_model(17, {{"x", Shape{1, 3, 12, 12}}}, {"y", "z"});
  auto& in = m.graph.initializers;
  uint64_t seed = 60;
  auto bn = [&](const std::string& x, const std::string& y, int64_t c) {
    const std::string p = y + "_";
    in[p + "g"] = random_floats(Shape{c}, ++seed, 0.5f, 1.5f);
    in[p + "b"] = random_floats(Shape{c}, ++seed);
    in[p + "m"] = random_floats(Shape{c}, ++seed);
    in[p + "v"] = random_floats(Shape{c}, ++seed, 0.5f, 2.f);
    m.graph.nodes.push_back(op("BatchNormalization", {x, p + "g", p + "b", p + "m", p + "v"}, {y}));
  };
  in["w0"] = random_floats(Shape{32, 3, 3, 3}, ++seed, -0.5f, 0.5f);
  in["w1"] = random_floats(Shape{32, 32, 1, 1}, ++seed, -0.5f, 0.5f);
  in["w2"] = random_floats(Shape{16, 32, 3, 3}, ++seed, -0.2f, 0.2f);
  in["w3"] = random_floats(Shape{24, 48, 1, 1}, ++seed, -0.3f, 0.3f);
  in["w4"] = random_floats(Shape{16, 48, 1, 1}, ++seed, -0.3f, 0.3f);
  in["zero"] = Tensor::from_vector<int64_t>({0, 0, 0, 0, 0, 0, 0, 0}, Shape{8});
  auto& n = m.graph.nodes;
  auto pads = attr_ints("pads", {1, 1, 1, 1});
  n.push_back(op("Conv", {"x", "w0"}, {"a"}, {pads}));
  bn("a", "an", 32);
  n.push_back(op("Relu", {"an"}, {"ar"}));
  n.push_back(op("Conv", {"ar", "w1"}, {"b"}));
  bn("b", "bn", 32);  // after a Conv: folded into it
  n.push_back(op("Relu", {"bn"}, {"br"}));
  n.push_back(op("Conv", {"br", "w2"}, {"c"}, {pads}));
  n.push_back(op("Concat", {"a", "c"}, {"ac"}, {attr_i("axis", 1)}));  // 32 + 16
  bn("ac", "tn", 48);
  n.push_back(op("Relu", {"tn"}, {"tr"}));
  n.push_back(op("Conv", {"tr", "w3"}, {"t"}));
  n.push_back(op("Pad", {"t", "zero"}, {"tp"}));
  n.push_back(op("AveragePool", {"tp"}, {"y"},
                 {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})}));
  n.push_back(op("Conv", {"ac", "w4"}, {"d"}));
  n.push_back(op("Concat", {"t", "d"}, {"z"}, {attr_i("axis", -3)}));  // 24 + 16: plain
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  expect_well_formed(m, out);
  EXPECT_EQ(count_ops(out, "BatchNormalization"), 0u);
  EXPECT_EQ(count_ops(out, "Pad"), 0u);
  EXPECT_EQ(count_domain_ops(out, "NchwcConv"), 7u);  // 5 convolutions, 2 normalizations
  EXPECT_EQ(count_ops(out, "Relu"), 0u);              // each the epilogue of the conv before it
  EXPECT_EQ(count_domain_ops(out, "NchwcAveragePool"), 1u);
  EXPECT_EQ(count_domain_ops(out, "ReorderToNchwc"), 0u);
  std::set<std::string> plain;
  for (const auto& node : out.graph.nodes)
    if (node.op_type == "ReorderFromNchwc") plain.insert(node.outputs[0]);
  EXPECT_EQ(plain, (std::set<std::string>{"y", "t", "d"}));
  expect_same_as(m, out);
}

TEST(ConvLayout, SessionAtLevelAll) {
  for (const ir::Model& m : {resnet_block(), mobilenet_block()}) {
    const ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-4f);
    expect_well_formed(m, out);
    if (linalg::nchwc::fast_path_available())
      EXPECT_GE(count_domain_ops(out, "NchwcConv") + count_domain_ops(out, "NchwcExpandDepthwise"),
                4u);
    else
      EXPECT_EQ(count_nchwc_ops(out), 0u);  // the layout pays off only with AVX-512
  }
}

TEST(ConvLayout, SessionOptOut) {
  SessionOptions o;
  o.graph_optimization_level = GraphOptimizationLevel::kAll;
  // (built from strings: a literal here trips a GCC 12 -Wrestrict false positive)
  o.config_entries[std::string("session.disable_nchwc")] = std::string(1, '1');
  for (const ir::Model& m : {resnet_block(), mobilenet_block()}) {
    auto s = Session::create_from_model(m, o);
    EXPECT_EQ(count_nchwc_ops(s->model()), 0u);
    EXPECT_GE(count_ops(s->model(), "FusedConv"), 3u);
  }
}

TEST(ConvLayout, LeavesConvWithoutConstantFilter) {
  ir::Model m = float_model(13, {{"x", Shape{1, 16, 6, 6}}, {"w", Shape{16, 16, 3, 3}}}, {"y"});
  m.graph.nodes.push_back(op("Conv", {"x", "w"}, {"c"}));
  m.graph.nodes.push_back(op("Relu", {"c"}, {"y"}));
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  EXPECT_EQ(converted, 0u);
  EXPECT_EQ(count_nchwc_ops(out), 0u);
}

TEST(ConvLayout, ResidualOfUnknownShapeStaysPlain) {
  // The residual is a broadcast [16, 1, 1] constant: it cannot be reordered.
  ir::Model m = float_model(13, {{"x", Shape{1, 16, 6, 6}}}, {"y"});
  m.graph.initializers["w"] = random_floats(Shape{16, 16, 3, 3}, 1);
  m.graph.initializers["z"] = random_floats(Shape{16, 1, 1}, 2);
  m.graph.nodes.push_back(op("Conv", {"x", "w"}, {"c"}, {attr_ints("pads", {1, 1, 1, 1})}));
  m.graph.nodes.push_back(op("Add", {"c", "z"}, {"y"}));
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  EXPECT_EQ(converted, 0u);
  EXPECT_EQ(count_ops(out, "FusedConv"), 1u);
  expect_same_as(m, out);
}

// 3x3 stride-1 layers with wide channels get a Winograd algorithm (F(2x2,
// 3x3), or F(4x4, 3x3) by channel count where the session allows it,
// linalg::nchwc::winograd_tile); strided, dilated and narrow ones stay
// direct; the outputs match the unoptimized graph; and the session options
// turn it off or allow the 4x4 tiles.
ir::Model winograd_block() {
  ir::Model m = float_model(13, {{"x", Shape{1, 32, 9, 11}}}, {"y"});
  auto& in = m.graph.initializers;
  in["w1"] = random_floats(Shape{48, 32, 3, 3}, 1, -0.1f, 0.1f);      // tile 2, or 4
  in["w2"] = random_floats(Shape{160, 48, 3, 3}, 2, -0.1f, 0.1f);     // tile 2, or 4
  in["w3"] = random_floats(Shape{160, 160, 3, 3}, 3, -0.05f, 0.05f);  // tile 2
  in["w4"] = random_floats(Shape{40, 160, 3, 3}, 4, -0.05f, 0.05f);   // strided: direct
  in["w5"] = random_floats(Shape{16, 40, 3, 3}, 5, -0.1f, 0.1f);      // 16 outputs: direct
  for (const char* b : {"b1", "b2", "b3", "b4", "b5"}) in[b] = random_floats(Shape{4}, 6);
  in["b1"] = random_floats(Shape{48}, 7);
  in["b2"] = random_floats(Shape{160}, 8);
  in["b3"] = random_floats(Shape{160}, 9);
  in["b4"] = random_floats(Shape{40}, 10);
  in["b5"] = random_floats(Shape{16}, 11);
  const auto pad1 = attr_ints("pads", {1, 1, 1, 1});
  auto& n = m.graph.nodes;
  n.push_back(conv("x", "w1", "b1", "c1", {pad1}));
  n.push_back(op("Relu", {"c1"}, {"r1"}));
  n.push_back(conv("r1", "w2", "b2", "c2", {attr_ints("pads", {0, 0, 0, 0})}));
  n.push_back(conv("c2", "w3", "b3", "c3", {pad1, attr_ints("strides", {1, 1})}));
  n.push_back(op("Add", {"c3", "c2"}, {"a3"}));
  n.push_back(conv("a3", "w4", "b4", "c4", {pad1, attr_ints("strides", {2, 2})}));
  n.push_back(conv("c4", "w5", "b5", "y", {pad1}));
  return m;
}

// The algorithm of each NchwcConv, in graph order.
std::vector<std::string> algorithms(const ir::Model& m) {
  std::vector<std::string> out;
  for (const auto& n : m.graph.nodes)
    if (n.op_type == "NchwcConv")
      out.push_back(n.attr("algorithm") ? n.attr("algorithm")->s : std::string("direct"));
  return out;
}

TEST(ConvLayout, WinogradForWide3x3Layers) {
  const ir::Model m = winograd_block();
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  expect_well_formed(m, out);
  EXPECT_EQ(algorithms(out), (std::vector<std::string>{"winograd_2x2", "winograd_2x2",
                                                       "winograd_2x2", "direct", "direct"}));
  expect_same_as(m, out);

  // With the 4x4 tiles allowed, the layers whose transformed filters stay
  // cached take them.
  ir::Model fast = m;
  optimize_as_cpu_session(fast, GraphOptimizationLevel::kAll, without_nchwc());
  cpu::choose_conv_layout(fast, fast.graph, true, true);
  const std::vector<std::string> with_4x4{"winograd_4x4", "winograd_4x4", "winograd_2x2", "direct",
                                          "direct"};
  EXPECT_EQ(algorithms(fast), with_4x4);
  expect_same_as(m, fast);
  SessionOptions fast_so;
  fast_so.config_entries[std::string("session.winograd_4x4")] = std::string(1, '1');
  auto fs = Session::create_from_model(m, fast_so);
  EXPECT_EQ(algorithms(fs->model()),
            linalg::nchwc::fast_path_available() ? with_4x4 : std::vector<std::string>{});

  // Opted out, every layer is direct.
  ir::Model off = m;
  optimize_as_cpu_session(off, GraphOptimizationLevel::kAll, without_nchwc());
  cpu::choose_conv_layout(off, off.graph, false);
  EXPECT_EQ(algorithms(off), std::vector<std::string>(5, "direct"));

  SessionOptions so;
  so.config_entries[std::string("session.disable_winograd")] = std::string(1, '1');
  auto s = Session::create_from_model(m, so);
  EXPECT_EQ(algorithms(s->model()),
            std::vector<std::string>(linalg::nchwc::fast_path_available() ? 5 : 0, "direct"));
}

namespace {

// A session of `m` as written (no optimization), run once on a random x of
// `x_shape`, fails with a message naming `node` and containing `says`.
void expect_rejected(const ir::Model& m, const Shape& x_shape, const std::string& node,
                     const std::string& says) {
  SessionOptions so;
  so.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  try {
    auto s = Session::create_from_model(m, so);
    s->run({{"x", Value(random_floats(x_shape, 3))}});
    ADD_FAILURE() << says << ": accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(node), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(ConvLayout, WinogradAttributeIsChecked) {
  // An optimized model carries the algorithm; a wrong one names the node.
  ir::Model m = float_model(13, {{"x", Shape{1, 2, 5, 5, 16}}}, {"y"});
  m.opset_imports.push_back({"com.tessera", 1});
  m.graph.initializers["w"] = random_floats(Shape{32, 32, 3, 3}, 1);
  ir::Attribute a;
  a.name = "algorithm";
  a.type = ir::AttrType::kString;
  for (const char* bad : {"fft", "winograd_4x4"}) {
    a.s = bad;
    ir::Node c = op("NchwcConv", {"x", "w"}, {"y"},
                    {a, attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1})});
    c.domain = "com.tessera";
    c.name = "the_conv";
    m.graph.nodes = {c};
    expect_rejected(m, Shape{1, 2, 5, 5, 16}, "the_conv", "algorithm");
  }
}

// A 1x1 expansion read only by a depthwise 3x3 becomes one
// NchwcExpandDepthwise (named after both); an expansion that is also a
// graph output, or has a second reader, stays apart.
TEST(ConvLayout, ExpandDepthwiseFusion) {
  if (!linalg::nchwc::fast_path_available()) GTEST_SKIP() << "no blocked kernels on this CPU";
  const ir::Model out = expect_same_outputs(mobilenet_block(), GraphOptimizationLevel::kAll, 1e-4f);
  EXPECT_EQ(count_domain_ops(out, "NchwcExpandDepthwise"), 1u);
  for (const auto& n : out.graph.nodes)
    if (n.op_type == "NchwcExpandDepthwise") {
      EXPECT_NE(n.name.find('+'), std::string::npos) << n.name;
      ASSERT_NE(n.attr("dw_activation"), nullptr);
      EXPECT_EQ(n.attr("dw_activation")->s, "Clip");
    }

  for (int variant = 0; variant < 2; ++variant) {
    ir::Model m = float_model(
        13, {{"x", Shape{1, 16, 10, 10}}},
        variant == 0 ? std::vector<std::string>{"e", "y"} : std::vector<std::string>{"y", "z"});
    m.graph.initializers["we"] = random_floats(Shape{32, 16, 1, 1}, 1);
    m.graph.initializers["wd"] = random_floats(Shape{32, 1, 3, 3}, 2);
    m.graph.nodes.push_back(op("Conv", {"x", "we"}, {"e"}));
    m.graph.nodes.push_back(
        op("Conv", {"e", "wd"}, {"y"}, {attr_i("group", 32), attr_ints("pads", {1, 1, 1, 1})}));
    if (variant == 1) m.graph.nodes.push_back(op("Relu", {"e"}, {"z"}));
    const ir::Model o = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-4f);
    EXPECT_EQ(count_domain_ops(o, "NchwcExpandDepthwise"), 0u) << "variant " << variant;
    EXPECT_EQ(count_domain_ops(o, "NchwcConv"), 2u) << "variant " << variant;
  }
}

TEST(ConvLayout, ExpandDepthwiseChecksItsInputs) {
  // A hand-written NchwcExpandDepthwise with a wrong filter, or pads the
  // band computation does not take, is an error naming the node.
  struct Bad {
    Shape w2;
    std::vector<int64_t> pads;
    const char* says;
  };
  const Bad cases[] = {{Shape{32, 1, 5, 5}, {1, 1, 1, 1}, "W2 must be a depthwise 3x3"},
                       {Shape{32, 1, 3, 3}, {3, 3, 3, 3}, "must be at most 2"}};
  for (const Bad& b : cases) {
    ir::Model m = float_model(13, {{"x", Shape{1, 1, 6, 6, 16}}}, {"y"});
    m.opset_imports.push_back({"com.tessera", 1});
    m.graph.initializers["w1"] = random_floats(Shape{32, 16, 1, 1}, 1);
    m.graph.initializers["w2"] = random_floats(b.w2, 2);
    ir::Node n =
        op("NchwcExpandDepthwise", {"x", "w1", "", "w2", ""}, {"y"}, {attr_ints("pads", b.pads)});
    n.domain = "com.tessera";
    n.name = "the_block";
    m.graph.nodes = {n};
    expect_rejected(m, Shape{1, 1, 6, 6, 16}, "the_block", b.says);
  }
}

// Grouped convolutions whose groups are whole blocks (RegNet: 16 channels a
// group; ResNeXt's later stages: 32) run blocked, one dense convolution a
// group, with bias, activation and residual, for a batch of two (the
// threads take (image, group) items whole, or each group's convolution
// when there are few). So do groups of 8 and 4 channels in and out
// (ResNeXt's first stages), as groups of one block with a block-diagonal
// filter; groups of 2, and 4-channel groups that widen to 8, stay plain.
TEST(ConvLayout, GroupsOfWholeBlocks) {
  ir::Model m = float_model(17, {{"x", Shape{2, 64, 9, 9}}}, {"y", "z", "q", "p2", "p3"});
  auto& in = m.graph.initializers;
  in["w1"] = random_floats(Shape{64, 16, 3, 3}, 81, -0.3f, 0.3f);  // 4 groups of 16
  in["b1"] = random_floats(Shape{64}, 82);
  in["w2"] = random_floats(Shape{64, 32, 3, 3}, 83, -0.2f, 0.2f);  // 2 groups of 32
  in["w3"] = random_floats(Shape{64, 8, 1, 1}, 84, -0.3f, 0.3f);   // 8 groups of 8
  in["w4"] = random_floats(Shape{64, 4, 3, 3}, 85, -0.3f, 0.3f);   // 16 groups of 4
  in["b4"] = random_floats(Shape{64}, 86);
  in["w5"] = random_floats(Shape{64, 2, 3, 3}, 87, -0.3f, 0.3f);   // 32 groups of 2: plain
  in["w6"] = random_floats(Shape{128, 4, 3, 3}, 88, -0.3f, 0.3f);  // 4 -> 8 a group: plain
  auto& n = m.graph.nodes;
  auto pads = attr_ints("pads", {1, 1, 1, 1});
  n.push_back(op("Conv", {"x", "w1", "b1"}, {"a"}, {attr_i("group", 4), pads}));
  n.push_back(op("Relu", {"a"}, {"ar"}));
  n.push_back(
      op("Conv", {"ar", "w2"}, {"c"}, {attr_i("group", 2), pads, attr_ints("strides", {2, 2})}));
  n.push_back(op("Conv", {"ar", "w2"}, {"d"}, {attr_i("group", 2), pads}));
  n.push_back(op("Add", {"d", "x"}, {"y"}));  // residual
  n.push_back(op("Conv", {"c", "w3"}, {"z"}, {attr_i("group", 8)}));
  n.push_back(op("Conv", {"ar", "w4", "b4"}, {"q4"},
                 {attr_i("group", 16), pads, attr_ints("strides", {2, 2})}));
  n.push_back(op("Relu", {"q4"}, {"q"}));
  n.push_back(op("Conv", {"ar", "w5"}, {"p2"}, {attr_i("group", 32), pads}));
  n.push_back(op("Conv", {"ar", "w6"}, {"p3"}, {attr_i("group", 16), pads}));
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  expect_well_formed(m, out);
  EXPECT_EQ(count_domain_ops(out, "NchwcConv"), 5u);
  EXPECT_EQ(count_ops(out, "Conv"), 2u);  // the groups of 2, and 4 -> 8
  expect_same_as(m, out);
}

// A hand-written NchwcConv whose groups are not whole blocks is an error
// naming the node, not a wrong result.
TEST(ConvLayout, NchwcConvRejectsPartialBlockGroups) {
  ir::Model m = float_model(13, {{"x", Shape{1, 4, 6, 6, 16}}}, {"y"});
  m.opset_imports.push_back({"com.tessera", 1});
  m.graph.initializers["w"] = random_floats(Shape{64, 8, 3, 3}, 1);
  ir::Node c = op("NchwcConv", {"x", "w"}, {"y"}, {attr_i("group", 8)});
  c.domain = "com.tessera";
  c.name = "the_conv";
  m.graph.nodes = {c};
  expect_rejected(m, Shape{1, 4, 6, 6, 16}, "the_conv", "groups of whole blocks");
}

// A video network's blocks (R3D-18's): a plain-input 3x7x7 stem, 3x3x3
// convolutions with a residual, a strided 3x3x3 beside a strided 1x1x1
// downsample, a channel Concat and the global pool all run blocked in 3-D.
// A 3-D MaxPool and a 3-D depthwise convolution (no 3-D blocked kernels)
// read plain values, and a batch of two goes through.
TEST(ConvLayout, VideoBlockStaysBlocked) {
  ir::Model m = float_model(13, {{"x", Shape{2, 3, 4, 12, 12}}}, {"logits", "mp", "dw"});
  auto& in = m.graph.initializers;
  in["w1"] = random_floats(Shape{16, 3, 3, 7, 7}, 91, -0.1f, 0.1f);
  in["b1"] = random_floats(Shape{16}, 92);
  in["w2"] = random_floats(Shape{16, 16, 3, 3, 3}, 93, -0.1f, 0.1f);
  in["w3"] = random_floats(Shape{32, 16, 3, 3, 3}, 94, -0.1f, 0.1f);
  in["w4"] = random_floats(Shape{32, 16, 1, 1, 1}, 95, -0.3f, 0.3f);
  in["w5"] = random_floats(Shape{16, 1, 3, 3, 3}, 96, -0.3f, 0.3f);  // depthwise
  in["wg"] = random_floats(Shape{10, 64}, 97);
  auto& n = m.graph.nodes;
  auto pads1 = attr_ints("pads", {1, 1, 1, 1, 1, 1});
  auto s2 = attr_ints("strides", {2, 2, 2});
  n.push_back(op("Conv", {"x", "w1", "b1"}, {"c1"},
                 {attr_ints("strides", {1, 2, 2}), attr_ints("pads", {1, 3, 3, 1, 3, 3})}));
  n.push_back(op("Relu", {"c1"}, {"r1"}));
  n.push_back(op("Conv", {"r1", "w2"}, {"c2"}, {pads1}));
  n.push_back(op("Add", {"c2", "r1"}, {"a2"}));
  n.push_back(op("Relu", {"a2"}, {"r2"}));
  n.push_back(op("Conv", {"r2", "w3"}, {"c3"}, {pads1, s2}));
  n.push_back(op("Conv", {"r2", "w4"}, {"c4"}, {s2}));
  n.push_back(op("Concat", {"c3", "c4"}, {"cat"}, {attr_i("axis", -4)}));
  n.push_back(op("GlobalAveragePool", {"cat"}, {"gap"}));
  n.push_back(op("Flatten", {"gap"}, {"f"}));
  n.push_back(op("Gemm", {"f", "wg"}, {"logits"}, {attr_i("transB", 1)}));
  n.push_back(op("MaxPool", {"r2"}, {"mp"}, {attr_ints("kernel_shape", {2, 2, 2}), s2}));
  n.push_back(op("Conv", {"r2", "w5"}, {"dw"}, {attr_i("group", 16), pads1}));
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  expect_well_formed(m, out);
  EXPECT_EQ(count_domain_ops(out, "NchwcConv"), 4u);
  EXPECT_EQ(count_domain_ops(out, "NchwcGlobalAveragePool"), 1u);
  EXPECT_EQ(count_ops(out, "Concat"), 1u);
  EXPECT_EQ(count_ops(out, "MaxPool"), 1u);
  EXPECT_EQ(count_ops(out, "Conv"), 1u);  // the depthwise
  // r2 for the plain readers, and the pooled value for Flatten.
  EXPECT_EQ(count_domain_ops(out, "ReorderFromNchwc"), 2u);
  EXPECT_EQ(count_domain_ops(out, "ReorderToNchwc"), 0u);
  for (const auto& node : out.graph.nodes) {
    if (node.op_type == "Concat") {
      EXPECT_EQ(node.attr("axis")->i, 1);
    }
  }
  expect_same_as(m, out);
}

// Hand-written 3-D NchwcConvs that cannot run are errors naming the node: a
// grouped 3-D filter, and a 3-D filter on a 2-D blocked input.
TEST(ConvLayout, NchwcConv3dChecksItsInputs) {
  auto model = [](const Shape& x, const Shape& w, int64_t group) {
    ir::Model m = float_model(13, {{"x", x}}, {"y"});
    m.opset_imports.push_back({"com.tessera", 1});
    m.graph.initializers["w"] = random_floats(w, 1);
    ir::Node c = op("NchwcConv", {"x", "w"}, {"y"}, {attr_i("group", group)});
    c.domain = "com.tessera";
    c.name = "the_conv";
    m.graph.nodes = {c};
    return m;
  };
  expect_rejected(model(Shape{1, 2, 4, 6, 6, 16}, Shape{32, 16, 3, 3, 3}, 2),
                  Shape{1, 2, 4, 6, 6, 16}, "the_conv", "must have group 1");
  expect_rejected(model(Shape{1, 2, 6, 6, 16}, Shape{32, 32, 3, 3, 3}, 1), Shape{1, 2, 6, 6, 16},
                  "the_conv", "blocked X must be [N, 2, D, H, W, 16]");
}

// ConvNeXt's block: depthwise 7x7 -> permute to NHWC -> LayerNorm -> MLP ->
// permute back -> layer scale ([C, 1, 1]) -> residual. The permutes become
// channels_last reorders, the layer scale and the residual stay blocked,
// and the next block's convolution reads the blocked sum.
TEST(ConvLayout, ChannelsLastBlockStaysBlocked) {
  const int64_t C = 24;
  ir::Model m = float_model(17, {{"x", Shape{1, C, 6, 6}}}, {"y"});
  auto& in = m.graph.initializers;
  in["wd"] = random_floats(Shape{C, 1, 7, 7}, 1, -0.2f, 0.2f);
  in["bd"] = random_floats(Shape{C}, 2);
  in["ln_s"] = random_floats(Shape{C}, 3, 0.5f, 1.5f);
  in["ln_b"] = random_floats(Shape{C}, 4);
  in["w1"] = random_floats(Shape{C, 2 * C}, 5, -0.3f, 0.3f);
  in["w2"] = random_floats(Shape{2 * C, C}, 6, -0.3f, 0.3f);
  in["b2"] = random_floats(Shape{C}, 7);
  in["gamma"] = random_floats(Shape{C, 1, 1}, 8);
  in["wn"] = random_floats(Shape{16, C, 1, 1}, 9, -0.3f, 0.3f);
  in["ws"] = random_floats(Shape{C, C, 1, 1}, 10, -0.3f, 0.3f);
  auto& n = m.graph.nodes;
  n.push_back(op("Conv", {"x", "ws"}, {"s"}));  // the block's input: blocked
  n.push_back(
      op("Conv", {"s", "wd", "bd"}, {"d"}, {attr_i("group", C), attr_ints("pads", {3, 3, 3, 3})}));
  n.push_back(op("Transpose", {"d"}, {"t"}, {attr_ints("perm", {0, 2, 3, 1})}));
  n.push_back(op("LayerNormalization", {"t", "ln_s", "ln_b"}, {"ln"}, {attr_i("axis", -1)}));
  n.push_back(op("MatMul", {"ln", "w1"}, {"h"}));
  n.push_back(op("Relu", {"h"}, {"hr"}));
  n.push_back(op("MatMul", {"hr", "w2"}, {"o"}));
  n.push_back(op("Add", {"o", "b2"}, {"ob"}));
  n.push_back(op("Transpose", {"ob"}, {"back"}, {attr_ints("perm", {0, 3, 1, 2})}));
  n.push_back(op("Mul", {"gamma", "back"}, {"scaled"}));
  n.push_back(op("Add", {"scaled", "s"}, {"res"}));
  n.push_back(op("Conv", {"res", "wn"}, {"y"}));
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  expect_well_formed(m, out);
  EXPECT_EQ(count_ops(out, "Transpose"), 0u);
  EXPECT_EQ(count_domain_ops(out, "NchwcConv"), 3u);
  size_t from_last = 0, to_last = 0;
  for (const auto& node : out.graph.nodes) {
    const ir::Attribute* cl = node.attr("channels_last");
    if (!cl || cl->i != 1) continue;
    from_last += node.op_type == "ReorderFromNchwc";
    to_last += node.op_type == "ReorderToNchwc";
  }
  EXPECT_EQ(from_last, 1u);
  EXPECT_EQ(to_last, 1u);
  EXPECT_EQ(count_domain_ops(out, "ReorderFromNchwc"), 2u);  // + the graph output y
  expect_same_as(m, out);
}

// An NHWC image of 3 channels: the permute stays a plain Transpose and the
// stem convolution reads its output plain (input_layout 0), not a 16-lane
// block holding 3 channels.
TEST(ConvLayout, ChannelsLastImageFeedsPlainStem) {
  ir::Model m = float_model(17, {{"x", Shape{1, 20, 20, 3}}}, {"y"});
  auto& in = m.graph.initializers;
  in["w"] = random_floats(Shape{32, 3, 7, 7}, 1, -0.2f, 0.2f);
  in["w2"] = random_floats(Shape{16, 32, 1, 1}, 2, -0.3f, 0.3f);
  auto& n = m.graph.nodes;
  n.push_back(op("Transpose", {"x"}, {"t"}, {attr_ints("perm", {0, 3, 1, 2})}));
  n.push_back(op("Conv", {"t", "w"}, {"c"},
                 {attr_ints("strides", {2, 2}), attr_ints("pads", {3, 3, 3, 3})}));
  n.push_back(op("Conv", {"c", "w2"}, {"y"}));
  size_t converted = 0;
  const ir::Model out = with_layout_pass(m, &converted);
  expect_well_formed(m, out);
  EXPECT_EQ(count_ops(out, "Transpose"), 1u);
  EXPECT_EQ(count_domain_ops(out, "ReorderToNchwc"), 0u);
  size_t plain = 0;
  for (const auto& node : out.graph.nodes)
    if (const ir::Attribute* l = node.attr("input_layout"); l && node.op_type == "NchwcConv")
      plain += l->i == 0;
  EXPECT_EQ(plain, 1u);
  expect_same_as(m, out);
}

// A hand-written channels_last ReorderToNchwc whose input has other
// channels than its `channels` attribute says is an error naming the node.
TEST(ConvLayout, ChannelsLastReorderChecksChannels) {
  ir::Model m = float_model(13, {{"x", Shape{1, 4, 4, 20}}}, {"y"});
  m.opset_imports.push_back({"com.tessera", 1});
  ir::Node r =
      op("ReorderToNchwc", {"x"}, {"y"}, {attr_i("channels_last", 1), attr_i("channels", 24)});
  r.domain = "com.tessera";
  r.name = "the_reorder";
  m.graph.nodes = {r};
  expect_rejected(m, Shape{1, 4, 4, 20}, "the_reorder", "not the 24 of attribute channels");
}
