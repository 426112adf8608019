#include <gtest/gtest.h>

#include "runtime/environment.hpp"
#include "runtime/session.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;

using test_device::fake_transfers;
using test_device::node;

TEST(RuntimeCopies, InsertedOnlyWhereValuesCrossMemorySpaces) {
  test_device::register_fake_device();
  // x -> Relu(device) -> r1 -> Relu(device) -> r2 -> Add(cpu, r2 + w) -> y ; also output r2.
  ir::Model m;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back({"x", ir::TypeInfo::tensor(DataType::kFloat), ""});
  m.graph.initializers["w"] = Tensor::from_vector<float>({10, 10}, Shape{2});
  m.graph.nodes = {node("Relu", {"x"}, {"r1"}), node("Relu", {"r1"}, {"r2"}),
                   node("Add", {"r2", "w"}, {"y"})};
  m.graph.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kFloat), ""});
  m.graph.outputs.push_back({"r2", ir::TypeInfo::tensor(DataType::kFloat), ""});
  auto s = Session::create_from_model(m, {}, {{"FakeDeviceExecutionProvider", {}}});
  EXPECT_EQ(s->providers(),
            (std::vector<std::string>{"FakeDeviceExecutionProvider", "CPUExecutionProvider"}));
  auto a = s->node_assignments();
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].provider, "FakeDeviceExecutionProvider");
  EXPECT_EQ(a[1].provider, "FakeDeviceExecutionProvider");
  EXPECT_EQ(a[2].provider, "CPUExecutionProvider");
  fake_transfers().reset();
  auto out = s->run({{"x", Tensor::from_vector<float>({-1, 2}, Shape{2})}});
  // x to the device; r2 back to the host once, shared by Add and the graph output.
  EXPECT_EQ(fake_transfers().h2d.load(), 1);
  EXPECT_EQ(fake_transfers().d2h.load(), 1);
  EXPECT_EQ(out[0].tensor().data<float>()[0], 10.0f);
  EXPECT_EQ(out[0].tensor().data<float>()[1], 12.0f);
  EXPECT_TRUE(out[1].tensor().memory_info().host_accessible());
  EXPECT_EQ(out[1].tensor().data<float>()[1], 2.0f);
}

// A kernel that reads an input on the host (KernelDef::host_inputs) gets it in
// host memory: a host value is passed as it is, a device value is copied out.
TEST(RuntimeCopies, HostInputsOfDeviceKernelsStayOnTheHost) {
  test_device::register_fake_device();
  ir::Model m;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(test_device::tensor_info("x", {2, 2}));
  m.graph.inputs.push_back(test_device::tensor_info("s", {1}, DataType::kInt64));
  m.graph.nodes = {node("Relu", {"x"}, {"r"}), node("Reshape", {"r", "s"}, {"y"})};
  m.graph.outputs.push_back(test_device::tensor_info("y", {4}));
  auto s = Session::create_from_model(m, {}, {{"FakeDeviceExecutionProvider", {}}});
  for (const auto& a : s->node_assignments()) EXPECT_EQ(a.provider, "FakeDeviceExecutionProvider");
  for (const auto& c : s->partition_report().copies) EXPECT_NE(c.value, "s") << c.to;
  fake_transfers().reset();
  const Tensor x = Tensor::from_vector<float>({-1, 2, -3, 4}, Shape{2, 2});
  const Tensor shape = Tensor::from_vector<int64_t>({4}, Shape{1});
  auto out = s->run({{"x", x}, {"s", shape}});
  EXPECT_EQ(fake_transfers().h2d.load(), 1);  // x only
  EXPECT_EQ(fake_transfers().d2h.load(), 1);  // y
  EXPECT_EQ(test_device::floats(out[0].tensor()), (std::vector<float>{0, 2, 0, 4}));
  // The shape fed in device memory is copied to the host for the kernel.
  Tensor on_device(DataType::kInt64, Shape{1},
                   Environment::global().allocator(test_device::fake_device_memory()));
  ep::HostDataTransfer().copy_tensors({&shape}, {&on_device}, nullptr);
  fake_transfers().reset();
  out = s->run({{"x", x}, {"s", on_device}});
  EXPECT_EQ(fake_transfers().d2h.load(), 2);  // s for the kernel, and y
  EXPECT_EQ(test_device::floats(out[0].tensor()), (std::vector<float>{0, 2, 0, 4}));
}
