// Small helpers for the math and reduce kernel tests.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "unit/kernel_test_util.hpp"

namespace tessera::test {

template <typename T>
Value tv(std::vector<T> v, Shape s) {
  return Value(Tensor::from_vector<T>(v, std::move(s)));
}
template <typename T>
Value tv(std::vector<T> v) {
  Shape s{int64_t(v.size())};
  return Value(Tensor::from_vector<T>(v, s));
}

template <typename T>
std::vector<T> values_of(const Value& v) {
  const Tensor& t = v.tensor();
  const T* d = t.data<T>();
  return std::vector<T>(d, d + t.num_elements());
}

// Runs a single-output node and returns its tensor.
inline Tensor run1(const std::string& op, std::vector<Value> in,
                   std::vector<ir::Attribute> attrs = {}, int64_t opset = 21) {
  return run_node(op, std::move(in), std::move(attrs), opset)[0].tensor();
}

template <typename T>
std::vector<T> vec(const Tensor& t) {
  const T* d = t.data<T>();
  return std::vector<T>(d, d + t.num_elements());
}

inline void expect_near_all(const std::vector<float>& got, const std::vector<float>& want,
                            float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol * std::max(1.0f, std::fabs(want[i]))) << "at " << i;
    }
  }
}

}  // namespace tessera::test
