#include <gtest/gtest.h>

#include "runtime/copy_tensors.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test_device;

TEST(RuntimeCopyTensors, HostToDeviceToDeviceToHost) {
  register_fake_device();
  fake_transfers().reset();
  Tensor a = Tensor::from_vector<float>({1, 2, 3}, Shape{3});
  Tensor b = Tensor::from_vector<float>({4, 5, 6}, Shape{3});
  Tensor da = allocate_tensor(DataType::kFloat, Shape{3}, fake_device_memory());
  Tensor db = allocate_tensor(DataType::kFloat, Shape{3}, fake_device_memory());
  EXPECT_TRUE(fake_device_owns(da.raw_data()));
  copy_tensors({&a, &b}, {&da, &db});
  EXPECT_EQ(fake_transfers().h2d.load(), 2);
  Tensor dc = allocate_tensor(DataType::kFloat, Shape{3}, fake_device_memory());
  copy_tensors({&db}, {&dc});
  EXPECT_EQ(fake_transfers().d2d.load(), 1);
  Tensor h(DataType::kFloat, Shape{3});
  copy_tensors({&dc}, {&h});
  EXPECT_EQ(fake_transfers().d2h.load(), 1);
  EXPECT_EQ(floats(h), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(floats(da), (std::vector<float>{1, 2, 3}));
}

TEST(RuntimeCopyTensors, OnAStreamTheDataArrivesAtSynchronize) {
  register_fake_device();
  auto stream = create_stream(fake_device_memory());
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(create_stream(cpu_memory_info()), nullptr);  // the CPU is synchronous
  Tensor a = Tensor::from_vector<float>({7, 8}, Shape{2});
  Tensor d = copy_to(Tensor::from_vector<float>({0, 0}, Shape{2}), fake_device_memory());
  copy_tensors({&a}, {&d}, stream.get());
  EXPECT_EQ(floats(d), (std::vector<float>{0, 0}));  // queued, not yet done
  stream->synchronize();
  EXPECT_EQ(floats(d), (std::vector<float>{7, 8}));
}

TEST(RuntimeCopyTensors, ErrorsNameTheProblem) {
  register_fake_device();
  Tensor a = Tensor::from_vector<float>({1, 2}, Shape{2});
  Tensor b(DataType::kFloat, Shape{3});
  auto m = error_of([&] { copy_tensors({&a}, {&b}); }, ErrorCode::kInvalidArgument);
  EXPECT_NE(m.find("float[2]"), std::string::npos) << m;
  EXPECT_NE(m.find("float[3]"), std::string::npos) << m;
  m = error_of([&] { copy_tensors({&a}, {}); }, ErrorCode::kInvalidArgument);
  EXPECT_NE(m.find("1 sources but 0 destinations"), std::string::npos) << m;
  MemoryInfo npu = make_memory_info("Npu", DeviceType::kNPU, 3, 0);
  m = error_of([&] { allocate_tensor(DataType::kFloat, Shape{2}, npu); }, ErrorCode::kEPFail);
  EXPECT_NE(m.find("no registered provider serves memory Npu(NPU:0,vendor 0x3)"), std::string::npos)
      << m;
  m = error_of([&] { create_stream(npu); }, ErrorCode::kEPFail);
  EXPECT_NE(m.find("Npu"), std::string::npos) << m;
}
