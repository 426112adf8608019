#include <gtest/gtest.h>

#include <filesystem>

#include "onnx/model_writer.hpp"
#include "runtime/session.hpp"

using namespace tessera;

namespace {

// y = Relu(MatMul(x, w) + b): enough for the optimizer to have passes to run.
ir::Model small_model() {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  auto info = [](const std::string& n, std::vector<int64_t> dims) {
    std::vector<ir::Dim> d;
    for (int64_t v : dims) d.push_back(ir::Dim{v, ""});
    return ir::ValueInfo{n, ir::TypeInfo::tensor(DataType::kFloat, d), ""};
  };
  m.graph.inputs.push_back(info("x", {2, 3}));
  m.graph.initializers["w"] = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  m.graph.initializers["b"] = Tensor::from_vector<float>({1, -1}, Shape{2});
  auto node = [](const std::string& op, std::vector<std::string> in, std::string out) {
    ir::Node n;
    n.name = op;
    n.op_type = op;
    n.inputs = std::move(in);
    n.outputs = {std::move(out)};
    return n;
  };
  m.graph.nodes.push_back(node("MatMul", {"x", "w"}, "xw"));
  m.graph.nodes.push_back(node("Add", {"xw", "b"}, "s"));
  m.graph.nodes.push_back(node("Relu", {"s"}, "y"));
  m.graph.outputs.push_back(info("y", {2, 2}));
  return m;
}

const PhaseTiming* find(const CreationTimings& t, const std::string& name) {
  for (const auto& p : t.phases)
    if (p.name == name) return &p;
  return nullptr;
}

TEST(CreationTimings, EveryPhaseIsReportedAndTheySumToAtMostTheTotal) {
  auto path = std::filesystem::temp_directory_path() / "tessera_creation_timings.onnx";
  onnx::save_model(small_model(), path.string());
  auto s = Session::create(path.string());
  std::filesystem::remove(path);
  const CreationTimings& t = s->creation_timings();
  for (const char* phase :
       {"parse", "inline model functions", "validate", "create providers",
        "optimize: fold_constants", "optimize: fuse_matmul_add", "optimize: eliminate_dead_nodes",
        "expand function ops", "type inference", "partition",
        "kernel creation and weight prepacking", "memory planning", "share initializers"})
    EXPECT_NE(find(t, phase), nullptr) << phase << "\n" << t.to_text();
  double sum = 0;
  for (const auto& p : t.phases) {
    EXPECT_GE(p.ms, 0.0) << p.name;
    sum += p.ms;
  }
  EXPECT_GT(t.total_ms, 0.0);
  EXPECT_LE(sum, t.total_ms);
  // Parse comes first; a phase that repeats is one entry.
  EXPECT_EQ(t.phases.front().name, "parse");
  size_t folds = 0;
  for (const auto& p : t.phases) folds += p.name == "optimize: fold_constants";
  EXPECT_EQ(folds, 1u);
  EXPECT_NE(t.to_text().find("total"), std::string::npos);
}

TEST(CreationTimings, InMemoryModelsHaveNoParsePhaseAndDisabledOptimizationNoPasses) {
  SessionOptions o;
  o.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto s = Session::create_from_model(small_model(), o);
  const CreationTimings& t = s->creation_timings();
  EXPECT_EQ(find(t, "parse"), nullptr);
  for (const auto& p : t.phases) EXPECT_NE(p.name.rfind("optimize:", 0), 0u) << p.name;
  EXPECT_NE(find(t, "partition"), nullptr);
}

}  // namespace
