// Small helpers shared by the ai.onnx.ml kernel tests.
#pragma once
#include <gtest/gtest.h>

#include "unit/kernel_test_util.hpp"

namespace tessera::mltest {

inline const char* kMl = "ai.onnx.ml";

inline ir::Attribute attr_strings(const std::string& name, std::vector<std::string> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kStrings;
  a.strings = std::move(v);
  return a;
}

inline std::vector<double> values(const Value& v) {
  std::vector<double> out;
  const Tensor& t = v.tensor();
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.element_as_double(i));
  return out;
}

inline std::vector<std::string> strings(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.num_elements());
}

inline void expect_near(const std::vector<double>& got, const std::vector<double>& want,
                        double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

inline std::vector<Value> run_ml(const std::string& op, std::vector<Value> in,
                                 std::vector<ir::Attribute> attrs, int64_t opset = 3,
                                 size_t nout = 1) {
  return test::run_node(op, std::move(in), std::move(attrs), opset, nout, kMl);
}

}  // namespace tessera::mltest
