// Streams of plugin providers: the sandbox plugin's streams queue copies on a
// worker thread of their own; copy_tensors with such a stream is asynchronous
// until synchronize(), errors surface there, release drains the queue, and a
// provider without streams stays synchronous.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "core/logging.hpp"
#include "ep/plugin_provider.hpp"
#include "ep/provider_registry.hpp"
#include "runtime/copy_tensors.hpp"
#include "runtime/environment.hpp"
#include "runtime/runtime_api.hpp"
#include "unit/ep/sandbox_counters.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using tessera::test_device::error_of;
using tessera::test_device::floats;

namespace {

const std::string kSandbox = "SandboxExecutionProvider";

// Registers the sandbox for one test, so the environment's copy_tensors and
// create_stream find it.
class PluginStreams : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(counters_.ok()) << dlerror();
    register_execution_provider_library("sandbox_streams", TESSERA_SANDBOX_PLUGIN);
    for (const auto& e : Environment::global().ep_devices())
      if (e.provider == kSandbox) memory_ = e.memory;
    ASSERT_EQ(memory_.vendor_id, 0x5A0Bu);
  }
  void TearDown() override { unregister_execution_provider_library("sandbox_streams"); }

  test::SandboxCounters counters_{TESSERA_SANDBOX_PLUGIN};
  MemoryInfo memory_;
};

// A tensor that claims to be in sandbox memory but points at host memory.
Tensor impostor(std::vector<float>& host, const MemoryInfo& memory) {
  auto buffer = std::make_shared<Buffer>(host.data(), host.size() * sizeof(float), memory, nullptr);
  return Tensor(DataType::kFloat, Shape{int64_t(host.size())}, buffer);
}

}  // namespace

TEST_F(PluginStreams, CopiesOnTheStreamRunOnItsWorkerAndArriveAtSynchronize) {
  uint64_t streams = counters_("live_streams");
  auto stream = create_stream(memory_);
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(counters_("live_streams"), streams + 1);

  Tensor a = Tensor::from_vector<float>({1, 2, 3}, Shape{3});
  Tensor b = Tensor::from_vector<float>({4, 5, 6, 7}, Shape{4});
  Tensor da = allocate_tensor(DataType::kFloat, Shape{3}, memory_);
  Tensor db = allocate_tensor(DataType::kFloat, Shape{4}, memory_);
  Tensor dc = allocate_tensor(DataType::kFloat, Shape{3}, memory_);
  Tensor h(DataType::kFloat, Shape{3});
  uint64_t before = counters_("stream_copies");
  // In order on one stream: host->device, device->device, device->host.
  copy_tensors({&a, &b}, {&da, &db}, stream.get());
  copy_tensors({&da}, {&dc}, stream.get());
  copy_tensors({&dc}, {&h}, stream.get());
  stream->synchronize();
  // All four were made by the stream's worker thread, none by the caller.
  EXPECT_EQ(counters_("stream_copies"), before + 4);
  EXPECT_EQ(floats(h), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(floats(copy_to(db, cpu_memory_info())), (std::vector<float>{4, 5, 6, 7}));
  EXPECT_EQ(counters_("stream_copies"), before + 4);  // copy_to has no stream

  // The stream is reusable after synchronize.
  Tensor c = Tensor::from_vector<float>({9, 8, 7}, Shape{3});
  copy_tensors({&c}, {&da}, stream.get());
  copy_tensors({&da}, {&h}, stream.get());
  stream->synchronize();
  EXPECT_EQ(floats(h), (std::vector<float>{9, 8, 7}));
  EXPECT_EQ(counters_("stream_copies"), before + 6);
  stream.reset();
  EXPECT_EQ(counters_("live_streams"), streams);
}

TEST_F(PluginStreams, WithoutAStreamCopiesAreCompleteOnReturn) {
  uint64_t before = counters_("stream_copies");
  Tensor a = Tensor::from_vector<float>({1, 2}, Shape{2});
  Tensor d = allocate_tensor(DataType::kFloat, Shape{2}, memory_);
  Tensor h(DataType::kFloat, Shape{2});
  copy_tensors({&a}, {&d});
  copy_tensors({&d}, {&h});
  EXPECT_EQ(floats(h), (std::vector<float>{1, 2}));
  EXPECT_EQ(counters_("stream_copies"), before);  // made by the caller's thread
}

TEST_F(PluginStreams, ABadPointerOnTheStreamIsReportedAtSynchronize) {
  auto stream = create_stream(memory_);
  ASSERT_NE(stream, nullptr);
  Tensor a = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{4});
  std::vector<float> host(4, 0.0f);
  Tensor fake = impostor(host, memory_);
  // Queued without complaint: the sandbox checks pointers when it copies.
  copy_tensors({&a}, {&fake}, stream.get());
  auto msg = error_of([&] { stream->synchronize(); }, ErrorCode::kEPFail);
  EXPECT_NE(msg.find("asynchronous copy 0 of batch 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the destination at"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(16 bytes) is not sandbox device memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find(kSandbox), std::string::npos) << msg;
  EXPECT_NE(msg.find("stream synchronize"), std::string::npos) << msg;
  EXPECT_EQ(host, std::vector<float>(4, 0.0f));  // nothing was written

  // Reported once; the stream works again afterwards.
  Tensor d = allocate_tensor(DataType::kFloat, Shape{4}, memory_);
  Tensor h(DataType::kFloat, Shape{4});
  copy_tensors({&a}, {&d}, stream.get());
  copy_tensors({&d}, {&h}, stream.get());
  stream->synchronize();
  EXPECT_EQ(floats(h), (std::vector<float>{1, 2, 3, 4}));

  // A failure nobody synchronised for is logged when the stream goes.
  std::vector<std::string> warnings;
  set_log_sink([&](Severity s, const std::string& line) {
    if (s == Severity::kWarning) warnings.push_back(line);
  });
  copy_tensors({&fake}, {&d}, stream.get());
  stream.reset();
  set_log_sink(nullptr);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("the source at"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("never synchronised"), std::string::npos) << warnings[0];
}

// The worker waits 100 ms before each batch, so the copies are still queued
// when the stream is released: release must run them, not drop them.
TEST_F(PluginStreams, ReleasingAStreamFinishesItsQueuedWork) {
  auto p = ep::ProviderRegistry::instance().find(kSandbox)->create({{"stream_delay_ms", "100"}});
  auto stream = p->create_stream();
  ASSERT_NE(stream, nullptr);
  uint64_t before = counters_("stream_copies");
  Tensor a = Tensor::from_vector<float>({5, 6, 7}, Shape{3});
  Tensor d(DataType::kFloat, Shape{3}, p->allocator());
  Tensor h = Tensor::from_vector<float>({0, 0, 0}, Shape{3});
  p->data_transfer()->copy_tensors({&a}, {&d}, stream.get());
  p->data_transfer()->copy_tensors({&d}, {&h}, stream.get());
  stream.reset();
  EXPECT_EQ(counters_("stream_copies"), before + 2);
  EXPECT_EQ(floats(h), (std::vector<float>{5, 6, 7}));
}

TEST_F(PluginStreams, AStreamOfAnotherProviderIsRefused) {
  auto mine = create_stream(memory_);  // the environment's sandbox instance
  auto other = ep::ProviderRegistry::instance().find(kSandbox)->create({});
  Tensor a = Tensor::from_vector<float>({1}, Shape{1});
  Tensor d(DataType::kFloat, Shape{1}, other->allocator());
  auto msg = error_of([&] { other->data_transfer()->copy_tensors({&a}, {&d}, mine.get()); },
                      ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("a stream of another provider instance"), std::string::npos) << msg;

  test_device::register_fake_device();
  auto foreign = create_stream(test_device::fake_device_memory());
  ASSERT_NE(foreign, nullptr);
  msg = error_of([&] { other->data_transfer()->copy_tensors({&a}, {&d}, foreign.get()); },
                 ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("a stream that another provider created"), std::string::npos) << msg;
}

TEST_F(PluginStreams, SynchronousProvidersGiveNoStream) {
  EXPECT_EQ(create_stream(cpu_memory_info()), nullptr);
  auto cpu = ep::ProviderRegistry::instance().find("CPUExecutionProvider")->create({});
  EXPECT_EQ(cpu->create_stream(), nullptr);
}

TEST_F(PluginStreams, StreamDelayOptionIsValidated) {
  auto f = ep::ProviderRegistry::instance().find(kSandbox);
  auto msg = error_of(
      [&] {
        f->create({{"stream_delay_ms", "soon"}});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("'stream_delay_ms' must be an integer from 0 to 10000, got 'soon'"),
            std::string::npos)
      << msg;
}

TEST_F(PluginStreams, BetweenTwoDevicesNoProviderJoinsTheCopyGoesThroughHostMemory) {
  // The fake device's provider and the sandbox each copy only to and from
  // host memory: copy_tensors stages the tensor there.
  test_device::register_fake_device();
  test_device::fake_transfers().reset();
  Tensor on_fake =
      copy_to(Tensor::from_vector<float>({1, -2, 3}, Shape{3}), test_device::fake_device_memory());
  Tensor on_sandbox = allocate_tensor(DataType::kFloat, Shape{3}, memory_);
  copy_tensors({&on_fake}, {&on_sandbox});
  EXPECT_EQ(test_device::fake_transfers().d2h.load(), 1);
  EXPECT_EQ(floats(on_sandbox), (std::vector<float>{1, -2, 3}));
  Tensor back = allocate_tensor(DataType::kFloat, Shape{3}, test_device::fake_device_memory());
  copy_tensors({&on_sandbox}, {&back});
  EXPECT_EQ(test_device::fake_transfers().h2d.load(), 2);  // the first copy_to, then this one
  EXPECT_EQ(floats(back), (std::vector<float>{1, -2, 3}));
  // Memory no registered provider can copy out of is named, with the tensor's position.
  std::vector<float> host{5, 6};
  MemoryInfo npu = make_memory_info("Npu", DeviceType::kNPU, 0, 2);
  Tensor stray = impostor(host, npu);
  Tensor dst(DataType::kFloat, Shape{2});
  Tensor ok_src = Tensor::from_vector<float>({1, 2}, Shape{2}), ok_dst(DataType::kFloat, Shape{2});
  auto m = error_of([&] { copy_tensors({&ok_src, &stray}, {&ok_dst, &dst}); }, ErrorCode::kEPFail);
  EXPECT_NE(m.find("no registered provider can copy tensor 1 from Npu(NPU:2)"), std::string::npos)
      << m;
}
