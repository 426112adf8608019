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

// The pass on a model of opset 13 holding `g`; `g` gets the result.
size_t eliminate(ir::Graph& g) {
  ir::Model m;
  m.opset_imports.push_back({"", 13});
  m.graph = g;
  const size_t removed = optimizer::eliminate_redundant_casts(m, m.graph);
  g = m.graph;
  return removed;
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
  EXPECT_EQ(eliminate(g), 0u);
}

TEST(OptimizerCastElimination, GraphOutputsAndUnknownTypesStay) {
  ir::Graph g;
  g.inputs.push_back({"x", ir::TypeInfo::tensor(DataType::kFloat), ""});
  g.nodes.push_back(cast("x", "y", DataType::kFloat));  // a graph output: stays
  g.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kFloat), ""});
  ir::Node custom = op("Custom", {"x"}, {"r"});  // no schema entry: its type is unknown
  custom.domain = "com.example";
  g.nodes.push_back(custom);
  g.nodes.push_back(cast("r", "s", DataType::kFloat));
  g.nodes.push_back(op("Neg", {"s"}, {"t"}));
  g.outputs.push_back({"t", ir::TypeInfo::tensor(DataType::kFloat), ""});
  EXPECT_EQ(eliminate(g), 0u);
  // int8 -> int32 -> int8 is exact: the second Cast goes, its reader reads q.
  g.inputs.push_back({"q", ir::TypeInfo::tensor(DataType::kInt8), ""});
  g.nodes.push_back(cast("q", "q32", DataType::kInt32));
  g.nodes.push_back(cast("q32", "q8", DataType::kInt8));
  g.nodes.push_back(op("Neg", {"q8"}, {"nq"}));
  g.outputs.push_back({"nq", ir::TypeInfo::tensor(DataType::kInt8), ""});
  EXPECT_EQ(eliminate(g), 1u);
  EXPECT_EQ(g.nodes.back().inputs[0], "q");
}

// Type inference types the values between: a Cast to float of a float
// MatMul's output, or to bool of a comparison's, is a no-op; a Cast to
// int32 of an int64 ArgMax is not.
TEST(OptimizerCastElimination, InferredTypesShowNoOpCasts) {
  ir::Graph g;
  g.inputs.push_back({"a", ir::TypeInfo::tensor(DataType::kFloat), ""});
  g.initializers["b"] = Tensor(DataType::kFloat, Shape{3, 2});
  g.nodes.push_back(op("MatMul", {"a", "b"}, {"m"}));
  g.nodes.push_back(cast("m", "mf", DataType::kFloat));
  g.nodes.push_back(op("Relu", {"mf"}, {"y"}));
  g.nodes.push_back(op("Greater", {"a", "a"}, {"gt"}));
  g.nodes.push_back(cast("gt", "gb", DataType::kBool));
  g.nodes.push_back(op("Not", {"gb"}, {"n"}));
  g.nodes.push_back(op("ArgMax", {"a"}, {"i"}));
  g.nodes.push_back(cast("i", "i32", DataType::kInt32));
  g.nodes.push_back(op("Neg", {"i32"}, {"ni"}));
  for (const char* o : {"y", "n", "ni"})
    g.outputs.push_back({o, ir::TypeInfo::tensor(DataType::kUndefined), ""});
  EXPECT_EQ(eliminate(g), 2u);
  for (const auto& n : g.nodes) {
    if (n.op_type == "Relu") {
      EXPECT_EQ(n.inputs[0], "m");
    } else if (n.op_type == "Not") {
      EXPECT_EQ(n.inputs[0], "gt");
    } else if (n.op_type == "Neg") {
      EXPECT_EQ(n.inputs[0], "i32");
    }
  }
}

}  // namespace
}  // namespace tessera::test
