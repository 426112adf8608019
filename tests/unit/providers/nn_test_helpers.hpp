// Helpers for the nn kernel tests: random tensors and element comparison.
#pragma once
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "unit/kernel_test_util.hpp"

namespace tessera::test::nn {

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

inline Tensor f32(const std::vector<float>& v, Shape s) {
  return Tensor::from_vector<float>(v, std::move(s));
}

inline std::vector<float> floats_of(const Value& v) {
  const Tensor& t = v.tensor();
  std::vector<float> out(size_t(t.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = float(t.element_as_double(int64_t(i)));
  return out;
}

inline void expect_near(const Value& got, const std::vector<float>& want, const Shape& shape,
                        float tol = 1e-4f) {
  ASSERT_TRUE(got.is_tensor());
  ASSERT_EQ(got.tensor().shape(), shape) << got.tensor().description();
  auto g = floats_of(got);
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], want[i], tol) << "at " << i;
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace tessera::test::nn
