// The C++ API's values beyond dense tensors: sequences and maps (made, read
// back, typed), sparse tensors, string tensors element by element, and the
// declared types of a model's sequence output. Compiled with include/ alone.
#include <string>
#include <vector>

#include "capi_test_util.hpp"
#include "tessera/tessera.hpp"

namespace api = tessera::api;

TEST(CxxValues, SequencesHoldCopiesAndSayWhatTheyHold) {
  std::vector<float> a = {1, 2}, b = {3, 4, 5};
  std::vector<api::Value> items;
  items.push_back(api::Value::tensor(api::MemoryInfo::cpu(), a.data(), a.size(), {2}));
  items.push_back(api::Value::tensor(api::MemoryInfo::cpu(), b.data(), b.size(), {3}));
  api::Value seq = api::Value::sequence(items);
  EXPECT_EQ(seq.kind(), ONNX_TYPE_SEQUENCE);
  EXPECT_FALSE(seq.is_tensor());
  ASSERT_EQ(seq.size(), 2u);
  EXPECT_EQ(seq.at(1).to_vector<float>(), (std::vector<float>{3, 4, 5}));
  const api::TypeInfo t = seq.type_info();
  EXPECT_EQ(t.kind, ONNX_TYPE_SEQUENCE);
  ASSERT_NE(t.inner, nullptr);
  EXPECT_EQ(t.inner->kind, ONNX_TYPE_TENSOR);
  EXPECT_EQ(t.inner->tensor.type, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  // Items of different element types make no sequence.
  std::vector<int64_t> c = {7};
  items.push_back(api::Value::tensor(api::MemoryInfo::cpu(), c.data(), c.size(), {1}));
  EXPECT_THROW(api::Value::sequence(items), api::Error);
}

TEST(CxxValues, MapsPairKeysWithValues) {
  std::vector<int64_t> keys = {10, 20, 30};
  std::vector<float> values = {0.5f, 1.5f, 2.5f};
  api::Value k = api::Value::tensor(api::MemoryInfo::cpu(), keys.data(), keys.size(), {3});
  api::Value v = api::Value::tensor(api::MemoryInfo::cpu(), values.data(), values.size(), {3});
  api::Value map = api::Value::map(k, v);
  EXPECT_EQ(map.kind(), ONNX_TYPE_MAP);
  EXPECT_EQ(map.map_keys().to_vector<int64_t>(), keys);
  EXPECT_EQ(map.map_values().to_vector<float>(), values);
  const api::TypeInfo t = map.type_info();
  EXPECT_EQ(t.kind, ONNX_TYPE_MAP);
  EXPECT_EQ(t.map_key, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64);
  ASSERT_NE(t.inner, nullptr);
  EXPECT_EQ(t.inner->tensor.type, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  // A sequence of maps, as ZipMap makes.
  std::vector<api::Value> maps;
  maps.push_back(std::move(map));
  api::Value seq = api::Value::sequence(maps);
  const api::TypeInfo st = seq.type_info();
  ASSERT_NE(st.inner, nullptr);
  EXPECT_EQ(st.inner->kind, ONNX_TYPE_MAP);
  EXPECT_EQ(seq.at(0).map_keys().to_vector<int64_t>(), keys);
  // Keys and values of different lengths make no map.
  std::vector<float> fewer = {1};
  api::Value short_values =
      api::Value::tensor(api::MemoryInfo::cpu(), fewer.data(), fewer.size(), {1});
  EXPECT_THROW(api::Value::map(k, short_values), api::Error);
}

TEST(CxxValues, SparseTensorsReadBackByFormat) {
  // [[0, 1, 0], [2, 0, 3]] in COO (flat indices) and in CSR.
  std::vector<float> values = {1, 2, 3};
  std::vector<int64_t> flat = {1, 3, 5};
  api::Value coo = api::Value::sparse(api::MemoryInfo::cpu(), {2, 3}, values.data(), 3);
  coo.use_coo_indices(flat);
  EXPECT_TRUE(coo.is_sparse());
  EXPECT_FALSE(coo.is_tensor());
  EXPECT_EQ(coo.sparse_format(), ORT_SPARSE_COO);
  EXPECT_EQ(coo.sparse_values<float>(), values);
  EXPECT_EQ(coo.sparse_indices(ORT_SPARSE_COO_INDICES), flat);
  EXPECT_THROW(coo.sparse_values<int32_t>(), api::Error);
  EXPECT_EQ(coo.type_info().kind, ONNX_TYPE_SPARSETENSOR);

  std::vector<int64_t> inner = {1, 0, 2}, outer = {0, 1, 3};
  api::Value csr = api::Value::sparse(api::MemoryInfo::cpu(), {2, 3}, values.data(), 3);
  csr.use_csr_indices(inner, outer);
  EXPECT_EQ(csr.sparse_format(), ORT_SPARSE_CSRC);
  EXPECT_EQ(csr.sparse_indices(ORT_SPARSE_CSR_INNER_INDICES), inner);
  EXPECT_EQ(csr.sparse_indices(ORT_SPARSE_CSR_OUTER_INDICES), outer);
  // An index past the dense shape is refused.
  std::vector<int64_t> outside = {1, 3, 6};
  api::Value bad = api::Value::sparse(api::MemoryInfo::cpu(), {2, 3}, values.data(), 3);
  EXPECT_THROW(bad.use_coo_indices(outside), api::Error);
}

TEST(CxxValues, StringTensorsElementByElement) {
  api::Value t = api::Value::tensor(ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, {3});
  t.set_string(0, "alpha");
  t.set_string(2, "gamma");
  EXPECT_EQ(t.strings(), (std::vector<std::string>{"alpha", "", "gamma"}));
  EXPECT_THROW(t.set_string(3, "past the end"), api::Error);
  EXPECT_EQ(t.info().type, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING);
}

TEST(CxxValues, AModelsSequenceOutputIsTypedAndRuns) {
  api::Env env;
  api::Session session(env, capi_test::model_path("sequence.onnx"));
  const api::TypeInfo out = session.output_type(0);
  EXPECT_EQ(out.kind, ONNX_TYPE_SEQUENCE);
  ASSERT_NE(out.inner, nullptr);
  EXPECT_EQ(out.inner->tensor.type, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  EXPECT_EQ(session.input_type(0).kind, ONNX_TYPE_TENSOR);
  EXPECT_EQ(session.input_type(0).tensor.shape, (std::vector<int64_t>{2}));
  // input_info is for tensors only.
  EXPECT_THROW(session.output_info(0), api::Error);

  std::vector<float> a = {1, 2}, b = {3, 4};
  std::vector<api::Value> inputs;
  inputs.push_back(api::Value::tensor(api::MemoryInfo::cpu(), a.data(), a.size(), {2}));
  inputs.push_back(api::Value::tensor(api::MemoryInfo::cpu(), b.data(), b.size(), {2}));
  auto outputs = session.run({"a", "b"}, inputs, {"seq"});
  ASSERT_EQ(outputs[0].size(), 2u);
  EXPECT_EQ(outputs[0].at(0).to_vector<float>(), a);
  EXPECT_EQ(outputs[0].at(1).to_vector<float>(), b);
}
