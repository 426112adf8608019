#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/device_selection.hpp"
#include "runtime/session.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test_device;

TEST(RuntimeDevices, MemoryInfoIsDescribedWithoutAProvider) {
  MemoryInfo m = make_memory_info("Pinned", DeviceType::kGPU, 0x10DE, 1,
                                  MemoryType::kHostAccessible, 256, AllocatorType::kDevice);
  EXPECT_EQ(m.device_type, DeviceType::kGPU);
  EXPECT_EQ(m.vendor_id, 0x10DEu);
  EXPECT_EQ(m.device_id, 1);
  EXPECT_TRUE(m.host_accessible());
  EXPECT_EQ(m.alignment, 256u);
  EXPECT_EQ(m.allocator_type, AllocatorType::kDevice);
  EXPECT_FALSE(m.same_space(make_memory_info("Gpu", DeviceType::kGPU, 0x10DE, 1)));
  EXPECT_EQ(parse_device_type("CUDA"), DeviceType::kGPU);
  EXPECT_EQ(parse_device_type("npu"), DeviceType::kNPU);
  auto e = error_of([] { parse_device_type("tpu"); }, ErrorCode::kInvalidArgument);
  EXPECT_NE(e.find("'tpu'"), std::string::npos) << e;
  error_of([] { make_memory_info("bad", DeviceType::kCPU, 0, 0, MemoryType::kDefault, 3); },
           ErrorCode::kInvalidArgument);
}

TEST(RuntimeDevices, EnvironmentListsDevicesAndTheProvidersServingThem) {
  register_fake_device();
  auto& env = Environment::global();
  auto devices = env.devices();
  bool cpu = false, gpu = false;
  for (const auto& d : devices) {
    cpu |= d.type == DeviceType::kCPU;
    gpu |= d.type == DeviceType::kGPU && d.vendor_id == 0xFA4E && d.name == "FakeDevice";
  }
  EXPECT_TRUE(cpu);
  EXPECT_TRUE(gpu);
  bool cpu_pair = false, fake_pair = false;
  for (const auto& e : env.ep_devices()) {
    cpu_pair |= e.provider == "CPUExecutionProvider" && e.device.type == DeviceType::kCPU;
    fake_pair |= e.provider == kFakeDevice && e.memory.same_space(fake_device_memory());
  }
  EXPECT_TRUE(cpu_pair);
  EXPECT_TRUE(fake_pair);
}

TEST(RuntimeDevices, SelectionPolicyOrdersProviders) {
  // Built one by one: GCC 12 warns (falsely) on a braced list of these.
  auto pair = [](const std::string& provider, DeviceType type, uint32_t vendor) {
    EpDevice e;
    e.provider = provider;
    e.device.type = type;
    e.device.vendor_id = vendor;
    e.memory = make_memory_info(provider, type, vendor);
    return e;
  };
  std::vector<EpDevice> devs;
  devs.push_back(pair("CPUExecutionProvider", DeviceType::kCPU, 0));
  devs.push_back(pair("GpuEP", DeviceType::kGPU, 1));
  devs.push_back(pair("NpuEP", DeviceType::kNPU, 2));
  devs.push_back(pair("DnnlEP", DeviceType::kCPU, 0));
  auto names = [&](ProviderSelectionPolicy p) {
    std::vector<std::string> out;
    for (const auto& s : runtime::select_providers(p, devs)) out.push_back(s.name);
    return out;
  };
  using P = ProviderSelectionPolicy;
  using V = std::vector<std::string>;
  EXPECT_EQ(names(P::kDefault), (V{"CPUExecutionProvider"}));
  EXPECT_EQ(names(P::kPreferCPU), (V{"DnnlEP", "CPUExecutionProvider"}));
  EXPECT_EQ(names(P::kPreferGPU), (V{"GpuEP", "DnnlEP", "CPUExecutionProvider"}));
  EXPECT_EQ(names(P::kPreferNPU), (V{"NpuEP", "DnnlEP", "CPUExecutionProvider"}));
  EXPECT_EQ(names(P::kMaxPerformance), (V{"GpuEP", "NpuEP", "DnnlEP", "CPUExecutionProvider"}));
  EXPECT_EQ(names(P::kMinOverallPower), (V{"NpuEP", "DnnlEP", "CPUExecutionProvider"}));
}

TEST(RuntimeDevices, SessionFromPolicyAndInputLocations) {
  register_fake_device();
  SessionOptions o;
  o.provider_selection_policy = ProviderSelectionPolicy::kPreferGPU;
  auto s = Session::create_from_model(relu_add_model(), o);
  const auto& ps = s->providers();
  EXPECT_NE(std::find(ps.begin(), ps.end(), kFakeDevice), ps.end());
  // On a machine with a GPU, the CUDA provider is a GPU device too, and comes first.
  const bool cuda_first = ps.front() == "CUDAExecutionProvider";
  ASSERT_TRUE(cuda_first || ps.front() == kFakeDevice) << ps.front();
  auto loc = s->input_locations();
  ASSERT_EQ(loc.size(), 1u);
  EXPECT_EQ(loc[0].input, "x");
  EXPECT_EQ(loc[0].provider, ps.front());
  if (cuda_first)
    EXPECT_FALSE(loc[0].memory.host_accessible());
  else
    EXPECT_TRUE(loc[0].memory.same_space(fake_device_memory()));

  o.provider_selection_policy = ProviderSelectionPolicy::kPreferCPU;
  auto c = Session::create_from_model(relu_add_model(), o);
  for (const auto& p : c->providers()) EXPECT_NE(p, kFakeDevice);
  EXPECT_EQ(c->input_locations()[0].provider, c->node_assignments()[0].provider);
  EXPECT_TRUE(c->input_locations()[0].memory.host_accessible());

  auto e = error_of(
      [&] {
        Session::create_from_model(relu_add_model(), o, {{"CPUExecutionProvider", {}}});
      },
      ErrorCode::kInvalidArgument);
  EXPECT_NE(e.find("prefer CPU"), std::string::npos) << e;
}
