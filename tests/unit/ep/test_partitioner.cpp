#include <gtest/gtest.h>

#include "ep/partitioner.hpp"

using namespace tessera;
using namespace tessera::ep;

namespace {

class NoopKernel : public OpKernel {
 public:
  explicit NoopKernel(const KernelInfo&) {}
  void compute(KernelContext&) const override {}
};

// A provider with kernels for the given op types, float only.
class FakeProvider : public ExecutionProvider {
 public:
  FakeProvider(std::string name, std::vector<std::string> ops) : name_(std::move(name)) {
    for (const auto& op : ops)
      registry_.add<NoopKernel>({"", op, 1, kOpsetMax, {{"T", {0}, {DataType::kFloat}}}});
  }
  const std::string& name() const override { return name_; }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return default_cpu_allocator(); }
  const KernelRegistry& kernel_registry() const override { return registry_; }

 private:
  std::string name_;
  MemoryInfo info_;
  KernelRegistry registry_;
};

struct Fixture {
  ir::Model model;
  std::unordered_map<std::string, ir::TypeInfo> types;
  GraphView view() {
    GraphView v;
    v.model = &model;
    v.graph = &model.graph;
    v.value_types = &types;
    return v;
  }
  void add(const std::string& op, const std::string& in, const std::string& out,
           DataType t = DataType::kFloat) {
    ir::Node n;
    n.name = op + "_" + out;
    n.op_type = op;
    n.inputs = {in};
    n.outputs = {out};
    model.graph.nodes.push_back(n);
    types[in] = ir::TypeInfo::tensor(t);
  }
};

}  // namespace

TEST(EpPartitioner, ProvidersClaimInPriorityOrder) {
  Fixture f;
  f.model.opset_imports.push_back({"", 17});
  f.add("Relu", "x", "a");
  f.add("Sigmoid", "a", "b");
  f.add("Relu", "b", "c");
  auto first = std::make_shared<FakeProvider>("First", std::vector<std::string>{"Relu"});
  auto last = std::make_shared<FakeProvider>("Last", std::vector<std::string>{"Relu", "Sigmoid"});
  auto r = partition_graph(f.view(), {first, last});
  EXPECT_EQ(r.node_provider, (std::vector<int>{0, 1, 0}));
  ASSERT_EQ(r.declined[1].size(), 1u);
  EXPECT_EQ(r.declined[1][0].first, "First");
  EXPECT_EQ(r.declined[1][0].second, "no kernel for this op");
}

TEST(EpPartitioner, UnrunnableNodeNamesOpOpsetAndTypes) {
  Fixture f;
  f.model.opset_imports.push_back({"", 13});
  f.add("Relu", "x", "a", DataType::kInt32);
  auto p = std::make_shared<FakeProvider>("Only", std::vector<std::string>{"Relu"});
  try {
    partition_graph(f.view(), {p});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Relu node 'Relu_a'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("opset 13"), std::string::npos) << msg;
    EXPECT_NE(msg.find("tensor(int32)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("constraint T"), std::string::npos) << msg;
  }
}

TEST(EpRegistry, OpsetRangeIsReported) {
  KernelRegistry reg;
  reg.add<NoopKernel>({"", "Relu", 6, 12, {}});
  auto m = reg.lookup("", "Relu", 14, {DataType::kFloat});
  EXPECT_EQ(m.entry, nullptr);
  EXPECT_NE(m.reason.find("opset 14"), std::string::npos) << m.reason;
  EXPECT_NE(m.reason.find("6-12"), std::string::npos) << m.reason;
  EXPECT_NE(reg.lookup("ai.onnx", "Relu", 7, {DataType::kFloat}).entry, nullptr);
}

TEST(EpRegistry, VariadicConstraintCoversTrailingInputs) {
  KernelRegistry reg;
  reg.add<NoopKernel>({"", "Sum", 1, kOpsetMax, {{"T", {0}, {DataType::kFloat}, true}}});
  EXPECT_NE(reg.lookup("", "Sum", 13, {DataType::kFloat, DataType::kFloat}).entry, nullptr);
  EXPECT_EQ(reg.lookup("", "Sum", 13, {DataType::kFloat, DataType::kInt64}).entry, nullptr);
}
