// Runs on asynchronous providers: each run gets the provider's stream, its
// kernels only queue their work, copies are ordered on the stream, memory
// freed during the run stays the run's until its stream has passed it, and
// the run returns with everything done. The fake device's async mode queues
// all work until synchronize() and fails work whose input was freed first.
#include <gtest/gtest.h>

#include <thread>

#include "core/arena_allocator.hpp"
#include "runtime/io_binding.hpp"
#include "runtime/run_streams.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test_device;

namespace {

// Counts what reaches it; throws kOutOfMemory past `limit` bytes in use.
class CountingAllocator : public Allocator {
 public:
  explicit CountingAllocator(size_t limit = SIZE_MAX) : limit_(limit) {}
  void* alloc(size_t bytes) override {
    if (in_use_ + bytes > limit_) fail(ErrorCode::kOutOfMemory, "counting allocator: full");
    in_use_ += bytes;
    ++allocs;
    void* p = cpu_.alloc(bytes);
    sizes_[p] = bytes;
    return p;
  }
  void free(void* p) override {
    in_use_ -= sizes_.at(p);
    sizes_.erase(p);
    ++frees;
    cpu_.free(p);
  }
  const MemoryInfo& info() const override { return cpu_.info(); }
  int allocs = 0, frees = 0;

 private:
  CpuAllocator cpu_;
  size_t limit_, in_use_ = 0;
  std::map<void*, size_t> sizes_;
};

class CountingStream : public ep::Stream {
 public:
  void synchronize() override { ++syncs; }
  int syncs = 0;
};

}  // namespace

TEST(RunScopedAllocator, BlocksFreedDuringTheRunStayTheRunsUntilClose) {
  auto base = std::make_shared<CountingAllocator>();
  runtime::RunScopedAllocator a(base, nullptr);
  void* p = a.alloc(1000);
  a.free(p);
  EXPECT_EQ(base->frees, 0) << "freed to the shared allocator while the stream may read it";
  EXPECT_EQ(a.free_blocks(), 1u);
  // The run itself reuses it (its stream orders the reuse after the read),
  // also for a somewhat smaller request, but not for a much smaller one.
  EXPECT_EQ(a.alloc(900), p);
  EXPECT_EQ(base->allocs, 1);
  a.free(p);
  void* small = a.alloc(100);
  EXPECT_NE(small, p);
  EXPECT_EQ(base->allocs, 2);
  a.close();
  EXPECT_EQ(base->frees, 1);  // p, given back at close
  a.free(small);              // after close: straight to the base
  EXPECT_EQ(base->frees, 2);
  EXPECT_EQ(a.free_blocks(), 0u);
}

TEST(RunScopedAllocator, OutOfMemorySynchronizesAndGivesTheRunsBlocksBack) {
  auto base = std::make_shared<CountingAllocator>(1500);
  CountingStream stream;
  runtime::RunScopedAllocator a(base, &stream);
  void* p = a.alloc(1000);
  a.free(p);
  // 400 bytes do not reuse the 1000-byte block, and 1400 would exceed the
  // limit while it is held: the run waits for its stream and frees it.
  void* q = a.alloc(1400);
  EXPECT_NE(q, nullptr);
  EXPECT_EQ(stream.syncs, 1);
  EXPECT_EQ(base->frees, 1);
  a.free(q);
  a.close();
  EXPECT_EQ(base->frees, 2);
}

TEST(RunScopedAllocator, RefusesBlocksItDidNotHandOut) {
  auto base = std::make_shared<CountingAllocator>();
  runtime::RunScopedAllocator a(base, nullptr);
  int x = 0;
  EXPECT_NE(error_of([&] { a.free(&x); }, ErrorCode::kRuntimeException).find("did not hand out"),
            std::string::npos);
}

TEST(RuntimeRunStreams, KernelsQueueOnTheRunsStreamAndTheRunReturnsWithTheirResults) {
  // No arena: a block given back mid-run reaches the device allocator at
  // once, so queued work reading it would fail the run.
  SessionOptions o;
  o.enable_cpu_mem_arena = false;
  auto s = fake_session(relu_chain_model(4, 64), "async", o);
  fake_stream_stats().reset();
  for (int run = 0; run < 3; ++run) {
    auto x = ramp(64, float(run));
    auto y = s->run({{"x", Tensor::from_vector<float>(x, Shape{64})}});
    EXPECT_EQ(floats(y[0].tensor()), relu(x)) << "run " << run;
  }
  EXPECT_EQ(fake_stream_stats().run_streams.load(), 3);
  EXPECT_EQ(fake_stream_stats().queued_kernels.load(), 12);
}

TEST(RuntimeRunStreams, CopyToTheHostWaitsForTheQueuedKernels) {
  // Relu on the device (queued), Add on the CPU: the CPU reads the Relu's
  // result only after the copy, which must wait for the stream.
  auto s = fake_session(relu_add_model(), "async");
  fake_stream_stats().reset();
  auto y = s->run({{"x", Tensor::from_vector<float>({-1, 2}, Shape{2})}});
  EXPECT_EQ(floats(y[0].tensor()), (std::vector<float>{10, 22}));
  EXPECT_EQ(fake_stream_stats().queued_kernels.load(), 1);
}

TEST(RuntimeRunStreams, DeviceBoundOutputsAreCompleteWhenTheRunReturns) {
  auto s = fake_session(relu_chain_model(4, 8), "async");
  IoBinding b(*s);
  auto x = ramp(8, 1);
  b.bind_input("x", Tensor::from_vector<float>(x, Shape{8}));
  b.bind_output("y", fake_device_memory());
  s->run_with_binding(b);
  const Tensor& y = b.outputs()[0].tensor();
  EXPECT_TRUE(y.memory_info().same_space(fake_device_memory()));
  EXPECT_EQ(floats(y), relu(x));
}

TEST(RuntimeRunStreams, ParallelModeKeepsTheStreamsOrder) {
  // Two branches on the device, joined on the CPU.
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {32}));
  m.graph.nodes = {node("Relu", {"x"}, {"a"}), node("Relu", {"a"}, {"b"}),
                   node("Relu", {"x"}, {"c"}), node("Add", {"b", "c"}, {"y"})};
  m.graph.outputs.push_back(tensor_info("y", {32}));
  SessionOptions o;
  o.execution_mode = ExecutionMode::kParallel;
  o.inter_op_num_threads = 2;
  o.enable_cpu_mem_arena = false;
  auto s = fake_session(m, "async", o);
  for (int run = 0; run < 5; ++run) {
    auto x = ramp(32, float(run) - 2);
    auto y = s->run({{"x", Tensor::from_vector<float>(x, Shape{32})}});
    auto want = relu(x);
    for (auto& v : want) v *= 2;
    EXPECT_EQ(floats(y[0].tensor()), want) << "run " << run;
  }
}

TEST(RuntimeRunStreams, ConcurrentRunsDoNotReuseEachOthersQueuedMemory) {
  // With the arena, a block one run frees mid-run would be handed to the
  // other thread's run at once; each run must get back exactly its own result.
  auto s = fake_session(relu_chain_model(4, 256), "async");
  std::atomic<int> wrong{0};
  auto worker = [&](float offset) {
    for (int run = 0; run < 100; ++run) {
      auto x = ramp(256, offset + float(run % 5));
      auto y = s->run({{"x", Tensor::from_vector<float>(x, Shape{256})}});
      if (floats(y[0].tensor()) != relu(x)) ++wrong;
    }
  };
  std::thread a(worker, 0.0f), b(worker, 100.0f);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(RuntimeRunStreams, SynchronousProvidersGetNoStream) {
  register_fake_device();
  auto s = Session::create_from_model(relu_chain_model(), {}, {{kFakeDevice, {}}});
  fake_stream_stats().reset();
  auto y = s->run({{"x", Tensor::from_vector<float>({-1, 2}, Shape{2})}});
  EXPECT_EQ(floats(y[0].tensor()), (std::vector<float>{0, 2}));
  EXPECT_EQ(fake_stream_stats().run_streams.load(), 0);
  EXPECT_EQ(fake_stream_stats().queued_kernels.load(), 0);
}

TEST(RuntimeRunStreams, HostSourcesOfQueuedCopiesOutliveTheirLastReader) {
  // a = x + w on the CPU is copied to the device (queued) and freed at once;
  // b = x * w, next on the CPU, would be handed a's block and overwrite it
  // before the queued copy reads it.
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {2}));
  m.graph.initializers["w"] = Tensor::from_vector<float>({10, 20}, Shape{2});
  m.graph.nodes = {node("Add", {"x", "w"}, {"a"}), node("Relu", {"a"}, {"r"}),
                   node("Mul", {"x", "w"}, {"b"}), node("Add", {"r", "b"}, {"y"})};
  m.graph.outputs.push_back(tensor_info("y", {2}));
  auto s = fake_session(m, "async");
  auto y = s->run({{"x", Tensor::from_vector<float>({-30, 2}, Shape{2})}});
  EXPECT_EQ(floats(y[0].tensor()), (std::vector<float>{0 - 300, 22 + 40}));
}
