// The schema families of the ML, training, generator, signal, image,
// indexing, recurrent, normalization and loss, string, convolution,
// attention and contrib ops: per family a fully known shape, a shape that is
// only partly known (an input or value the rule needs is not), and the
// type-constraint check rejecting a wrong input type.
#include <gtest/gtest.h>

#include "ops/schema.hpp"
#include "ops/type_check.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;
using test::attr_float;
using test::attr_int;
using test::attr_ints;
using test::attr_string;

namespace {

Tensor shaped(Shape s, DataType t = DataType::kFloat) {
  return Tensor::metadata_only(t, std::move(s));
}
Tensor ints(std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return Tensor::from_vector<int64_t>(v, Shape{n});
}
Tensor scalar(int64_t v) { return Tensor::from_vector<int64_t>({v}, Shape{}); }

ir::Node node(const std::string& op, size_t inputs, size_t outputs = 1,
              std::vector<ir::Attribute> attrs = {}, const std::string& domain = "") {
  static const std::vector<std::string> kIn = {"A", "B", "C", "D", "E", "F",
                                               "G", "H", "I", "J", "K", "L"};
  static const std::vector<std::string> kOut = {"Y0", "Y1", "Y2", "Y3", "Y4", "Y5"};
  ir::Node n = test::make_node(op, {kIn.begin(), kIn.begin() + int64_t(inputs)},
                               {kOut.begin(), kOut.begin() + int64_t(outputs)}, std::move(attrs));
  n.domain = domain;
  return n;
}

// Every output's shape; null entries stand for inputs not known.
ops::OutShapes infer(const ir::Node& n, int64_t opset, const std::vector<const Tensor*>& in) {
  return ops::output_shapes(ops::schema_of(n, opset), n, opset, in);
}

Shape known(const ir::Node& n, int64_t opset, const std::vector<const Tensor*>& in, size_t k = 0) {
  auto out = infer(n, opset, in);
  EXPECT_GT(out.size(), k) << n.op_type;
  EXPECT_TRUE(out.size() > k && out[k].has_value()) << n.op_type << " output " << k;
  return out.size() > k && out[k] ? *out[k] : Shape{-1};
}

bool unknown(const ir::Node& n, int64_t opset, const std::vector<const Tensor*>& in, size_t k = 0) {
  auto out = infer(n, opset, in);
  return out.size() <= k || !out[k].has_value();
}

std::string shape_error(const ir::Node& n, int64_t opset, const std::vector<const Tensor*>& in) {
  try {
    infer(n, opset, in);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << n.op_type << ": no error";
  return "";
}

// The type check on a one-node model whose inputs have `types`; the error
// message, or "" when the node passes.
std::string type_error(ir::Node n, int64_t opset, const std::vector<DataType>& types) {
  ir::Model m;
  m.opset_imports = {{"", opset}, {n.domain, opset}};
  for (size_t i = 0; i < types.size() && i < n.inputs.size(); ++i)
    m.graph.inputs.push_back({n.inputs[i], ir::TypeInfo::tensor(types[i]), ""});
  m.graph.nodes.push_back(std::move(n));
  try {
    ops::check_input_types(m, "test");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidGraph) << e.what();
    return e.what();
  }
  return "";
}

constexpr DataType F = DataType::kFloat, I64 = DataType::kInt64, I32 = DataType::kInt32,
                   S = DataType::kString, B = DataType::kBool, U8 = DataType::kUInt8;

}  // namespace

TEST(SchemaFamilies, Ml) {
  const Tensor x = shaped({5, 3}), idx = shaped({2}, I64);
  const ir::Node afe = node("ArrayFeatureExtractor", 2, 1, {}, "ai.onnx.ml");
  EXPECT_EQ(known(afe, 1, {&x, &idx}), (Shape{5, 2}));
  const ir::Node lr = node("LinearRegressor", 1, 1, {attr_int("targets", 4)}, "ai.onnx.ml");
  EXPECT_EQ(known(lr, 1, {&x}), (Shape{5, 4}));
  const Tensor row = shaped({3});
  EXPECT_EQ(known(lr, 1, {&row}), (Shape{1, 4}));  // a 1-D X is one row
  // A classifier's labels are known, its score width is the kernel's.
  const ir::Node svc = node("SVMClassifier", 1, 2, {}, "ai.onnx.ml");
  EXPECT_EQ(known(svc, 1, {&x}), (Shape{5}));
  EXPECT_TRUE(unknown(svc, 1, {&x}, 1));
  EXPECT_TRUE(unknown(afe, 1, {&x, nullptr}));
  // TreeEnsembleRegressor's width is n_targets, which has no default.
  EXPECT_TRUE(unknown(node("TreeEnsembleRegressor", 1, 1, {}, "ai.onnx.ml"), 3, {&x}));
  EXPECT_NE(type_error(node("Binarizer", 1, 1, {}, "ai.onnx.ml"), 1, {S}).find("allows float"),
            std::string::npos);
  EXPECT_EQ(type_error(node("LabelEncoder", 1, 1, {}, "ai.onnx.ml"), 4, {DataType::kInt16}), "");
  EXPECT_NE(type_error(node("LabelEncoder", 1, 1, {}, "ai.onnx.ml"), 2, {DataType::kInt16}), "");
}

TEST(SchemaFamilies, Training) {
  // Adam: R, T, then X, G, V, H for two tensors; X_new, V_new, H_new for each.
  const Tensor r = shaped({}), t = shaped({}, I64), a = shaped({2, 3}), b = shaped({4});
  const ir::Node adam = node("Adam", 2 + 8, 6, {}, "ai.onnx.preview.training");
  auto out = infer(adam, 1, {&r, &t, &a, &b, &a, &b, &a, &b, &a, &b});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(*out[0], (Shape{2, 3}));
  EXPECT_EQ(*out[5], (Shape{4}));
  auto partly = infer(adam, 1, {&r, &t, nullptr, &b, &a, &b, &a, &b, &a, &b});
  EXPECT_FALSE(partly[0].has_value());
  EXPECT_EQ(*partly[1], (Shape{4}));
  const ir::Node short_adam = node("Adam", 3, 1, {}, "ai.onnx.preview.training");
  EXPECT_NE(shape_error(short_adam, 1, {&r, &t, &a}).find("groups of tensors"), std::string::npos);
  EXPECT_NE(type_error(adam, 1, {F, F}).find("input 1 'B' is float"), std::string::npos);
}

TEST(SchemaFamilies, GeneratorsAndSignal) {
  const ir::Node normal = node("RandomNormal", 0, 1, {attr_ints("shape", {2, 5})});
  EXPECT_EQ(known(normal, 22, {}), (Shape{2, 5}));
  const Tensor p = shaped({4, 10});
  EXPECT_EQ(known(node("Multinomial", 1, 1, {attr_int("sample_size", 3)}), 22, {&p}),
            (Shape{4, 3}));
  // DFT-20: a one-sided transform of 16 samples along axis 1 keeps 9 bins.
  const Tensor sig = shaped({2, 16, 1}), len = scalar(16);
  const ir::Node dft = node("DFT", 2, 1, {attr_int("onesided", 1)});
  EXPECT_EQ(known(dft, 20, {&sig, &len}), (Shape{2, 9, 2}));
  EXPECT_TRUE(unknown(dft, 20, {&sig, nullptr}));  // dft_length given but not known
  const Tensor size = scalar(7);
  EXPECT_EQ(known(node("HannWindow", 1), 17, {&size}), (Shape{7}));
  const Tensor step = scalar(4), win = shaped({8});
  EXPECT_EQ(known(node("STFT", 3), 17, {&sig, &step, &win}), (Shape{2, 3, 5, 2}));
  EXPECT_NE(type_error(node("HannWindow", 1), 17, {F}).find("allows int32, int64"),
            std::string::npos);
  EXPECT_NE(type_error(node("Bernoulli", 1), 22, {I64}), "");
}

TEST(SchemaFamilies, Image) {
  const Tensor x = shaped({1, 8, 4, 6});
  const ir::Node d2s = node("DepthToSpace", 1, 1, {attr_int("blocksize", 2)});
  EXPECT_EQ(known(d2s, 13, {&x}), (Shape{1, 2, 8, 12}));
  EXPECT_EQ(known(node("SpaceToDepth", 1, 1, {attr_int("blocksize", 2)}), 13, {&x}),
            (Shape{1, 32, 2, 3}));
  EXPECT_NE(shape_error(node("DepthToSpace", 1, 1, {attr_int("blocksize", 3)}), 13, {&x})
                .find("not divisible by blocksize^2 = 9"),
            std::string::npos);
  // Resize by sizes is known; by (float) scales it is the kernel's.
  const Tensor sizes = ints({1, 8, 8, 12});
  ir::Node resize = node("Resize", 4);
  resize.inputs[1] = resize.inputs[2] = "";  // no roi, no scales
  EXPECT_EQ(known(resize, 13, {&x, nullptr, nullptr, &sizes}), (Shape{1, 8, 8, 12}));
  const Tensor scales = shaped({4});
  EXPECT_TRUE(unknown(node("Resize", 3), 13, {&x, nullptr, &scales}));
  const Tensor rois = shaped({5, 4}), bi = shaped({5}, I64);
  EXPECT_EQ(known(node("RoiAlign", 3, 1, {attr_int("output_height", 3)}), 16, {&x, &rois, &bi}),
            (Shape{5, 8, 3, 1}));
  const Tensor grid = shaped({1, 5, 7, 2});
  EXPECT_EQ(known(node("GridSample", 2), 20, {&x, &grid}), (Shape{1, 8, 5, 7}));
  const Tensor cols = shaped({1, 8, 9}), image = ints({5, 5}), block = ints({2, 2});
  EXPECT_EQ(known(node("Col2Im", 3), 18, {&cols, &image, &block}), (Shape{1, 2, 5, 5}));
  EXPECT_NE(type_error(node("AffineGrid", 2), 20, {F, I32}).find("allows int64"),
            std::string::npos);
}

TEST(SchemaFamilies, IndexingAndEinsum) {
  const Tensor data = shaped({2, 3, 4}), ind = shaped({2, 2}, I64);
  EXPECT_EQ(known(node("GatherND", 2, 1, {attr_int("batch_dims", 1)}), 13, {&data, &ind}),
            (Shape{2}));
  const Tensor ind2 = shaped({2, 1}, I64);
  EXPECT_EQ(known(node("GatherND", 2), 13, {&data, &ind2}), (Shape{2, 3, 4}));
  const Tensor depth = ints({10}), idx = shaped({3}, I64);
  EXPECT_EQ(known(node("OneHot", 3, 1, {attr_int("axis", 0)}), 11, {&idx, &depth, nullptr}),
            (Shape{10, 3}));
  const Tensor float_depth = shaped({1});  // float values are not read statically
  EXPECT_TRUE(unknown(node("OneHot", 3), 11, {&idx, &float_depth, nullptr}));
  const Tensor square = shaped({2, 3, 3});
  EXPECT_EQ(known(node("Det", 1), 22, {&square}), (Shape{2}));
  EXPECT_NE(shape_error(node("Det", 1), 22, {&data}).find("square"), std::string::npos);
  const Tensor a = shaped({2, 3, 4}), b = shaped({4, 5});
  const ir::Node es = node("Einsum", 2, 1, {attr_string("equation", "bij,jk->bik")});
  EXPECT_EQ(known(es, 12, {&a, &b}), (Shape{2, 3, 5}));
  const ir::Node implicit = node("Einsum", 2, 1, {attr_string("equation", "...ij,jk")});
  EXPECT_EQ(known(implicit, 12, {&a, &b}), (Shape{2, 3, 5}));
  EXPECT_TRUE(unknown(es, 12, {&a, nullptr}));
  const Tensor b2 = shaped({2, 5});
  EXPECT_NE(shape_error(es, 12, {&a, &b2}).find("label 'j' has size 4 and 2"), std::string::npos);
  EXPECT_NE(type_error(node("GatherElements", 2), 13, {F, F}).find("Tind allows int32, int64"),
            std::string::npos);
  EXPECT_NE(type_error(node("BitwiseNot", 1), 18, {F}), "");
}

TEST(SchemaFamilies, Recurrent) {
  const Tensor x = shaped({7, 2, 3}), w = shaped({2, 12, 3}), r = shaped({2, 12, 4});
  const ir::Node lstm = node("LSTM", 3, 3, {attr_string("direction", "bidirectional")});
  auto out = infer(lstm, 14, {&x, &w, &r});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(*out[0], (Shape{7, 2, 2, 4}));
  EXPECT_EQ(*out[2], (Shape{2, 2, 4}));
  const ir::Node gru = node("GRU", 3, 2, {attr_int("layout", 1), attr_int("hidden_size", 5)});
  EXPECT_EQ(known(gru, 14, {&x, &w, nullptr}), (Shape{7, 2, 1, 5}));
  // Neither hidden_size nor R's shape: the hidden size is not known.
  EXPECT_TRUE(unknown(node("RNN", 3, 2), 14, {&x, &w, nullptr}));
  EXPECT_NE(type_error(node("RNN", 5), 14, {F, F, F, F, I64}).find("T1 allows int32"),
            std::string::npos);
}

TEST(SchemaFamilies, NormalizationLossAndStrings) {
  const Tensor x = shaped({4, 5, 6}), t = shaped({4, 6}, I64);
  const ir::Node nll = node("NegativeLogLikelihoodLoss", 2);
  EXPECT_EQ(known(nll, 13, {&x, &t}), (Shape{}));
  const ir::Node none = node("SoftmaxCrossEntropyLoss", 2, 2, {attr_string("reduction", "none")});
  auto out = infer(none, 13, {&x, &t});
  EXPECT_EQ(*out[0], (Shape{4, 6}));
  EXPECT_EQ(*out[1], (Shape{4, 5, 6}));
  EXPECT_TRUE(unknown(nll, 13, {&x, nullptr}));
  const Tensor words = shaped({1, 3}, S);
  EXPECT_EQ(known(node("StringNormalizer", 1), 10, {&words}), (Shape{1, 3}));
  // With stopwords the count depends on the strings.
  ir::Attribute stop;
  stop.name = "stopwords";
  stop.type = ir::AttrType::kStrings;
  stop.strings = {"a"};
  EXPECT_TRUE(unknown(node("StringNormalizer", 1, 1, {stop}), 10, {&words}));
  const ir::Node tfidf = node("TfIdfVectorizer", 1, 1, {attr_ints("ngram_indexes", {0, 4, 2})});
  EXPECT_EQ(known(tfidf, 9, {&words}), (Shape{1, 5}));
  EXPECT_NE(type_error(node("RMSNormalization", 2), 23, {I64, F}), "");
  EXPECT_NE(type_error(node("StringConcat", 2), 20, {S, F}).find("allows string"),
            std::string::npos);
  EXPECT_NE(type_error(node("NegativeLogLikelihoodLoss", 2), 13, {F, B}), "");
}

TEST(SchemaFamilies, ConvolutionsAndAttention) {
  const Tensor x = shaped({1, 4, 5, 5}), w = shaped({4, 3, 3, 3});
  const ir::Node ct = node("ConvTranspose", 2, 1, {attr_ints("strides", {2, 2})});
  EXPECT_EQ(known(ct, 22, {&x, &w}), (Shape{1, 3, 11, 11}));
  const ir::Node same = node("ConvTranspose", 2, 1,
                             {attr_ints("strides", {2, 2}), attr_string("auto_pad", "SAME_UPPER")});
  EXPECT_EQ(known(same, 22, {&x, &w}), (Shape{1, 3, 10, 10}));
  const ir::Node out_shape = node(
      "ConvTranspose", 2, 1, {attr_ints("strides", {2, 2}), attr_ints("output_shape", {12, 12})});
  EXPECT_EQ(known(out_shape, 22, {&x, &w}), (Shape{1, 3, 12, 12}));
  EXPECT_TRUE(unknown(ct, 22, {&x, nullptr}));
  const Tensor wrong = shaped({3, 3, 3, 3});
  EXPECT_NE(shape_error(ct, 22, {&x, &wrong}).find("input 1 'B' of shape [3,3,3,3]"),
            std::string::npos);
  const Tensor pooled = shaped({1, 4, 2, 2}), ind = shaped({1, 4, 2, 2}, I64);
  EXPECT_EQ(known(node("MaxUnpool", 2, 1,
                       {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})}),
                  22, {&pooled, &ind}),
            (Shape{1, 4, 4, 4}));
  // Attention: Y is known; the caches' length is the kernel's.
  const Tensor q = shaped({2, 6, 16}), kv = shaped({2, 9, 8});
  const ir::Node att =
      node("Attention", 3, 3, {attr_int("q_num_heads", 4), attr_int("kv_num_heads", 2)});
  EXPECT_EQ(known(att, 23, {&q, &kv, &kv}), (Shape{2, 6, 16}));
  EXPECT_TRUE(unknown(att, 23, {&q, &kv, &kv}, 1));
  EXPECT_NE(type_error(node("ConvTranspose", 2), 22, {I64, I64}), "");
  EXPECT_NE(type_error(att, 23, {F, F, I64}).find("T2 allows"), std::string::npos);
}

TEST(SchemaFamilies, Contrib) {
  const Tensor a = shaped({3, 7, 32});
  const ir::Node nbits =
      node("MatMulNBits", 2, 1, {attr_int("K", 32), attr_int("N", 10), attr_int("block_size", 16)},
           "com.microsoft");
  EXPECT_EQ(known(nbits, 1, {&a, nullptr}), (Shape{3, 7, 10}));
  // Packed QKV: 32 = (num_heads 2 + 2 x kv_num_heads 1) x head 8 -> 2 x 8.
  const ir::Node gqa =
      node("GroupQueryAttention", 3, 3, {attr_int("num_heads", 2), attr_int("kv_num_heads", 1)},
           "com.microsoft");
  std::vector<const Tensor*> packed = {&a, nullptr, nullptr};
  ir::Node gqa_packed = gqa;
  gqa_packed.inputs[1] = gqa_packed.inputs[2] = "";
  EXPECT_EQ(known(gqa_packed, 1, packed), (Shape{3, 7, 16}));
  EXPECT_TRUE(unknown(gqa_packed, 1, packed, 1));  // present_key
  const Tensor x = shaped({2, 3, 8}), skip = shaped({3, 8});
  EXPECT_EQ(known(node("SkipLayerNormalization", 2, 1, {}, "com.tessera"), 1, {&x, &skip}),
            (Shape{2, 3, 8}));
  // The channel-blocked ops' shapes depend on the CPU's block size.
  EXPECT_TRUE(unknown(node("ReorderToNchwc", 1, 1, {}, "com.tessera"), 1, {&x}));
  EXPECT_NE(type_error(nbits, 1, {F, DataType::kInt8}).find("T2 allows uint8"), std::string::npos);
  EXPECT_NE(type_error(node("QuantizedLookup", 2, 1, {}, "com.tessera"), 1, {F, U8}), "");
}
