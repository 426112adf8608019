// The transformer fusions (attention, skip layer norm, bias Gelu): same
// outputs as the unoptimized model, the pattern really became the fused node,
// and look-alike patterns that differ in a detail are left alone.
#include "optimizer/optimizer.hpp"
#include "optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

struct AttnSpec {
  int64_t opset = 17, B = 2, S = 5, H = 3, D = 4;
  bool mask = true;               // Add of a [B, 1, 1, S] input before the Softmax
  bool mul_scale = false;         // * (1/sqrt(D)) instead of / sqrt(D)
  bool k_two_transposes = false;  // K^T as [0,2,1,3] then [0,1,3,2]
  int64_t softmax_axis = -1;      // 0: attribute left out
  bool pin_scores = false;        // the Softmax output is also a graph output
  bool scale_from_input = false;  // the divisor is a graph input, not a constant
  bool causal = false;            // GPT's Where(lower-triangular keep, scores, finfo.min)
  // Q, K and V from one Split of a [B, S, 3*H*D] input "qkv": 0 no, 1 sizes as
  // input 1, 2 an equal split without sizes (its width known), 3 the opset
  // 11 `split` attribute.
  int packed = 0;
  int64_t split_axis = -1;
  // The scores as ONNX Runtime saves them: one com.microsoft FusedMatMul with
  // the scale as alpha; 1: K transposed before it, 2: transB = 1 instead.
  int fused_matmul = 0;
};

// The attention block as torch exports it, from Q, K, V [B, S, H*D] inputs.
ir::Model attention_model(const AttnSpec& s) {
  const int64_t HD = s.H * s.D;
  std::vector<std::pair<std::string, Shape>> ins = {
      {"q", Shape{s.B, s.S, HD}}, {"k", Shape{s.B, s.S, HD}}, {"v", Shape{s.B, s.S, HD}}};
  if (s.packed) ins = {{"qkv", Shape{s.B, s.S, 3 * HD}}};
  if (s.mask) ins.push_back({"mask", Shape{s.B, 1, 1, s.S}});
  if (s.scale_from_input) ins.push_back({"c", Shape{}});
  std::vector<std::string> outs = {"y"};
  if (s.pin_scores) outs.push_back("p");
  ir::Model m = float_model(s.opset, ins, outs);
  auto& g = m.graph;
  g.initializers["shape4"] = Tensor::from_vector<int64_t>({-1, s.S, s.H, s.D}, Shape{4});
  g.initializers["shape3"] = Tensor::from_vector<int64_t>({-1, s.S, HD}, Shape{3});
  if (!s.scale_from_input)
    g.initializers["c"] =
        Tensor::scalar<float>(s.mul_scale ? 1.0f / std::sqrt(float(s.D)) : std::sqrt(float(s.D)));
  if (s.packed) {
    std::vector<std::string> split_in = {"qkv"};
    std::vector<ir::Attribute> split_attrs = {attr_i("axis", s.split_axis)};
    if (s.packed == 1) {
      g.initializers["sizes"] = Tensor::from_vector<int64_t>({HD, HD, HD}, Shape{3});
      split_in.push_back("sizes");
    } else if (s.packed == 3) {
      split_attrs.push_back(attr_ints("split", {HD, HD, HD}));
    }
    g.nodes.push_back(op("Split", split_in, {"q", "k", "v"}, split_attrs));
  }
  for (const char* x : {"q", "k", "v"})
    g.nodes.push_back(op("Reshape", {x, "shape4"}, {std::string(x) + "4"}));
  g.nodes.push_back(op("Transpose", {"q4"}, {"qt"}, {attr_ints("perm", {0, 2, 1, 3})}));
  if (s.k_two_transposes) {
    g.nodes.push_back(op("Transpose", {"k4"}, {"kh"}, {attr_ints("perm", {0, 2, 1, 3})}));
    g.nodes.push_back(op("Transpose", {"kh"}, {"kt"}, {attr_ints("perm", {0, 1, 3, 2})}));
  } else {
    g.nodes.push_back(
        op("Transpose", {"k4"}, {"kt"},
           {attr_ints("perm", s.fused_matmul == 2 ? std::vector<int64_t>{0, 2, 1, 3}
                                                  : std::vector<int64_t>{0, 2, 3, 1})}));
  }
  g.nodes.push_back(op("Transpose", {"v4"}, {"vt"}, {attr_ints("perm", {0, 2, 1, 3})}));
  if (s.fused_matmul) {
    ir::Attribute alpha;
    alpha.name = "alpha";
    alpha.type = ir::AttrType::kFloat;
    alpha.f = 1.0f / std::sqrt(float(s.D));
    g.nodes.push_back(op("FusedMatMul", {"qt", "kt"}, {"scaled"},
                         {alpha, attr_i("transB", s.fused_matmul == 2 ? 1 : 0)}));
    g.nodes.back().domain = "com.microsoft";
    m.opset_imports.push_back({"com.microsoft", 1});
  } else {
    g.nodes.push_back(op("MatMul", {"qt", "kt"}, {"qk"}));
    g.nodes.push_back(op(s.mul_scale ? "Mul" : "Div", {"qk", "c"}, {"scaled"}));
  }
  std::string scores = "scaled";
  if (s.causal) {
    Tensor keep(DataType::kBool, Shape{1, 1, s.S, s.S});
    for (int64_t i = 0; i < s.S; ++i)
      for (int64_t j = 0; j < s.S; ++j) keep.mutable_data<bool>()[i * s.S + j] = j <= i;
    g.initializers["keep"] = keep;
    g.initializers["fill"] = Tensor::scalar<float>(-3.4028234663852886e38f);
    g.nodes.push_back(op("Where", {"keep", "scaled", "fill"}, {"causal"}));
    scores = "causal";
  }
  if (s.mask) {
    g.nodes.push_back(op("Add", {scores, "mask"}, {"masked"}));
    scores = "masked";
  }
  std::vector<ir::Attribute> sm_attrs;
  if (s.softmax_axis != 0) sm_attrs.push_back(attr_i("axis", s.softmax_axis));
  g.nodes.push_back(op("Softmax", {scores}, {"p"}, sm_attrs));
  g.nodes.push_back(op("MatMul", {"p", "vt"}, {"ctx"}));
  g.nodes.push_back(op("Transpose", {"ctx"}, {"ct"}, {attr_ints("perm", {0, 2, 1, 3})}));
  g.nodes.push_back(op("Reshape", {"ct", "shape3"}, {"y"}));
  return m;
}

}  // namespace

TEST(OptimizerAttentionFusion, FusesTorchPattern) {
  for (bool mask : {true, false})
    for (bool mul : {false, true}) {
      AttnSpec s;
      s.mask = mask;
      s.mul_scale = mul;
      ir::Model out = expect_same_outputs(attention_model(s), GraphOptimizationLevel::kAll, 1e-5f);
      EXPECT_EQ(count_ops(out, "MultiHeadAttention"), 1u) << "mask " << mask << " mul " << mul;
      EXPECT_EQ(out.graph.nodes.size(), 1u);
      EXPECT_EQ(out.opset("com.tessera"), 1);
    }
}

TEST(OptimizerAttentionFusion, FusesOnnxRuntimesFusedMatMul) {
  // Models ONNX Runtime saved optimized compute the scores in one FusedMatMul.
  for (int form : {1, 2}) {
    AttnSpec s;
    s.fused_matmul = form;
    ir::Model out = expect_same_outputs(attention_model(s), GraphOptimizationLevel::kAll, 1e-5f);
    EXPECT_EQ(count_ops(out, "MultiHeadAttention"), 1u) << "form " << form;
    EXPECT_EQ(out.graph.nodes.size(), 1u) << "form " << form;
  }
}

TEST(OptimizerAttentionFusion, PackedQkvIsReadInPlace) {
  // A packed projection split three ways: the fused node reads it, no Split.
  for (int packed : {1, 2, 3})
    for (bool causal : {false, true}) {
      SCOPED_TRACE("packed " + std::to_string(packed) + " causal " + std::to_string(causal));
      AttnSpec s;
      s.packed = packed;
      s.causal = causal;
      s.opset = packed == 3 ? 11 : 17;
      s.softmax_axis = 3;                   // before opset 13 the axis must be given
      s.split_axis = packed == 2 ? 2 : -1;  // an index works where the rank is known
      ir::Model out = expect_same_outputs(attention_model(s), GraphOptimizationLevel::kAll, 1e-5f);
      ASSERT_EQ(out.graph.nodes.size(), 1u);
      const ir::Node& n = out.graph.nodes[0];
      EXPECT_EQ(n.op_type, "MultiHeadAttention");
      ASSERT_NE(n.attr("packed_qkv"), nullptr);
      EXPECT_EQ(n.inputs[0], "qkv");
      EXPECT_TRUE(n.inputs[1].empty() && n.inputs[2].empty());
    }
}

TEST(OptimizerAttentionFusion, PackedInASessionWithAnotherProvider) {
  // The CUDA provider reads the packed form too, so a session with it packs.
  AttnSpec s;
  s.packed = 1;
  ir::Model out = attention_model(s);
  optimize_for_shared(out, {"MultiHeadAttention"});
  ASSERT_EQ(out.graph.nodes.size(), 1u);
  EXPECT_NE(out.graph.nodes[0].attr("packed_qkv"), nullptr);
  EXPECT_EQ(out.graph.nodes[0].inputs[0], "qkv");
}

TEST(OptimizerAttentionFusion, PackedOnlyWhenTheSplitCanGo) {
  // Unequal parts, another axis, or a part read elsewhere: the attention is
  // fused, reading the Split's outputs.
  auto check = [](ir::Model m, const char* what) {
    SCOPED_TRACE(what);
    ir::Model out = m;
    optimize_as_cpu_session(out, GraphOptimizationLevel::kAll);
    EXPECT_EQ(count_ops(out, "MultiHeadAttention"), 1u);
    EXPECT_EQ(count_ops(out, "Split"), 1u);
    for (const auto& n : out.graph.nodes) EXPECT_EQ(n.attr("packed_qkv"), nullptr);
    expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-5f);
  };
  AttnSpec s;
  s.packed = 1;
  ir::Model unequal = attention_model(s);
  unequal.graph.initializers["sizes"] =
      Tensor::from_vector<int64_t>({s.H * s.D, s.H * s.D - 1, s.H * s.D + 1}, Shape{3});
  // (the parts no longer reshape to the heads: only the pattern is checked)
  {
    ir::Model out = unequal;
    optimize_as_cpu_session(out, GraphOptimizationLevel::kAll);
    for (const auto& n : out.graph.nodes) EXPECT_EQ(n.attr("packed_qkv"), nullptr);
  }
  ir::Model pinned = attention_model(s);
  pinned.graph.outputs.push_back({"k", ir::TypeInfo::tensor(DataType::kFloat), ""});
  check(pinned, "K is also a graph output");
  AttnSpec other_axis = s;
  other_axis.S = 2 * s.S;  // qkv [B, 2S, 3HD]: split on axis 1 is not the packed form
  other_axis.split_axis = 1;
  ir::Model axis1 = attention_model(other_axis);
  axis1.graph.inputs[0].type.shape.reset();  // rank unknown: axis 1 may not be the last
  {
    ir::Model out = axis1;
    optimize_as_cpu_session(out, GraphOptimizationLevel::kAll);
    for (const auto& n : out.graph.nodes) EXPECT_EQ(n.attr("packed_qkv"), nullptr);
  }
}

namespace {

// torchvision's nn.MultiheadAttention (sequence first, as ViT exports it):
// Q, K, V [S, B, H*D] (or three Slices of one [S, B, 3*H*D] "qkv"), heads
// split as [S, B*H, D] and transposed to [B*H, S, D] (K to [B*H, D, S]), Q
// scaled first, 3-D scores, Y merged back to [S*B, H*D] (or [S, B, H*D]).
struct SeqFirstSpec {
  int64_t S = 5, B = 2, H = 3, D = 4;
  bool packed = false;
  const char* scale = "Div";  // "Div", "Mul" or "" (none)
  bool y3 = false;            // Y as [S, B, H*D] instead of [S*B, H*D]
  std::vector<int64_t> k_perm = {1, 2, 0};
  int64_t gap = 0;  // packed: columns of "qkv" between Q and K
};

ir::Model seq_first_model(const SeqFirstSpec& s) {
  const int64_t E = s.H * s.D;
  std::vector<std::pair<std::string, Shape>> ins = {
      {"q", Shape{s.S, s.B, E}}, {"k", Shape{s.S, s.B, E}}, {"v", Shape{s.S, s.B, E}}};
  if (s.packed) ins = {{"qkv", Shape{s.S, s.B, 3 * E + s.gap}}};
  ir::Model m = float_model(17, ins, {"y"});
  auto& g = m.graph;
  auto ints = [&](const std::string& name, std::vector<int64_t> v) {
    const int64_t n = int64_t(v.size());
    g.initializers[name] = Tensor::from_vector<int64_t>(std::move(v), Shape{n});
  };
  if (s.packed) {
    ints("axes", {-1});
    const char* parts[3] = {"q", "k", "v"};
    for (int i = 0; i < 3; ++i) {
      const int64_t start = i * E + (i > 0 ? s.gap : 0);
      ints(std::string("start_") + parts[i], {start});
      ints(std::string("end_") + parts[i], {start + E});
      g.nodes.push_back(
          op("Slice",
             {"qkv", std::string("start_") + parts[i], std::string("end_") + parts[i], "axes"},
             {parts[i]}));
    }
  }
  ints("heads", {s.S, s.B * s.H, s.D});
  ints("merged", s.y3 ? std::vector<int64_t>{s.S, s.B, E} : std::vector<int64_t>{s.S * s.B, E});
  for (const char* x : {"q", "k", "v"})
    g.nodes.push_back(op("Reshape", {x, "heads"}, {std::string(x) + "3"}));
  g.nodes.push_back(op("Transpose", {"q3"}, {"qt"}, {attr_ints("perm", {1, 0, 2})}));
  g.nodes.push_back(op("Transpose", {"k3"}, {"kt"}, {attr_ints("perm", s.k_perm)}));
  g.nodes.push_back(op("Transpose", {"v3"}, {"vt"}, {attr_ints("perm", {1, 0, 2})}));
  std::string q = "qt";
  if (*s.scale) {
    const bool div = std::string(s.scale) == "Div";
    g.initializers["c"] =
        Tensor::scalar<float>(div ? std::sqrt(float(s.D)) : 1.0f / std::sqrt(float(s.D)));
    g.nodes.push_back(op(s.scale, {"qt", "c"}, {"qs"}));
    q = "qs";
  }
  g.nodes.push_back(op("MatMul", {q, "kt"}, {"scores"}));
  g.nodes.push_back(op("Softmax", {"scores"}, {"p"}, {attr_i("axis", -1)}));
  g.nodes.push_back(op("MatMul", {"p", "vt"}, {"ctx"}));
  g.nodes.push_back(op("Transpose", {"ctx"}, {"ct"}, {attr_ints("perm", {1, 0, 2})}));
  g.nodes.push_back(op("Reshape", {"ct", "merged"}, {"y"}));
  return m;
}

}  // namespace

TEST(OptimizerAttentionFusion, FusesSequenceFirstForm) {
  // Two batches, so reading [S, B, ...] as [B, S, ...] would give other outputs.
  for (bool packed : {false, true})
    for (const char* scale : {"Div", "Mul", ""})
      for (bool y3 : {false, true}) {
        SCOPED_TRACE(str_cat("packed ", packed, " scale '", scale, "' y3 ", y3));
        SeqFirstSpec s;
        s.packed = packed;
        s.scale = scale;
        s.y3 = y3;
        ir::Model out =
            expect_same_outputs(seq_first_model(s), GraphOptimizationLevel::kAll, 1e-5f);
        ASSERT_EQ(out.graph.nodes.size(), 1u);
        const ir::Node& n = out.graph.nodes[0];
        EXPECT_EQ(n.op_type, "MultiHeadAttention");
        auto ival = [&n](const char* a) {
          const ir::Attribute* x = n.attr(a);
          return x ? x->i : int64_t(0);
        };
        EXPECT_EQ(ival("seq_first"), 1);
        EXPECT_EQ(ival("num_heads"), s.H);
        EXPECT_EQ(ival("batch"), s.B);
        EXPECT_EQ(ival("packed_qkv"), packed ? 1 : 0);
        EXPECT_EQ(n.inputs[0], packed ? "qkv" : "q");
      }
}

TEST(OptimizerAttentionFusion, SequenceFirstLeftAloneWhereADetailDiffers) {
  // K's heads transposed another way: not attention as the kernel computes it.
  SeqFirstSpec other_k;
  other_k.k_perm = {1, 0, 2};
  other_k.S = 4;  // the product must still exist: [B*H, S, D] x [B*H, S, D] needs S == D
  ir::Model m = seq_first_model(other_k);
  optimize_as_cpu_session(m, GraphOptimizationLevel::kAll);
  EXPECT_EQ(count_ops(m, "MultiHeadAttention"), 0u);
  // Slices that do not tile the projection (a column between Q and K): fused,
  // reading the three parts (the Slices stay).
  SeqFirstSpec gap;
  gap.packed = true;
  gap.gap = 1;
  ir::Model uo = expect_same_outputs(seq_first_model(gap), GraphOptimizationLevel::kAll, 1e-5f);
  EXPECT_EQ(count_ops(uo, "MultiHeadAttention"), 1u);
  EXPECT_EQ(count_ops(uo, "Slice"), 3u);
  // A merged shape whose product overflows: not fused (and no overflow).
  ir::Model huge = seq_first_model(SeqFirstSpec{});
  huge.graph.initializers["merged"] = Tensor::from_vector<int64_t>(
      {int64_t(1) << 62, 8, SeqFirstSpec{}.H * SeqFirstSpec{}.D}, Shape{3});
  optimize_as_cpu_session(huge, GraphOptimizationLevel::kAll);
  EXPECT_EQ(count_ops(huge, "MultiHeadAttention"), 0u);
  // A session with another provider (CUDA does not run this form): not fused.
  ir::Model shared = seq_first_model(SeqFirstSpec{});
  optimize_for_shared(shared, {"MultiHeadAttention"});
  EXPECT_EQ(count_ops(shared, "MultiHeadAttention"), 0u);
}

TEST(OptimizerAttentionFusion, FusesCausalWhere) {
  for (bool mask : {false, true}) {
    AttnSpec s;
    s.causal = true;
    s.mask = mask;
    ir::Model out = expect_same_outputs(attention_model(s), GraphOptimizationLevel::kAll, 1e-5f);
    EXPECT_EQ(count_ops(out, "MultiHeadAttention"), 1u) << "mask " << mask;
    EXPECT_EQ(count_ops(out, "Where"), 0u);
  }
  // A keep mask computed at run time is not a constant: left alone.
  AttnSpec s;
  s.causal = true;
  ir::Model m = attention_model(s);
  m.graph.inputs.push_back({"keep", ir::TypeInfo::tensor(DataType::kBool), ""});
  m.graph.initializers.erase("keep");
  ir::Model kept = m;
  optimize_as_cpu_session(kept, GraphOptimizationLevel::kAll);
  EXPECT_EQ(count_ops(kept, "MultiHeadAttention"), 0u);
}

TEST(OptimizerAttentionFusion, FusesAfterTransposePairMerges) {
  AttnSpec s;
  s.k_two_transposes = true;
  s.softmax_axis = 3;
  ir::Model out = expect_same_outputs(attention_model(s), GraphOptimizationLevel::kAll, 1e-5f);
  EXPECT_EQ(count_ops(out, "MultiHeadAttention"), 1u);
}

TEST(OptimizerAttentionFusion, LongerRowsAndOneHead) {
  AttnSpec s;
  s.B = 1, s.S = 37, s.H = 1, s.D = 19;
  ir::Model out = expect_same_outputs(attention_model(s), GraphOptimizationLevel::kAll, 1e-5f);
  EXPECT_EQ(count_ops(out, "MultiHeadAttention"), 1u);
}

TEST(OptimizerAttentionFusion, NotFusedWhenADetailDiffers) {
  AttnSpec wrong_axis;
  wrong_axis.softmax_axis = 2;
  AttnSpec old_default_axis;  // before opset 13 Softmax's default axis is 1
  old_default_axis.opset = 12;
  old_default_axis.softmax_axis = 0;
  AttnSpec pinned;
  pinned.pin_scores = true;
  AttnSpec runtime_scale;
  runtime_scale.scale_from_input = true;
  for (const AttnSpec& s : {wrong_axis, old_default_axis, pinned, runtime_scale}) {
    ir::Model out = expect_same_outputs(attention_model(s), GraphOptimizationLevel::kAll, 1e-5f);
    EXPECT_EQ(count_ops(out, "MultiHeadAttention"), 0u);
    EXPECT_EQ(count_ops(out, "Softmax"), 1u);
  }
  // V split with the K permutation: shapes still valid when S == D, but not attention.
  AttnSpec sq;
  sq.S = 4, sq.D = 4;
  ir::Model m = attention_model(sq);
  for (auto& n : m.graph.nodes)
    if (n.op_type == "Transpose" && n.inputs[0] == "v4")
      n.attributes = {attr_ints("perm", {0, 2, 3, 1})};
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-5f);
  EXPECT_EQ(count_ops(out, "MultiHeadAttention"), 0u);
}

TEST(OptimizerAttentionFusion, SkippedWhenOtherProvidersNeedStandardOps) {
  ir::Model m = attention_model(AttnSpec{});
  ir::Model kept = m;
  optimizer::optimize(kept, GraphOptimizationLevel::kAll, cpu_folding());
  EXPECT_EQ(count_ops(kept, "MultiHeadAttention"), 0u);
  EXPECT_EQ(count_ops(kept, "Softmax"), 1u);
  optimize_as_cpu_session(m, GraphOptimizationLevel::kAll);
  EXPECT_EQ(count_ops(m, "MultiHeadAttention"), 1u);
}

// When every other provider runs the fused op (CUDA), it is made for them
// too, and only it: the other CPU-only fusions stay off.
TEST(OptimizerAttentionFusion, MadeForProvidersThatRunIt) {
  AttnSpec spec;
  spec.mask = true;
  ir::Model m = attention_model(spec);
  optimize_for_shared(m, {"MultiHeadAttention"});
  EXPECT_EQ(count_ops(m, "MultiHeadAttention"), 1u);
  EXPECT_EQ(count_ops(m, "Softmax"), 0u);
}

namespace {

// y = LayerNorm(x + (h @ w + b)) and z = Gelu(h @ w2 + b2), spelled as torch
// exports them at opset 17 (the GELU as Div/Erf/Add/Mul/Mul).
ir::Model block_model(bool bias_first, bool with_beta) {
  ir::Model m = float_model(17, {{"x", Shape{2, 3, 8}}, {"h", Shape{2, 3, 6}}}, {"y", "z"});
  auto& g = m.graph;
  g.initializers["w"] = random_floats(Shape{6, 8}, 1);
  g.initializers["b"] = random_floats(Shape{8}, 2);
  g.initializers["w2"] = random_floats(Shape{6, 5}, 3);
  g.initializers["b2"] = random_floats(Shape{5}, 4);
  g.initializers["gamma"] = random_floats(Shape{8}, 5, 0.5f, 1.5f);
  g.initializers["beta"] = random_floats(Shape{8}, 6);
  g.initializers["sqrt2"] = Tensor::scalar<float>(1.4142135f);
  g.initializers["one"] = Tensor::scalar<float>(1.f);
  g.initializers["half"] = Tensor::scalar<float>(0.5f);
  g.nodes.push_back(op("MatMul", {"h", "w"}, {"mm"}));
  g.nodes.push_back(op(
      "Add", bias_first ? std::vector<std::string>{"b", "mm"} : std::vector<std::string>{"mm", "b"},
      {"o"}));
  g.nodes.push_back(op("Add", {"x", "o"}, {"r"}));
  std::vector<std::string> ln_in = {"r", "gamma"};
  if (with_beta) ln_in.push_back("beta");
  g.nodes.push_back(
      op("LayerNormalization", ln_in, {"y"}, {attr_i("axis", -1), attr_f("epsilon", 1e-5f)}));
  g.nodes.push_back(op("MatMul", {"h", "w2"}, {"mm2"}));
  g.nodes.push_back(op("Add", {"b2", "mm2"}, {"f"}));
  g.nodes.push_back(op("Div", {"f", "sqrt2"}, {"d"}));
  g.nodes.push_back(op("Erf", {"d"}, {"e"}));
  g.nodes.push_back(op("Add", {"e", "one"}, {"a"}));
  g.nodes.push_back(op("Mul", {"f", "a"}, {"p"}));
  g.nodes.push_back(op("Mul", {"p", "half"}, {"z"}));
  return m;
}

}  // namespace

TEST(OptimizerSkipLayerNormFusion, FusesResidualAndBias) {
  for (bool bias_first : {true, false})
    for (bool beta : {true, false}) {
      ir::Model out =
          expect_same_outputs(block_model(bias_first, beta), GraphOptimizationLevel::kAll, 1e-5f);
      EXPECT_EQ(count_ops(out, "SkipLayerNormalization"), 1u);
      EXPECT_EQ(count_ops(out, "LayerNormalization"), 0u);
      EXPECT_EQ(count_ops(out, "BiasGelu"), 1u);
      EXPECT_EQ(count_ops(out, "Add"), 0u);
      // MatMul, SkipLayerNormalization, MatMul, BiasGelu.
      EXPECT_EQ(out.graph.nodes.size(), 4u);
    }
}

TEST(OptimizerSkipLayerNormFusion, NotFusedWhenSumOrBiasIsShared) {
  // The residual sum is also an output: the Add must stay.
  ir::Model m = block_model(true, true);
  m.graph.outputs.push_back({"r", ir::TypeInfo::tensor(DataType::kFloat), ""});
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-5f);
  EXPECT_EQ(count_ops(out, "SkipLayerNormalization"), 0u);
  EXPECT_EQ(count_ops(out, "LayerNormalization"), 1u);
  // The biased product is read elsewhere too: the norm fuses without its
  // bias, which stays with the product (a MatMulBias, its output still "o").
  ir::Model m2 = block_model(true, true);
  m2.graph.outputs.push_back({"o", ir::TypeInfo::tensor(DataType::kFloat), ""});
  ir::Model out2 = expect_same_outputs(m2, GraphOptimizationLevel::kAll, 1e-5f);
  EXPECT_EQ(count_ops(out2, "SkipLayerNormalization"), 1u);
  EXPECT_EQ(count_ops(out2, "Add"), 0u);
  EXPECT_EQ(count_ops(out2, "MatMulBias"), 1u);
}

TEST(OptimizerSkipLayerNormFusion, NotFusedOnAnotherAxis) {
  ir::Model m = block_model(true, true);
  for (auto& n : m.graph.nodes)
    if (n.op_type == "LayerNormalization")
      n.attributes = {attr_i("axis", 1), attr_f("epsilon", 1e-5f)};
  m.graph.initializers["gamma"] = random_floats(Shape{3, 8}, 5);
  m.graph.initializers["beta"] = random_floats(Shape{3, 8}, 6);
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-5f);
  EXPECT_EQ(count_ops(out, "SkipLayerNormalization"), 0u);
}

TEST(OptimizerSkipLayerNormFusion, BroadcastResidualStillMatches) {
  // x [2, 1, 8] broadcasts against the [2, 3, 8] projection: the kernel sums first.
  ir::Model m = block_model(true, true);
  m.graph.inputs[0].type = ir::TypeInfo::tensor(
      DataType::kFloat, std::vector<ir::Dim>{ir::Dim{2, ""}, ir::Dim{1, ""}, ir::Dim{8, ""}});
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-5f);
  EXPECT_EQ(count_ops(out, "SkipLayerNormalization"), 1u);
}

TEST(OptimizerSkipLayerNormFusion, SkippedWhenOtherProvidersNeedStandardOps) {
  ir::Model m = block_model(true, true);
  optimizer::optimize(m, GraphOptimizationLevel::kAll, cpu_folding());
  EXPECT_EQ(count_ops(m, "SkipLayerNormalization"), 0u);
  EXPECT_EQ(count_ops(m, "BiasGelu"), 0u);
}

TEST(OptimizerSkipLayerNormFusion, FusesTheSpelledOutNormBelowOpset17) {
  // Older exporters: r = x + y; ReduceMean / Sub / Pow / ReduceMean / Add / Sqrt / Div / Mul / Add.
  ir::Model m = float_model(13, {{"x", Shape{2, 3, 8}}, {"y", Shape{2, 3, 8}}}, {"z"});
  auto& g = m.graph;
  g.initializers["two"] = Tensor::scalar<float>(2.f);
  g.initializers["eps"] = Tensor::scalar<float>(1e-5f);
  g.initializers["gamma"] = random_floats(Shape{8}, 11, 0.5f, 1.5f);
  g.initializers["beta"] = random_floats(Shape{8}, 12);
  const std::vector<ir::Attribute> axes = {attr_ints("axes", {-1})};
  g.nodes.push_back(op("Add", {"x", "y"}, {"r"}));
  g.nodes.push_back(op("ReduceMean", {"r"}, {"m"}, axes));
  g.nodes.push_back(op("Sub", {"r", "m"}, {"d"}));
  g.nodes.push_back(op("Pow", {"d", "two"}, {"p"}));
  g.nodes.push_back(op("ReduceMean", {"p"}, {"v"}, axes));
  g.nodes.push_back(op("Add", {"v", "eps"}, {"ve"}));
  g.nodes.push_back(op("Sqrt", {"ve"}, {"s"}));
  g.nodes.push_back(op("Div", {"d", "s"}, {"n"}));
  g.nodes.push_back(op("Mul", {"n", "gamma"}, {"ng"}));
  g.nodes.push_back(op("Add", {"ng", "beta"}, {"z"}));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-4f);
  EXPECT_EQ(count_ops(out, "SkipLayerNormalization"), 1u);
  EXPECT_EQ(out.graph.nodes.size(), 1u);
}

// The same fusions in float16 and bfloat16 (a half-precision BERT on CUDA
// gets the float one's fused ops; the CPU provider, the fallback, runs them
// through float conversions), with the half model's rounded constants
// (sqrt(2) is 1.4140625 in float16) still recognised.
TEST(OptimizerTransformerFusions, HalfPrecisionModelsFuseToo) {
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16}) {
    const float tol = t == DataType::kFloat16 ? 2e-2f : 1.5e-1f;
    for (bool causal : {false, true}) {
      AttnSpec s;
      s.causal = causal;
      ir::Model out = expect_same_outputs(in_half_type(attention_model(s), t),
                                          GraphOptimizationLevel::kAll, tol);
      EXPECT_EQ(count_ops(out, "MultiHeadAttention"), 1u) << data_type_name(t);
      EXPECT_EQ(count_ops(out, "Softmax") + count_ops(out, "Where"), 0u) << data_type_name(t);
    }
    ir::Model out = expect_same_outputs(in_half_type(block_model(true, true), t),
                                        GraphOptimizationLevel::kAll, tol);
    EXPECT_EQ(count_ops(out, "SkipLayerNormalization"), 1u) << data_type_name(t);
    EXPECT_EQ(count_ops(out, "BiasGelu"), 1u) << data_type_name(t);
    EXPECT_EQ(count_ops(out, "Add") + count_ops(out, "Erf"), 0u) << data_type_name(t);
  }
}

// MatMul of a [batch, tokens, K] activation by a constant [K, N] + a bias [N]
// -> com.tessera MatMulBias, taking a Relu after it; a bias that is not [N],
// a non-constant B, or a session with other providers keep MatMul + Add.
TEST(OptimizerMatMulBias, FusesBiasAndActivationForAnyRank) {
  ir::Model m = float_model(17, {{"x", Shape{2, 5, 8}}, {"v", Shape{8}}}, {"y", "z", "u", "s"});
  auto& in = m.graph.initializers;
  in["w"] = random_floats(Shape{8, 6}, 1);
  in["b"] = random_floats(Shape{6}, 2);
  in["b1n"] = random_floats(Shape{1, 6}, 3);
  in["w2"] = random_floats(Shape{8, 6}, 5);
  auto& n = m.graph.nodes;
  n.push_back(op("MatMul", {"x", "w"}, {"p"}));
  n.push_back(op("Add", {"b", "p"}, {"pb"}));
  n.push_back(op("Relu", {"pb"}, {"y"}));
  n.push_back(op("MatMul", {"x", "w2"}, {"q"}));
  n.push_back(op("Add", {"q", "b1n"}, {"z"}));   // [1, N]: stays
  n.push_back(op("MatMul", {"v", "w"}, {"r"}));  // 1-D A
  n.push_back(op("Add", {"r", "b"}, {"u"}));
  n.push_back(op("MatMul", {"x", "x_t"}, {"t"}));  // B not constant: stays
  n.push_back(op("Add", {"t", "b5"}, {"s"}));
  n.insert(n.begin() + 7, op("Transpose", {"x"}, {"x_t"}, {attr_ints("perm", {0, 2, 1})}));
  in["b5"] = random_floats(Shape{5}, 4);
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kAll, 1e-5f);
  EXPECT_EQ(count_ops(out, "MatMulBias"), 2u);
  EXPECT_EQ(count_ops(out, "Relu"), 0u);
  EXPECT_EQ(count_ops(out, "Add"), 2u);
  for (const auto& node : out.graph.nodes)
    if (node.op_type == "MatMulBias" && node.outputs[0] == "y") {
      ASSERT_NE(node.attr("activation"), nullptr);
      EXPECT_EQ(node.attr("activation")->s, "Relu");
    }
}

// A hand-written MatMulBias checks what it is given, naming the node.
TEST(OptimizerMatMulBias, KernelChecksItsInputs) {
  auto model = [](const Shape& w, const Shape& b) {
    ir::Model m = float_model(17, {{"x", Shape{3, 4}}}, {"y"});
    m.opset_imports.push_back({"com.tessera", 1});
    m.graph.initializers["w"] = random_floats(w, 1);
    m.graph.initializers["b"] = random_floats(b, 2);
    ir::Node f = op("MatMulBias", {"x", "w", "b"}, {"y"});
    f.domain = "com.tessera";
    f.name = "the_matmul";
    m.graph.nodes = {f};
    return m;
  };
  auto error_of = [](const ir::Model& m) -> std::string {
    SessionOptions so;
    so.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
    try {
      auto s = Session::create_from_model(m, so);
      s->run({{"x", Value(random_floats(Shape{3, 4}, 3))}});
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  std::string e = error_of(model(Shape{5, 6}, Shape{6}));
  EXPECT_NE(e.find("the_matmul"), std::string::npos) << e;
  EXPECT_NE(e.find("inner dimensions differ"), std::string::npos) << e;
  e = error_of(model(Shape{4, 6}, Shape{5}));
  EXPECT_NE(e.find("bias [5] must be float [6]"), std::string::npos) << e;
  e = error_of(model(Shape{4, 6, 1}, Shape{6}));
  EXPECT_NE(e.find("constant float [K, N]"), std::string::npos) << e;
  EXPECT_EQ(error_of(model(Shape{4, 6}, Shape{6})), "");
  // K = 0: no products, each row is the bias after the activation.
  ir::Model z = float_model(17, {{"x", Shape{2, 0}}}, {"y"});
  z.opset_imports.push_back({"com.tessera", 1});
  z.graph.initializers["w"] = Tensor(DataType::kFloat, Shape{0, 3});
  z.graph.initializers["b"] = Tensor::from_vector<float>({-1.f, 0.5f, 2.f}, Shape{3});
  ir::Node f = op("MatMulBias", {"x", "w", "b"}, {"y"}, {attr_string("activation", "Relu")});
  f.domain = "com.tessera";
  z.graph.nodes = {f};
  SessionOptions so;
  so.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto s = Session::create_from_model(z, so);
  auto y = s->run({{"x", Value(Tensor(DataType::kFloat, Shape{2, 0}))}});
  ASSERT_EQ(y[0].tensor().shape(), (Shape{2, 3}));
  const float* yp = y[0].tensor().data<float>();
  const float want[] = {0.f, 0.5f, 2.f, 0.f, 0.5f, 2.f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(yp[i], want[i]) << i;
}
