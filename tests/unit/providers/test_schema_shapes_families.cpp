// The shape rules of the newer schema families agree with the CPU kernels:
// for one node of each op, every output shape the rule gives is the shape
// the kernel makes (ConvTranspose, DepthToSpace, SpaceToDepth and Einsum
// size their outputs by the rule; the others check their shapes themselves).
#include <gtest/gtest.h>

#include <algorithm>

#include "ops/schema.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;
using test::attr_float;
using test::attr_floats;
using test::attr_int;
using test::attr_ints;
using test::attr_string;

namespace {

Value floats(Shape s) {
  Tensor t(DataType::kFloat, s);
  float* d = t.mutable_data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) d[i] = float(i % 5) * 0.125f;
  return Value(std::move(t));
}

Value ints(std::vector<int64_t> v, std::optional<Shape> s = std::nullopt) {
  const int64_t n = int64_t(v.size());
  return Value(Tensor::from_vector<int64_t>(v, s ? *s : Shape{n}));
}

Value scalar(int64_t v) { return ints({v}, Shape{}); }

template <typename T>
Value filled(Shape s, T v) {
  Tensor t(data_type_of<T>(), s);
  std::fill(t.mutable_data<T>(), t.mutable_data<T>() + t.num_elements(), v);
  return Value(std::move(t));
}

struct Case {
  std::string op;
  std::vector<Value> inputs;  // an undefined Value: an omitted input
  std::vector<ir::Attribute> attrs;
  int64_t opset;
  size_t outputs = 1;
  std::string domain = "";
};

// The rule's shapes for the node run_node builds.
ops::OutShapes rule_shapes(const Case& c) {
  ir::Node n;
  n.name = "test_" + c.op;
  n.op_type = c.op;
  n.domain = c.domain;
  n.attributes = c.attrs;
  std::vector<const Tensor*> in;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const bool given = !c.inputs[i].is_none();
    n.inputs.push_back(given ? "in" + std::to_string(i) : "");
    in.push_back(given ? &c.inputs[i].tensor() : nullptr);
  }
  for (size_t i = 0; i < c.outputs; ++i) n.outputs.push_back("out" + std::to_string(i));
  return ops::output_shapes(ops::schema_of(n, c.opset), n, c.opset, in);
}

}  // namespace

TEST(SchemaShapes, NewFamiliesAgreeWithTheirKernels) {
  const std::string ml = "ai.onnx.ml";
  const std::vector<Case> cases = {
      {"ConvTranspose",
       {floats({1, 2, 5, 5}), floats({2, 3, 3, 3})},
       {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1}),
        attr_ints("output_padding", {1, 1})},
       22},
      {"ConvTranspose",
       {floats({1, 2, 4, 5}), floats({2, 2, 3, 2}), floats({2})},
       {attr_ints("strides", {2, 3}), attr_string("auto_pad", "SAME_LOWER")},
       11},
      {"ConvTranspose",
       {floats({1, 2, 3}), floats({2, 1, 3})},
       {attr_ints("output_shape", {8}), attr_ints("strides", {2})},
       11},
      {"DepthToSpace",
       {floats({1, 8, 2, 3})},
       {attr_int("blocksize", 2), attr_string("mode", "CRD")},
       13},
      {"SpaceToDepth", {floats({1, 2, 4, 6})}, {attr_int("blocksize", 2)}, 13},
      {"Einsum", {floats({2, 3, 4}), floats({4, 5})}, {attr_string("equation", "bij,jk->bik")}, 12},
      {"Einsum", {floats({3, 3})}, {attr_string("equation", "ii->i")}, 12},
      {"Einsum", {floats({2, 3, 4})}, {attr_string("equation", "...ij")}, 12},
      {"GatherND", {floats({2, 3, 4}), ints({0, 1, 1, 2}, Shape{2, 2})}, {}, 13},
      {"GatherND", {floats({2, 3, 4}), ints({1, 2}, Shape{2, 1})}, {attr_int("batch_dims", 1)}, 13},
      {"GatherElements", {floats({2, 3}), ints({0, 1, 1, 0}, Shape{2, 2})}, {}, 13},
      {"OneHot", {ints({0, 2}), ints({4}), floats({2})}, {attr_int("axis", 0)}, 11},
      {"Det", {floats({2, 3, 3})}, {}, 22},
      {"DFT", {floats({1, 8, 1})}, {attr_int("onesided", 1)}, 20},
      {"DFT", {floats({2, 6, 2}), Value(), scalar(0)}, {attr_int("inverse", 1)}, 20},
      {"STFT", {floats({1, 16, 1}), scalar(4), floats({8})}, {}, 17},
      {"HannWindow", {scalar(5)}, {}, 17},
      {"MelWeightMatrix",
       {scalar(4), scalar(16), scalar(8000), floats({}),
        Value(Tensor::from_vector<float>({3000}, Shape{}))},
       {},
       17},
      {"GRU",
       {floats({3, 2, 4}), floats({1, 15, 4}), floats({1, 15, 5})},
       {attr_int("hidden_size", 5)},
       14,
       2},
      {"LSTM",
       {floats({3, 2, 4}), floats({2, 20, 4}), floats({2, 20, 5})},
       {attr_string("direction", "bidirectional"), attr_int("hidden_size", 5)},
       14,
       3},
      {"RNN",
       {floats({2, 3, 4}), floats({1, 5, 4}), floats({1, 5, 5})},
       {attr_int("layout", 1), attr_int("hidden_size", 5)},
       14,
       2},
      {"Resize", {floats({1, 1, 2, 2}), Value(), Value(), ints({1, 1, 3, 5})}, {}, 13},
      {"RoiAlign",
       {floats({1, 2, 4, 4}), floats({2, 4}), ints({0, 0})},
       {attr_int("output_height", 2), attr_int("output_width", 3)},
       16},
      {"Col2Im", {floats({1, 4, 9}), ints({4, 4}), ints({2, 2})}, {}, 18},
      {"MaxUnpool",
       {floats({1, 1, 2, 2}), ints({0, 3, 9, 15}, Shape{1, 1, 2, 2})},
       {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})},
       22},
      {"AffineGrid", {floats({1, 2, 3}), ints({1, 1, 4, 5})}, {}, 20},
      {"GridSample", {floats({1, 1, 4, 4}), floats({1, 3, 2, 2})}, {}, 20},
      {"CenterCropPad", {floats({4, 5}), ints({3, 7})}, {}, 18},
      {"EyeLike", {floats({3, 4})}, {}, 22},
      {"Multinomial", {floats({2, 3})}, {attr_int("sample_size", 4)}, 22},
      {"NegativeLogLikelihoodLoss",
       {floats({2, 3}), ints({0, 2})},
       {attr_string("reduction", "none")},
       22},
      {"SoftmaxCrossEntropyLoss", {floats({2, 3, 2}), ints({0, 2, 1, 1}, Shape{2, 2})}, {}, 13, 2},
      {"GroupNormalization",
       {floats({1, 4, 2, 2}), floats({4}), floats({4})},
       {attr_int("num_groups", 2)},
       21},
      {"Attention", {floats({1, 2, 3, 4}), floats({1, 2, 5, 4}), floats({1, 2, 5, 6})}, {}, 23},
      {"LinearRegressor",
       {floats({3, 4})},
       {attr_floats("coefficients", std::vector<float>(8, 0.5f)), attr_int("targets", 2)},
       1,
       1,
       ml},
      {"ArrayFeatureExtractor", {floats({3, 4}), ints({0, 2})}, {}, 1, 1, ml},
      {"Normalizer", {floats({3, 4})}, {}, 1, 1, ml},
      {"Upsample", {floats({1, 1, 2, 3})}, {attr_floats("scales", {1, 1, 2.5f, 1.5f})}, 7},
      {"MaxRoiPool",
       {floats({1, 2, 6, 6}), floats({1, 5})},
       {attr_ints("pooled_shape", {2, 2})},
       22},
      {"Constant", {}, {attr_ints("value_ints", {1, 2, 3})}, 13},
      {"SwiGLU", {floats({2, 3}), floats({2, 3})}, {}, 28},
      {"RMSNormalization", {floats({2, 3}), floats({3})}, {}, 23},
      {"CumProd", {floats({2, 3}), scalar(1)}, {}, 26},
      {"ReverseSequence",
       {floats({3, 2}), ints({1, 3})},
       {attr_int("batch_axis", 1), attr_int("time_axis", 0)},
       10},
      {"TensorScatter", {floats({1, 2, 4, 3}), floats({1, 2, 1, 3}), ints({1})}, {}, 24},
      {"BitwiseNot", {ints({1, 2})}, {}, 18},
      {"LinearAttention",
       {floats({1, 3, 8}), floats({1, 3, 8}), floats({1, 3, 6})},
       {attr_int("q_num_heads", 2), attr_int("kv_num_heads", 2),
        attr_string("update_rule", "linear")},
       27,
       2},
      {"TfIdfVectorizer",
       {ints({2, 3, 2})},
       {attr_int("max_gram_length", 1), attr_int("min_gram_length", 1),
        attr_int("max_skip_count", 0), attr_string("mode", "TF"), attr_ints("ngram_counts", {0}),
        attr_ints("ngram_indexes", {0, 1}), attr_ints("pool_int64s", {2, 3})},
       9},
      {"EmbedLayerNormalization",
       {filled<int32_t>({2, 3}, 1), Value(), floats({10, 4}), floats({8, 4}), Value(), floats({4}),
        floats({4})},
       {},
       1,
       2,
       "com.microsoft"},
      {"MatMulNBits",
       {floats({2, 16}), filled<uint8_t>({3, 1, 8}, 0x88), floats({3})},
       {attr_int("K", 16), attr_int("N", 3), attr_int("block_size", 16)},
       1,
       1,
       "com.microsoft"},
      {"OneHotEncoder", {ints({1, 3})}, {attr_ints("cats_int64s", {1, 2, 3})}, 1, 1, ml},
      {"Binarizer", {floats({2, 3})}, {}, 1, 1, ml},
      {"FeatureVectorizer",
       {floats({3, 2}), floats({3, 1})},
       {attr_ints("inputdimensions", {2, 1})},
       1,
       1,
       ml},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " opset " + std::to_string(c.opset));
    const ops::OutShapes want = rule_shapes(c);
    const auto got = test::run_node(c.op, c.inputs, c.attrs, c.opset, c.outputs, c.domain);
    ASSERT_FALSE(want.empty());
    ASSERT_TRUE(want[0].has_value());
    for (size_t k = 0; k < want.size() && k < got.size(); ++k) {
      if (want[k]) {
        EXPECT_EQ(got[k].tensor().shape(), *want[k]) << "output " << k;
      }
    }
  }
}
