// The operator schema table: lookups by opset, attribute defaults, and each
// family's shape and type rules, including the errors invalid shapes give.
#include <gtest/gtest.h>

#include "ops/schema.hpp"
#include "ops/type_inference.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;
using test::attr_int;
using test::attr_ints;
using test::attr_string;

namespace {

// A shape-only input (no data), or int64 values.
Tensor shaped(Shape s) { return Tensor::metadata_only(DataType::kFloat, std::move(s)); }
Tensor ints(std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return Tensor::from_vector<int64_t>(v, Shape{n});
}

// Inputs A, B, ...; outputs Y0, Y1, ...; named "<op>_Y0".
ir::Node node(const std::string& op, size_t inputs, size_t outputs = 1,
              std::vector<ir::Attribute> attrs = {}) {
  static const std::vector<std::string> kIn = {"A", "B", "C", "D", "E"};
  static const std::vector<std::string> kOut = {"Y0", "Y1", "Y2"};
  return test::make_node(op, {kIn.begin(), kIn.begin() + int64_t(inputs)},
                         {kOut.begin(), kOut.begin() + int64_t(outputs)}, std::move(attrs));
}

// Every output's shape by the schema's rule for `opset`.
ops::OutShapes infer(const ir::Node& n, int64_t opset, const std::vector<Tensor>& in) {
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : in) ptrs.push_back(&t);
  return ops::output_shapes(ops::schema_of(n, opset), n, opset, ptrs);
}

Shape infer0(const ir::Node& n, int64_t opset, const std::vector<Tensor>& in) {
  auto out = infer(n, opset, in);
  EXPECT_FALSE(out.empty());
  EXPECT_TRUE(out[0].has_value());
  return out.empty() || !out[0] ? Shape() : *out[0];
}

// The error message of an invalid node.
std::string error_of(const ir::Node& n, int64_t opset, const std::vector<Tensor>& in) {
  try {
    infer(n, opset, in);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

}  // namespace

TEST(OpSchema, LookupBySinceVersion) {
  EXPECT_EQ(ops::find_schema("", "ReduceSum", 11)->since, 1);
  EXPECT_EQ(ops::find_schema("", "ReduceSum", 13)->since, 13);
  EXPECT_EQ(ops::find_schema("ai.onnx", "ReduceMean", 17)->since, 1);
  EXPECT_EQ(ops::find_schema("ai.onnx", "ReduceMean", 18)->since, 18);
  EXPECT_EQ(ops::find_schema("", "Gelu", 19), nullptr);  // before Gelu existed
  EXPECT_EQ(ops::find_schema("", "NoSuchOp", 21), nullptr);
  EXPECT_EQ(ops::find_schema("com.microsoft", "Add", 1), nullptr);
  const auto& all = ops::all_schemas();
  for (size_t i = 1; i < all.size(); ++i) {
    const auto& a = all[i - 1];
    const auto& b = all[i];
    EXPECT_TRUE(std::tie(a.domain, a.op_type, a.since) < std::tie(b.domain, b.op_type, b.since))
        << a.op_type << " " << a.since << " is listed twice";
  }
  for (const auto& s : all) EXPECT_NE(s.shape_rule, nullptr) << s.op_type;
}

TEST(OpSchema, AttributeDefaultsByOpset) {
  const ir::Node softmax = node("Softmax", 1);
  EXPECT_EQ(ops::schema_of(softmax, 11).attr_int(softmax, "axis"), 1);
  EXPECT_EQ(ops::schema_of(softmax, 13).attr_int(softmax, "axis"), -1);
  const ir::Node lrelu = node("LeakyRelu", 1);
  EXPECT_FLOAT_EQ(ops::schema_of(lrelu, 16).attr_float(lrelu, "alpha"), 0.01f);
  const ir::Node given = node("LeakyRelu", 1, 1, {test::attr_float("alpha", 0.5f)});
  EXPECT_FLOAT_EQ(ops::schema_of(given, 16).attr_float(given, "alpha"), 0.5f);
  // Concat's axis has a default only in opset 1.
  EXPECT_EQ(infer0(node("Concat", 2), 1, {shaped({2, 3}), shaped({2, 4})}), (Shape{2, 7}));
  EXPECT_NE(error_of(node("Concat", 2), 13, {shaped({2, 3}), shaped({2, 4})})
                .find("Concat node 'Concat_Y0': required attribute 'axis' is missing"),
            std::string::npos);
  const ir::Node wrong = node("Flatten", 1, 1, {attr_string("axis", "one")});
  EXPECT_NE(error_of(wrong, 13, {shaped({2, 3})}).find("attribute 'axis' is string"),
            std::string::npos);
}

TEST(OpSchema, ElementwiseRules) {
  EXPECT_EQ(infer0(node("Add", 2), 14, {shaped({2, 1, 3}), shaped({4, 1})}), (Shape{2, 4, 3}));
  // Before opset 7, B broadcasts to A: the output is A's shape.
  EXPECT_EQ(infer0(node("Add", 2), 6, {shaped({2, 3}), shaped({3})}), (Shape{2, 3}));
  // ... lined up at `axis` when broadcast=1 gives one.
  const ir::Node legacy = node("Add", 2, 1, {attr_int("broadcast", 1), attr_int("axis", 1)});
  EXPECT_EQ(infer0(legacy, 6, {shaped({2, 3, 4}), shaped({3})}), (Shape{2, 3, 4}));
  EXPECT_NE(
      error_of(legacy, 6, {shaped({2, 3, 4}), shaped({3, 4, 1})}).find("legacy broadcast axis"),
      std::string::npos);
  // PRelu: the slope broadcasts to X only; before opset 7 a [C] slope is per channel.
  EXPECT_EQ(infer0(node("PRelu", 2), 16, {shaped({2, 3}), shaped({3})}), (Shape{2, 3}));
  EXPECT_EQ(infer0(node("PRelu", 2), 6, {shaped({1, 2, 4}), shaped({2})}), (Shape{1, 2, 4}));
  EXPECT_NE(error_of(node("PRelu", 2), 16, {shaped({3}), shaped({2, 3})}).find("input 1 'B'"),
            std::string::npos);
  EXPECT_EQ(infer0(node("Sum", 3), 13, {shaped({3}), shaped({2, 1}), shaped({1})}), (Shape{2, 3}));
  EXPECT_EQ(infer0(node("Where", 3), 16, {shaped({2, 1}), shaped({3}), shaped({1, 3})}),
            (Shape{2, 3}));
  EXPECT_EQ(infer0(node("Relu", 1), 14, {shaped({5, 0})}), (Shape{5, 0}));
  const std::string e = error_of(node("Mul", 2), 14, {shaped({2, 3}), shaped({4})});
  EXPECT_NE(e.find("Mul node 'Mul_Y0'"), std::string::npos) << e;
  EXPECT_NE(e.find("[2,3]"), std::string::npos) << e;
  // An input of unknown shape: unknown, not an error.
  const ir::Node add = node("Add", 2);
  std::vector<const Tensor*> one = {nullptr};
  EXPECT_TRUE(ops::output_shapes(ops::schema_of(add, 14), add, 14, one).empty());
}

TEST(OpSchema, ShapeOpRulesByOpset) {
  EXPECT_EQ(infer0(node("Reshape", 2), 13, {shaped({2, 3, 4}), ints({0, -1})}), (Shape{2, 12}));
  EXPECT_EQ(infer0(node("Reshape", 1, 1, {attr_ints("shape", {-1})}), 4, {shaped({2, 3})}),
            (Shape{6}));
  // Squeeze's axes: an attribute before 13, an input from 13; none: every 1.
  EXPECT_EQ(infer0(node("Squeeze", 1, 1, {attr_ints("axes", {0})}), 11, {shaped({1, 3, 1})}),
            (Shape{3, 1}));
  EXPECT_EQ(infer0(node("Squeeze", 2), 13, {shaped({1, 3, 1}), ints({-1})}), (Shape{1, 3}));
  EXPECT_EQ(infer0(node("Squeeze", 1), 13, {shaped({1, 3, 1})}), (Shape{3}));
  EXPECT_EQ(infer0(node("Unsqueeze", 2), 13, {shaped({3}), ints({0, -1})}), (Shape{1, 3, 1}));
  EXPECT_EQ(infer0(node("Transpose", 1), 13, {shaped({2, 3, 4})}), (Shape{4, 3, 2}));
  EXPECT_EQ(
      infer0(node("Transpose", 1, 1, {attr_ints("perm", {0, 2, 1})}), 13, {shaped({2, 3, 4})}),
      (Shape{2, 4, 3}));
  EXPECT_EQ(infer0(node("Gather", 2, 1, {attr_int("axis", 1)}), 13,
                   {shaped({2, 3, 4}), Tensor::metadata_only(DataType::kInt64, Shape{5, 6})}),
            (Shape{2, 5, 6, 4}));
  EXPECT_EQ(infer0(node("Flatten", 1), 13, {shaped({2, 3, 4})}), (Shape{2, 12}));
  // Split: equal parts before 18, the last part smaller from 18.
  EXPECT_NE(error_of(node("Split", 1, 2), 13, {shaped({5})}).find("2 equal parts"),
            std::string::npos);
  auto parts = infer(node("Split", 1, 2), 18, {shaped({5})});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(*parts[0], (Shape{3}));
  EXPECT_EQ(*parts[1], (Shape{2}));
  // Slice: attributes before 10, inputs from 10.
  EXPECT_EQ(infer0(node("Slice", 1, 1, {attr_ints("starts", {1}), attr_ints("ends", {-1})}), 9,
                   {shaped({6, 2})}),
            (Shape{4, 2}));
  EXPECT_EQ(
      infer0(node("Slice", 5), 13, {shaped({6, 2}), ints({0}), ints({6}), ints({0}), ints({2})}),
      (Shape{3, 2}));
  EXPECT_EQ(infer0(node("Shape", 1, 1, {attr_int("start", -2)}), 15, {shaped({2, 3, 4})}),
            (Shape{2}));
  EXPECT_EQ(infer0(node("Tile", 2), 13, {shaped({2, 3}), ints({2, 1})}), (Shape{4, 3}));
  EXPECT_EQ(infer0(node("Pad", 2), 13, {shaped({2, 3}), ints({1, 0, 1, 2})}), (Shape{4, 5}));
  // A shape input that is not known: unknown.
  const ir::Node reshape = node("Reshape", 2);
  const Tensor x = shaped({2, 3});
  std::vector<const Tensor*> no_spec = {&x, nullptr};
  auto unknown = ops::output_shapes(ops::schema_of(reshape, 13), reshape, 13, no_spec);
  EXPECT_TRUE(unknown.empty() || !unknown[0]);
}

TEST(OpSchema, ReductionRulesByOpset) {
  const ir::Node attr_axes = node("ReduceSum", 1, 1, {attr_ints("axes", {1})});
  EXPECT_EQ(infer0(attr_axes, 11, {shaped({2, 3, 4})}), (Shape{2, 1, 4}));
  EXPECT_EQ(infer0(node("ReduceSum", 2, 1, {attr_int("keepdims", 0)}), 13,
                   {shaped({2, 3, 4}), ints({-1, 0})}),
            (Shape{3}));
  EXPECT_EQ(infer0(node("ReduceMax", 1), 18, {shaped({2, 3})}), (Shape{1, 1}));
  EXPECT_EQ(
      infer0(node("ReduceMax", 1, 1, {attr_int("noop_with_empty_axes", 1)}), 18, {shaped({2, 3})}),
      (Shape{2, 3}));
  EXPECT_EQ(infer0(node("ArgMax", 1, 1, {attr_int("axis", -1), attr_int("keepdims", 0)}), 13,
                   {shaped({2, 3})}),
            (Shape{2}));
  auto top = infer(node("TopK", 2, 2, {attr_int("axis", 0)}), 11, {shaped({5, 3}), ints({2})});
  ASSERT_EQ(top.size(), 2u);  // Values and Indices
  EXPECT_EQ(*top[0], (Shape{2, 3}));
  EXPECT_EQ(*top[1], (Shape{2, 3}));
  EXPECT_EQ(infer0(node("TopK", 1, 2, {attr_int("k", 1)}), 1, {shaped({5, 3})}), (Shape{5, 1}));
  EXPECT_NE(error_of(node("TopK", 2, 2), 11, {shaped({5, 3}), ints({4})})
                .find("K 4 is not in [0, 3] for axis -1 of input 0 'A' of shape [5,3]"),
            std::string::npos);
  const std::string e = error_of(node("ReduceSum", 2), 13, {shaped({2, 3}), ints({2})});
  EXPECT_NE(
      e.find("ReduceSum node 'ReduceSum_Y0': axis 2 is out of range for rank 2 (input 0 'A' of "
             "shape [2,3])"),
      std::string::npos)
      << e;
}

TEST(OpSchema, NnRules) {
  EXPECT_EQ(infer0(node("MatMul", 2), 13, {shaped({5, 2, 3}), shaped({3, 4})}), (Shape{5, 2, 4}));
  EXPECT_EQ(infer0(node("MatMul", 2), 13, {shaped({3}), shaped({2, 3, 4})}), (Shape{2, 4}));
  EXPECT_EQ(infer0(node("MatMul", 2), 13, {shaped({2, 3}), shaped({3})}), (Shape{2}));
  ir::Node fused = node("FusedMatMul", 2, 1, {attr_int("transA", 1), attr_int("transB", 1)});
  fused.domain = "com.microsoft";
  EXPECT_EQ(infer0(fused, 1, {shaped({7, 3, 2}), shaped({4, 3})}), (Shape{7, 2, 4}));
  EXPECT_NE(error_of(node("Gemm", 3), 13, {shaped({2, 3}), shaped({3, 5}), shaped({3, 5})})
                .find("input 2 'C' of shape [3,5] does not broadcast to [2,5]"),
            std::string::npos);
  EXPECT_EQ(infer0(node("Gemm", 3, 1, {attr_int("transB", 1)}), 13,
                   {shaped({2, 3}), shaped({5, 3}), shaped({5})}),
            (Shape{2, 5}));
  EXPECT_EQ(infer0(node("Conv", 2, 1, {attr_ints("pads", {1, 1, 1, 1})}), 11,
                   {shaped({1, 3, 8, 8}), shaped({6, 3, 3, 3})}),
            (Shape{1, 6, 8, 8}));
  EXPECT_EQ(infer0(node("Conv", 2, 1,
                        {attr_string("auto_pad", "SAME_UPPER"), attr_ints("strides", {2, 2})}),
                   11, {shaped({1, 3, 7, 7}), shaped({6, 3, 3, 3})}),
            (Shape{1, 6, 4, 4}));
  const std::vector<ir::Attribute> pool = {attr_ints("kernel_shape", {3, 3}),
                                           attr_ints("strides", {2, 2})};
  EXPECT_EQ(infer0(node("MaxPool", 1, 2, pool), 12, {shaped({1, 2, 8, 8})}), (Shape{1, 2, 3, 3}));
  auto ceil = pool;
  ceil.push_back(attr_int("ceil_mode", 1));
  auto both = infer(node("MaxPool", 1, 2, ceil), 12, {shaped({1, 2, 8, 8})});
  ASSERT_EQ(both.size(), 2u);  // Y and Indices
  EXPECT_EQ(*both[0], (Shape{1, 2, 4, 4}));
  EXPECT_EQ(*both[1], (Shape{1, 2, 4, 4}));
  EXPECT_EQ(infer0(node("GlobalAveragePool", 1), 13, {shaped({2, 3, 5, 5})}), (Shape{2, 3, 1, 1}));
  auto ln = infer(node("LayerNormalization", 3, 3), 17, {shaped({2, 8}), shaped({8}), shaped({8})});
  ASSERT_EQ(ln.size(), 1u);  // Mean and InvStdDev: not by this rule
  EXPECT_EQ(*ln[0], (Shape{2, 8}));
}

TEST(OpSchema, InvalidShapesNameNodeAndInput) {
  std::string e = error_of(node("MatMul", 2), 13, {shaped({2, 3}), shaped({4, 5})});
  EXPECT_NE(
      e.find(
          "MatMul node 'MatMul_Y0': inner dimensions differ: input 0 'A' of shape [2,3], input 1 "
          "'B' of shape [4,5]"),
      std::string::npos)
      << e;
  e = error_of(node("Conv", 2), 11, {shaped({1, 4, 8, 8}), shaped({6, 3, 3, 3})});
  EXPECT_NE(e.find("input 1 'B' of shape [6,3,3,3]"), std::string::npos) << e;
  e = error_of(node("MaxPool", 1, 1, {attr_ints("kernel_shape", {9, 9})}), 12,
               {shaped({1, 1, 8, 8})});
  EXPECT_NE(e.find("MaxPool node 'MaxPool_Y0': kernel extent 9"), std::string::npos) << e;
  e = error_of(node("Transpose", 1, 1, {attr_ints("perm", {0, 0})}), 13, {shaped({2, 3})});
  EXPECT_NE(e.find("perm [0,0] is not a permutation of the axes of input 0 'A' of shape [2,3]"),
            std::string::npos)
      << e;
  e = error_of(node("Reshape", 2), 13, {shaped({2, 3}), ints({4, -1})});
  EXPECT_NE(e.find("Reshape node 'Reshape_Y0': cannot reshape input of shape [2,3]"),
            std::string::npos)
      << e;
  e = error_of(node("Concat", 2, 1, {attr_int("axis", 0)}), 13, {shaped({2, 3}), shaped({2, 4})});
  EXPECT_NE(e.find("Concat node 'Concat_Y0': inputs of shapes [2,3], [2,4] differ"),
            std::string::npos)
      << e;
  e = error_of(node("Gather", 2, 1, {attr_int("axis", 3)}), 13, {shaped({2, 3}), ints({0})});
  EXPECT_NE(e.find("axis 3 is out of range for input 0 'A' of shape [2,3]"), std::string::npos)
      << e;
  e = error_of(node("Unsqueeze", 2), 13, {shaped({2}), ints({0, 0})});
  EXPECT_NE(e.find("axis 0 is repeated"), std::string::npos) << e;
}

TEST(OpSchema, TypeRulesByOpset) {
  const auto f = ir::TypeInfo::tensor(DataType::kFloat);
  auto old = ops::infer_output_types(node("Dropout", 1, 2), 7, {f});
  EXPECT_EQ(old[1].elem_type, DataType::kFloat);  // the mask had the data's type
  auto now = ops::infer_output_types(node("Dropout", 1, 2), 13, {f});
  EXPECT_EQ(now[1].elem_type, DataType::kBool);
  auto mp = ops::infer_output_types(node("MaxPool", 1, 2), 12, {f});
  EXPECT_EQ(mp[0].elem_type, DataType::kFloat);
  EXPECT_EQ(mp[1].elem_type, DataType::kInt64);
  EXPECT_EQ(ops::infer_output_types(node("IsNaN", 1), 13, {f})[0].elem_type, DataType::kBool);
  EXPECT_EQ(ops::infer_output_types(node("ArgMin", 1), 13, {f})[0].elem_type, DataType::kInt64);
}

// Every rule, given inputs of assorted ranks and sizes and shape inputs of
// assorted values (none of them checked to make sense), returns shapes or
// throws tessera::Error naming the node: never another exception, never a
// crash.
TEST(OpSchema, EveryRuleRejectsNonsenseCleanly) {
  const std::vector<Shape> shapes = {Shape{},     Shape{0},       Shape{1},         Shape{3},
                                     Shape{2, 1}, Shape{1, 3, 2}, Shape{2, 2, 3, 3}};
  const std::vector<std::vector<int64_t>> values = {
      {}, {0}, {-1}, {1, 0}, {3, -2, 1}, {INT64_MAX}, {INT64_MIN, 1}, {2, 2, 2, 2}};
  size_t runs = 0, errors = 0;
  for (const ops::OpSchema& s : ops::all_schemas()) {
    for (size_t inputs = 1; inputs <= 4; ++inputs) {
      for (size_t pick = 0; pick < shapes.size(); ++pick) {
        ir::Node n = node(s.op_type, inputs, 2);
        n.domain = s.domain;
        std::vector<Tensor> in;
        for (size_t i = 0; i < inputs; ++i) {
          if (i == 0) {
            in.push_back(shaped(shapes[pick]));
          } else {
            const auto& v = values[(pick + i) % values.size()];
            in.push_back(v.size() == 1 && pick % 2 ? shaped(shapes[(pick + i) % shapes.size()])
                                                   : ints(v));
          }
        }
        std::vector<const Tensor*> ptrs;
        for (const Tensor& t : in) ptrs.push_back(&t);
        ++runs;
        try {
          ops::output_shapes(s, n, s.since, ptrs);
        } catch (const Error& e) {
          ++errors;
          EXPECT_NE(std::string(e.what()).find(n.describe()), std::string::npos)
              << s.op_type << ": " << e.what();
        }
      }
    }
  }
  EXPECT_GT(errors, 0u);
  EXPECT_LT(errors, runs);
}

// Passes read an attribute's meaning across versions from the entries:
// QuantizeLinear's saturate is 1 and block_size 0 wherever they exist.
TEST(OpSchema, AttributeDefaultsAcrossVersions) {
  ir::Node q = node("QuantizeLinear", 3);
  EXPECT_TRUE(ops::attr_is_default(q, "saturate"));
  EXPECT_TRUE(ops::attr_is_default(q, "block_size"));
  EXPECT_EQ(ops::attr_int_any_version(q, "axis", 7), 1);
  q.attributes.push_back(attr_int("saturate", 0));
  q.attributes.push_back(attr_int("block_size", 0));
  EXPECT_FALSE(ops::attr_is_default(q, "saturate"));
  EXPECT_TRUE(ops::attr_is_default(q, "block_size"));  // set to its default
  q.attributes.push_back(attr_int("axis", 0));
  EXPECT_EQ(ops::attr_int_any_version(q, "axis", 7), 0);
  // An attribute no entry of the op declares is a default only when absent.
  ir::Node relu = node("Relu", 1);
  EXPECT_TRUE(ops::attr_is_default(relu, "saturate"));
  EXPECT_EQ(ops::attr_int_any_version(relu, "saturate", 7), 7);
  relu.attributes.push_back(attr_int("saturate", 1));
  EXPECT_FALSE(ops::attr_is_default(relu, "saturate"));
  ASSERT_NE(ops::latest_attr_def("", "QuantizeLinear", "precision"), nullptr);
  EXPECT_EQ(ops::latest_attr_def("", "QuantizeLinear", "precision")->i, 0);
  EXPECT_EQ(ops::latest_attr_def("", "DequantizeLinear", "saturate"), nullptr);
}

// The recurrent ops' activations default to one direction's functions.
TEST(OpSchema, RecurrentActivationDefaults) {
  using V = std::vector<std::string>;
  EXPECT_EQ(ops::find_schema("", "RNN", 14)->attr_strings(node("RNN", 3), "activations"),
            V{"Tanh"});
  EXPECT_EQ(ops::find_schema("", "GRU", 7)->attr_strings(node("GRU", 3), "activations"),
            (V{"Sigmoid", "Tanh"}));
  EXPECT_EQ(ops::find_schema("", "LSTM", 14)->attr_strings(node("LSTM", 3), "activations"),
            (V{"Sigmoid", "Tanh", "Tanh"}));
  ir::Attribute given;
  given.name = "activations";
  given.type = ir::AttrType::kStrings;
  given.strings = {"Relu"};
  EXPECT_EQ(
      ops::find_schema("", "RNN", 14)->attr_strings(node("RNN", 3, 1, {given}), "activations"),
      V{"Relu"});
}
