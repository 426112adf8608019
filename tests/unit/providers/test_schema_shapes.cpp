// The CPU kernels size their outputs with the schema's shape rules: for one
// node of each op whose kernel reads its rule, the kernel's output shapes are
// the rule's, and an input the rule rejects fails the kernel the same way.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ops/contrib_bodies.hpp"
#include "ops/schema.hpp"
#include "unit/kernel_test_util.hpp"

using namespace tessera;
using test::attr_int;
using test::attr_ints;
using test::attr_string;

namespace {

Value floats(Shape s) {
  Tensor t(DataType::kFloat, s);
  float* d = t.mutable_data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) d[i] = float(i % 7) - 3.0f;
  return Value(std::move(t));
}

Value ints(std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return Value(Tensor::from_vector<int64_t>(v, Shape{n}));
}

struct Case {
  std::string op;
  std::vector<Value> inputs;
  std::vector<ir::Attribute> attrs;
  int64_t opset;
  size_t outputs = 1;
};

// The rule's shapes for the case's node, built as run_node builds it.
ops::OutShapes rule_shapes(const Case& c) {
  ir::Node n;
  n.name = "test_" + c.op;
  n.op_type = c.op;
  n.attributes = c.attrs;
  std::vector<const Tensor*> in;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    n.inputs.push_back("in" + std::to_string(i));
    in.push_back(&c.inputs[i].tensor());
  }
  for (size_t i = 0; i < c.outputs; ++i) n.outputs.push_back("out" + std::to_string(i));
  return ops::output_shapes(ops::schema_of(n, c.opset), n, c.opset, in);
}

}  // namespace

TEST(SchemaShapes, CpuKernelsSizeOutputsByTheRule) {
  const std::vector<Case> cases = {
      {"Transpose", {floats({2, 3, 4})}, {attr_ints("perm", {2, 0, 1})}, 13},
      {"Transpose", {floats({2, 3, 4})}, {}, 13},
      {"Gather", {floats({4, 3}), ints({0, 3, 3})}, {attr_int("axis", 0)}, 13},
      {"MatMul", {floats({2, 1, 3, 4}), floats({5, 4, 2})}, {}, 13},
      {"MatMul", {floats({4}), floats({3, 4, 2})}, {}, 13},
      {"Gemm",
       {floats({4, 3}), floats({5, 4}), floats({5})},
       {attr_int("transA", 1), attr_int("transB", 1)},
       13},
      {"ReduceSum", {floats({2, 3, 4}), ints({-1})}, {attr_int("keepdims", 0)}, 13},
      {"ReduceMean", {floats({2, 3, 4})}, {attr_ints("axes", {0, 2})}, 17},
      {"ArgMax", {floats({2, 3, 4})}, {attr_int("axis", 1), attr_int("keepdims", 0)}, 13},
      {"Reshape", {floats({2, 3, 4}), ints({0, -1})}, {}, 14},
      {"Flatten", {floats({2, 3, 4})}, {attr_int("axis", -1)}, 13},
      {"Squeeze", {floats({1, 3, 1})}, {}, 13},
      {"Unsqueeze", {floats({3}), ints({0, 2})}, {}, 13},
      {"Shape", {floats({2, 3, 4})}, {attr_int("start", 1)}, 15},
      {"Tile", {floats({2, 3}), ints({2, 0})}, {}, 13},
      {"Expand", {floats({3, 1}), ints({2, 1, 4})}, {}, 13},
      {"MaxPool",
       {floats({1, 2, 8, 8})},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}), attr_int("ceil_mode", 1)},
       12},
      {"AveragePool",
       {floats({1, 2, 7, 7})},
       {attr_ints("kernel_shape", {2, 2}), attr_string("auto_pad", "SAME_LOWER")},
       19},
      {"Conv",
       {floats({1, 2, 9, 9}), floats({4, 2, 3, 3})},
       {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 0, 1, 0})},
       11},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    const ops::OutShapes want = rule_shapes(c);
    const auto got = test::run_node(c.op, c.inputs, c.attrs, c.opset, c.outputs);
    ASSERT_FALSE(want.empty());
    ASSERT_TRUE(want[0].has_value());
    EXPECT_EQ(got[0].tensor().shape(), *want[0]);
  }
}

TEST(SchemaShapes, CpuKernelsFailAsTheRuleDoes) {
  const std::vector<Case> bad = {
      {"Transpose", {floats({2, 3})}, {attr_ints("perm", {1, 1})}, 13},
      {"Gather", {floats({4, 3}), ints({0})}, {attr_int("axis", 2)}, 13},
      {"MatMul", {floats({2, 3}), floats({4, 2})}, {}, 13},
      {"ReduceSum", {floats({2, 3}), ints({1, -1})}, {}, 13},
      {"Squeeze", {floats({2, 3}), ints({1})}, {}, 13},
      {"Tile", {floats({2, 3}), ints({2, -1})}, {}, 13},
      {"Expand", {floats({3, 2}), ints({2, 4})}, {}, 13},
      {"MaxPool", {floats({1, 1, 2, 2})}, {attr_ints("kernel_shape", {3, 3})}, 12},
  };
  for (const Case& c : bad) {
    SCOPED_TRACE(c.op);
    std::string rule, kernel;
    try {
      rule_shapes(c);
    } catch (const Error& e) {
      rule = e.what();
    }
    try {
      test::run_node(c.op, c.inputs, c.attrs, c.opset, c.outputs);
    } catch (const Error& e) {
      kernel = e.what();
    }
    EXPECT_FALSE(rule.empty());
    EXPECT_EQ(kernel, rule);
  }
}

// The schema's first since-version of an op is the spec's; the CPU provider
// registers kernels from the first version of every op it runs (the
// com.microsoft ops that run as function bodies have entries, not kernels).
TEST(SchemaShapes, FirstVersionsMatchTheCpuRegistrations) {
  std::set<std::pair<std::string, std::string>> bodies;
  for (const auto& b : ops::contrib_bodies()) bodies.insert({b.domain, b.op_type});
  for (const auto& op : ops::contrib_ops_with_generated_bodies())
    bodies.insert({ops::kMicrosoftDomain, op});
  std::map<std::pair<std::string, std::string>, int64_t> cpu_first;
  for (const auto& e : cpu::cpu_kernel_registry().entries()) {
    const auto key = std::make_pair(e.def.domain, e.def.op_type);
    auto it = cpu_first.find(key);
    if (it == cpu_first.end() || it->second > e.def.since) cpu_first[key] = e.def.since;
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& s : ops::all_schemas()) {
    const auto key = std::make_pair(s.domain, s.op_type);
    if (!seen.insert(key).second) continue;  // the op's first entry
    auto it = cpu_first.find(key);
    if (it == cpu_first.end() && bodies.count(key)) continue;
    ASSERT_NE(it, cpu_first.end()) << s.op_type << " has no CPU kernel";
    if (s.since != it->second)
      ADD_FAILURE() << s.op_type << ": schema since " << s.since << ", CPU since " << it->second;
  }
}
