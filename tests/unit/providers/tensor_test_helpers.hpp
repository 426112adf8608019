// Small helpers shared by the tensor-family kernel tests.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "unit/kernel_test_util.hpp"

namespace tessera::test {

inline Tensor f32(std::vector<float> v, Shape s) { return Tensor::from_vector<float>(v, std::move(s)); }
inline Tensor i64(std::vector<int64_t> v, Shape s) {
  return Tensor::from_vector<int64_t>(v, std::move(s));
}
inline Tensor i64v(std::vector<int64_t> v) {
  Shape s{int64_t(v.size())};
  return Tensor::from_vector<int64_t>(v, s);
}
inline Tensor strs(std::vector<std::string> v, Shape s) {
  return Tensor::from_vector<std::string>(v, std::move(s));
}

template <typename T>
std::vector<T> values_of(const Value& v) {
  const Tensor& t = v.tensor();
  const T* p = t.data<T>();
  return std::vector<T>(p, p + t.num_elements());
}

inline void expect_f32(const Value& v, const std::vector<float>& want, const Shape& shape,
                       float tol = 1e-5f) {
  ASSERT_TRUE(v.is_tensor());
  EXPECT_EQ(v.tensor().shape(), shape) << v.tensor().description();
  auto got = values_of<float>(v);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// Runs the node and returns the error message (empty if it succeeded).
inline std::string error_of(const std::string& op, std::vector<Value> inputs,
                            std::vector<ir::Attribute> attrs = {}, int64_t opset = 21,
                            size_t nout = 1) {
  try {
    run_node(op, std::move(inputs), std::move(attrs), opset, nout);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace tessera::test
