// Runs a one-node case of the ONNX conformance suite (model.onnx +
// test_data_set_0) through tessera::test::run_node and compares every output,
// for kernel unit tests of the recurrent, loss, text and extras families.
// Skips (returns true with a note) when the suite is not on this machine.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "unit/kernel_test_util.hpp"
#include "onnx/model_reader.hpp"

namespace tessera::test {

inline const char* kConformanceRoot = "/work/shared/conformance/onnx-node/";

inline void expect_tensors_near(const Tensor& expected, const Tensor& actual, double rtol,
                                double atol, const std::string& what) {
  ASSERT_EQ(expected.dtype(), actual.dtype()) << what;
  ASSERT_EQ(expected.shape(), actual.shape()) << what << ": " << actual.shape().to_string();
  if (expected.dtype() == DataType::kString) {
    for (int64_t i = 0; i < expected.num_elements(); ++i)
      EXPECT_EQ(expected.data<std::string>()[i], actual.data<std::string>()[i]) << what;
    return;
  }
  if (!is_float_type(expected.dtype()) || is_sub_byte_type(expected.dtype())) {
    ASSERT_EQ(expected.byte_size(), actual.byte_size()) << what;
    EXPECT_EQ(0, std::memcmp(expected.raw_data(), actual.raw_data(), expected.byte_size())) << what;
    return;
  }
  int bad = 0;
  for (int64_t i = 0; i < expected.num_elements() && bad < 5; ++i) {
    double e = expected.element_as_double(i), a = actual.element_as_double(i);
    if (std::isnan(e) && std::isnan(a)) continue;
    if (!(std::abs(e - a) <= atol + rtol * std::abs(e))) {
      ADD_FAILURE() << what << " element " << i << ": expected " << e << ", got " << a;
      ++bad;
    }
  }
}

inline bool conformance_suite_present() { return std::filesystem::exists(kConformanceRoot); }

// Runs conformance case `name`; returns false when it is not available.
inline bool run_conformance_case(const std::string& name, double rtol = 1e-3, double atol = 1e-5) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(kConformanceRoot) / name;
  if (!fs::exists(dir / "model.onnx")) return false;
  ir::Model model = onnx::load_model((dir / "model.onnx").string());
  const ir::Graph& g = model.graph;
  EXPECT_EQ(g.nodes.size(), 1u) << name;
  if (g.nodes.size() != 1) return true;
  const ir::Node& node = g.nodes[0];
  std::map<std::string, Value> values;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    fs::path p = dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb");
    values[g.inputs[i].name] = onnx::load_tensor(p.string());
  }
  std::vector<Value> inputs;
  for (const auto& in : node.inputs) inputs.push_back(in.empty() ? Value() : values.at(in));
  int64_t opset = model.opset(node.domain);
  auto outs = run_node(node.op_type, inputs, node.attributes, opset, node.outputs.size(),
                       node.domain);
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    fs::path p = dir / "test_data_set_0" / ("output_" + std::to_string(k) + ".pb");
    Tensor expected = onnx::load_tensor(p.string());
    size_t idx = 0;
    while (idx < node.outputs.size() && node.outputs[idx] != g.outputs[k].name) ++idx;
    EXPECT_LT(idx, node.outputs.size()) << name;
    if (idx >= node.outputs.size()) continue;
    double rt = rtol, at = atol;
    if (expected.dtype() == DataType::kFloat16 || expected.dtype() == DataType::kBFloat16) {
      rt = std::max(rt, 1e-2);
      at = std::max(at, 1e-2);
    }
    expect_tensors_near(expected, outs[idx].tensor(), rt, at, name + " output " + g.outputs[k].name);
  }
  return true;
}

// Runs every non-expanded conformance case whose name starts with `prefix`.
inline int run_conformance_prefix(const std::string& prefix, double rtol = 1e-3, double atol = 1e-5) {
  namespace fs = std::filesystem;
  if (!fs::exists(kConformanceRoot)) return 0;
  int n = 0;
  for (const auto& e : fs::directory_iterator(kConformanceRoot)) {
    std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.find("_expanded") != std::string::npos) continue;
    SCOPED_TRACE(name);
    try {
      if (run_conformance_case(name, rtol, atol)) ++n;
    } catch (const std::exception& ex) {
      ADD_FAILURE() << name << ": " << ex.what();
    }
  }
  return n;
}

}  // namespace tessera::test
