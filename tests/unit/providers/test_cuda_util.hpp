// Helpers for the CUDA provider tests: the skip reason when no GPU is
// present, one-node models in any float type, and a comparison of the CUDA
// provider's results with the CPU provider's, computed in float32 on the same
// (rounded) input values.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/float16.hpp"
#include "ops/graph_types.hpp"
#include "providers/cuda/cuda_provider.hpp"
#include "runtime/session.hpp"
#include "unit/kernel_test_util.hpp"
#include "unit/providers/one_node_model.hpp"

namespace tessera::test::cuda_test {

using test::attr_float;
using test::attr_floats;
using test::attr_int;
using test::attr_ints;
using test::attr_string;
using test::OneNode;
using test::tensor_info;

inline const std::string kCuda = "CUDAExecutionProvider";
inline const std::string kCpu = "CPUExecutionProvider";

// "" when this machine has a CUDA device, else the reason for GTEST_SKIP().
inline std::string no_device() {
  const auto& p = cuda::cuda_probe();
  return p.device_count > 0 ? std::string() : p.why_not;
}

// A tensor of `t` holding `values` (rounded to t).
inline Tensor make_tensor(DataType t, std::vector<int64_t> dims, const std::vector<float>& values) {
  Tensor out(t, Shape(dims));
  EXPECT_EQ(out.num_elements(), int64_t(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == DataType::kFloat)
      out.mutable_data<float>()[i] = values[i];
    else if (t == DataType::kFloat16)
      out.mutable_data<Float16>()[i] = Float16(values[i]);
    else if (t == DataType::kBFloat16)
      out.mutable_data<BFloat16>()[i] = BFloat16(values[i]);
    else
      ADD_FAILURE() << "make_tensor: unsupported type";
  }
  return out;
}

inline std::vector<float> random_values(int64_t n, uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(gen);
  return v;
}

inline int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The same values as float32.
inline Tensor as_float(const Tensor& t) {
  Tensor out(DataType::kFloat, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i)
    out.mutable_data<float>()[i] = float(t.element_as_double(i));
  return out;
}

struct Tolerance {
  double rtol, atol;
};
inline Tolerance tolerance_for(DataType t) {
  if (t == DataType::kFloat16) return {1e-2, 1e-2};
  if (t == DataType::kBFloat16) return {4e-2, 4e-2};
  return {1e-4, 1e-5};
}

inline void expect_close(const Tensor& got, const Tensor& want, Tolerance tol,
                         const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  size_t bad = 0;
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    const double g = got.element_as_double(i), w = want.element_as_double(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (g == w) continue;  // also equal infinities, whose difference is NaN
    if (!(std::fabs(g - w) <= tol.atol + tol.rtol * std::fabs(w)) && bad++ < 5)
      ADD_FAILURE() << what << ": element " << i << ": got " << g << ", want " << w;
  }
  EXPECT_EQ(bad, 0u) << what << ": elements out of tolerance";
}

// The node's provider in a session of [CUDA, CPU], with the decline reasons.
inline std::string assigned_provider(const Session& s, std::string* reasons = nullptr) {
  auto a = s.node_assignments();
  EXPECT_EQ(a.size(), 1u);
  if (a.empty()) return "";
  if (reasons)
    for (const auto& [p, r] : a[0].declined) *reasons += p + ": " + r + "; ";
  return a[0].provider;
}

// Runs `m` (inputs in their own types) with [CUDA, CPU], and `reference`
// (the same node on float32 copies of those inputs) with [CPU]; checks the
// node ran on CUDA and that every output agrees within the tolerance of `t`.
// `options`: more CUDA provider options (error_on_failure=1 is always set).
inline void expect_cuda_matches_cpu(const OneNode& m, const OneNode& reference, DataType t,
                                    const std::string& what, double tol_scale = 1.0,
                                    ep::ProviderOptions options = {}) {
  options["error_on_failure"] = "1";
  auto cuda = Session::create_from_model(m.model, {}, {{kCuda, options}});
  std::string reasons;
  ASSERT_EQ(assigned_provider(*cuda, &reasons), kCuda) << what << ": " << reasons;
  auto cpu = Session::create_from_model(reference.model, {}, {{kCpu, {}}});
  auto got = cuda->run(m.feeds);
  auto want = cpu->run(reference.feeds);
  ASSERT_EQ(got.size(), want.size());
  Tolerance tol = tolerance_for(t);
  tol.rtol *= tol_scale;
  tol.atol *= tol_scale;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(got[i].tensor().memory_info().host_accessible()) << what;
    expect_close(as_float(got[i].tensor()), want[i].tensor(), tol,
                 what + ", output " + std::to_string(i));
  }
}

// The node of `m` (float32) under each cudnn_conv_algo_search against the CPU.
inline void expect_each_search_matches_cpu(const OneNode& m) {
  for (const char* search : {"EXHAUSTIVE", "HEURISTIC", "DEFAULT"}) {
    auto cuda =
        Session::create_from_model(m.model, {}, {{kCuda, {{"cudnn_conv_algo_search", search}}}});
    auto cpu = Session::create_from_model(m.model, {}, {{kCpu, {}}});
    EXPECT_EQ(assigned_provider(*cuda), kCuda);
    expect_close(cuda->run(m.feeds)[0].tensor(), cpu->run(m.feeds)[0].tensor(), {1e-4, 1e-4},
                 search);
  }
}

inline void expect_has(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

// A model's nodes as a provider sees them in a session: every candidate,
// with static types inferred (initializers typed by their tensors).
struct TypedGraph {
  explicit TypedGraph(const ir::Model& model) {
    for (const auto& in : model.graph.inputs) types[in.name] = in.type;
    for (const auto& [name, t] : model.graph.initializers) {
      std::vector<ir::Dim> dims;
      for (int64_t d : t.shape().dims()) dims.push_back(ir::Dim{d, ""});
      types[name] = ir::TypeInfo::tensor(t.dtype(), dims);
    }
    ops::infer_graph_types(model, model.graph, types);
    view.model = &model;
    view.graph = &model.graph;
    view.value_types = &types;
    for (size_t i = 0; i < model.graph.nodes.size(); ++i) view.candidates.push_back(i);
  }
  TypedGraph(const TypedGraph&) = delete;  // view points into types
  TypedGraph& operator=(const TypedGraph&) = delete;
  ops::ValueTypes types;
  ep::GraphView view;
};

// What the provider (made without the device check: get_capability needs no
// GPU) answers for every node of `model`.
inline ep::Capability cuda_capability(const ir::Model& model) {
  const TypedGraph g(model);
  return cuda::make_cuda_provider_unchecked({})->get_capability(g.view);
}

// Per node of `model`: "" when the provider claims it, else its reason.
inline std::vector<std::string> cuda_claims(const ir::Model& model) {
  const ep::Capability cap = cuda_capability(model);
  std::vector<std::string> out(model.graph.nodes.size(), "?");
  for (const auto& g : cap.groups)
    for (size_t i : g.nodes) out[i] = "";
  for (const auto& d : cap.declined) out[d.node] = d.reason;
  return out;
}

// What the provider answers for a one-node model: "" when it claims the node
// (alone, not fused), else its reason.
inline std::string claim(const OneNode& m) {
  const ep::Capability cap = cuda_capability(m.model);
  if (!cap.groups.empty()) {
    EXPECT_EQ(cap.groups.size(), 1u);
    EXPECT_FALSE(cap.groups[0].fused);
    return "";
  }
  EXPECT_EQ(cap.declined.size(), 1u);
  return cap.declined.empty() ? "?" : cap.declined[0].reason;
}

}  // namespace tessera::test::cuda_test
