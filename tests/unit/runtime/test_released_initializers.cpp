#include <gtest/gtest.h>

#include "core/error.hpp"
#include "onnx/model_writer.hpp"
#include "runtime/session.hpp"
#include "unit/runtime/fake_device.hpp"

using namespace tessera;
using test_device::node;
using test_device::tensor_info;

namespace {

Tensor ramp(Shape shape, float scale) {
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i)
    t.mutable_data<float>()[i] = scale * float(int(i % 7) - 3);
  return t;
}

// y = MatMul(a, b) + c; z = MatMul(a, d); e = Identity-free read of d by Mul.
// b is read only by a MatMul (packed: released); d also by a Mul (kept); c by
// an Add (kept).
std::string model_bytes() {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs = {tensor_info("a", {4, 256})};
  m.graph.initializers["b"] = ramp(Shape{256, 256}, 0.01f);
  m.graph.initializers["c"] = ramp(Shape{256}, 0.5f);
  m.graph.initializers["d"] = ramp(Shape{256, 256}, 0.02f);
  m.graph.nodes = {node("MatMul", {"a", "b"}, {"p"}), node("Add", {"p", "c"}, {"y"}),
                   node("MatMul", {"a", "d"}, {"z"}), node("Mul", {"d", "d"}, {"e"})};
  m.graph.outputs = {tensor_info("y", {4, 256}), tensor_info("z", {4, 256}),
                     tensor_info("e", {256, 256})};
  return onnx::serialize_model(m);
}

std::vector<std::vector<float>> run(const Session& s) {
  auto out = s.run({{"a", ramp(Shape{4, 256}, 0.25f)}});
  std::vector<std::vector<float>> v;
  for (const auto& o : out) {
    const Tensor& t = o.tensor();
    v.emplace_back(t.data<float>(), t.data<float>() + t.num_elements());
  }
  return v;
}

TEST(RuntimeReleasedInitializers, PackedWeightsAreGivenBackAndResultsStay) {
  const std::string bytes = model_bytes();
  SessionOptions o;
  o.graph_optimization_level = GraphOptimizationLevel::kDisableAll;  // keep the graph as built
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_EQ(s->released_initializers().size(), 1u);
  EXPECT_EQ(s->released_initializers()[0], "b");
  SessionOptions keep;
  keep.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  const std::string key = "session.keep_packed_initializers";
  keep.config_entries.emplace(key, "1");
  auto k = Session::create_from_bytes(bytes.data(), bytes.size(), keep);
  EXPECT_TRUE(k->released_initializers().empty());
  const auto got = run(*s), want = run(*k);
  EXPECT_EQ(got, want);
  EXPECT_EQ(run(*s), want);  // and again: the packed form stays
}

// b is read by a MatMul (packs it) and by an If branch through the outer
// scope: it must stay, even though its only direct reader packed it.
TEST(RuntimeReleasedInitializers, ValuesSubgraphsReadAreKept) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs = {tensor_info("a", {4, 256})};
  ir::ValueInfo cond{"cond", ir::TypeInfo::tensor(DataType::kBool, std::vector<ir::Dim>{}), ""};
  m.graph.inputs.push_back(cond);
  m.graph.initializers["b"] = ramp(Shape{256, 256}, 0.01f);
  auto branch = [](const std::string& out) {
    auto g = std::make_shared<ir::Graph>();
    g->name = out;
    g->nodes = {node("Identity", {"b"}, {out})};
    g->outputs = {tensor_info(out, {256, 256})};
    return g;
  };
  ir::Node iff = node("If", {"cond"}, {"picked"});
  ir::Attribute then_branch, else_branch;
  then_branch.name = "then_branch";
  then_branch.type = ir::AttrType::kGraph;
  then_branch.g = branch("t");
  else_branch.name = "else_branch";
  else_branch.type = ir::AttrType::kGraph;
  else_branch.g = branch("e");
  iff.attributes = {then_branch, else_branch};
  m.graph.nodes = {node("MatMul", {"a", "b"}, {"y"}), iff};
  m.graph.outputs = {tensor_info("y", {4, 256}), tensor_info("picked", {256, 256})};
  const std::string bytes = onnx::serialize_model(m);
  SessionOptions o;
  o.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  EXPECT_TRUE(s->released_initializers().empty());
  auto out = s->run({{"a", ramp(Shape{4, 256}, 0.25f)}, {"cond", Tensor::scalar(true)}});
  const Tensor& picked = out[1].tensor();
  const Tensor b = ramp(Shape{256, 256}, 0.01f);
  ASSERT_EQ(picked.num_elements(), b.num_elements());
  for (int64_t i = 0; i < b.num_elements(); ++i)
    ASSERT_EQ(picked.data<float>()[i], b.data<float>()[i]) << i;
}

TEST(RuntimeReleasedInitializers, ReadingReleasedDataFailsLoudly) {
  Tensor t = Tensor::metadata_only(DataType::kFloat, Shape{2, 3});
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.dtype(), DataType::kFloat);
  EXPECT_FALSE(t.has_data());
  try {
    (void)t.data<float>();
    FAIL() << "reading released data must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("given back"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(Tensor::metadata_only(DataType::kFloat, Shape{0}).has_data());  // nothing to read
}

}  // namespace
