#include <gtest/gtest.h>

#include "runtime/copy_tensors.hpp"
#include "runtime/io_binding.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test_device;

namespace {

std::unique_ptr<Session> device_session(ir::Model m = relu_chain_model()) {
  register_fake_device();
  return Session::create_from_model(std::move(m), {}, {{kFakeDevice, {}}});
}

Tensor on_device(std::vector<float> v) {
  return copy_to(Tensor::from_vector<float>(v, Shape{2}), fake_device_memory());
}

}  // namespace

TEST(RuntimeIoBinding, DeviceBoundInputsAndOutputsMakeNoHostDeviceCopies) {
  auto s = device_session();
  Tensor x = on_device({-1, 2});
  IoBinding b(*s);
  b.bind_input("x", x);
  b.bind_output("y", fake_device_memory());
  fake_transfers().reset();
  for (int run = 0; run < 3; ++run) {
    s->run_with_binding(b);
    b.synchronize_outputs();
    ASSERT_EQ(b.outputs().size(), 1u);
    const Tensor& y = b.outputs()[0].tensor();
    EXPECT_TRUE(y.memory_info().same_space(fake_device_memory()));
    EXPECT_TRUE(fake_device_owns(y.raw_data()));
    EXPECT_EQ(floats(y), (std::vector<float>{0, 2}));
  }
  // The same model through run() copies x in and y out every time.
  EXPECT_EQ(fake_transfers().total(), 0);
  auto cpu = b.copy_outputs_to_cpu();
  EXPECT_EQ(fake_transfers().d2h.load(), 1);
  EXPECT_TRUE(cpu[0].tensor().memory_info().host_accessible());
  EXPECT_EQ(floats(cpu[0].tensor()), (std::vector<float>{0, 2}));
  fake_transfers().reset();
  s->run({{"x", Tensor::from_vector<float>({-1, 2}, Shape{2})}});
  EXPECT_EQ(fake_transfers().h2d.load(), 1);
  EXPECT_EQ(fake_transfers().d2h.load(), 1);
}

TEST(RuntimeIoBinding, CpuBoundInputIsCopiedOncePerRun) {
  auto s = device_session();
  IoBinding b(*s);
  b.bind_input("x", Tensor::from_vector<float>({3, -4}, Shape{2}));
  b.bind_output("y", fake_device_memory());
  fake_transfers().reset();
  s->run_with_binding(b);
  s->run_with_binding(b);
  EXPECT_EQ(fake_transfers().h2d.load(), 2);
  EXPECT_EQ(fake_transfers().d2h.load(), 0);
  EXPECT_EQ(floats(b.outputs()[0].tensor()), (std::vector<float>{3, 0}));
  // Rebinding the output to the CPU brings it back once per run.
  b.bind_output("y", cpu_memory_info());
  fake_transfers().reset();
  s->run_with_binding(b);
  EXPECT_EQ(fake_transfers().d2h.load(), 1);
  EXPECT_TRUE(b.outputs()[0].tensor().memory_info().host_accessible());
}

TEST(RuntimeIoBinding, PreallocatedOutputsAreWrittenInPlace) {
  auto s = device_session();
  IoBinding b(*s);
  b.bind_input("x", on_device({5, -6}));
  Tensor dev_out = on_device({0, 0});
  b.bind_output("y", Value(dev_out));
  fake_transfers().reset();
  s->run_with_binding(b);
  EXPECT_EQ(b.outputs()[0].tensor().raw_data(), dev_out.raw_data());
  EXPECT_EQ(floats(dev_out), (std::vector<float>{5, 0}));
  EXPECT_EQ(fake_transfers().total(), 0);  // the kernel wrote into dev_out itself

  // In another memory than the producer's: filled by one copy after the node.
  Tensor host_out = Tensor::from_vector<float>({0, 0}, Shape{2});
  b.bind_output("y", Value(host_out));
  fake_transfers().reset();
  s->run_with_binding(b);
  EXPECT_EQ(fake_transfers().d2h.load(), 1);
  EXPECT_EQ(b.outputs()[0].tensor().raw_data(), host_out.raw_data());
  EXPECT_EQ(host_out.data<float>()[0], 5.0f);
  EXPECT_EQ(host_out.data<float>()[1], 0.0f);
}

TEST(RuntimeIoBinding, DeviceInputReadByCpuNodeIsBroughtToTheHost) {
  // y = Relu(x) + x: Relu on the device, Add on the CPU; outputs on the CPU
  // when none is bound.
  ir::Model m = relu_add_model();
  m.graph.nodes[1].inputs = {"r", "x"};
  m.graph.initializers.clear();
  // The parallel executor runs copy steps through the same path.
  SessionOptions parallel;
  parallel.execution_mode = ExecutionMode::kParallel;
  parallel.inter_op_num_threads = 2;
  register_fake_device();
  auto p = Session::create_from_model(m, parallel, {{kFakeDevice, {}}});
  IoBinding pb(*p);
  pb.bind_input("x", on_device({-3, 4}));
  fake_transfers().reset();
  p->run_with_binding(pb);
  EXPECT_EQ(fake_transfers().d2h.load(), 2);
  EXPECT_EQ(fake_transfers().h2d.load(), 0);
  EXPECT_EQ(floats(pb.outputs()[0].tensor()), (std::vector<float>{-3, 8}));

  auto s = device_session(std::move(m));
  IoBinding b(*s);
  b.bind_input("x", on_device({-1, 1}));
  fake_transfers().reset();
  s->run_with_binding(b);
  // x to the host once for Add, r back for Add; Relu reads the bound x itself
  // (no round trip back to the device).
  EXPECT_EQ(fake_transfers().d2h.load(), 2);
  EXPECT_EQ(fake_transfers().h2d.load(), 0);
  ASSERT_EQ(b.output_names(), (std::vector<std::string>{"y"}));
  EXPECT_TRUE(b.outputs()[0].tensor().memory_info().host_accessible());
  EXPECT_EQ(floats(b.outputs()[0].tensor()), (std::vector<float>{-1, 2}));
  // The same input fed from host memory still goes to the device once.
  IoBinding h(*s);
  h.bind_input("x", Tensor::from_vector<float>({-1, 1}, Shape{2}));
  fake_transfers().reset();
  s->run_with_binding(h);
  EXPECT_EQ(fake_transfers().h2d.load(), 1);
  EXPECT_EQ(floats(h.outputs()[0].tensor()), (std::vector<float>{-1, 2}));
  b.clear_outputs();
  EXPECT_TRUE(b.outputs().empty());
  b.clear_inputs();
  auto e = error_of([&] { s->run_with_binding(b); }, ErrorCode::kInvalidArgument);
  EXPECT_NE(e.find("'x'"), std::string::npos) << e;
}

TEST(RuntimeIoBinding, BadBindingsNameWhatIsWrong) {
  auto s = device_session();
  IoBinding b(*s);
  auto m = error_of([&] { b.bind_input("z", on_device({1, 2})); }, ErrorCode::kInvalidArgument);
  EXPECT_NE(m.find("'z' is not an input"), std::string::npos) << m;
  EXPECT_NE(m.find("x"), std::string::npos) << m;
  m = error_of(
      [&] {
        b.bind_input("x", Tensor::from_vector<int64_t>({1, 2}, Shape{2}));
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(m.find("tensor(float)"), std::string::npos) << m;
  // As in onnxruntime, an input of another shape binds; the run that reads it fails.
  b.bind_input("x", Tensor::from_vector<float>({1, 2, 3}, Shape{3}));
  m = error_of([&] { s->run_with_binding(b); }, ErrorCode::kInvalidArgument);
  EXPECT_NE(m.find("'x'"), std::string::npos) << m;
  b.clear_inputs();
  m = error_of([&] { b.bind_output("nope", cpu_memory_info()); }, ErrorCode::kInvalidArgument);
  EXPECT_NE(m.find("'nope' is not an output"), std::string::npos) << m;
  MemoryInfo npu = make_memory_info("SomeNpu", DeviceType::kNPU, 7, 1);
  m = error_of([&] { b.bind_output("y", npu); }, ErrorCode::kEPFail);
  EXPECT_NE(m.find("no provider of this session serves"), std::string::npos) << m;
  m = error_of([&] { b.bind_output("y", Value(Tensor::from_vector<float>({1}, Shape{1}))); },
               ErrorCode::kInvalidArgument);
  EXPECT_NE(m.find("shape"), std::string::npos) << m;
  // A CPU-only session does not serve the fake device's memory.
  auto cpu = Session::create_from_model(relu_chain_model());
  IoBinding c(*cpu);
  m = error_of([&] { c.bind_output("y", fake_device_memory()); }, ErrorCode::kEPFail);
  EXPECT_NE(m.find("FakeDevice"), std::string::npos) << m;
  m = error_of([&] { c.bind_input("x", on_device({1, 2})); }, ErrorCode::kEPFail);
  EXPECT_NE(m.find("no provider of this session serves"), std::string::npos) << m;
}
