// Session creation fills the host arena with the blocks the first run takes
// (GraphPlan::warm_up_arenas): the first run then allocates nothing new.
#include <gtest/gtest.h>

#include "runtime/session.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;

namespace {

ir::ValueInfo tensor_info(const std::string& name, std::vector<ir::Dim> dims) {
  return {name, ir::TypeInfo::tensor(DataType::kFloat, dims), ""};
}

std::vector<ir::Dim> dims_of(std::vector<int64_t> d, bool symbolic_first = false) {
  std::vector<ir::Dim> out;
  for (size_t i = 0; i < d.size(); ++i)
    out.push_back(i == 0 && symbolic_first ? ir::Dim{std::nullopt, "N"} : ir::Dim{d[i], ""});
  return out;
}

// y = Transpose(Reshape(Relu(x W), [256, 64])) + x, x [64, 256]: fresh
// outputs, a view (Reshape) and blocks freed and taken again in run order.
ir::Model mixed_model(bool symbolic_batch) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.name = "warm_up";
  m.graph.inputs.push_back(tensor_info("x", dims_of({64, 256}, symbolic_batch)));
  std::vector<float> w(256 * 256);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i % 7) - 3) * 0.01f;
  m.graph.initializers["W"] = Tensor::from_vector<float>(w, Shape{256, 256});
  m.graph.initializers["shape"] = Tensor::from_vector<int64_t>({256, 64}, Shape{2});
  m.graph.nodes.push_back(test::make_node("MatMul", {"x", "W"}, {"h"}));
  m.graph.nodes.push_back(test::make_node("Relu", {"h"}, {"r"}));
  m.graph.nodes.push_back(test::make_node("Reshape", {"r", "shape"}, {"v"}));
  m.graph.nodes.push_back(test::make_node("Transpose", {"v"}, {"t"}));
  m.graph.nodes.push_back(test::make_node("Add", {"t", "x"}, {"y"}));
  m.graph.outputs.push_back(tensor_info("y", dims_of({64, 256}, symbolic_batch)));
  return m;
}

// The same arithmetic, written out.
std::vector<float> reference(const std::vector<float>& x, const Tensor& W) {
  const float* w = W.data<float>();
  std::vector<float> r(64 * 256), y(64 * 256);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 256; ++j) {
      double acc = 0;
      for (int k = 0; k < 256; ++k) acc += double(x[size_t(i * 256 + k)]) * w[k * 256 + j];
      r[size_t(i * 256 + j)] = std::max(float(acc), 0.0f);
    }
  // r viewed as [256, 64], transposed to [64, 256].
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 256; ++j)
      y[size_t(i * 256 + j)] = r[size_t(j * 64 + i)] + x[size_t(i * 256 + j)];
  return y;
}

std::vector<float> input() {
  std::vector<float> x(64 * 256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 11) - 5) * 0.1f;
  return x;
}

size_t reserved(const Session& s) {
  const auto stats = s.allocator_stats();
  EXPECT_EQ(stats.size(), 1u);
  return stats.empty() ? 0 : stats[0].second.reserved;
}

void expect_output(const Value& y, const std::vector<float>& want) {
  const Tensor& t = y.tensor();
  ASSERT_EQ(size_t(t.num_elements()), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(t.data<float>()[i], want[i], 1e-4f * (1 + std::abs(want[i]))) << "at " << i;
}

}  // namespace

TEST(ArenaWarmUp, CreationHoldsTheBlocksTheFirstRunTakes) {
  ir::Model m = mixed_model(false);
  const std::vector<float> want = reference(input(), m.graph.initializers.at("W"));
  auto s = Session::create_from_model(std::move(m));
  const size_t at_creation = reserved(*s);
  // Two 64 KiB blocks serve every value in turn (at most two are live at
  // once; Reshape's output is Relu's block).
  EXPECT_EQ(at_creation, size_t(2) * 64 * 256 * 4);
  auto x = Tensor::from_vector<float>(input(), Shape{64, 256});
  auto out = s->run({{"x", x}});
  expect_output(out[0], want);
  EXPECT_EQ(reserved(*s), at_creation);  // the run found every block cached
}

TEST(ArenaWarmUp, OffByConfigAndForDynamicShapes) {
  const std::vector<float> want = reference(input(), mixed_model(false).graph.initializers.at("W"));
  auto x = Tensor::from_vector<float>(input(), Shape{64, 256});
  SessionOptions off;
  off.config_entries["session.warm_up_arenas"] = "0";
  auto s = Session::create_from_model(mixed_model(false), off);
  EXPECT_EQ(reserved(*s), 0u);
  expect_output(s->run({{"x", x}})[0], want);
  EXPECT_GT(reserved(*s), 0u);
  // A symbolic batch: no static shape, so nothing is reserved ahead.
  auto d = Session::create_from_model(mixed_model(true));
  EXPECT_EQ(reserved(*d), 0u);
  expect_output(d->run({{"x", x}})[0], want);
}
