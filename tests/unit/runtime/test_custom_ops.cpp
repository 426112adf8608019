// SessionOptions::custom_ops: an application's op joins the CPU provider's
// kernel lookup for that session only, its outputs are typed by its rule (so
// the standard nodes after it find kernels), and the partition report lists
// it; a node of a domain no one registered fails naming the node and domain.
#include <gtest/gtest.h>

#include "runtime/session.hpp"

namespace tessera {
namespace {

ir::Node node(const std::string& name, const std::string& domain, const std::string& op,
              std::vector<std::string> in, std::vector<std::string> out) {
  ir::Node n;
  n.name = name;
  n.domain = domain;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

ir::ValueInfo info(const std::string& name, DataType t) {
  return {name, ir::TypeInfo::tensor(t), ""};
}

// y = Neg(Triple(x)): Triple is the custom op, its output undeclared.
ir::Model model(const std::string& domain) {
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports = {{"", 18}, {domain, 1}};
  m.graph.inputs = {info("x", DataType::kInt32)};
  m.graph.nodes.push_back(node("triple", domain, "Triple", {"x"}, {"t"}));
  m.graph.nodes.push_back(node("neg", "", "Neg", {"t"}, {"y"}));
  m.graph.outputs = {{"y", ir::TypeInfo(), ""}};
  return m;
}

class Triple : public ep::OpKernel {
 public:
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    for (int64_t i = 0; i < x.num_elements(); ++i)
      y.mutable_data<int32_t>()[i] = 3 * x.data<int32_t>()[i];
  }
};

std::shared_ptr<const ep::CustomOp> triple_op(std::map<std::string, std::string>* seen_config) {
  auto op = std::make_shared<ep::CustomOp>();
  op->provider = "CPUExecutionProvider";
  op->def.domain = "com.example";
  op->def.op_type = "Triple";
  op->factory = [seen_config](const ep::KernelInfo&,
                              const std::map<std::string, std::string>& config) {
    *seen_config = config;
    return std::make_unique<Triple>();
  };
  // The output has the input's type.
  op->output_types = [](const ir::Node&, const std::vector<ir::TypeInfo>& in) {
    return std::vector<ir::TypeInfo>{in.at(0)};
  };
  return op;
}

TEST(CustomOps, RunOnTheCpuProviderWithTheirOutputsTyped) {
  std::map<std::string, std::string> seen;
  SessionOptions o;
  o.custom_ops.push_back(triple_op(&seen));
  o.config_entries["custom.key"] = "v";
  auto s = Session::create_from_model(model("com.example"), o);
  auto out = s->run({{"x", Tensor::from_vector<int32_t>({1, -2, 5}, Shape{3})}});
  ASSERT_EQ(out.size(), 1u);
  const Tensor& y = out[0].tensor();
  EXPECT_EQ(y.dtype(), DataType::kInt32);  // Neg found its int32 kernel
  EXPECT_EQ(std::vector<int32_t>(y.data<int32_t>(), y.data<int32_t>() + 3),
            (std::vector<int32_t>{-3, 6, -15}));
  EXPECT_EQ(seen["custom.key"], "v");
  bool listed = false;
  for (const auto& a : s->node_assignments())
    if (a.node_name == "triple") {
      listed = true;
      EXPECT_EQ(a.domain, "com.example");
      EXPECT_EQ(a.provider, "CPUExecutionProvider");
    }
  EXPECT_TRUE(listed);
  EXPECT_NE(s->partition_report().to_text().find("triple  Triple   CPUExecutionProvider"),
            std::string::npos)
      << s->partition_report().to_text();
}

TEST(CustomOps, AreTheSessionsOwn) {
  std::map<std::string, std::string> seen;
  SessionOptions with;
  with.custom_ops.push_back(triple_op(&seen));
  auto s = Session::create_from_model(model("com.example"), with);
  try {
    Session::create_from_model(model("com.example"), SessionOptions{});
    FAIL() << "a session without the custom op ran its node";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("com.example.Triple node 'triple'"), std::string::npos) << m;
    EXPECT_NE(m.find("domain 'com.example' is not known"), std::string::npos) << m;
  }
}

TEST(CustomOps, MatchOnlyTheirDomain) {
  std::map<std::string, std::string> seen;
  SessionOptions o;
  o.custom_ops.push_back(triple_op(&seen));
  try {
    Session::create_from_model(model("com.other"), o);
    FAIL() << "an op of another domain ran as the custom op";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("com.other.Triple node 'triple'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tessera
