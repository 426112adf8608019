// Helpers for the oneDNN provider tests: one-node models, runs with and
// without the provider, and a tolerant comparison.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "runtime/session.hpp"

namespace tessera::test::dnnl {

inline const std::string kDnnl = "DnnlExecutionProvider";
inline const std::string kCpu = "CPUExecutionProvider";

inline ir::ValueInfo tensor_info(const std::string& name, std::vector<int64_t> dims,
                                 DataType t = DataType::kFloat) {
  std::vector<ir::Dim> d;
  for (int64_t v : dims) d.push_back(ir::Dim{v, ""});
  return {name, ir::TypeInfo::tensor(t, d), ""};
}

inline Tensor random_tensor(std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Tensor t(DataType::kFloat, Shape(dims));
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = u(gen);
  return t;
}

// A model with one node. Inputs listed in `constants` become initializers
// (not graph inputs), so the provider sees them as constant.
struct OneNode {
  ir::Model model;
  std::vector<std::pair<std::string, Value>> feeds;

  OneNode(const std::string& op, int64_t opset, std::vector<ir::Attribute> attrs = {}) {
    model.ir_version = 8;
    model.opset_imports.push_back({"", opset});
    model.graph.name = op;
    ir::Node n;
    n.name = op + "_node";
    n.op_type = op;
    n.attributes = std::move(attrs);
    model.graph.nodes.push_back(n);
  }
  OneNode& input(const std::string& name, const Tensor& t, bool constant = false) {
    model.graph.nodes[0].inputs.push_back(name);
    if (constant) {
      model.graph.initializers[name] = t;
    } else {
      model.graph.inputs.push_back(tensor_info(name, t.shape().dims()));
      feeds.emplace_back(name, Value(t));
    }
    return *this;
  }
  OneNode& omitted() {
    model.graph.nodes[0].inputs.push_back("");
    return *this;
  }
  OneNode& output(const std::string& name) {
    model.graph.nodes[0].outputs.push_back(name);
    ir::ValueInfo vi;
    vi.name = name;
    model.graph.outputs.push_back(vi);
    return *this;
  }
};

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
