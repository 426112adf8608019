// Helpers for the oneDNN provider tests: one-node models, runs with and
// without the provider, and a tolerant comparison.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "runtime/session.hpp"
#include "unit/providers/one_node_model.hpp"

namespace tessera::test::dnnl {

using test::OneNode;
using test::tensor_info;

inline const std::string kDnnl = "DnnlExecutionProvider";
inline const std::string kCpu = "CPUExecutionProvider";

inline Tensor random_tensor(std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Tensor t(DataType::kFloat, Shape(dims));
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = u(gen);
  return t;
}

inline std::unique_ptr<Session> session_with(const ir::Model& m,
                                             std::vector<ProviderSpec> providers) {
  return Session::create_from_model(m, SessionOptions{}, providers);
}

inline void expect_close(const Tensor& got, const Tensor& want, double rtol = 1e-4,
                         double atol = 1e-4) {
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  size_t bad = 0;
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double g = got.element_as_double(i), w = want.element_as_double(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w)) && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w;
  }
  EXPECT_EQ(bad, 0u) << "elements out of tolerance";
}

}  // namespace tessera::test::dnnl
