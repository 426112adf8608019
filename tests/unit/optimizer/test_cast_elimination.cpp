// eliminate_redundant_casts (basic level): Casts that cannot change a value
// go, Casts that can stay.
#include <gtest/gtest.h>

#include "optimizer/cast_elimination.hpp"
#include "optimizer/optimizer.hpp"
#include "unit/optimizer/optimizer_test_util.hpp"

namespace tessera::test {
namespace {

ir::Node cast(const std::string& in, const std::string& out, DataType to) {
  return op("Cast", {in}, {out}, {attr_i("to", int64_t(to))});
}

TEST(OptimizerCastElimination, CastToItsOwnTypeAndExactRoundTripsGo) {
  // x float -> double -> float (exact), -> int32 -> int32 (same type), -> int64.
  ir::Model m = float_model(13, {{"x", Shape{2, 3}}}, {"y", "z"});
  auto& g = m.graph;
  g.nodes.push_back(cast("x", "d", DataType::kDouble));
  g.nodes.push_back(cast("d", "f", DataType::kFloat));
  g.nodes.push_back(op("Relu", {"f"}, {"y"}));
  g.nodes.push_back(cast("x", "i", DataType::kInt32));
  g.nodes.push_back(cast("i", "i2", DataType::kInt32));
  g.nodes.push_back(cast("i2", "i64", DataType::kInt64));
  g.nodes.push_back(cast("i64", "z", DataType::kFloat));
  ir::Model out = expect_same_outputs(m, GraphOptimizationLevel::kBasic, 0);
  // The double round trip and the int32 -> int32 Cast are gone; x -> int32
  // (truncation), int32 -> int64 and int64 -> float stay.
  EXPECT_EQ(count_ops(out, "Cast"), 3u);
  for (const auto& n : out.graph.nodes) {
    if (n.op_type == "Relu") {
      EXPECT_EQ(n.inputs[0], "x");
    }
  }
}

TEST(OptimizerCastElimination, PairsThatChangeValuesStay) {
  ir::Graph g;
  g.inputs.push_back({"x", ir::TypeInfo::tensor(DataType::kDouble), ""});
  g.inputs.push_back({"h", ir::TypeInfo::tensor(DataType::kFloat), ""});
  g.inputs.push_back({"l", ir::TypeInfo::tensor(DataType::kInt64), ""});
  g.inputs.push_back({"u", ir::TypeInfo::tensor(DataType::kUInt32), ""});
  g.nodes.push_back(cast("x", "xi", DataType::kInt32));  // double -> int32 rounds
  g.nodes.push_back(cast("xi", "xd", DataType::kDouble));
  g.nodes.push_back(cast("h", "hh", DataType::kFloat16));  // float -> float16 rounds
  g.nodes.push_back(cast("hh", "hf", DataType::kFloat));
  g.nodes.push_back(cast("l", "ld", DataType::kDouble));  // int64 -> double rounds
  g.nodes.push_back(cast("ld", "ll", DataType::kInt64));
  g.nodes.push_back(cast("u", "uf", DataType::kFloat));  // uint32 -> float rounds
  g.nodes.push_back(cast("uf", "uu", DataType::kUInt32));
  g.nodes.push_back(cast("u", "ui", DataType::kInt32));  // uint32 -> int32 wraps
  g.nodes.push_back(cast("ui", "uu2", DataType::kUInt32));
  for (const char* o : {"xd", "hf", "ll", "uu", "uu2"})
    g.nodes.push_back(op("Identity", {o}, {std::string(o) + "_out"}));
  for (const char* o : {"xd", "hf", "ll", "uu", "uu2"})
    g.outputs.push_back({std::string(o) + "_out", ir::TypeInfo::tensor(DataType::kUndefined), ""});
  EXPECT_EQ(optimizer::eliminate_redundant_casts(g), 0u);
}

TEST(OptimizerCastElimination, GraphOutputsAndUnknownTypesStay) {
  ir::Graph g;
  g.inputs.push_back({"x", ir::TypeInfo::tensor(DataType::kFloat), ""});
  g.nodes.push_back(cast("x", "y", DataType::kFloat));  // a graph output: stays
  g.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kFloat), ""});
  g.nodes.push_back(op("Relu", {"x"}, {"r"}));  // type not known without inference
  g.nodes.push_back(cast("r", "s", DataType::kFloat));
  g.nodes.push_back(op("Neg", {"s"}, {"t"}));
  g.outputs.push_back({"t", ir::TypeInfo::tensor(DataType::kFloat), ""});
  EXPECT_EQ(optimizer::eliminate_redundant_casts(g), 0u);
  // int8 -> int32 -> int8 is exact: the second Cast goes, its reader reads q.
  g.inputs.push_back({"q", ir::TypeInfo::tensor(DataType::kInt8), ""});
  g.nodes.push_back(cast("q", "q32", DataType::kInt32));
  g.nodes.push_back(cast("q32", "q8", DataType::kInt8));
  g.nodes.push_back(op("Neg", {"q8"}, {"nq"}));
  g.outputs.push_back({"nq", ir::TypeInfo::tensor(DataType::kInt8), ""});
  EXPECT_EQ(optimizer::eliminate_redundant_casts(g), 1u);
  EXPECT_EQ(g.nodes.back().inputs[0], "q");
}

}  // namespace
}  // namespace tessera::test
