#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "ep/provider_registry.hpp"
#include "runtime/session.hpp"

using namespace tessera;

namespace {

// Host memory presented as a separate device: the provider's kernels check
// every pointer they receive is theirs, and its transfer counts copies.
MemoryInfo fake_device_memory() {
  MemoryInfo m;
  m.name = "FakeDevice";
  m.device_type = DeviceType::kGPU;
  m.vendor_id = 0xFA4E;
  return m;
}

class TrackingAllocator : public CpuAllocator {
 public:
  TrackingAllocator() : CpuAllocator(fake_device_memory()) {}
  void* alloc(size_t bytes) override {
    void* p = CpuAllocator::alloc(bytes);
    std::lock_guard<std::mutex> lock(mu_);
    live_.insert(p);
    return p;
  }
  void free(void* p) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      live_.erase(p);
    }
    CpuAllocator::free(p);
  }
  bool owns(const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.count(const_cast<void*>(p)) > 0;
  }

 private:
  std::mutex mu_;
  std::set<void*> live_;
};

std::shared_ptr<TrackingAllocator> g_alloc = std::make_shared<TrackingAllocator>();
std::atomic<int> g_copies{0};

class FakeTransfer : public ep::DataTransfer {
 public:
  bool can_copy(const MemoryInfo& s, const MemoryInfo& d) const override {
    return (s.same_space(fake_device_memory()) && d.host_accessible()) ||
           (d.same_space(fake_device_memory()) && s.host_accessible());
  }
  void copy_tensors(const std::vector<const Tensor*>& src, const std::vector<Tensor*>& dst,
                    ep::Stream* stream) const override {
    g_copies += int(src.size());
    ep::HostDataTransfer().copy_tensors(src, dst, stream);
  }
};

class DeviceRelu : public ep::OpKernel {
 public:
  explicit DeviceRelu(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (!g_alloc->owns(x.raw_data())) ctx.fail_node("input is not in device memory");
    Tensor& y = ctx.output(0, x.shape());
    for (int64_t i = 0; i < x.num_elements(); ++i)
      y.mutable_data<float>()[i] = std::max(0.0f, x.data<float>()[i]);
  }
};

class FakeDeviceProvider : public ep::ExecutionProvider {
 public:
  FakeDeviceProvider() {
    registry_.add<DeviceRelu>({"", "Relu", 1, ep::kOpsetMax, {{"T", {0}, {DataType::kFloat}}}});
  }
  const std::string& name() const override { return name_; }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return g_alloc; }
  const ep::KernelRegistry& kernel_registry() const override { return registry_; }
  const ep::DataTransfer* data_transfer() const override { return &transfer_; }

 private:
  std::string name_ = "FakeDeviceExecutionProvider";
  MemoryInfo info_ = fake_device_memory();
  ep::KernelRegistry registry_;
  FakeTransfer transfer_;
};

class FakeFactory : public ep::ProviderFactory {
 public:
  const std::string& name() const override { return name_; }
  bool is_available(std::string*) const override { return true; }
  std::shared_ptr<ep::ExecutionProvider> create(const ep::ProviderOptions&) const override {
    return std::make_shared<FakeDeviceProvider>();
  }

 private:
  std::string name_ = "FakeDeviceExecutionProvider";
};

ir::Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  ir::Node n;
  n.name = op + "_" + out[0];
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

}  // namespace

TEST(RuntimeCopies, InsertedOnlyWhereValuesCrossMemorySpaces) {
  ep::ProviderRegistry::instance().add(std::make_shared<FakeFactory>());
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
  g_copies = 0;
  auto out = s->run({{"x", Tensor::from_vector<float>({-1, 2}, Shape{2})}});
  // x to the device; r2 back to the host once, shared by Add and the graph output.
  EXPECT_EQ(g_copies.load(), 2);
  EXPECT_EQ(out[0].tensor().data<float>()[0], 10.0f);
  EXPECT_EQ(out[0].tensor().data<float>()[1], 12.0f);
  EXPECT_TRUE(out[1].tensor().memory_info().host_accessible());
  EXPECT_EQ(out[1].tensor().data<float>()[1], 2.0f);
}
