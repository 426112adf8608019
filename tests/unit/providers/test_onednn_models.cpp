// Whole models with [Dnnl, CPU] against [CPU]: the shipped demo models and,
// when present, the benchmark models. The partition must really split (some
// nodes on each provider) and the outputs must agree within tolerance.
#include <filesystem>

#include "onnx/model_reader.hpp"
#include "unit/kernel_test_util.hpp"
#include "unit/providers/test_onednn_util.hpp"

using namespace tessera;
using namespace tessera::test::dnnl;
namespace fs = std::filesystem;

namespace {

using test::source_root;

void check_model(const fs::path& dir, double tol) {
  const fs::path model = dir / "model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " is not present";
  SessionOptions opts;
  auto dnnl = Session::create(model.string(), opts, {{kDnnl, {}}, {kCpu, {}}});
  auto cpu = Session::create(model.string(), opts, {{kCpu, {}}});

  size_t on_dnnl = 0, total = 0;
  for (const auto& a : dnnl->node_assignments()) {
    ++total;
    on_dnnl += a.provider == kDnnl;
  }
  EXPECT_GT(on_dnnl, 0u) << "oneDNN claimed nothing in " << model;
  std::cout << "[ info ] " << dir.filename().string() << ": " << on_dnnl << " of " << total
            << " nodes on oneDNN\n";

  std::vector<std::pair<std::string, Value>> feeds;
  const auto& inputs = dnnl->inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    fs::path pb = dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb");
    ASSERT_TRUE(fs::exists(pb)) << pb;
    feeds.emplace_back(inputs[i].name, Value(onnx::load_tensor(pb.string())));
  }
  auto got = dnnl->run(feeds);
  auto want = cpu->run(feeds);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    expect_close(got[i].tensor(), want[i].tensor(), tol, tol);
  }
}

}  // namespace

TEST(OnednnModels, DemoCnn) { check_model(source_root() / "models" / "demo_cnn", 1e-4); }
TEST(OnednnModels, DemoTransformer) {
  check_model(source_root() / "models" / "demo_transformer", 1e-4);
}
TEST(OnednnModels, BenchResnet50) { check_model("/tmp/bench/models/public/resnet50", 1e-3); }
TEST(OnednnModels, BenchMobilenetV2) { check_model("/tmp/bench/models/public/mobilenet_v2", 1e-3); }
TEST(OnednnModels, BenchBertBase) { check_model("/tmp/bench/models/public/bert_base", 1e-3); }
