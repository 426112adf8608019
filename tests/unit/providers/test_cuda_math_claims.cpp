// What the CUDA math kernels claim and decline, with the reasons, and the
// plans their broadcasting kernels walk (plan_elements): no GPU needed.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "onnx/model_reader.hpp"
#include "providers/cuda/elementwise_plan.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;
using tessera::cuda::ElementPlan;
using tessera::cuda::plan_elements;

namespace {

Tensor zeros(DataType t, std::vector<int64_t> dims) { return Tensor(t, Shape(dims)); }

OneNode unary(const std::string& op, int64_t opset, DataType t,
              std::vector<ir::Attribute> attrs = {}) {
  OneNode m(op, opset, std::move(attrs));
  m.input("x", zeros(t, {2, 3})).output("y");
  return m;
}

OneNode binary(const std::string& op, int64_t opset, DataType ta, DataType tb,
               std::vector<int64_t> da = {2, 3}, std::vector<int64_t> db = {3},
               std::vector<ir::Attribute> attrs = {}) {
  OneNode m(op, opset, std::move(attrs));
  m.input("a", zeros(ta, da)).input("b", zeros(tb, db)).output("y");
  return m;
}

}  // namespace

TEST(CudaMathClaims, UnaryOpsClaimTheirTypes) {
  for (const char* op :
       {"Abs",         "Neg",       "Exp",   "Log",   "Sqrt",  "Reciprocal", "Floor",
        "Ceil",        "Sin",       "Cos",   "Tan",   "Asin",  "Acos",       "Atan",
        "Sinh",        "Cosh",      "Asinh", "Acosh", "Atanh", "Softplus",   "Softsign",
        "HardSigmoid", "HardSwish", "Elu",   "Selu",  "Celu",  "Mish",       "ThresholdedRelu",
        "Shrink",      "Round",     "Sign"})
    for (DataType t :
         {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16, DataType::kDouble})
      EXPECT_EQ(claim(unary(op, 18, t)), "") << op << " " << data_type_name(t);
  for (const char* op : {"Abs", "Neg", "Sign"})
    for (DataType t : {DataType::kInt32, DataType::kInt64, DataType::kInt8})
      EXPECT_EQ(claim(unary(op, 18, t)), "") << op << " " << data_type_name(t);
  EXPECT_EQ(claim(unary("IsNaN", 20, DataType::kFloat16)), "");
  EXPECT_EQ(claim(unary("IsInf", 20, DataType::kDouble)), "");
  EXPECT_EQ(claim(unary("Not", 1, DataType::kBool)), "");
  // Clip's bounds may be inputs computed at run time, of any numeric type.
  for (DataType t : {DataType::kFloat, DataType::kInt64, DataType::kDouble, DataType::kUInt8}) {
    OneNode clip("Clip", 13);
    clip.input("x", zeros(t, {4})).input("lo", zeros(t, {})).input("hi", zeros(t, {})).output("y");
    EXPECT_EQ(claim(clip), "") << "Clip " << data_type_name(t);
  }
  EXPECT_EQ(claim(unary("Swish", 24, DataType::kFloat16)), "");
  EXPECT_EQ(claim(unary("BitwiseNot", 18, DataType::kUInt16)), "");
  expect_has(claim(unary("BitwiseNot", 18, DataType::kFloat)), "float");
  // Integer types only Abs, Neg and Sign take; unsigned integers none.
  expect_has(claim(unary("Exp", 13, DataType::kInt64)), "int64");
  expect_has(claim(unary("Abs", 13, DataType::kUInt32)), "uint32");
  expect_has(claim(unary("Celu", 12, DataType::kFloat, {attr_float("alpha", 0.0f)})), "alpha is 0");
}

TEST(CudaMathClaims, BinaryOpsClaimIntegersAndDecline) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Mod"})
    for (DataType t : {DataType::kInt32, DataType::kInt64, DataType::kDouble, DataType::kFloat16})
      EXPECT_EQ(claim(binary(op, 14, t, t)), "") << op << " " << data_type_name(t);
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"})
    for (DataType t : {DataType::kFloat, DataType::kInt64, DataType::kInt32, DataType::kFloat16})
      EXPECT_EQ(claim(binary(op, 16, t, t)), "") << op << " " << data_type_name(t);
  EXPECT_EQ(claim(binary("Equal", 13, DataType::kBool, DataType::kBool)), "");
  expect_has(claim(binary("Less", 13, DataType::kBool, DataType::kBool)), "bool");
  for (const char* op : {"And", "Or", "Xor"})
    EXPECT_EQ(claim(binary(op, 7, DataType::kBool, DataType::kBool)), "") << op;
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
    EXPECT_EQ(claim(binary(op, 18, DataType::kInt64, DataType::kInt64)), "") << op;
    expect_has(claim(binary(op, 18, DataType::kBool, DataType::kBool)), "bool");
  }
  EXPECT_EQ(claim(binary("CastLike", 19, DataType::kDouble, DataType::kFloat16)), "");
  EXPECT_EQ(claim(binary("Pow", 15, DataType::kFloat, DataType::kInt64)), "");
  EXPECT_EQ(claim(binary("Pow", 15, DataType::kFloat16, DataType::kFloat)), "");
  EXPECT_EQ(claim(binary("Pow", 15, DataType::kInt32, DataType::kInt32)), "");
  EXPECT_EQ(claim(binary("Pow", 15, DataType::kInt64, DataType::kFloat)), "");
  expect_has(claim(binary("Pow", 15, DataType::kUInt8, DataType::kInt32)), "uint8");
  EXPECT_EQ(claim(binary("PRelu", 16, DataType::kFloat, DataType::kFloat)), "");
  EXPECT_EQ(claim(binary("BitShift", 11, DataType::kUInt32, DataType::kUInt32, {2, 3}, {3},
                         {attr_string("direction", "LEFT")})),
            "");
  expect_has(claim(binary("BitShift", 11, DataType::kUInt8, DataType::kUInt8, {2, 3}, {3},
                          {attr_string("direction", "UP")})),
             "direction 'UP' is not LEFT or RIGHT");
  // Ranks beyond the broadcast plan's.
  const std::vector<int64_t> rank9 = {1, 2, 1, 2, 1, 2, 1, 2, 1};
  expect_has(claim(binary("Mul", 14, DataType::kInt64, DataType::kInt64, rank9, {1})),
             "input 0 has rank 9; the CUDA kernel takes at most 8");
  expect_has(claim(binary("Equal", 13, DataType::kFloat, DataType::kFloat, {2}, rank9)),
             "input 1 has rank 9; the CUDA kernel takes at most 8");
}

TEST(CudaMathClaims, VariadicOpsTakeAtMostEightInputs) {
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    for (size_t count : {size_t(1), size_t(8), size_t(9)}) {
      OneNode m(op, 13);
      for (size_t i = 0; i < count; ++i) m.input(str_cat("x", i), zeros(DataType::kFloat, {2}));
      m.output("y");
      if (count <= 8)
        EXPECT_EQ(claim(m), "") << op << " of " << count;
      else
        expect_has(claim(m), "9 inputs; the CUDA kernel takes at most 8");
    }
  }
  OneNode ints("Max", 13);
  ints.input("a", zeros(DataType::kInt64, {2})).input("b", zeros(DataType::kInt64, {2}));
  ints.output("y");
  EXPECT_EQ(claim(ints), "");
  OneNode int_sum("Sum", 13);
  int_sum.input("a", zeros(DataType::kInt64, {2})).input("b", zeros(DataType::kInt64, {2}));
  int_sum.output("y");
  expect_has(claim(int_sum), "int64");
}

TEST(CudaMathPlans, MergesDimsWhereEveryInputStaysInStep) {
  // Equal shapes merge into one run.
  ElementPlan p = plan_elements({{2, 3, 4}, {2, 3, 4}}, {2, 3, 4});
  ASSERT_EQ(p.rank, 1);
  EXPECT_EQ(p.dims[0], 24);
  EXPECT_EQ(p.strides[0][0], 1);
  EXPECT_EQ(p.strides[1][0], 1);
  // A trailing vector: the leading dims merge, the vector repeats.
  p = plan_elements({{2, 3, 4}, {4}}, {2, 3, 4});
  ASSERT_EQ(p.rank, 2);
  EXPECT_EQ(p.dims[0], 6);
  EXPECT_EQ(p.dims[1], 4);
  EXPECT_EQ(p.strides[0][0], 4);
  EXPECT_EQ(p.strides[1][0], 0);
  EXPECT_EQ(p.strides[1][1], 1);
  // Size-1 dims drop; a scalar operand has stride 0 everywhere.
  p = plan_elements({{1, 5, 1}, {}, {5, 1}}, {1, 5, 1});
  ASSERT_EQ(p.rank, 1);
  EXPECT_EQ(p.operands, 3);
  EXPECT_EQ(p.dims[0], 5);
  EXPECT_EQ(p.strides[0][0], 1);
  EXPECT_EQ(p.strides[1][0], 0);
  EXPECT_EQ(p.strides[2][0], 1);
  // Both sides broadcast: nothing merges across a change of pattern.
  p = plan_elements({{2, 1, 4}, {3, 1}}, {2, 3, 4});
  ASSERT_EQ(p.rank, 3);
  EXPECT_EQ(p.strides[0][0], 4);
  EXPECT_EQ(p.strides[0][1], 0);
  EXPECT_EQ(p.strides[0][2], 1);
  EXPECT_EQ(p.strides[1][0], 0);
  EXPECT_EQ(p.strides[1][1], 1);
  EXPECT_EQ(p.strides[1][2], 0);
  // A single element.
  p = plan_elements({{}, {1}}, {1});
  EXPECT_EQ(p.rank, 0);
}

TEST(CudaMathPlans, RefusesWhatItCannotWalk) {
  try {
    plan_elements({{2, 3}, {4}}, {2, 3});
    ADD_FAILURE() << "no error for shapes that do not broadcast";
  } catch (const Error& e) {
    expect_has(e.what(), "does not broadcast");
  }
  // Alternating broadcast dims cannot merge: 9 dims remain.
  const std::vector<int64_t> out = {2, 3, 2, 3, 2, 3, 2, 3, 2};
  const std::vector<int64_t> a = {2, 1, 2, 1, 2, 1, 2, 1, 2};
  try {
    plan_elements({a, out}, out);
    ADD_FAILURE() << "no error for 9 dims after merging";
  } catch (const Error& e) {
    expect_has(e.what(), "leaves 9 dims after merging; the CUDA kernels take at most 8");
  }
  try {
    plan_elements(std::vector<std::vector<int64_t>>(9, {2}), {2});
    ADD_FAILURE() << "no error for 9 inputs";
  } catch (const Error& e) {
    expect_has(e.what(), "9 inputs; the CUDA kernels take at most 8");
  }
}

// Every node of these ops in the ONNX conformance suite's models (the
// expanded function bodies included) is claimed, but for the types the
// kernels do not take, named here with the reason they give.
TEST(CudaMathClaims, ConformanceModelsOfTheseOpsAreClaimed) {
  namespace fs = std::filesystem;
  const fs::path root = "/work/shared/conformance/onnx-node";
  if (!fs::exists(root)) GTEST_SKIP() << "the conformance suite is not at " << root;
  const std::set<std::string> ops = {"Abs",
                                     "Neg",
                                     "Sign",
                                     "Exp",
                                     "Log",
                                     "Sqrt",
                                     "Reciprocal",
                                     "Floor",
                                     "Ceil",
                                     "Round",
                                     "Sin",
                                     "Cos",
                                     "Tan",
                                     "Asin",
                                     "Acos",
                                     "Atan",
                                     "Sinh",
                                     "Cosh",
                                     "Asinh",
                                     "Acosh",
                                     "Atanh",
                                     "Softplus",
                                     "Softsign",
                                     "HardSigmoid",
                                     "HardSwish",
                                     "Elu",
                                     "Selu",
                                     "Celu",
                                     "Mish",
                                     "ThresholdedRelu",
                                     "Shrink",
                                     "IsNaN",
                                     "IsInf",
                                     "Not",
                                     "Add",
                                     "Sub",
                                     "Mul",
                                     "Div",
                                     "Mod",
                                     "Pow",
                                     "PRelu",
                                     "BitShift",
                                     "Equal",
                                     "Less",
                                     "Greater",
                                     "LessOrEqual",
                                     "GreaterOrEqual",
                                     "And",
                                     "Or",
                                     "Xor",
                                     "Sum",
                                     "Mean",
                                     "Max",
                                     "Min",
                                     "Cast",
                                     "Where",
                                     "BitwiseAnd",
                                     "BitwiseOr",
                                     "BitwiseXor",
                                     "BitwiseNot",
                                     "Swish",
                                     "CastLike",
                                     "QuantizeLinear",
                                     "DequantizeLinear"};
  size_t claimed = 0;
  std::map<std::string, std::string> declined;  // case: reason
  for (const auto& entry : fs::directory_iterator(root)) {
    const fs::path model_path = entry.path() / "model.onnx";
    if (!fs::exists(model_path)) continue;
    ir::Model model;
    try {
      model = onnx::load_model(model_path.string());
    } catch (const Error&) {
      continue;  // models the loader refuses are the conformance runner's business
    }
    bool mine = false;
    for (const auto& n : model.graph.nodes) mine |= n.domain.empty() && ops.count(n.op_type) > 0;
    if (!mine) continue;
    std::vector<std::string> reasons;
    try {
      reasons = cuda_claims(model);
    } catch (const Error&) {
      continue;  // type inference refuses some cases on purpose (they test errors)
    }
    for (size_t i = 0; i < model.graph.nodes.size(); ++i) {
      const auto& n = model.graph.nodes[i];
      if (!n.domain.empty() || !ops.count(n.op_type)) continue;
      if (reasons[i].empty())
        ++claimed;
      else
        declined[entry.path().filename().string() + " " + n.op_type] = reasons[i];
    }
  }
  EXPECT_GT(claimed, 500u);
  // What stays declined, on purpose: integer arithmetic on constants and
  // shapes (the CPU's, see docs/cuda.md), types no kernel here takes
  // (float8, 4- and 2-bit, strings), inputs of unknown type and blocked
  // quantization scales.
  const std::vector<std::string> accepted = {"computes a shape from host integers",
                                             "float8",
                                             "float4",
                                             "int4",
                                             "int2",
                                             "type string",
                                             "static type is not known",
                                             "blocked scales"};
  for (const auto& [what, why] : declined) {
    const bool ok = std::any_of(accepted.begin(), accepted.end(), [&](const std::string& a) {
      return why.find(a) != std::string::npos;
    });
    if (!ok) ADD_FAILURE() << what << ": " << why;
  }
}

TEST(CudaMathClaims, QuantizeAndDequantizePerTensorAndPerAxis) {
  const auto q = [](DataType x, DataType zp, std::vector<int64_t> scale_dims,
                    std::vector<ir::Attribute> attrs = {}) {
    OneNode m("QuantizeLinear", 21, std::move(attrs));
    m.input("x", zeros(x, {2, 3, 4}))
        .input("s", zeros(x, scale_dims), true)
        .input("z", zeros(zp, scale_dims), true)
        .output("y");
    return m;
  };
  EXPECT_EQ(claim(q(DataType::kFloat, DataType::kUInt8, {})), "");
  EXPECT_EQ(claim(q(DataType::kFloat16, DataType::kInt8, {3})), "");
  EXPECT_EQ(claim(q(DataType::kBFloat16, DataType::kInt16, {4}, {attr_int("axis", -1)})), "");
  expect_has(claim(q(DataType::kFloat, DataType::kInt8, {2, 3, 2}, {attr_int("block_size", 2)})),
             "block_size 2: the CUDA kernel takes no blocked scales");
  expect_has(claim(q(DataType::kFloat, DataType::kInt4, {})), "int4");
  const auto dq = [](DataType x, DataType s, std::vector<int64_t> scale_dims) {
    OneNode m("DequantizeLinear", 21);
    m.input("x", zeros(x, {2, 3, 4}))
        .input("s", zeros(s, scale_dims), true)
        .input("z", zeros(x, scale_dims), true)
        .output("y");
    return m;
  };
  EXPECT_EQ(claim(dq(DataType::kUInt8, DataType::kFloat, {})), "");
  EXPECT_EQ(claim(dq(DataType::kInt32, DataType::kFloat16, {3})), "");
  EXPECT_EQ(claim(dq(DataType::kInt16, DataType::kBFloat16, {1})), "");
  expect_has(claim(dq(DataType::kInt8, DataType::kFloat, {2, 3, 2})), "the scale has rank 3");
  expect_has(claim(dq(DataType::kFloat8E4M3FN, DataType::kFloat, {})), "float8e4m3fn");
}
