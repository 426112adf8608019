// CUDA graphs (enable_cuda_graph=1): the second run of each input shape is
// captured and replayed, later runs only replay; results match the CPU
// provider on every run, Gather's index check still fails a replayed run,
// and a model the CPU must help with runs uncaptured. Needs a CUDA device:
// without one every test here is skipped and says why.
#include <atomic>
#include <filesystem>
#include <thread>

#include "onnx/model_reader.hpp"
#include "runtime/copy_tensors.hpp"
#include "unit/kernel_test_util.hpp"
#include "unit/providers/test_cuda_util.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;
namespace fs = std::filesystem;

namespace {

using test_device::node;

const ProviderSpec kGraphCuda{kCuda, {{"enable_cuda_graph", "1"}}};

// y = Relu(Sigmoid(x) * x) on float[n].
ir::Model chain_model(int64_t n) {
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {n}));
  m.graph.nodes = {node("Sigmoid", {"x"}, {"s"}), node("Mul", {"s", "x"}, {"p"}),
                   node("Relu", {"p"}, {"y"})};
  m.graph.outputs.push_back(tensor_info("y", {n}));
  return m;
}

}  // namespace

TEST(CudaGraphs, LaterRunsReplayAndMatchTheCpu) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  auto s = Session::create_from_model(chain_model(4096), {}, {kGraphCuda, {kCpu, {}}});
  auto cpu = Session::create_from_model(chain_model(4096), {}, {{kCpu, {}}});
  EXPECT_EQ(s->run_capture().status, "on (CUDAExecutionProvider)");
  for (uint32_t run = 0; run < 5; ++run) {
    Tensor x = make_tensor(DataType::kFloat, {4096}, random_values(4096, 40 + run, -4, 4));
    auto got = s->run({{"x", x}});
    auto want = cpu->run({{"x", x}});
    expect_close(got[0].tensor(), want[0].tensor(), tolerance_for(DataType::kFloat),
                 "run " + std::to_string(run));
  }
  const auto c = s->run_capture();
  EXPECT_EQ(c.warmups, 1);
  EXPECT_EQ(c.captures, 1);
  EXPECT_EQ(c.replays, 4);
  EXPECT_EQ(c.failures, 0);
}

// Concurrent runs on one caller's stream take turns under CUDA graphs: one
// run's kernels queued while another captures would land in that capture
// (and then be missing from their own run, or replayed in the other's).
TEST(CudaGraphs, ConcurrentRunsOnACallersStreamTakeTurns) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const int64_t n = 4096;
  auto stream = create_stream(cuda::cuda_memory_info(0));
  const std::string handle = std::to_string(cuda::cuda_stream_handle(stream.get()));
  auto s = Session::create_from_model(
      chain_model(n), {},
      {{kCuda, {{"enable_cuda_graph", "1"}, {"user_compute_stream", handle}}}, {kCpu, {}}});
  auto cpu = Session::create_from_model(chain_model(n), {}, {{kCpu, {}}});
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0}, failed{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (uint32_t run = 0; run < 10; ++run) {
        Tensor x = make_tensor(DataType::kFloat, {n}, random_values(n, 100 * t + run, -4, 4));
        try {
          const Tensor got = s->run({{"x", x}})[0].tensor();
          const Tensor want = cpu->run({{"x", x}})[0].tensor();
          for (int64_t i = 0; i < n; ++i)
            if (std::fabs(got.data<float>()[i] - want.data<float>()[i]) > 1e-5f) {
              ++wrong;
              break;
            }
        } catch (const std::exception& e) {
          ++failed;
          ADD_FAILURE() << e.what();
        }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(failed.load(), 0);
  const auto c = s->run_capture();
  EXPECT_EQ(c.captures, 1);
  EXPECT_EQ(c.failures, 0);
  EXPECT_GT(c.replays, 30);
}

TEST(CudaGraphs, ShippedModelsReplayAndMatchTheCpu) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (const char* name : {"demo_cnn", "demo_transformer"}) {
    SCOPED_TRACE(name);
    const fs::path dir = test::source_root() / "models" / name;
    auto s = Session::create((dir / "model.onnx").string(), {}, {kGraphCuda, {kCpu, {}}});
    auto cpu = Session::create((dir / "model.onnx").string(), {}, {{kCpu, {}}});
    EXPECT_EQ(s->run_capture().status, "on (CUDAExecutionProvider)");
    std::vector<std::pair<std::string, Value>> feeds;
    for (size_t i = 0; i < s->inputs().size(); ++i)
      feeds.emplace_back(
          s->inputs()[i].name,
          Value(onnx::load_tensor(
              (dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")).string())));
    auto want = cpu->run(feeds);
    for (int run = 0; run < 3; ++run) {
      auto got = s->run(feeds);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); ++k)
        expect_close(got[k].tensor(), want[k].tensor(), {1e-3, 1e-4},
                     "run " + std::to_string(run) + " output " + std::to_string(k));
    }
    EXPECT_EQ(s->run_capture().replays, 2);
  }
}

TEST(CudaGraphs, GathersIndexCheckFailsAReplayedRun) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("i", {3}, DataType::kInt64));
  m.graph.initializers["data"] = make_tensor(DataType::kFloat, {5, 2}, random_values(10, 7));
  m.graph.nodes = {node("Gather", {"data", "i"}, {"y"})};
  m.graph.outputs.push_back(tensor_info("y", {3, 2}));
  auto s = Session::create_from_model(m, {}, {kGraphCuda, {kCpu, {}}});
  auto good = Tensor::from_vector<int64_t>({0, 4, -1}, Shape{3});
  s->run({{"i", good}});
  s->run({{"i", good}});  // captured
  try {
    s->run({{"i", Tensor::from_vector<int64_t>({0, 7, 1}, Shape{3})}});
    ADD_FAILURE() << "a bad index passed a replayed Gather";
  } catch (const Error& e) {
    expect_has(e.what(), "index 7 is out of range [-5, 4]");
  }
  auto y = s->run({{"i", good}});
  EXPECT_EQ(y[0].tensor().shape(), Shape({3, 2}));
  EXPECT_EQ(s->run_capture().replays, 3);
}

TEST(CudaGraphs, AModelTheCpuHelpsWithRunsUncaptured) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Unique has no CUDA kernel: the CPU reads a device value mid-run.
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {6}));
  m.graph.nodes = {node("Relu", {"x"}, {"r"}), node("Unique", {"r"}, {"y"})};
  m.graph.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kFloat), ""});
  auto s = Session::create_from_model(m, {}, {kGraphCuda, {kCpu, {}}});
  const std::string status = s->run_capture().status;
  expect_has(status, "not possible: value 'r' is copied to");
  for (int run = 0; run < 3; ++run) {
    auto y = s->run({{"x", Tensor::from_vector<float>({1, -1, 2, 0, -3, 4}, Shape{6})}});
    EXPECT_EQ(y[0].tensor().shape(), Shape({4}));  // 0, 1, 2, 4
  }
  EXPECT_EQ(s->run_capture().captures, 0);
}
