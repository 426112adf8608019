// Pad with zeros on the spatial axes, read only by a Conv, folds into the
// Conv's pads: same outputs as the unoptimized model, and no Pad left; pads
// that a Conv cannot express stay a Pad.
#include "optimizer/optimizer.hpp"
#include "optimizer_test_util.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

Tensor i64s(std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return Tensor::from_vector<int64_t>(std::move(v), Shape{n});
}

// x [1, 4, 20] -> Pad(pads) -> Conv1d(k=3, dilation 2, conv pads) -> y, at `opset`.
ir::Model causal_conv(std::vector<int64_t> pads, std::vector<int64_t> conv_pads, float value = 0.f,
                      const char* mode = "constant", int64_t opset = 17) {
  ir::Model m = float_model(opset, {{"x", Shape{1, 4, 20}}}, {"y"});
  m.graph.initializers["w"] = random_floats(Shape{5, 4, 3}, 3);
  m.graph.initializers["b"] = random_floats(Shape{5}, 4);
  std::vector<ir::Attribute> pad_attrs = {attr_string("mode", mode)};
  if (opset >= 11) {
    m.graph.initializers["pads"] = i64s(pads);
    m.graph.initializers["value"] = Tensor::scalar<float>(value);
    m.graph.nodes.push_back(op("Pad", {"x", "pads", "value"}, {"p"}, pad_attrs));
  } else {
    pad_attrs.push_back(attr_ints("pads", pads));
    pad_attrs.push_back(attr_f("value", value));
    m.graph.nodes.push_back(op("Pad", {"x"}, {"p"}, pad_attrs));
  }
  std::vector<ir::Attribute> conv_attrs = {attr_ints("dilations", {2})};
  if (!conv_pads.empty()) conv_attrs.push_back(attr_ints("pads", conv_pads));
  m.graph.nodes.push_back(op("Conv", {"p", "w", "b"}, {"y"}, conv_attrs));
  return m;
}

}  // namespace

TEST(OptimizerPadConvFusion, ZeroPadsJoinTheConvPads) {
  for (int64_t opset : {int64_t(10), int64_t(17)}) {
    // A causal left pad, and one added to the Conv's own pads.
    for (auto [pads, conv_pads] :
         {std::pair<std::vector<int64_t>, std::vector<int64_t>>{{0, 0, 4, 0, 0, 0}, {}},
          {{0, 0, 2, 0, 0, 3}, {1, 1}}}) {
      ir::Model out = expect_same_outputs(causal_conv(pads, conv_pads, 0.f, "constant", opset),
                                          GraphOptimizationLevel::kExtended);
      EXPECT_EQ(count_ops(out, "Pad"), 0u) << "opset " << opset;
      ASSERT_EQ(count_ops(out, "Conv"), 1u);
      const ir::Attribute* p = out.graph.nodes[0].attr("pads");
      ASSERT_NE(p, nullptr);
      const int64_t own = conv_pads.empty() ? 0 : conv_pads[0];
      EXPECT_EQ(p->ints, (std::vector<int64_t>{pads[2] + own, pads[5] + own}));
    }
  }
}

TEST(OptimizerPadConvFusion, OtherPadsStay) {
  const std::vector<std::vector<int64_t>> kept = {
      {1, 0, 2, 0, 0, 0},   // pads the batch
      {0, 0, -2, 0, 0, 0},  // crops
  };
  for (const auto& pads : kept) {
    ir::Model out = expect_same_outputs(causal_conv(pads, {}), GraphOptimizationLevel::kExtended);
    EXPECT_EQ(count_ops(out, "Pad"), 1u);
  }
  // A non-zero fill, and reflect mode.
  ir::Model out = expect_same_outputs(causal_conv({0, 0, 2, 0, 0, 0}, {}, 1.5f),
                                      GraphOptimizationLevel::kExtended);
  EXPECT_EQ(count_ops(out, "Pad"), 1u);
  out = expect_same_outputs(causal_conv({0, 0, 2, 0, 0, 0}, {}, 0.f, "reflect"),
                            GraphOptimizationLevel::kExtended);
  EXPECT_EQ(count_ops(out, "Pad"), 1u);
  // A padded value another node reads too.
  ir::Model m = causal_conv({0, 0, 2, 0, 0, 0}, {});
  m.graph.outputs.push_back({"p", ir::TypeInfo::tensor(DataType::kFloat), ""});
  out = expect_same_outputs(m, GraphOptimizationLevel::kExtended);
  EXPECT_EQ(count_ops(out, "Pad"), 1u);
}
