// Captured runs (the runtime's side of CUDA graphs), with the fake device's
// capture=1 mode: its stream records queued work between begin and end of a
// capture, and a replay queues the recording again. A replayed run calls no
// kernel's compute(); it copies its inputs into the recording's buffers,
// replays, and copies the outputs out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "runtime/copy_tensors.hpp"
#include "runtime/io_binding.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test_device;

namespace {

Tensor host(const std::vector<float>& v) {
  return Tensor::from_vector<float>(v, Shape{int64_t(v.size())});
}

}  // namespace

TEST(RuntimeRunCapture, TheSecondRunIsCapturedAndLaterRunsOnlyReplay) {
  SessionOptions o;
  o.enable_cpu_mem_arena = false;  // freed blocks reach the device allocator at once
  auto s = fake_session(relu_chain_model(3, 16), "capture", o);
  EXPECT_EQ(s->run_capture().status, "on (" + std::string(kFakeDevice) + ")");
  fake_stream_stats().reset();
  for (int run = 0; run < 5; ++run) {
    auto x = ramp(16, float(run));
    auto y = s->run({{"x", host(x)}});
    EXPECT_EQ(floats(y[0].tensor()), relu(x)) << "run " << run;
  }
  const auto c = s->run_capture();
  EXPECT_EQ(c.warmups, 1);
  EXPECT_EQ(c.captures, 1);
  EXPECT_EQ(c.replays, 4);  // the capturing run's own, and three more
  EXPECT_EQ(c.failures, 0);
  EXPECT_EQ(fake_stream_stats().captures.load(), 1);
  EXPECT_EQ(fake_stream_stats().replays.load(), 4);
  // Three kernels in the warm-up and three recorded; none for replays.
  EXPECT_EQ(fake_stream_stats().queued_kernels.load(), 6);
}

TEST(RuntimeRunCapture, EachSetOfInputShapesHasItsOwnRecording) {
  auto s = fake_session(relu_chain_model(3, -1), "capture");
  const std::vector<int64_t> sizes = {4, 4, 8, 8, 4, 8};
  for (size_t run = 0; run < sizes.size(); ++run) {
    auto x = ramp(sizes[run], float(run) - 1);
    auto y = s->run({{"x", host(x)}});
    EXPECT_EQ(floats(y[0].tensor()), relu(x)) << "run " << run;
  }
  const auto c = s->run_capture();
  EXPECT_EQ(c.warmups, 2);
  EXPECT_EQ(c.captures, 2);
  EXPECT_EQ(c.replays, 4);
}

TEST(RuntimeRunCapture, ReplaysFillDeviceBoundAndPreallocatedOutputs) {
  auto s = fake_session(relu_chain_model(3, 8), "capture");
  IoBinding b(*s);
  b.bind_output("y", fake_device_memory());
  for (int run = 0; run < 3; ++run) {
    auto x = ramp(8, float(run));
    b.bind_input("x", copy_to(host(x), fake_device_memory()));
    s->run_with_binding(b);
    const Tensor& y = b.outputs()[0].tensor();
    EXPECT_TRUE(y.memory_info().same_space(fake_device_memory()));
    EXPECT_EQ(floats(y), relu(x)) << "run " << run;
  }
  Tensor pre = allocate_tensor(DataType::kFloat, Shape{8}, fake_device_memory());
  b.bind_output("y", Value(pre));
  auto x = ramp(8, 7);
  b.bind_input("x", host(x));
  s->run_with_binding(b);
  EXPECT_EQ(b.outputs()[0].tensor().raw_data(), pre.raw_data());
  EXPECT_EQ(floats(pre), relu(x));
  EXPECT_EQ(s->run_capture().replays, 3);
}

TEST(RuntimeRunCapture, NotPossibleWhenAHostKernelReadsADeviceValue) {
  auto s = fake_session(relu_add_model(), "capture");  // Relu on the device, Add on the CPU
  const std::string status = s->run_capture().status;
  EXPECT_EQ(status.rfind("not possible: value 'r' is copied to", 0), 0u) << status;
  for (int run = 0; run < 3; ++run) {
    auto y = s->run({{"x", Tensor::from_vector<float>({-1, float(run)}, Shape{2})}});
    EXPECT_EQ(floats(y[0].tensor()), (std::vector<float>{10, 20 + float(run)}));
  }
  EXPECT_EQ(s->run_capture().captures, 0);
}

TEST(RuntimeRunCapture, ACaptureThatWaitsForTheStreamFallsBackToNormalRuns) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(tensor_info("x", {4}));
  m.graph.nodes = {node("Relu", {"x"}, {"a"}), node("Neg", {"a"}, {"y"})};
  m.graph.outputs.push_back(tensor_info("y", {4}));
  auto s = fake_session(m, "capture");
  EXPECT_EQ(s->run_capture().status, "on (" + std::string(kFakeDevice) + ")");
  for (int run = 0; run < 4; ++run) {
    auto x = ramp(4, float(run));
    auto y = s->run({{"x", host(x)}});
    auto want = relu(x);
    for (auto& v : want) v = -v;
    EXPECT_EQ(floats(y[0].tensor()), want) << "run " << run;
  }
  const auto c = s->run_capture();
  EXPECT_EQ(c.failures, 1);
  EXPECT_EQ(c.captures, 0);
  EXPECT_EQ(c.replays, 0);
}

TEST(RuntimeRunCapture, ConcurrentRunsOfOneShapeTakeTurnsOnTheRecording) {
  auto s = fake_session(relu_chain_model(3, 64), "capture");
  std::atomic<int> wrong{0};
  auto worker = [&](float offset) {
    for (int run = 0; run < 60; ++run) {
      auto x = ramp(64, offset + float(run % 3));
      auto y = s->run({{"x", host(x)}});
      if (floats(y[0].tensor()) != relu(x)) ++wrong;
    }
  };
  std::thread a(worker, 0.0f), b(worker, 10.0f);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GE(s->run_capture().replays, 100);
}

TEST(RuntimeRunCapture, OffWithoutAProviderAskingForIt) {
  register_fake_device();
  auto s =
      Session::create_from_model(relu_chain_model(3, 4), {}, {{kFakeDevice, {{"async", "1"}}}});
  EXPECT_EQ(s->run_capture().status, "off");
  s->run({{"x", host(ramp(4, 0))}});
  s->run({{"x", host(ramp(4, 0))}});
  EXPECT_EQ(s->run_capture().captures, 0);
}

TEST(RuntimeRunCapture, AtMostMaxCapturedShapesGetARecording) {
  SessionOptions o;
  o.config_entries["session.max_captured_shapes"] = "1";
  auto s = fake_session(relu_chain_model(3, -1), "capture", o);
  for (int64_t n : {4, 4, 4, 8, 8, 8}) {
    auto x = ramp(n, 1);
    EXPECT_EQ(floats(s->run({{"x", host(x)}})[0].tensor()), relu(x)) << n;
  }
  const auto c = s->run_capture();
  EXPECT_EQ(c.captures, 1);
  EXPECT_EQ(c.replays, 2);
  EXPECT_EQ(c.uncaptured, 3);
  for (const char* bad : {"0", "-1", "two", "", "99999999999"}) {
    o.config_entries["session.max_captured_shapes"] = bad;
    const std::string e = error_of([&] { fake_session(relu_chain_model(3, 4), "capture", o); },
                                   ErrorCode::kInvalidArgument);
    EXPECT_NE(e.find("'session.max_captured_shapes' must be a whole number from 1 to 1024"),
              std::string::npos)
        << e;
  }
}

TEST(RuntimeRunCapture, DeviceTimeProfilingWaitsPerNodeButNotWhileCapturing) {
  // session.profile_device_time makes each profiled node wait for its
  // stream; a stream being recorded cannot be waited for, so the capturing
  // run must not (the fake stream fails a capture that waits).
  SessionOptions o;
  o.enable_profiling = true;
  o.profile_file_prefix = (std::filesystem::temp_directory_path() / "tessera_devtime").string();
  o.config_entries["session.profile_device_time"] = "1";
  for (const char* mode : {"async", "capture"}) {
    SCOPED_TRACE(mode);
    auto s = fake_session(relu_chain_model(3, 16), mode, o);
    for (int run = 0; run < 4; ++run) {
      auto x = ramp(16, float(run));
      EXPECT_EQ(floats(s->run({{"x", host(x)}})[0].tensor()), relu(x)) << "run " << run;
    }
    if (std::string(mode) == "capture") {
      EXPECT_EQ(s->run_capture().captures, 1);
      EXPECT_EQ(s->run_capture().failures, 0);
      EXPECT_EQ(s->run_capture().replays, 3);
    }
    const std::string path = s->end_profiling();
    std::ifstream f(path);
    const std::string trace((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_NE(trace.find(std::string("\"provider\":\"") + kFakeDevice), std::string::npos) << path;
    std::filesystem::remove(path);
  }
}
