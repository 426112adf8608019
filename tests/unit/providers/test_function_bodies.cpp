// Function-bodied ops run through their spec body when no provider has a
// kernel. A test-only provider has every CPU kernel except those of the ops in
// the body table; each case runs once through the CPU kernel and once through
// that provider (so through the body), and the outputs must agree.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ep/provider_registry.hpp"
#include "ops/function_bodies.hpp"
#include "providers/cpu/cpu_provider.hpp"
#include "runtime/session.hpp"

namespace tessera::test {
namespace {

const std::string kNoFunctionKernels = "TestNoFunctionOpKernels";

class NoFunctionKernelsProvider : public ep::ExecutionProvider {
 public:
  NoFunctionKernelsProvider() {
    std::set<std::string> removed;
    for (const auto& b : ops::function_bodies()) removed.insert(b.op_type);
    for (const auto& e : cpu::cpu_kernel_registry().entries())
      if (!removed.count(e.def.op_type)) registry_.add(e.def, e.factory);
  }
  const std::string& name() const override { return kNoFunctionKernels; }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return default_cpu_allocator(); }
  const ep::KernelRegistry& kernel_registry() const override { return registry_; }

 private:
  MemoryInfo info_ = cpu_memory_info();
  ep::KernelRegistry registry_;
};

class NoFunctionKernelsFactory : public ep::ProviderFactory {
 public:
  const std::string& name() const override { return kNoFunctionKernels; }
  bool is_available(std::string*) const override { return true; }
  std::shared_ptr<ep::ExecutionProvider> create(const ep::ProviderOptions&) const override {
    return std::make_shared<NoFunctionKernelsProvider>();
  }
};

void register_test_provider() {
  static bool done = [] {
    ep::ProviderRegistry::instance().add(std::make_shared<NoFunctionKernelsFactory>());
    return true;
  }();
  (void)done;
}

ir::Attribute fattr(const std::string& name, float v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloat;
  a.f = v;
  return a;
}
ir::Attribute iattr(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInt;
  a.i = v;
  return a;
}
ir::Attribute sattr(const std::string& name, const std::string& v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kString;
  a.s = v;
  return a;
}
ir::Attribute intsattr(const std::string& name, std::vector<int64_t> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInts;
  a.ints = std::move(v);
  return a;
}

// An undefined Value is an omitted optional input.
struct Case {
  std::string op;
  int64_t opset;
  std::vector<Value> inputs;
  std::vector<ir::Attribute> attrs;
  size_t outputs = 1;
};

ir::Model one_node_model(const Case& c) {
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports.push_back({"", c.opset});
  ir::Node n;
  n.name = "the_" + c.op;
  n.op_type = c.op;
  n.attributes = c.attrs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (c.inputs[i].is_none()) {
      n.inputs.push_back("");
      continue;
    }
    std::string name = "in" + std::to_string(i);
    n.inputs.push_back(name);
    std::vector<ir::Dim> dims;
    for (int64_t d : c.inputs[i].tensor().shape().dims()) dims.push_back(ir::Dim{d, ""});
    m.graph.inputs.push_back({name, ir::TypeInfo::tensor(c.inputs[i].tensor().dtype(), dims), ""});
  }
  for (size_t k = 0; k < c.outputs; ++k) {
    n.outputs.push_back("out" + std::to_string(k));
    m.graph.outputs.push_back({n.outputs.back(), ir::TypeInfo(), ""});
  }
  m.graph.nodes.push_back(std::move(n));
  return m;
}

std::vector<std::pair<std::string, Value>> feeds_of(const Case& c) {
  std::vector<std::pair<std::string, Value>> feeds;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    if (!c.inputs[i].is_none()) feeds.emplace_back("in" + std::to_string(i), c.inputs[i]);
  return feeds;
}

std::unique_ptr<Session> function_session(const Case& c) {
  register_test_provider();
  SessionOptions o;
  o.disable_cpu_fallback = true;
  return Session::create_from_model(one_node_model(c), o, {{kNoFunctionKernels, {}}});
}

void expect_same(const Value& want, const Value& got, const std::string& what, double tol) {
  const Tensor& a = want.tensor();
  const Tensor& b = got.tensor();
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  ASSERT_EQ(a.shape(), b.shape()) << what;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    double x = 0, y = 0;
    switch (a.dtype()) {
      case DataType::kFloat:
        x = a.data<float>()[i], y = b.data<float>()[i];
        break;
      case DataType::kDouble:
        x = a.data<double>()[i], y = b.data<double>()[i];
        break;
      case DataType::kInt64:
        x = double(a.data<int64_t>()[i]), y = double(b.data<int64_t>()[i]);
        break;
      case DataType::kInt32:
        x = a.data<int32_t>()[i], y = b.data<int32_t>()[i];
        break;
      case DataType::kBool:
        x = a.data<bool>()[i], y = b.data<bool>()[i];
        break;
      default:
        FAIL() << what << ": no comparison for " << data_type_name(a.dtype());
    }
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(y)) << what << " at " << i;
    } else {
      EXPECT_NEAR(y, x, tol * std::max(1.0, std::fabs(x))) << what << " at " << i;
    }
  }
}

// Runs `c` through the kernel and through the body; both must agree, and the
// body run must report the expansion.
void check_case(const Case& c, double tol = 1e-5) {
  std::string what = str_cat(c.op, "-", c.opset);
  auto kernel = Session::create_from_model(one_node_model(c));
  EXPECT_TRUE(kernel->expanded_ops().empty()) << what << " has a CPU kernel";
  auto body = function_session(c);
  ASSERT_FALSE(body->expanded_ops().empty()) << what;
  EXPECT_EQ(body->expanded_ops()[0].op_type, c.op);
  EXPECT_EQ(body->expanded_ops()[0].node_name, "the_" + c.op);
  for (const auto& n : body->node_assignments()) EXPECT_NE(n.op_type, c.op) << what;
  auto want = kernel->run(feeds_of(c));
  auto got = body->run(feeds_of(c));
  ASSERT_EQ(want.size(), got.size());
  for (size_t k = 0; k < want.size(); ++k)
    expect_same(want[k], got[k], str_cat(what, " output ", k), tol);
}

// Inputs that include 0, values on both sides of common thresholds and a spread.
std::vector<std::vector<float>> float_inputs() {
  return {{-3.f, -1.5f, -0.5f, 0.f, 0.25f, 0.5f, 1.f, 2.5f, 4.f},
          {-0.6f, 0.6f, -1.f, 1.f, 0.59f, -0.59f, 0.3f, -0.3f, 0.f},
          {10.f, -10.f, 7.5f, -7.5f, 0.001f, -0.001f, 3.f, -3.f, 1e-3f}};
}

Value fv(std::vector<float> v, Shape s) {
  return Value(Tensor::from_vector<float>(v, std::move(s)));
}

TEST(FunctionBodies, ElementwiseActivationsMatchTheirKernels) {
  struct Op {
    const char* op;
    int64_t opset;
    std::vector<ir::Attribute> attrs;
  };
  std::vector<Op> ops = {
      {"Celu", 18, {fattr("alpha", 1.5f)}},
      {"Celu", 18, {}},
      {"Elu", 18, {fattr("alpha", 0.7f)}},
      {"Selu", 18, {}},
      {"Selu", 18, {fattr("alpha", 1.2f), fattr("gamma", 0.9f)}},
      {"LeakyRelu", 18, {fattr("alpha", 0.2f)}},
      {"ThresholdedRelu", 18, {fattr("alpha", 0.3f)}},
      {"HardSigmoid", 18, {fattr("alpha", 0.3f), fattr("beta", 0.4f)}},
      {"HardSwish", 18, {}},
      {"Softsign", 18, {}},
      {"Softplus", 18, {}},
      {"Mish", 18, {}},
      {"Swish", 24, {fattr("alpha", 0.8f)}},
      {"Gelu", 20, {}},
      {"Gelu", 20, {sattr("approximate", "tanh")}},
      {"Shrink", 18, {fattr("lambd", 0.6f), fattr("bias", 0.2f)}},
      {"Shrink", 18, {}},
  };
  for (const auto& op : ops)
    for (const auto& x : float_inputs())
      check_case({op.op, op.opset, {fv(x, Shape{3, 3})}, op.attrs}, 1e-5);
}

TEST(FunctionBodies, PReluBroadcastsItsSlope) {
  for (const auto& x : float_inputs())
    check_case({"PRelu", 18, {fv(x, Shape{3, 3}), fv({0.1f, -0.5f, 2.f}, Shape{3})}, {}});
}

TEST(FunctionBodies, ComparisonsIncludingNaNAndEquality) {
  float nan = std::nanf("");
  Value a = fv({1, 2, 3, nan, 5, -0.f}, Shape{2, 3});
  Value b = fv({1, 3, 2, 1, nan, 0.f}, Shape{2, 3});
  Value scalar = fv({2}, Shape{});
  for (const char* op : {"GreaterOrEqual", "LessOrEqual"}) {
    check_case({op, 18, {a, b}, {}});
    check_case({op, 18, {a, scalar}, {}});
    check_case({op,
                18,
                {Value(Tensor::from_vector<int64_t>({INT64_MIN, -1, 0, INT64_MAX}, Shape{4})),
                 Value(Tensor::from_vector<int64_t>({INT64_MIN, 0, 0, INT64_MAX - 1}, Shape{4}))},
                {}});
  }
}

TEST(FunctionBodies, ClipWithEachCombinationOfBounds) {
  Value lo = fv({-0.5f}, Shape{});
  Value hi = fv({1.f}, Shape{});
  for (const auto& x : float_inputs()) {
    Value xv = fv(x, Shape{9});
    check_case({"Clip", 18, {xv, lo, hi}, {}});
    check_case({"Clip", 18, {xv, Value(), hi}, {}});
    check_case({"Clip", 18, {xv, lo}, {}});
    check_case({"Clip", 18, {xv}, {}});
    check_case({"Clip", 10, {xv}, {fattr("min", -0.25f), fattr("max", 0.75f)}});
  }
}

TEST(FunctionBodies, RangeCountsLikeTheSpec) {
  auto f = [](float v) { return fv({v}, Shape{}); };
  auto i = [](int64_t v) { return Value(Tensor::from_vector<int64_t>({v}, Shape{})); };
  check_case({"Range", 18, {f(1.f), f(5.5f), f(0.5f)}, {}});
  check_case({"Range", 18, {f(10.f), f(4.f), f(-2.f)}, {}});
  check_case({"Range", 18, {f(3.f), f(3.f), f(1.f)}, {}});  // empty
  check_case({"Range", 18, {i(3), i(9), i(3)}, {}});
  check_case({"Range", 18, {i(10), i(4), i(-2)}, {}});
  check_case({"Range", 18, {i(0), i(-5), i(1)}, {}});  // negative count: empty
}

TEST(FunctionBodies, NormalizationsMatchTheirKernels) {
  std::vector<float> x;
  for (int k = 0; k < 24; ++k) x.push_back(std::sin(float(k)) * 3.f + float(k % 5));
  Value xv = fv(x, Shape{2, 3, 4});
  Value scale4 = fv({0.5f, 1.f, 1.5f, -2.f}, Shape{4});
  Value bias4 = fv({0.1f, 0.f, -0.3f, 2.f}, Shape{4});
  std::vector<float> s12(12), b12(12);
  for (int k = 0; k < 12; ++k)
    s12[size_t(k)] = 0.25f * float(k) - 1.f, b12[size_t(k)] = 0.1f * float(k);
  // With and without bias, the optional outputs, a positive and a negative axis.
  check_case({"LayerNormalization", 18, {xv, scale4, bias4}, {}, 3}, 1e-4);
  check_case({"LayerNormalization", 18, {xv, scale4}, {fattr("epsilon", 1e-3f)}, 1}, 1e-4);
  check_case({"LayerNormalization",
              18,
              {xv, fv(s12, Shape{3, 4}), fv(b12, Shape{3, 4})},
              {iattr("axis", 1)},
              3},
             1e-4);
  check_case({"LayerNormalization", 18, {xv, fv(s12, Shape{3, 4})}, {iattr("axis", -2)}, 1}, 1e-4);
  check_case({"RMSNormalization", 23, {xv, scale4}, {}}, 1e-4);
  check_case({"RMSNormalization", 23, {xv, fv(s12, Shape{3, 4})}, {iattr("axis", 1)}}, 1e-4);
}

TEST(FunctionBodies, ReductionsWithAxesInput) {
  std::vector<float> x;
  for (int k = 0; k < 24; ++k) x.push_back(std::cos(float(k)) * 2.f + 0.5f);
  Value xv = fv(x, Shape{2, 3, 4});
  Value axes = Value(Tensor::from_vector<int64_t>({1, -1}, Shape{2}));
  for (const char* op : {"ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSumExp"}) {
    check_case({op, 18, {xv, axes}, {}}, 1e-5);
    check_case({op, 18, {xv, axes}, {iattr("keepdims", 0)}}, 1e-5);
    check_case({op, 18, {xv}, {}}, 1e-5);  // axes omitted: all of them
  }
  Value pos = fv({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  check_case({"ReduceLogSum", 18, {pos, Value(Tensor::from_vector<int64_t>({0}, Shape{1}))}, {}});
}

// Two bodies: axes as an attribute of ReduceMean (15-17), as an input (18+).
TEST(FunctionBodies, MeanVarianceNormalizationBodiesForBothReduceMeanForms) {
  std::vector<float> x;
  for (int k = 0; k < 36; ++k) x.push_back(std::sin(float(k) * 0.7f) * 4.f + float(k % 3));
  for (int64_t opset : {15, 18}) {
    Case c{"MeanVarianceNormalization", opset, {fv(x, Shape{2, 3, 3, 2})}, {}};
    check_case(c, 1e-4);
    EXPECT_EQ(function_session(c)->expanded_ops()[0].body,
              str_cat("MeanVarianceNormalization-", opset));
    c.attrs = {intsattr("axes", {1, 2})};
    check_case(c, 1e-4);
  }
}

TEST(FunctionBodies, ExpansionIsVisibleInTheReportAndNests) {
  Case c{"HardSwish", 18, {fv({-4, -1, 0, 1, 4, 2}, Shape{2, 3})}, {}};
  auto s = function_session(c);
  // HardSwish's body uses HardSigmoid, which the provider lacks too.
  ASSERT_EQ(s->expanded_ops().size(), 2u);
  EXPECT_EQ(s->expanded_ops()[0].op_type, "HardSwish");
  EXPECT_EQ(s->expanded_ops()[0].depth, 0);
  EXPECT_EQ(s->expanded_ops()[1].op_type, "HardSigmoid");
  EXPECT_EQ(s->expanded_ops()[1].depth, 1);
  auto report = s->partition_report();
  std::string text = report.to_text();
  EXPECT_NE(text.find("HardSwish (node 'the_HardSwish'): body HardSwish-14"), std::string::npos)
      << text;
  EXPECT_NE(text.find("[from HardSwish (node 'the_HardSwish') via body HardSwish-14]"),
            std::string::npos)
      << text;
  EXPECT_NE(report.to_json().find("\"expanded\":[{\"node\":\"the_HardSwish\""), std::string::npos);
}

TEST(FunctionBodies, NoBodyAtTheModelsOpsetStillFailsClearly) {
  // Softsign's table body needs CastLike (opset 15); at 13 there is none.
  Case c{"Softsign", 13, {fv({1, 2}, Shape{2})}, {}};
  try {
    function_session(c);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotImplemented);
    EXPECT_NE(std::string(e.what()).find("Softsign"), std::string::npos) << e.what();
  }
}

TEST(FunctionBodies, TableIsKeyedByOpsetAndAttribute) {
  std::set<std::string> ops;
  for (const auto& b : ops::function_bodies()) ops.insert(b.op_type);
  EXPECT_GE(ops.size(), 12u);
  ir::Node gelu;
  gelu.op_type = "Gelu";
  EXPECT_EQ(ops::find_function_body(gelu, 19), nullptr);
  ASSERT_NE(ops::find_function_body(gelu, 20), nullptr);
  EXPECT_EQ(ops::find_function_body(gelu, 20)->when_value, "none");
  gelu.attributes.push_back(sattr("approximate", "tanh"));
  EXPECT_EQ(ops::find_function_body(gelu, 21)->when_value, "tanh");
  ir::Node range;
  range.op_type = "Range";
  EXPECT_NE(ops::find_function_body(range, 26), nullptr);
  EXPECT_EQ(ops::find_function_body(range, 27), nullptr);  // Range-27 added stash_type
  ir::Node clip;
  clip.op_type = "Clip";
  EXPECT_EQ(ops::find_function_body(clip, 10)->function.inputs.size(), 1u);
  EXPECT_EQ(ops::find_function_body(clip, 11)->function.inputs.size(), 3u);
}

}  // namespace
}  // namespace tessera::test
