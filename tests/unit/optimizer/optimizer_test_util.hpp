// Builds small models and checks a level's passes keep their outputs.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/float16.hpp"
#include "optimizer/optimizer.hpp"
#include "providers/cpu/cpu_provider.hpp"
#include "providers/cpu/transforms/cpu_transforms.hpp"
#include "runtime/session.hpp"
#include "unit/kernel_test_util.hpp"

namespace tessera::test {

// Attribute builders are shared with the kernel tests.
inline ir::Attribute attr_i(const std::string& name, int64_t v) { return attr_int(name, v); }
inline ir::Attribute attr_f(const std::string& name, float v) { return attr_float(name, v); }

inline ir::Node op(const std::string& type, std::vector<std::string> in,
                   std::vector<std::string> out, std::vector<ir::Attribute> attrs = {}) {
  ir::Node n;
  n.op_type = type;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attributes = std::move(attrs);
  return n;
}

inline Tensor random_floats(Shape shape, uint64_t seed, float lo = -1, float hi = 1) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  float* d = t.mutable_data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) d[i] = u(rng);
  return t;
}

// A model at ai.onnx `opset` with float inputs of the given static shapes and
// float outputs (shape unknown).
inline ir::Model float_model(int64_t opset,
                             const std::vector<std::pair<std::string, Shape>>& inputs,
                             const std::vector<std::string>& outputs) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", opset});
  m.graph.name = std::string(1, 'g');  // (a literal trips a GCC 12 -Wrestrict false positive)
  for (const auto& [name, shape] : inputs) {
    std::vector<ir::Dim> dims;
    for (int64_t d : shape.dims()) dims.push_back(ir::Dim{d, ""});
    m.graph.inputs.push_back({name, ir::TypeInfo::tensor(DataType::kFloat, dims), ""});
  }
  for (const auto& o : outputs)
    m.graph.outputs.push_back({o, ir::TypeInfo::tensor(DataType::kFloat), ""});
  return m;
}

inline size_t count_ops(const ir::Model& m, const std::string& type) {
  size_t c = 0;
  for (const auto& n : m.graph.nodes) c += n.op_type == type;
  return c;
}

// Session config entries that keep convolutions in NCHW (choose_conv_layout
// off), for tests of the other conv fusions, whose FusedConv nodes it would
// turn into NchwcConv. (Strings built, not literals: a literal assignment
// trips a GCC 12 -Wrestrict false positive.)
inline std::map<std::string, std::string> without_nchwc() {
  std::map<std::string, std::string> c;
  c.emplace(std::string("session.disable_nchwc"), std::string(1, '1'));
  return c;
}

// Options that fold constants with the CPU provider's kernels, as a session does.
inline optimizer::OptimizeOptions cpu_folding() {
  optimizer::OptimizeOptions o;
  o.fold_kernels = &cpu::cpu_kernel_registry();
  return o;
}

// Optimizes `m` as a CPU-only session does: the provider-independent passes
// of `level`, then the CPU provider's transform of the whole graph (with the
// session `config` entries, e.g. without_nchwc()), then the last folding.
inline void optimize_as_cpu_session(ir::Model& m,
                                    GraphOptimizationLevel level = GraphOptimizationLevel::kAll,
                                    const std::map<std::string, std::string>& config = {}) {
  optimizer::optimize(m, level, cpu_folding());
  ep::TransformOptions o;
  o.level = level;
  o.config = &config;
  cpu::transform_for_cpu(m, o);
  optimizer::fold_constants_after_transforms(m, &cpu::cpu_kernel_registry());
}

// Optimizes `m` at level all as a session whose other providers take only
// the standard-op `fusions` (no CPU-internal fused ops).
inline void optimize_for_shared(ir::Model& m, std::set<std::string> fusions) {
  optimizer::OptimizeOptions o = cpu_folding();
  o.shared_fusions = std::move(fusions);
  optimizer::optimize(m, GraphOptimizationLevel::kAll, o);
}

// Runs `m` unoptimized and at `level` (with the session `config` entries) on
// random inputs and expects the same outputs (within float rounding). Returns
// the optimized model.
inline ir::Model expect_same_outputs(const ir::Model& m, GraphOptimizationLevel level,
                                     float tol = 1e-5f,
                                     const std::map<std::string, std::string>& config = {}) {
  SessionOptions plain, opt;
  plain.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  plain.intra_op_num_threads = 1;
  opt.graph_optimization_level = level;
  for (const auto& [k, v] : config) opt.config_entries[k] = v;
  opt.intra_op_num_threads = 1;
  auto a = Session::create_from_model(m, plain);
  auto b = Session::create_from_model(m, opt);
  std::vector<std::pair<std::string, Value>> feeds;
  uint64_t seed = 7;
  for (const auto& in : a->inputs()) {
    std::vector<int64_t> dims;
    for (const auto& d : *in.type.shape) dims.push_back(*d.value);
    feeds.emplace_back(in.name, Value(random_floats(Shape(dims), seed++, -3, 3)));
  }
  auto ya = a->run(feeds), yb = b->run(feeds);
  EXPECT_EQ(ya.size(), yb.size());
  for (size_t k = 0; k < ya.size() && k < yb.size(); ++k) {
    const Tensor& ta = ya[k].tensor();
    const Tensor& tb = yb[k].tensor();
    EXPECT_EQ(ta.shape(), tb.shape()) << "output " << k;
    EXPECT_EQ(ta.dtype(), tb.dtype()) << "output " << k;
    if (ta.shape() != tb.shape() || ta.dtype() != tb.dtype()) continue;
    for (int64_t i = 0; i < ta.num_elements(); ++i) {
      double x = ta.element_as_double(i), y = tb.element_as_double(i);
      EXPECT_NEAR(x, y, tol * (1 + std::abs(x))) << "output " << k << " element " << i;
    }
  }
  return b->model();
}

// `a` and `b` (already optimized) give the same outputs, run as they are.
inline void expect_same_as(const ir::Model& a, const ir::Model& b) {
  SessionOptions plain;
  plain.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  plain.intra_op_num_threads = 2;
  auto sa = Session::create_from_model(a, plain);
  auto sb = Session::create_from_model(b, plain);
  std::vector<std::pair<std::string, Value>> feeds;
  uint64_t seed = 3;
  for (const auto& in : sa->inputs()) {
    std::vector<int64_t> dims;
    for (const auto& d : *in.type.shape) dims.push_back(*d.value);
    feeds.emplace_back(in.name, Value(random_floats(Shape(dims), seed++, -3, 3)));
  }
  auto ya = sa->run(feeds), yb = sb->run(feeds);
  ASSERT_EQ(ya.size(), yb.size());
  for (size_t k = 0; k < ya.size(); ++k) {
    const Tensor& ta = ya[k].tensor();
    const Tensor& tb = yb[k].tensor();
    ASSERT_EQ(ta.shape(), tb.shape()) << "output " << k;
    for (int64_t i = 0; i < ta.num_elements(); ++i) {
      const double x = ta.element_as_double(i), y = tb.element_as_double(i);
      ASSERT_NEAR(x, y, 1e-4 * (1 + std::abs(x))) << "output " << k << " element " << i;
    }
  }
}

// A float tensor's values rounded to float16 or bfloat16.
inline Tensor to_half(const Tensor& f, DataType t) {
  Tensor h(t, f.shape());
  for (int64_t i = 0; i < f.num_elements(); ++i) {
    if (t == DataType::kFloat16)
      h.mutable_data<Float16>()[i] = Float16(f.data<float>()[i]);
    else
      h.mutable_data<BFloat16>()[i] = BFloat16(f.data<float>()[i]);
  }
  return h;
}

// The same model in a half type: float initializers converted, the float
// inputs cast to it on the way in and the outputs cast back to float.
inline ir::Model in_half_type(ir::Model m, DataType t) {
  for (auto& [name, init] : m.graph.initializers)
    if (init.dtype() == DataType::kFloat) init = to_half(init, t);
  auto rename = [&](const std::string& from, const std::string& to, bool inputs) {
    for (auto& n : m.graph.nodes)
      for (auto& v : inputs ? n.inputs : n.outputs)
        if (v == from) v = to;
  };
  std::vector<ir::Node> casts_in, casts_out;
  for (const auto& in : m.graph.inputs) {
    rename(in.name, in.name + "_h", true);
    casts_in.push_back(op("Cast", {in.name}, {in.name + "_h"}, {attr_int("to", int64_t(t))}));
  }
  for (const auto& out : m.graph.outputs) {
    rename(out.name, out.name + "_h", false);
    rename(out.name, out.name + "_h", true);
    casts_out.push_back(op("Cast", {out.name + "_h"}, {out.name}, {attr_int("to", 1)}));
  }
  m.graph.nodes.insert(m.graph.nodes.begin(), casts_in.begin(), casts_in.end());
  m.graph.nodes.insert(m.graph.nodes.end(), casts_out.begin(), casts_out.end());
  return m;
}

}  // namespace tessera::test
