// The reader against real files from the ONNX backend test suite.
#include <gtest/gtest.h>

#include <filesystem>

#include "onnx/model_reader.hpp"

using namespace tessera;

namespace {
const char* kSuite = "/work/shared/conformance/onnx-node";
}

TEST(OnnxConformanceFiles, AbsModelAndInputParse) {
  std::string dir = std::string(kSuite) + "/test_abs";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " is absent";
  ir::Model m = onnx::load_model(dir + "/model.onnx");
  EXPECT_EQ(m.path, dir + "/model.onnx");
  EXPECT_GT(m.ir_version, 0);
  EXPECT_GT(m.opset(""), 0);
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "Abs");
  ASSERT_EQ(m.graph.inputs.size(), 1u);
  const ir::TypeInfo& in = m.graph.inputs[0].type;
  EXPECT_EQ(in.kind, ir::TypeInfo::Kind::kTensor);
  EXPECT_EQ(in.elem_type, DataType::kFloat);
  ASSERT_TRUE(in.shape.has_value());

  Tensor x = onnx::load_tensor(dir + "/test_data_set_0/input_0.pb");
  EXPECT_EQ(x.dtype(), DataType::kFloat);
  ASSERT_EQ(x.rank(), in.shape->size());
  for (size_t i = 0; i < x.rank(); ++i) EXPECT_EQ(x.shape()[i], *(*in.shape)[i].value);

  Value v = onnx::load_value(dir + "/test_data_set_0/output_0.pb", m.graph.outputs[0].type);
  ASSERT_TRUE(v.is_tensor());
  for (int64_t i = 0; i < x.num_elements(); ++i)
    EXPECT_EQ(v.tensor().data<float>()[i], std::abs(x.data<float>()[i]));
}

// Every model in the suite parses and so does every data file next to it.
TEST(OnnxConformanceFiles, WholeSuiteParses) {
  if (!std::filesystem::exists(kSuite)) GTEST_SKIP() << kSuite << " is absent";
  size_t models = 0, values = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSuite)) {
    std::string model_path = entry.path().string() + "/model.onnx";
    if (!std::filesystem::exists(model_path)) continue;
    ir::Model m;
    ASSERT_NO_THROW(m = onnx::load_model(model_path)) << model_path;
    ++models;
    for (const auto& ds : std::filesystem::directory_iterator(entry.path())) {
      if (!ds.is_directory()) continue;
      for (size_t k = 0; k < m.graph.inputs.size(); ++k) {
        std::string p = ds.path().string() + "/input_" + std::to_string(k) + ".pb";
        if (!std::filesystem::exists(p)) continue;
        EXPECT_NO_THROW(onnx::load_value(p, m.graph.inputs[k].type)) << p;
        ++values;
      }
      for (size_t k = 0; k < m.graph.outputs.size(); ++k) {
        std::string p = ds.path().string() + "/output_" + std::to_string(k) + ".pb";
        if (!std::filesystem::exists(p)) continue;
        EXPECT_NO_THROW(onnx::load_value(p, m.graph.outputs[k].type)) << p;
        ++values;
      }
    }
  }
  EXPECT_GT(models, 0u);
  EXPECT_GT(values, 0u);
}
