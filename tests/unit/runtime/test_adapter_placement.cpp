// LoRA adapter parameters read by a device provider: copied into its memory
// at their first use in a session and reused by later runs while the adapter
// lives; host-memory sessions read the adapter's own tensors.
#include <gtest/gtest.h>

#include "runtime/io_binding.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test_device;

namespace {

// An adapter whose one parameter is the model's input x.
std::shared_ptr<const onnx::Adapter> adapter_x(std::vector<float> v) {
  auto a = std::make_shared<onnx::Adapter>();
  a->parameters.push_back({"x", Tensor::from_vector<float>(v, Shape{2})});
  return a;
}

}  // namespace

TEST(RuntimeAdapterPlacement, DeviceParametersAreCopiedOnceAndReused) {
  register_fake_device();
  auto s = Session::create_from_model(relu_chain_model(), {}, {{kFakeDevice, {}}});
  RunOptions ro;
  ro.active_adapters = {adapter_x({-1, 2})};
  IoBinding b(*s);
  b.bind_output("y", fake_device_memory());
  fake_transfers().reset();
  for (int run = 0; run < 3; ++run) {
    s->run_with_binding(b, ro);
    b.synchronize_outputs();
    EXPECT_TRUE(fake_device_owns(last_device_relu_input()));
    EXPECT_EQ(floats(b.outputs()[0].tensor()), (std::vector<float>{0, 2}));
  }
  EXPECT_EQ(fake_transfers().h2d.load(), 1) << "the parameter is copied at its first use only";
  EXPECT_EQ(fake_transfers().d2h.load(), 0);

  // Another adapter (the first released): its own values, copied once too.
  ro.active_adapters = {adapter_x({5, -6})};
  fake_transfers().reset();
  for (int run = 0; run < 2; ++run) {
    s->run_with_binding(b, ro);
    b.synchronize_outputs();
    EXPECT_EQ(floats(b.outputs()[0].tensor()), (std::vector<float>{5, 0}));
  }
  EXPECT_EQ(fake_transfers().h2d.load(), 1);

  // Through run(): only the output comes back each time.
  fake_transfers().reset();
  for (int run = 0; run < 2; ++run) {
    auto out = s->run({}, {}, ro);
    EXPECT_EQ(floats(out[0].tensor()), (std::vector<float>{5, 0}));
  }
  EXPECT_EQ(fake_transfers().h2d.load(), 0);
  EXPECT_EQ(fake_transfers().d2h.load(), 2);
}

TEST(RuntimeAdapterPlacement, TwoSessionsKeepTheirOwnCopies) {
  register_fake_device();
  auto a = Session::create_from_model(relu_chain_model(), {}, {{kFakeDevice, {}}});
  auto b = Session::create_from_model(relu_chain_model(), {}, {{kFakeDevice, {}}});
  RunOptions ro;
  ro.active_adapters = {adapter_x({3, -4})};
  fake_transfers().reset();
  for (int run = 0; run < 2; ++run) {
    EXPECT_EQ(floats(a->run({}, {}, ro)[0].tensor()), (std::vector<float>{3, 0}));
    EXPECT_EQ(floats(b->run({}, {}, ro)[0].tensor()), (std::vector<float>{3, 0}));
  }
  EXPECT_EQ(fake_transfers().h2d.load(), 2);
}

TEST(RuntimeAdapterPlacement, HostSessionsReadTheAdaptersTensors) {
  auto s = Session::create_from_model(relu_chain_model());
  RunOptions ro;
  auto adapter = adapter_x({-7, 8});
  ro.active_adapters = {adapter};
  auto out = s->run({}, {}, ro);
  EXPECT_EQ(floats(out[0].tensor()), (std::vector<float>{0, 8}));
}
