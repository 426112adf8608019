// A provider that brings its own arena (the CUDA provider does, for
// gpu_mem_limit) keeps it in a session: no second arena is stacked on top,
// whose cache would hold blocks the provider's arena counts as in use.
#include <gtest/gtest.h>

#include "core/arena_allocator.hpp"
#include "ep/provider_registry.hpp"
#include "runtime/environment.hpp"
#include "runtime/session.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using namespace tessera::test_device;

namespace {

const char* kName = "OwnArenaExecutionProvider";

std::shared_ptr<ArenaAllocator>& own_arena() {
  static auto a = std::make_shared<ArenaAllocator>(default_cpu_allocator(), ArenaConfig{});
  return a;
}

class HostRelu : public ep::OpKernel {
 public:
  explicit HostRelu(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    Tensor& y = ctx.output(0, x.shape());
    for (int64_t i = 0; i < x.num_elements(); ++i)
      y.mutable_data<float>()[i] = std::max(0.0f, x.data<float>()[i]);
  }
};

class OwnArenaProvider : public ep::ExecutionProvider {
 public:
  OwnArenaProvider() {
    registry_.add<HostRelu>({"", "Relu", 1, ep::kOpsetMax, {{"T", {0}, {DataType::kFloat}}}});
  }
  const std::string& name() const override { return name_; }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return own_arena(); }
  const ep::KernelRegistry& kernel_registry() const override { return registry_; }

 private:
  std::string name_ = kName;
  MemoryInfo info_ = cpu_memory_info();
  ep::KernelRegistry registry_;
};

class OwnArenaFactory : public ep::ProviderFactory {
 public:
  const std::string& name() const override { return name_; }
  bool is_available(std::string*) const override { return true; }
  std::shared_ptr<ep::ExecutionProvider> create(const ep::ProviderOptions&) const override {
    return std::make_shared<OwnArenaProvider>();
  }

 private:
  std::string name_ = kName;
};

}  // namespace

TEST(RuntimeProviderArena, AProvidersOwnArenaIsUsedAsItIs) {
  auto& registry = ep::ProviderRegistry::instance();
  if (!registry.find(kName)) registry.add(std::make_shared<OwnArenaFactory>());
  SessionOptions o;
  o.config_entries["session.use_env_allocators"] = "0";
  auto s = Session::create_from_model(relu_chain_model(), o, {{kName, {}}});
  for (const auto& a : s->node_assignments()) ASSERT_EQ(a.provider, kName);
  const size_t before = own_arena()->stats().num_allocs;
  auto y = s->run({{"x", Tensor::from_vector<float>({-1, 2}, Shape{2})}});
  EXPECT_EQ(floats(y[0].tensor()), (std::vector<float>{0, 2}));
  // The intermediate value came from the provider's arena and went back to it
  // (a session arena on top would have cached it, leaving it in use below).
  EXPECT_GT(own_arena()->stats().num_allocs, before);
  y.clear();
  EXPECT_EQ(own_arena()->stats().in_use, 0u);
  bool listed = false;
  for (const auto& [name, stats] : s->allocator_stats())
    if (name == kName) {
      listed = true;
      EXPECT_EQ(stats.num_allocs, own_arena()->stats().num_allocs);
    }
  EXPECT_TRUE(listed);
  registry.remove(kName);
}
