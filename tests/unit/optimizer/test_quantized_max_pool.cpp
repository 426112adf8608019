// pool_quantized_values: MaxPool([Relu](DequantizeLinear(q))) runs on the
// bytes, before the DequantizeLinear, with the same values.
#include <gtest/gtest.h>

#include "optimizer/optimizer.hpp"
#include "optimizer/passes.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {
namespace {

// x -> Q -> DQ -> [Relu] -> MaxPool(k, s, pads, ceil, dilation) -> y
ir::Model pool_model(bool relu, bool is_signed, std::vector<ir::Attribute> attrs) {
  ir::Model m = float_model(13, {{"x", Shape{1, 3, 11, 12}}}, {"y"});
  auto& g = m.graph;
  g.initializers["s"] = Tensor::scalar<float>(0.03f);
  g.initializers["z"] =
      is_signed ? Tensor::scalar<int8_t>(int8_t(-9)) : Tensor::scalar<uint8_t>(uint8_t(140));
  g.nodes.push_back(op("QuantizeLinear", {"x", "s", "z"}, {"q"}));
  g.nodes.push_back(op("DequantizeLinear", {"q", "s", "z"}, {"d"}));
  if (relu) g.nodes.push_back(op("Relu", {"d"}, {"r"}));
  g.nodes.push_back(op("MaxPool", {relu ? "r" : "d"}, {"y"}, std::move(attrs)));
  return m;
}

TEST(OptimizerQuantizedMaxPool, PoolsTheBytesWithTheSameValues) {
  for (bool relu : {false, true})
    for (bool is_signed : {false, true})
      for (auto pads : {std::vector<int64_t>{0, 0, 0, 0}, std::vector<int64_t>{1, 1, 1, 1},
                        std::vector<int64_t>{2, 0, 1, 2}}) {
        SCOPED_TRACE(std::to_string(relu) + std::to_string(is_signed) + std::to_string(pads[0]));
        ir::Model out =
            expect_same_outputs(pool_model(relu, is_signed,
                                           {attr_ints("kernel_shape", {3, 3}),
                                            attr_ints("strides", {2, 2}), attr_ints("pads", pads)}),
                                GraphOptimizationLevel::kAll, 0);
        // The pool now reads the quantized tensor.
        bool on_bytes = false;
        for (const auto& n : out.graph.nodes)
          on_bytes |= n.op_type == "MaxPool" && n.inputs[0] == "q";
        EXPECT_TRUE(on_bytes);
      }
}

TEST(OptimizerQuantizedMaxPool, WindowsThatMayMissTheImageStayInFloat) {
  // A pad as large as the kernel, ceil_mode and dilation can make windows of
  // padding alone (the lowest float, not a dequantized byte): not moved.
  for (auto attrs :
       {std::vector<ir::Attribute>{attr_ints("kernel_shape", {2, 2}),
                                   attr_ints("pads", {2, 2, 2, 2})},
        std::vector<ir::Attribute>{attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}),
                                   attr_int("ceil_mode", 1)},
        std::vector<ir::Attribute>{attr_ints("kernel_shape", {2, 2}),
                                   attr_ints("dilations", {2, 2})}}) {
    ir::Model out =
        expect_same_outputs(pool_model(true, false, attrs), GraphOptimizationLevel::kAll, 0);
    for (const auto& n : out.graph.nodes) {
      if (n.op_type != "MaxPool") continue;
      EXPECT_NE(n.inputs[0], "q");
    }
  }
}

}  // namespace
}  // namespace tessera::test
