// Where the CUDA provider leaves nodes to the CPU although it has kernels for
// them: shape computations on host integers. Needs no GPU (get_capability
// runs without one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include "ep/node_groups.hpp"
#include "ep/provider_abilities.hpp"
#include "ep/provider_registry.hpp"
#include "onnx/model_reader.hpp"
#include "optimizer/optimizer.hpp"
#include "providers/cpu/cpu_provider.hpp"
#include "providers/cuda/cuda_options.hpp"
#include "runtime/provider_transforms.hpp"
#include "runtime/shared_fusions.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

// Every node of the model, optimized as a session with CUDA in its provider
// list optimizes it (no CPU-only fusions), that CUDA declines, with why.
std::string declined_nodes(const std::filesystem::path& file,
                           std::map<std::string, int>* fused = nullptr) {
  ir::Model m = onnx::load_model(file.string());
  optimizer::OptimizeOptions opt;
  opt.fold_kernels = &cpu::cpu_kernel_registry();
  opt.shared_fusions = runtime::shared_fusions(
      {cuda::make_cuda_provider_unchecked({}),
       ep::ProviderRegistry::instance().find("CPUExecutionProvider")->create({})});
  optimizer::optimize(m, SessionOptions().graph_optimization_level, opt);
  const auto c = cuda_claims(m);
  std::string out;
  for (size_t i = 0; i < c.size(); ++i)
    if (!c[i].empty()) out += str_cat("\n  ", m.graph.nodes[i].describe(), ": ", c[i]);
  if (fused) {
    for (const auto& n : m.graph.nodes)
      if (n.domain == "com.tessera")
        ++(*fused)[n.attr("packed_qkv") ? "packed " + n.op_type : n.op_type];
    // The provider's own fused steps (MatMul + bias epilogues), by first op.
    for (const auto& g : cuda_capability(m).groups)
      if (g.fused) ++(*fused)["group " + m.graph.nodes[g.nodes[0]].op_type];
  }
  return out;
}

// y = Relu(MatMul(a, w) + bias), a [2, 3, 4], w [4, 5], bias [5].
ir::Model matmul_bias_relu() {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("a", {2, 3, 4}));
  m.graph.initializers["w"] = Tensor(DataType::kFloat, Shape{4, 5});
  m.graph.initializers["bias"] = Tensor(DataType::kFloat, Shape{5});
  m.graph.nodes = {test::make_node("MatMul", {"a", "w"}, {"p"}),
                   test::make_node("Add", {"p", "bias"}, {"s"}),
                   test::make_node("Relu", {"s"}, {"y"})};
  m.graph.outputs.push_back(tensor_info("y", {2, 3, 5}));
  return m;
}

bool host_shape(const std::string& reason) {
  return reason.find("computes a shape from host integers") != std::string::npos;
}

}  // namespace

TEST(CudaPlacement, ShapeComputationsStayOnTheHost) {
  // y = Relu(Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1]))), and a
  // Gather of float data by constant indices, which is not a shape computation.
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {2, 3, 4}));
  m.graph.initializers["zero"] = Tensor::scalar<int64_t>(0);
  m.graph.initializers["axes"] = Tensor::from_vector<int64_t>({0}, Shape{1});
  m.graph.initializers["minus1"] = Tensor::from_vector<int64_t>({-1}, Shape{1});
  m.graph.initializers["idx"] = Tensor::from_vector<int64_t>({1, 0}, Shape{2});
  m.graph.nodes = {test::make_node("Shape", {"x"}, {"s"}),
                   test::make_node("Gather", {"s", "zero"}, {"b"}),
                   test::make_node("Unsqueeze", {"b", "axes"}, {"b1"}),
                   test::make_node("Concat", {"b1", "minus1"}, {"shp"}, {attr_int("axis", 0)}),
                   test::make_node("Reshape", {"x", "shp"}, {"y"}),
                   test::make_node("Relu", {"y"}, {"z"}),
                   test::make_node("Gather", {"x", "idx"}, {"g"})};
  m.graph.outputs.push_back(tensor_info("z", {2, 12}));
  m.graph.outputs.push_back(tensor_info("g", {2, 3, 4}));
  const auto c = cuda_claims(m);
  EXPECT_EQ(c[0], "") << "Shape writes its dims on the host, reading no device memory";
  for (size_t i : {1, 2, 3}) EXPECT_TRUE(host_shape(c[i])) << i << ": " << c[i];
  EXPECT_EQ(c[4], "") << "Reshape reads its shape on the host";
  EXPECT_EQ(c[5], "");
  EXPECT_FALSE(host_shape(c[6])) << c[6];
}

TEST(CudaPlacement, IntegerGraphInputsAreNotHostShapes) {
  // An int64 graph input (token ids, a mask) may be large and is fed where
  // the user puts it: its computations are claimed as usual.
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("ids", {1, 128}, DataType::kInt64));
  m.graph.initializers["axes"] = Tensor::from_vector<int64_t>({1}, Shape{1});
  m.graph.nodes = {test::make_node("Unsqueeze", {"ids", "axes"}, {"u"})};
  m.graph.outputs.push_back(tensor_info("u", {1, 1, 128}, DataType::kInt64));
  EXPECT_EQ(cuda_claims(m)[0], "");
}

TEST(CudaPlacement, RunStreamEntryIsValidated) {
  EXPECT_EQ(cuda::parse_run_stream("0x10"), uintptr_t(16));
  EXPECT_EQ(cuda::parse_run_stream("4096"), uintptr_t(4096));
  for (const char* bad : {"", "0", "0x", "-5", "12abc", "0xzz", " 7"}) {
    try {
      cuda::parse_run_stream(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find("cuda.compute_stream"), std::string::npos) << e.what();
    }
  }
}

// The shipped models, and the benchmark models when TESSERA_BENCH_MODELS
// names their folder, run wholly on the GPU: no node falls back to the CPU
// (which would cost copies at each border).
TEST(CudaPlacement, ModelsRunWhollyOnTheGpu) {
  const auto root = test::source_root();
  std::vector<std::filesystem::path> models = {root / "models/demo_cnn/model.onnx",
                                               root / "models/demo_transformer/model.onnx"};
  if (const char* dir = std::getenv("TESSERA_BENCH_MODELS"))
    for (const char* name : {"resnet50", "mobilenet_v2", "bert_base"})
      models.push_back(std::filesystem::path(dir) / name / "model.onnx");
  for (const auto& file : models) {
    if (!std::filesystem::exists(file)) {
      ADD_FAILURE_AT(__FILE__, __LINE__) << file << " is missing";
      continue;
    }
    std::map<std::string, int> fused;
    EXPECT_EQ(declined_nodes(file, &fused), "") << file;
    std::string made;
    for (const auto& [op, n] : fused) made += str_cat(" ", op, " x", n);
    std::cout << "[ info ] " << file.parent_path().filename().string() << ":" << made << "\n";
    // BERT's 12 layers: their attention blocks, residual norms and GELUs
    // become the fused ops CUDA runs. (The demo transformer's single-head
    // attention has no head split to fuse.)
    // The CNNs' convolutions take their activation and residual Add along
    // (com.tessera FusedConv), as CUDA runs them.
    const std::string name = file.parent_path().filename().string();
    if (name == "resnet50") {
      EXPECT_EQ(fused["FusedConv"], 49) << file;
    }
    if (name == "mobilenet_v2") {
      EXPECT_EQ(fused["FusedConv"], 45) << file;
    }
    if (file.parent_path().filename() == "bert_base") {
      EXPECT_EQ(fused["MultiHeadAttention"], 12) << file;
      // Two per layer, and the embeddings' sum before their norm.
      EXPECT_EQ(fused["SkipLayerNormalization"], 25) << file;
      EXPECT_EQ(fused["BiasGelu"], 12) << file;
      // Each layer's projections of Q, K and V take their bias in the GEMM
      // (one QKV projection or three), though they read a fused op's output.
      EXPECT_GE(fused["group MatMul"], 12) << file;
    }
  }
}

TEST(CudaPlacement, MatMulBiasReluIsOneFusedGroup) {
  ep::Capability cap = cuda_capability(matmul_bias_relu());
  ASSERT_EQ(cap.groups.size(), 1u);
  EXPECT_TRUE(cap.groups[0].fused);
  EXPECT_EQ(cap.groups[0].nodes, (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(cap.declined.empty());
  // Without the Relu: MatMul + Add.
  ir::Model m = matmul_bias_relu();
  m.graph.nodes.pop_back();
  m.graph.outputs[0].name = "s";
  cap = cuda_capability(m);
  ASSERT_EQ(cap.groups.size(), 1u);
  EXPECT_EQ(cap.groups[0].nodes, (std::vector<size_t>{0, 1}));
  // A of unknown shape (BERT's QKV projection reads a fused op's output).
  m = matmul_bias_relu();
  m.graph.inputs[0].type.shape.reset();
  cap = cuda_capability(m);
  ASSERT_EQ(cap.groups.size(), 1u);
  EXPECT_TRUE(cap.groups[0].fused);
}

TEST(CudaPlacement, MatMulIsNotFusedWhenAnythingElseNeedsItsParts) {
  auto singles = [](const ir::Model& m) {
    ep::Capability cap = cuda_capability(m);
    for (const auto& g : cap.groups)
      if (g.fused) return false;
    return cap.groups.size() == m.graph.nodes.size();
  };
  // The product is also a graph output.
  ir::Model m = matmul_bias_relu();
  m.graph.outputs.push_back(tensor_info("p", {2, 3, 5}));
  EXPECT_TRUE(singles(m));
  // The bias is fed by the user (an input, not a constant).
  m = matmul_bias_relu();
  m.graph.inputs.push_back(tensor_info("bias", {5}));
  EXPECT_TRUE(singles(m));
  // B is not a constant.
  m = matmul_bias_relu();
  m.graph.initializers.erase("w");
  m.graph.inputs.push_back(tensor_info("w", {4, 5}));
  EXPECT_TRUE(singles(m));
  // The bias is not one value per column.
  m = matmul_bias_relu();
  m.graph.initializers["bias"] = Tensor(DataType::kFloat, Shape{3, 5});
  EXPECT_TRUE(singles(m));
}

TEST(CudaPlacement, FusedGroupsCompileWithoutADevice) {
  const ir::Model m = matmul_bias_relu();
  auto provider = cuda::make_cuda_provider_unchecked({});
  const auto* compiler = dynamic_cast<const ep::FusedCompiler*>(provider.get());
  ASSERT_NE(compiler, nullptr);
  const TypedGraph typed(m);
  const ep::GraphView& view = typed.view;
  ep::FusedGroup g;
  g.nodes = {2, 0, 1};  // any order
  auto boundary = ep::group_boundary(m.graph, g.nodes);
  g.node.name = "CUDAExecutionProvider_fused_0";
  g.node.inputs = boundary.inputs;
  g.node.outputs = boundary.outputs;
  auto kernels = compiler->compile(view, {g});
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_NE(kernels[0], nullptr);
  // A group that is not a MatMul + bias (+ Relu) is an error naming it.
  g.nodes = {1, 2};
  try {
    compiler->compile(view, {g});
    ADD_FAILURE() << "compiled a group that is not an epilogue";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a MatMul + bias"), std::string::npos) << e.what();
  }
}

TEST(CudaPlacement, FusedAttentionIsClaimedPackedOrNotButNotItsGptOrSeqFirstForm) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.opset_imports.push_back({"com.tessera", 1});
  for (const char* n : {"q", "k", "v"}) m.graph.inputs.push_back(tensor_info(n, {1, 4, 8}));
  m.graph.inputs.push_back(tensor_info("mask", {1, 1, 1, 4}));
  ir::Node n = test::make_node(
      "MultiHeadAttention", {"q", "k", "v", "mask"}, {"y"},
      {attr_int("num_heads", 2), attr_int("head_size", 4), attr_int("seq_len", 4),
       attr_int("batch", 1), attr_float("scale", 0.5f), attr_ints("output_shape", {1, 4, 8})});
  n.domain = "com.tessera";
  m.graph.nodes = {n};
  m.graph.outputs.push_back(tensor_info("y", {1, 4, 8}));
  EXPECT_EQ(cuda_claims(m)[0], "");
  // The packed form (Q, K and V in input 0) is claimed too.
  ir::Model packed = m;
  packed.graph.nodes[0].inputs = {"q", "", "", "mask"};
  packed.graph.nodes[0].attributes.push_back(attr_int("packed_qkv", 1));
  EXPECT_EQ(cuda_claims(packed)[0], "");
  // The sequence-first form (the CPU provider's) is declined, naming it.
  ir::Model seq_first = m;
  seq_first.graph.nodes[0].attributes.push_back(attr_int("seq_first", 1));
  EXPECT_NE(cuda_claims(seq_first)[0].find("seq_first"), std::string::npos)
      << cuda_claims(seq_first)[0];
  m.graph.nodes[0].attributes.push_back(attr_float("masked_value", -1e4f));
  m.graph.inputs.push_back(tensor_info("keep", {1, 1, 4, 4}, DataType::kBool));
  m.graph.nodes[0].inputs.push_back("keep");
  EXPECT_NE(cuda_claims(m)[0].find("GPT form"), std::string::npos) << cuda_claims(m)[0];
}

// [CUDA, CPU]: the nodes kept from CUDA are the CPU's, and its transform
// fuses them (Conv + Relu -> its own ops) while CUDA's Conv + Relu stay
// standard ops for CUDA. Runs without a GPU (partitioning only).
TEST(CudaPlacement, TheCpuPartKeepsItsFusionsBesideCuda) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  auto dims = [](std::vector<int64_t> d) {
    std::vector<ir::Dim> out;
    for (int64_t v : d) out.push_back(ir::Dim{v, ""});
    return out;
  };
  m.graph.inputs.push_back({"x", ir::TypeInfo::tensor(DataType::kFloat, dims({1, 16, 8, 8})), ""});
  m.graph.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kFloat), ""});
  for (const char* w : {"w1", "w2"}) {
    Tensor t(DataType::kFloat, Shape{16, 16, 3, 3});
    for (int64_t i = 0; i < t.num_elements(); ++i) t.mutable_data<float>()[i] = 0.01f * (i % 7);
    m.graph.initializers[w] = t;
  }
  auto node = [](const char* op, std::vector<std::string> in, std::string out) {
    ir::Node n;
    n.op_type = op;
    n.name = out;
    n.inputs = std::move(in);
    n.outputs = {std::move(out)};
    return n;
  };
  m.graph.nodes = {node("Conv", {"x", "w1"}, "c1"), node("Relu", {"c1"}, "r1"),
                   node("Conv", {"r1", "w2"}, "c2"), node("Relu", {"c2"}, "y")};
  runtime::Providers providers = {
      cuda::make_cuda_provider_unchecked({}),
      ep::ProviderRegistry::instance().find("CPUExecutionProvider")->create({})};
  ep::PlacementRule keep_from_cuda;
  keep_from_cuda.match = ep::PlacementRule::Match::kName;
  keep_from_cuda.value = "c2";  // the second Conv; its Relu (y) below
  keep_from_cuda.provider = "CUDAExecutionProvider";
  keep_from_cuda.forbid = true;
  ep::PlacementRule keep_y = keep_from_cuda;
  keep_y.match = ep::PlacementRule::Match::kName;
  keep_y.value = "y";
  const auto pins = runtime::apply_provider_transforms(m, providers, {keep_from_cuda, keep_y}, {});
  size_t cuda_convs = 0, cpu_fused = 0;
  for (const auto& n : m.graph.nodes) {
    const bool pinned = std::any_of(pins.begin(), pins.end(),
                                    [&](const ep::PlacementRule& r) { return r.value == n.name; });
    if (n.op_type == "Conv" && n.domain.empty()) {
      ++cuda_convs;
      EXPECT_FALSE(pinned) << n.describe();
    }
    if (n.domain == "com.tessera") {
      ++cpu_fused;
      EXPECT_TRUE(pinned) << n.describe();
    }
  }
  EXPECT_EQ(cuda_convs, 1u) << "CUDA's Conv was taken from it";
  EXPECT_GE(cpu_fused, 1u) << "the CPU's Conv + Relu was not fused";
}
