#include <gtest/gtest.h>

#include "core/error.hpp"
#include "ops/type_inference.hpp"

using namespace tessera;

namespace {
ir::Node node(const std::string& op, size_t outputs) {
  ir::Node n;
  n.op_type = op;
  n.inputs = {"a", "b"};
  for (size_t i = 0; i < outputs; ++i) n.outputs.push_back(str_cat("o", i));
  return n;
}
}  // namespace

TEST(OpsTypeInference, RulesByOp) {
  auto f = ir::TypeInfo::tensor(DataType::kFloat);
  auto i64 = ir::TypeInfo::tensor(DataType::kInt64);
  EXPECT_EQ(ops::infer_output_types(node("Add", 1), 17, {f, f})[0].elem_type, DataType::kFloat);
  EXPECT_EQ(ops::infer_output_types(node("Less", 1), 17, {f, f})[0].elem_type, DataType::kBool);
  EXPECT_EQ(ops::infer_output_types(node("Shape", 1), 17, {f})[0].elem_type, DataType::kInt64);
  auto topk = ops::infer_output_types(node("TopK", 2), 17, {f, i64});
  EXPECT_EQ(topk[0].elem_type, DataType::kFloat);
  EXPECT_EQ(topk[1].elem_type, DataType::kInt64);
  ir::Node cast = node("Cast", 1);
  ir::Attribute to;
  to.name = "to";
  to.type = ir::AttrType::kInt;
  to.i = int64_t(DataType::kFloat16);
  cast.attributes.push_back(to);
  EXPECT_EQ(ops::infer_output_types(cast, 17, {f})[0].elem_type, DataType::kFloat16);
  auto seq = ops::infer_output_types(node("SequenceConstruct", 1), 17, {f});
  EXPECT_EQ(seq[0].kind, ir::TypeInfo::Kind::kSequence);
  EXPECT_EQ(seq[0].to_string(), "seq(tensor(float))");
  EXPECT_EQ(
      ops::infer_output_types(node("Where", 1), 17, {ir::TypeInfo::tensor(DataType::kBool), i64})[0]
          .elem_type,
      DataType::kInt64);
}

// BatchNormalization's training-mode outputs: of X's type before opset 14,
// of the statistics' type (U, then T2) from 14, whatever X's type.
TEST(OpsTypeInference, BatchNormalizationStatisticsByVersion) {
  auto h = ir::TypeInfo::tensor(DataType::kFloat16);
  auto f = ir::TypeInfo::tensor(DataType::kFloat);
  ir::Node bn = node("BatchNormalization", 3);
  bn.inputs = {"x", "scale", "b", "mean", "var"};
  auto types = [&](int64_t opset, std::vector<ir::TypeInfo> in) {
    std::vector<DataType> out;
    for (const auto& t : ops::infer_output_types(bn, opset, in)) out.push_back(t.elem_type);
    return out;
  };
  using V = std::vector<DataType>;
  const DataType kH = DataType::kFloat16, kF = DataType::kFloat;
  EXPECT_EQ(types(15, {h, f, f, f, f}), (V{kH, kF, kF}));
  EXPECT_EQ(types(14, {h, h, h, f, f}), (V{kH, kF, kF}));
  EXPECT_EQ(types(9, {h, h, h, h, h}), (V{kH, kH, kH}));
  bn.outputs = {"y", "mean_out", "var_out", "saved_mean", "saved_var"};
  EXPECT_EQ(types(7, {f, f, f, f, f}), (V{kF, kF, kF, kF, kF}));
}

TEST(OpsTypeInference, UnknownDomainIsUnknownNotGuessed) {
  ir::Node n = node("Custom", 1);
  n.domain = "com.example";
  EXPECT_EQ(ops::infer_output_types(n, 1, {ir::TypeInfo::tensor(DataType::kFloat)})[0].kind,
            ir::TypeInfo::Kind::kUnknown);
}
