// The CUDA provider's kernels against the CPU provider, node by node, in
// float32, float16 and bfloat16 (the CPU reference runs in float32 on the
// same rounded values). Needs a CUDA device: without one every test here is
// skipped and says why.
#include <filesystem>

#include "providers/cuda/algo_cache.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

const std::vector<DataType> kTypes = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16};

std::string type_name(DataType t) { return std::string(data_type_name(t)); }

// One input: its dims, and whether it is an initializer.
struct In {
  std::vector<int64_t> dims;
  bool constant = false;
  float lo = -1, hi = 1;
};

// Builds the node twice (inputs in `t`, and the same values in float32),
// runs both and compares.
void check_op(const std::string& op, int64_t opset, const std::vector<In>& inputs, DataType t,
              std::vector<ir::Attribute> attrs = {}, size_t outputs = 1, double tol_scale = 1,
              const std::string& domain = "") {
  OneNode m(op, opset, attrs), ref(op, opset, attrs);
  if (!domain.empty())
    for (OneNode* n : {&m, &ref}) {
      n->model.graph.nodes[0].domain = domain;
      n->model.opset_imports.push_back({domain, 1});
    }
  uint32_t seed = 7;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const In& in = inputs[i];
    const std::string name = "in" + std::to_string(i);
    if (in.dims.size() == 1 && in.dims[0] < 0) {  // omitted optional input
      m.omitted();
      ref.omitted();
      continue;
    }
    Tensor v = make_tensor(t, in.dims, random_values(count(in.dims), seed++, in.lo, in.hi));
    m.input(name, v, in.constant);
    ref.input(name, as_float(v), in.constant);
  }
  for (size_t o = 0; o < outputs; ++o) {
    m.output("out" + std::to_string(o));
    ref.output("out" + std::to_string(o));
  }
  expect_cuda_matches_cpu(m, ref, t, op + " " + type_name(t), tol_scale);
}

// One com.tessera MultiHeadAttention node (opset 17 model) reading `inputs`
// (name and dims; an empty name is an omitted input) of type t, with
// `attrs` and output_shape `out`, writing "y".
ir::Model attention_model(const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputs,
                          std::vector<ir::Attribute> attrs, const std::vector<int64_t>& out,
                          DataType t = DataType::kFloat) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.opset_imports.push_back({"com.tessera", 1});
  ir::Node n;
  n.name = "attention";
  n.domain = "com.tessera";
  n.op_type = "MultiHeadAttention";
  for (const auto& [name, dims] : inputs) {
    n.inputs.push_back(name);
    if (!name.empty()) m.graph.inputs.push_back(tensor_info(name, dims, t));
  }
  n.outputs = {"y"};
  attrs.push_back(attr_ints("output_shape", out));
  n.attributes = std::move(attrs);
  m.graph.nodes = {n};
  m.graph.outputs.push_back(tensor_info("y", out, t));
  return m;
}

}  // namespace

TEST(CudaKernels, BinaryWithBroadcasting) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {4}},      {{2, 3, 4, 5}, {3, 1, 1}},
      {{3, 1}, {1, 4}},       {{2, 3}, {}},          {{1}, {5, 1, 7}},
      {{0, 3}, {3}},          {{1000003}, {1000003}}};
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    for (DataType t : kTypes)
      for (const auto& [a, b] : shapes) {
        // Div's divisor stays away from 0.
        const float lo = std::string(op) == "Div" ? 0.5f : -1.0f;
        check_op(op, 14, {{a}, {b, false, lo, 2.0f}}, t);
      }
}

TEST(CudaKernels, Activations) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    for (const char* op : {"Relu", "Sigmoid", "Tanh", "Erf"})
      check_op(op, 13, {{{3, 257}, false, -4, 4}}, t);
    check_op("LeakyRelu", 16, {{{64}, false, -3, 3}}, t, {attr_float("alpha", 0.2f)});
    check_op("Gelu", 20, {{{64}, false, -4, 4}}, t);
    check_op("Gelu", 20, {{{64}, false, -4, 4}}, t, {attr_string("approximate", "tanh")});
    check_op("Clip", 6, {{{64}, false, -3, 3}}, t, {attr_float("min", -1), attr_float("max", 2)});
  }
  // Clip 11+: bounds as constant inputs, either one omitted.
  for (DataType t : kTypes) {
    OneNode m("Clip", 13), ref("Clip", 13);
    Tensor x = make_tensor(t, {50}, random_values(50, 3, -2, 2));
    m.input("x", x).omitted().input("hi", make_tensor(t, {}, {0.5f}), true).output("y");
    ref.input("x", as_float(x))
        .omitted()
        .input("hi", Tensor::scalar<float>(0.5f), true)
        .output("y");
    expect_cuda_matches_cpu(m, ref, t, "Clip(max only) " + type_name(t));
  }
}

TEST(CudaKernels, SoftmaxAndLogSoftmax) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes)
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      check_op(op, 13, {{{4, 7}, false, -5, 5}}, t);
      check_op(op, 13, {{{2, 3, 1000}, false, -5, 5}}, t, {attr_int("axis", 2)});
      check_op(op, 11, {{{2, 3, 5}, false, -5, 5}}, t, {attr_int("axis", 1)});  // flattened
      check_op(op, 13, {{{3, 1}, false}}, t);
    }
}

TEST(CudaKernels, LayerNormalization) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    check_op("LayerNormalization", 17, {{{4, 64}}, {{64}, true}, {{64}, true}}, t);
    // Two normalized dims, no bias, with the Mean and InvStdDev outputs.
    check_op("LayerNormalization", 17, {{{3, 4, 5}}, {{4, 5}, true}}, t, {attr_int("axis", 1)}, 3);
    check_op("LayerNormalization", 17, {{{2, 3000}}, {{3000}}, {{3000}}}, t,
             {attr_float("epsilon", 1e-3f)});
    // Rows of up to 1024 run a warp a row from registers (37 rows: a partial
    // last block of 8); 1025 runs the block kernel.
    for (int64_t cols : {1024, 1025})
      check_op("LayerNormalization", 17, {{{37, cols}}, {{cols}, true}, {{cols}, true}}, t);
  }
}

// The optimizer's fusions a CUDA session makes (SkipLayerNormalization with
// and without beta and bias, a skip broadcast over leading dims or summed
// first, and BiasGelu), against the CPU provider's float kernels.
TEST(CudaKernels, TransformerFusions) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::string tessera = "com.tessera";
  for (DataType t : kTypes) {
    check_op("SkipLayerNormalization", 1,
             {{{2, 3, 64}}, {{2, 3, 64}}, {{64}, true}, {{64}, true}, {{64}, true}}, t, {}, 1, 1,
             tessera);
    check_op("SkipLayerNormalization", 1, {{{4, 768}}, {{4, 768}}, {{768}, true}}, t,
             {attr_float("epsilon", 1e-12f)}, 1, 1, tessera);
    check_op("SkipLayerNormalization", 1, {{{1, 5, 32}}, {{5, 32}}, {{32}, true}, {{32}, true}}, t,
             {}, 1, 1, tessera);
    check_op("SkipLayerNormalization", 1, {{{3, 1, 16}}, {{4, 16}}, {{16}, true}}, t, {}, 1, 1,
             tessera);
    // Four elements a step where the width allows (96), one at a time where not (30).
    check_op("BiasGelu", 1, {{{2, 5, 96}, false, -4, 4}, {{96}, true}}, t, {}, 1, 1, tessera);
    check_op("BiasGelu", 1, {{{3, 30}, false, -4, 4}, {{30}, true}}, t, {}, 1, 1, tessera);
  }
}

// com.tessera FusedConv, the Conv fusions a CUDA session makes: Relu with a
// bias (cuDNN's one-call path), with and without the residual Z; Relu without
// a bias, LeakyRelu and Clip (convolution, then the activation kernel).
TEST(CudaKernels, FusedConv) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::string tessera = "com.tessera";
  auto act = [](const char* kind, std::vector<float> params) {
    std::vector<ir::Attribute> a = {attr_string("activation", kind)};
    if (!params.empty()) a.push_back(attr_floats("activation_params", params));
    a.push_back(attr_ints("pads", {1, 1, 1, 1}));
    return a;
  };
  for (DataType t : kTypes) {
    const In x{{2, 8, 9, 9}}, w{{16, 8, 3, 3}, true}, b{{16}, true}, z{{2, 16, 9, 9}};
    check_op("FusedConv", 1, {x, w, b}, t, act("Relu", {}), 1, 1, tessera);
    check_op("FusedConv", 1, {x, w, b, z}, t, act("Relu", {}), 1, 1, tessera);
    check_op("FusedConv", 1, {x, w, {{-1}}, z}, t, act("Relu", {}), 1, 1, tessera);
    check_op("FusedConv", 1, {x, w, b}, t, act("LeakyRelu", {0.1f}), 1, 1, tessera);
    check_op("FusedConv", 1, {x, w, b, z}, t, act("Clip", {0.0f, 6.0f}), 1, 1, tessera);
  }
}

TEST(CudaKernels, MatMul) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{2, 3}, {3, 4}},
      {{64, 96}, {96, 33}},
      {{5, 2, 3}, {3, 4}},
      {{2, 3}, {7, 3, 4}},
      {{2, 5, 2, 3}, {2, 5, 3, 4}},
      {{2, 1, 2, 3}, {1, 3, 3, 4}},
      {{3}, {3, 4}},
      {{2, 3}, {3}},
      {{3}, {3}},
      {{2, 0}, {0, 3}},
      {{1, 7}, {7, 1}}};
  for (DataType t : kTypes)
    for (const auto& [a, b] : shapes) check_op("MatMul", 13, {{a}, {b, true}}, t, {}, 1, 10);
}

TEST(CudaKernels, Gemm) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    check_op("Gemm", 13, {{{4, 5}}, {{5, 6}, true}}, t, {}, 1, 10);
    check_op("Gemm", 13, {{{5, 4}}, {{6, 5}, true}, {{6}, true}}, t,
             {attr_int("transA", 1), attr_int("transB", 1)}, 1, 10);  // bias epilogue
    check_op("Gemm", 13, {{{4, 5}}, {{5, 6}}, {{4, 6}}}, t,
             {attr_float("alpha", 0.5f), attr_float("beta", 2.0f)}, 1, 10);
    check_op("Gemm", 13, {{{4, 5}}, {{5, 6}}, {{4, 1}}}, t, {}, 1, 10);
    check_op("Gemm", 13, {{{4, 5}}, {{5, 6}}, {{}}}, t, {attr_float("beta", -1.0f)}, 1, 10);
    check_op("Gemm", 13, {{{4, 5}}, {{5, 6}}, {{1, 6}}}, t, {attr_float("beta", 0.0f)}, 1, 10);
  }
}

TEST(CudaKernels, Conv) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes) {
    // 2-D with bias, pads and strides; grouped; dilated; depthwise; 1-D; 3-D; SAME_UPPER.
    check_op("Conv", 11, {{{2, 4, 9, 9}}, {{8, 4, 3, 3}, true}, {{8}, true}}, t,
             {attr_ints("pads", {1, 1, 1, 1}), attr_ints("strides", {2, 2})}, 1, 10);
    check_op("Conv", 11, {{{1, 4, 7, 7}}, {{6, 2, 3, 3}, true}}, t, {attr_int("group", 2)}, 1, 10);
    check_op("Conv", 11, {{{1, 3, 9, 9}}, {{4, 3, 3, 3}, true}}, t,
             {attr_ints("dilations", {2, 2}), attr_ints("pads", {2, 2, 2, 2})}, 1, 10);
    check_op("Conv", 11, {{{1, 8, 6, 6}}, {{8, 1, 3, 3}, true}, {{8}, true}}, t,
             {attr_int("group", 8), attr_ints("pads", {1, 1, 1, 1})}, 1, 10);
    check_op("Conv", 11, {{{2, 3, 11}}, {{5, 3, 3}, true}}, t, {attr_ints("pads", {1, 1})}, 1, 10);
    check_op("Conv", 11, {{{1, 2, 4, 5, 6}}, {{3, 2, 3, 3, 3}, true}}, t, {}, 1, 10);
    check_op("Conv", 11, {{{1, 2, 7, 7}}, {{3, 2, 3, 3}, true}}, t,
             {attr_string("auto_pad", "SAME_UPPER")}, 1, 10);
    // An empty batch: an empty Y, no cuDNN descriptor of a 0 dim.
    check_op("Conv", 11, {{{0, 4, 9, 9}}, {{8, 4, 3, 3}, true}, {{8}, true}}, t,
             {attr_ints("pads", {1, 1, 1, 1})}, 1, 10);
  }
  OneNode m("Conv", 11, {attr_ints("pads", {1, 1, 1, 1})});
  m.input("x", make_tensor(DataType::kFloat, {1, 3, 8, 8}, random_values(192, 1)))
      .input("w", make_tensor(DataType::kFloat, {4, 3, 3, 3}, random_values(108, 2)), true)
      .output("y");
  expect_each_search_matches_cpu(m);
}

TEST(CudaKernels, ConvSearchResultsAreKeptInTheCacheFile) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const auto path = std::filesystem::temp_directory_path() / "tessera_conv_algo_cache.txt";
  std::filesystem::remove(path);
  OneNode m("Conv", 11, {attr_ints("pads", {1, 1, 1, 1})});
  m.input("x", make_tensor(DataType::kFloat, {1, 8, 16, 16}, random_values(2048, 1)))
      .input("w", make_tensor(DataType::kFloat, {8, 8, 3, 3}, random_values(576, 2)), true)
      .output("y");
  const std::vector<ProviderSpec> spec = {
      {kCuda,
       {{"cudnn_conv_algo_search", "EXHAUSTIVE"}, {"cudnn_conv_algo_cache", path.string()}}}};
  auto cpu = Session::create_from_model(m.model, {}, {{kCpu, {}}});
  const Tensor want = cpu->run(m.feeds)[0].tensor();
  {
    auto s = Session::create_from_model(m.model, {}, spec);
    expect_close(s->run(m.feeds)[0].tensor(), want, {1e-4, 1e-4}, "tuning run");
    auto stats = cuda::AlgoCache::open(path.string())->stats();  // the session's own cache
    EXPECT_EQ(stats.tuned, 1);
    EXPECT_GT(stats.tune_ms, 0.0);
  }
  // A later session (the first one's cache is gone) reads the choice back.
  auto s = Session::create_from_model(m.model, {}, spec);
  expect_close(s->run(m.feeds)[0].tensor(), want, {1e-4, 1e-4}, "cached run");
  auto stats = cuda::AlgoCache::open(path.string())->stats();
  EXPECT_EQ(stats.from_file, 1);
  EXPECT_EQ(stats.tuned, 0);
  EXPECT_EQ(stats.reused, 1);
  std::filesystem::remove(path);
}

// The exhaustive search asks for a workspace of 32 MiB at least; under a
// gpu_mem_limit of 8 MiB it must search within what it can get, not fail.
TEST(CudaKernels, ExhaustiveSearchFitsASmallGpuMemLimit) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  OneNode m("Conv", 11, {attr_ints("pads", {1, 1, 1, 1})});
  m.input("x", make_tensor(DataType::kFloat, {1, 8, 16, 16}, random_values(2048, 3)))
      .input("w", make_tensor(DataType::kFloat, {8, 8, 3, 3}, random_values(576, 4)), true)
      .output("y");
  auto cpu = Session::create_from_model(m.model, {}, {{kCpu, {}}});
  for (const char* max_workspace : {"0", "1"}) {
    auto s = Session::create_from_model(m.model, {},
                                        {{kCuda,
                                          {{"cudnn_conv_algo_search", "EXHAUSTIVE"},
                                           {"cudnn_conv_use_max_workspace", max_workspace},
                                           {"gpu_mem_limit", std::to_string(8 << 20)}}}});
    expect_close(s->run(m.feeds)[0].tensor(), cpu->run(m.feeds)[0].tensor(), {1e-4, 1e-4},
                 std::string("cudnn_conv_use_max_workspace=") + max_workspace);
  }
}

TEST(CudaKernels, MatMulBiasReluRunsAsOneFusedStep) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kTypes)
    for (bool relu : {false, true}) {
      ir::Model m;
      m.ir_version = 8;
      m.opset_imports.push_back({"", 17});
      m.graph.inputs.push_back(tensor_info("a", {2, 7, 32}, t));
      m.graph.initializers["w"] = make_tensor(t, {32, 24}, random_values(32 * 24, 5));
      m.graph.initializers["bias"] = make_tensor(t, {24}, random_values(24, 6));
      m.graph.nodes.push_back(test::make_node("MatMul", {"a", "w"}, {"p"}));
      m.graph.nodes.push_back(test::make_node("Add", {"p", "bias"}, {relu ? "s" : "y"}));
      if (relu) m.graph.nodes.push_back(test::make_node("Relu", {"s"}, {"y"}));
      m.graph.outputs.push_back(tensor_info("y", {2, 7, 24}, t));
      const Tensor a = make_tensor(t, {2, 7, 32}, random_values(2 * 7 * 32, 7));
      auto cuda = Session::create_from_model(m, {}, {{kCuda, {}}});
      auto cpu = Session::create_from_model(m, {}, {{kCpu, {}}});
      for (const auto& n : cuda->node_assignments()) {
        EXPECT_EQ(n.provider, kCuda) << n.node_name;
        EXPECT_FALSE(n.fused_group.empty()) << n.node_name << " is not in the fused step";
      }
      expect_close(as_float(cuda->run({{"a", a}})[0].tensor()),
                   as_float(cpu->run({{"a", a}})[0].tensor()), tolerance_for(t),
                   type_name(t) + (relu ? " with Relu" : ""));
    }
}

TEST(CudaKernels, FusedMultiHeadAttentionMatchesTheCpu) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // The optimizer's com.tessera MultiHeadAttention: Q, K, V [B, S, H * D],
  // an additive mask [B, 1, 1, S], Y under output_shape.
  const int64_t b = 2, s = 5, h = 3, d = 4;
  const ir::Model m = attention_model(
      {{"q", {b, s, h * d}}, {"k", {b, s, h * d}}, {"v", {b, s, h * d}}, {"mask", {b, 1, 1, s}}},
      {attr_int("num_heads", h), attr_int("head_size", d), attr_int("seq_len", s),
       attr_int("batch", b), attr_float("scale", 0.5f)},
      {b * s, h * d});
  std::vector<std::pair<std::string, Value>> feeds;
  uint32_t seed = 11;
  for (const char* name : {"q", "k", "v"})
    feeds.push_back(
        {name, make_tensor(DataType::kFloat, {b, s, h * d}, random_values(b * s * h * d, seed++))});
  std::vector<float> mask(size_t(b * s), 0.0f);
  mask[3] = -1e4f;  // batch 0 ignores key 3
  feeds.push_back({"mask", make_tensor(DataType::kFloat, {b, 1, 1, s}, mask)});
  auto cuda = Session::create_from_model(m, {}, {{kCuda, {}}});
  auto cpu = Session::create_from_model(m, {}, {{kCpu, {}}});
  EXPECT_EQ(assigned_provider(*cuda), kCuda);
  expect_close(cuda->run(feeds)[0].tensor(), cpu->run(feeds)[0].tensor(), {1e-4, 1e-5},
               "MultiHeadAttention");
}

TEST(CudaKernels, PackedMultiHeadAttentionMatchesTheCpu) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // packed_qkv: input 0 is [B, S, 3 * H * D] (the QKV projection), read in
  // place. Head size 4 (one element at a time) and 64 (16-byte loads, the
  // tensor-core kernel in float16 when its grid fills the GPU: 2 x 2 x 2
  // blocks do not, 24 x 8 x 2 do).
  struct Case {
    int64_t b, s, h, d;
  };
  for (const Case c : {Case{2, 5, 3, 4}, Case{2, 70, 2, 64}, Case{24, 70, 8, 64}})
    for (DataType t : {DataType::kFloat, DataType::kFloat16}) {
      const int64_t hd = c.h * c.d;
      const auto model = [&](DataType type) {
        return attention_model(
            {{"qkv", {c.b, c.s, 3 * hd}}, {"", {}}, {"", {}}, {"mask", {c.b, 1, 1, c.s}}},
            {attr_int("num_heads", c.h), attr_int("head_size", c.d), attr_int("seq_len", c.s),
             attr_int("batch", c.b), attr_int("packed_qkv", 1), attr_float("scale", 0.125f)},
            {c.b, c.s, hd}, type);
      };
      Tensor qkv = make_tensor(t, {c.b, c.s, 3 * hd}, random_values(c.b * c.s * 3 * hd, 21));
      std::vector<float> mask(size_t(c.b * c.s), 0.0f);
      mask[3] = -1e4f;  // batch 0 ignores key 3
      Tensor m = make_tensor(t, {c.b, 1, 1, c.s}, mask);
      auto cuda = Session::create_from_model(model(t), {}, {{kCuda, {}}});
      auto cpu = Session::create_from_model(model(DataType::kFloat), {}, {{kCpu, {}}});
      EXPECT_EQ(assigned_provider(*cuda), kCuda);
      expect_close(as_float(cuda->run({{"qkv", qkv}, {"mask", m}})[0].tensor()),
                   cpu->run({{"qkv", as_float(qkv)}, {"mask", as_float(m)}})[0].tensor(),
                   tolerance_for(t), str_cat("packed ", type_name(t), " d ", c.d, " b ", c.b));
    }
}

TEST(CudaKernels, TF32AndFp16MathStayClose) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (const char* option : {"use_tf32", "prefer_fp16"}) {
    OneNode m("MatMul", 13);
    m.input("a", make_tensor(DataType::kFloat, {32, 64}, random_values(32 * 64, 1)))
        .input("b", make_tensor(DataType::kFloat, {64, 16}, random_values(64 * 16, 2)))
        .output("y");
    auto cuda = Session::create_from_model(m.model, {}, {{kCuda, {{option, "1"}}}});
    auto cpu = Session::create_from_model(m.model, {}, {{kCpu, {}}});
    EXPECT_EQ(assigned_provider(*cuda), kCuda);
    expect_close(cuda->run(m.feeds)[0].tensor(), cpu->run(m.feeds)[0].tensor(), {2e-2, 2e-2},
                 option);
  }
}

TEST(CudaKernels, RunTimeErrorsNameTheNode) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Softmax's axis is checked again at run time when the rank was unknown.
  OneNode m("Softmax", 13, {attr_int("axis", 0)});
  m.input("x", make_tensor(DataType::kFloat, {2, 3}, random_values(6, 1))).output("y");
  m.model.graph.inputs[0].type.shape.reset();  // rank unknown: claimed, checked at run time
  auto s = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  ASSERT_EQ(assigned_provider(*s), kCpu);  // axis 0 may not be the last: declined
  // Gemm's inner dims are checked at run time.
  OneNode g("Gemm", 13);
  g.input("a", make_tensor(DataType::kFloat, {2, 3}, random_values(6, 1)))
      .input("b", make_tensor(DataType::kFloat, {4, 5}, random_values(20, 2)))
      .output("y");
  g.model.graph.inputs[0].type.shape.reset();
  g.model.graph.inputs[1].type.shape.reset();
  auto gs = Session::create_from_model(g.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  ASSERT_EQ(assigned_provider(*gs), kCuda);
  try {
    gs->run(g.feeds);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Gemm_node"), std::string::npos) << what;
    EXPECT_NE(what.find("inner dimensions differ"), std::string::npos) << what;
  }
}
