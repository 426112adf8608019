// The CUDA provider's memory: IO binding without host-device copies,
// copy_tensors with and without streams, the arena's gpu_mem_limit, pinned
// host memory, a caller's stream, concurrent runs, and CPU fallback with the
// copies it needs. Needs a CUDA device: without one every test here is
// skipped and says why.
#include <cstring>
#include <thread>

#include "core/arena_allocator.hpp"
#include "providers/cuda/cuda_options.hpp"
#include "runtime/copy_tensors.hpp"
#include "runtime/environment.hpp"
#include "runtime/io_binding.hpp"
#include "unit/providers/test_cuda_util.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

MemoryInfo gpu() { return cuda::cuda_memory_info(0); }

using test_device::node;

// y = Relu(Sigmoid(x)) on float[n]; both nodes run on CUDA.
ir::Model chain_model(int64_t n) {
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {n}));
  m.graph.nodes = {node("Sigmoid", {"x"}, {"s"}), node("Relu", {"s"}, {"y"})};
  m.graph.outputs.push_back(tensor_info("y", {n}));
  return m;
}

std::vector<float> host_values(const Tensor& t) {
  Tensor h = t.memory_info().host_accessible() ? t : copy_to(t, cpu_memory_info());
  return std::vector<float>(h.data<float>(), h.data<float>() + h.num_elements());
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

TEST(CudaMemory, CopyTensorsRoundTripsThroughTheDevice) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  Tensor h = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  Tensor d1 = allocate_tensor(DataType::kFloat, Shape{2, 3}, gpu());
  Tensor d2 = allocate_tensor(DataType::kFloat, Shape{2, 3}, gpu());
  Tensor back(DataType::kFloat, Shape{2, 3});
  EXPECT_TRUE(d1.memory_info().same_space(gpu()));
  cuda::cuda_transfer_counts().reset();
  copy_tensors({&h}, {&d1});
  copy_tensors({&d1}, {&d2});
  copy_tensors({&d2}, {&back});
  EXPECT_EQ(cuda::cuda_transfer_counts().h2d.load(), 1);
  EXPECT_EQ(cuda::cuda_transfer_counts().d2d.load(), 1);
  EXPECT_EQ(cuda::cuda_transfer_counts().d2h.load(), 1);
  EXPECT_EQ(host_values(back), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(CudaMemory, CopiesOnAStreamAreCompleteAtSynchronize) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const int64_t n = 1 << 22;  // 16 MiB: large enough to still be in flight
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[size_t(i)] = float(i % 1000);
  Tensor h = Tensor::from_vector<float>(values, Shape{n});
  Tensor d = allocate_tensor(DataType::kFloat, Shape{n}, gpu());
  Tensor back(DataType::kFloat, Shape{n});
  auto stream = create_stream(gpu());
  ASSERT_NE(stream, nullptr);
  EXPECT_NE(cuda::cuda_stream_handle(stream.get()), 0u);
  copy_tensors({&h}, {&d}, stream.get());
  copy_tensors({&d}, {&back}, stream.get());  // ordered after the first on the stream
  stream->synchronize();
  EXPECT_EQ(std::memcmp(back.raw_data(), h.raw_data(), h.byte_size()), 0);
  // A stream of another provider is refused, naming the problem.
  struct OtherStream : ep::Stream {
    void synchronize() override {}
  } other;
  try {
    copy_tensors({&h}, {&d}, &other);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("not a CUDA stream"), std::string::npos) << e.what();
  }
}

TEST(CudaMemory, IoBindingOnTheDeviceMakesNoHostDeviceCopies) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  auto s = Session::create_from_model(chain_model(4), {}, {{kCuda, {{"error_on_failure", "1"}}}});
  for (const auto& a : s->node_assignments()) EXPECT_EQ(a.provider, kCuda) << a.node_name;
  Tensor x = copy_to(Tensor::from_vector<float>({-1, 0, 1, 2}, Shape{4}), gpu());
  IoBinding b(*s);
  b.bind_input("x", x);
  b.bind_output("y", gpu());
  cuda::cuda_transfer_counts().reset();
  for (int run = 0; run < 3; ++run) {
    s->run_with_binding(b);
    b.synchronize_outputs();
    ASSERT_EQ(b.outputs().size(), 1u);
    EXPECT_TRUE(b.outputs()[0].tensor().memory_info().same_space(gpu()));
  }
  EXPECT_EQ(cuda::cuda_transfer_counts().total(), 0);
  auto host = b.copy_outputs_to_cpu();
  EXPECT_EQ(cuda::cuda_transfer_counts().d2h.load(), 1);
  std::vector<float> y = host_values(host[0].tensor());
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[size_t(i)], sigmoid(float(i - 1)), 1e-6);
  // The same model through run(): x in, y out, once each per run.
  cuda::cuda_transfer_counts().reset();
  s->run({{"x", Tensor::from_vector<float>({-1, 0, 1, 2}, Shape{4})}});
  EXPECT_EQ(cuda::cuda_transfer_counts().h2d.load(), 1);
  EXPECT_EQ(cuda::cuda_transfer_counts().d2h.load(), 1);
}

TEST(CudaMemory, GpuMemLimitFailsOnlyTheRunThatExceedsIt) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  ir::Model m = chain_model(1 << 20);
  m.graph.inputs[0] = tensor_info("x", {});  // any shape
  m.graph.inputs[0].type.shape.reset();
  m.graph.outputs[0] = ir::ValueInfo{"y", {}, ""};
  auto s = Session::create_from_model(m, {}, {{kCuda, {{"gpu_mem_limit", "1048576"}}}});
  try {
    s->run({{"x", Tensor(DataType::kFloat, Shape{1 << 20})}});  // 4 MiB per value
    ADD_FAILURE() << "expected an out-of-memory error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfMemory);
    EXPECT_NE(std::string(e.what()).find("limit 1048576 bytes"), std::string::npos) << e.what();
  }
  auto y = s->run({{"x", Tensor::from_vector<float>({-2, 3}, Shape{2})}});
  EXPECT_NEAR(y[0].tensor().data<float>()[1], sigmoid(3), 1e-6);
}

TEST(CudaMemory, PinnedHostMemory) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  auto pinned = cuda::cuda_pinned_allocator(0);
  Tensor p(DataType::kFloat, Shape{3}, pinned);
  EXPECT_TRUE(p.memory_info().host_accessible());
  EXPECT_TRUE(p.memory_info().same_space(cuda::cuda_pinned_memory_info(0)));
  for (int i = 0; i < 3; ++i) p.mutable_data<float>()[i] = float(i + 1);
  Tensor d = copy_to(p, gpu());
  Tensor back(DataType::kFloat, Shape{3}, pinned);
  copy_tensors({&d}, {&back});
  EXPECT_EQ(host_values(back), (std::vector<float>{1, 2, 3}));
}

TEST(CudaMemory, ACallersStreamRunsTheKernels) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  auto stream = create_stream(gpu());
  const std::string handle = std::to_string(cuda::cuda_stream_handle(stream.get()));
  auto s =
      Session::create_from_model(chain_model(2), {}, {{kCuda, {{"user_compute_stream", handle}}}});
  auto y = s->run({{"x", Tensor::from_vector<float>({-1, 1}, Shape{2})}});
  EXPECT_NEAR(y[0].tensor().data<float>()[0], sigmoid(-1), 1e-6);
}

TEST(CudaMemory, ARunsOwnStreamRunsItsKernels) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  auto stream = create_stream(gpu());
  const uintptr_t handle = cuda::cuda_stream_handle(stream.get());
  auto s = Session::create_from_model(chain_model(2), {}, {{kCuda, {}}});
  RunOptions ro;
  ro.config_entries[cuda::kRunStreamKey] = std::to_string(handle);
  auto y = s->run({{"x", Tensor::from_vector<float>({-1, 1}, Shape{2})}}, {}, ro);
  EXPECT_NEAR(y[0].tensor().data<float>()[0], sigmoid(-1), 1e-6);
  EXPECT_EQ(cuda::last_kernel_stream().load(), handle);
  // Without the entry, a stream of the provider's pool, the same one again
  // for the next run of this thread (streams are made once, not per run).
  s->run({{"x", Tensor::from_vector<float>({-1, 1}, Shape{2})}});
  const uintptr_t pooled = cuda::last_kernel_stream().load();
  EXPECT_NE(pooled, handle);
  s->run({{"x", Tensor::from_vector<float>({-1, 1}, Shape{2})}});
  EXPECT_EQ(cuda::last_kernel_stream().load(), pooled);
  // A bad value fails the run, naming the entry.
  ro.config_entries[cuda::kRunStreamKey] = "not-a-stream";
  try {
    s->run({{"x", Tensor::from_vector<float>({-1, 1}, Shape{2})}}, {}, ro);
    ADD_FAILURE() << "a bad stream entry was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda.compute_stream"), std::string::npos) << e.what();
  }
}

TEST(CudaMemory, ConcurrentRunsGetTheirOwnResults) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const int64_t n = 4096;
  auto s = Session::create_from_model(chain_model(n), {}, {{kCuda, {}}});
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int run = 0; run < 20; ++run) {
        const float v = float(t) - 1.5f + 0.01f * float(run);
        auto y =
            s->run({{"x", Tensor::from_vector<float>(std::vector<float>(size_t(n), v), Shape{n})}});
        const float* p = y[0].tensor().data<float>();
        for (int64_t i = 0; i < n; ++i)
          if (std::fabs(p[i] - sigmoid(v)) > 1e-6f) {
            ++wrong;
            break;
          }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(CudaMemory, UnclaimedNodesFallBackToTheCpuWithCopies) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Sigmoid (CUDA) -> Hardmax (no CUDA kernel: CPU) -> Relu (CUDA).
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {3}));
  m.graph.nodes = {node("Sigmoid", {"x"}, {"s"}), node("Hardmax", {"s"}, {"f"}),
                   node("Relu", {"f"}, {"y"})};
  m.graph.outputs.push_back(tensor_info("y", {3}));
  auto s = Session::create_from_model(m, {}, {{kCuda, {}}});
  auto a = s->node_assignments();
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].provider, kCuda);
  EXPECT_EQ(a[1].provider, kCpu);
  EXPECT_EQ(a[2].provider, kCuda);
  auto report = s->partition_report();
  EXPECT_GE(report.copies.size(), 2u);  // s to the host, f back to the device
  auto y = s->run({{"x", Tensor::from_vector<float>({-3, 0, 5}, Shape{3})}});
  EXPECT_EQ(host_values(y[0].tensor()), (std::vector<float>{0, 0, 1}));
}
