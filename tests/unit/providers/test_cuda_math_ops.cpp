// The CUDA math kernels (cuda_math_ops.cpp, cuda_binary_ops.cpp) against the
// CPU provider on the same inputs: unary math in float, float16, bfloat16 and
// double (Abs, Neg, Sign also on integers), IsNaN/IsInf/Not, the broadcasting
// binary ops on floats and integers (integer division of negative numbers,
// the most negative value by -1), Mod both ways, Pow with float and integer
// exponents, PRelu, BitShift, comparisons, logic and the variadic ops.
// Integer and bool outputs must be identical; float outputs agree within the
// tolerance of their type (the two sides use different math libraries), with
// NaN matching NaN and infinities matching exactly. Needs a CUDA device:
// without one every test here is skipped and says why.
#include <cmath>
#include <limits>

#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

const std::vector<DataType> kFloatTypes = {DataType::kFloat, DataType::kFloat16,
                                           DataType::kBFloat16, DataType::kDouble};

std::string name_of(DataType t) { return std::string(data_type_name(t)); }

// A float tensor of any of kFloatTypes holding `values` (rounded to t).
Tensor float_tensor(DataType t, std::vector<int64_t> dims, const std::vector<float>& values) {
  if (t != DataType::kDouble) return make_tensor(t, dims, values);
  std::vector<double> d(values.begin(), values.end());
  return Tensor::from_vector<double>(d, Shape(dims));
}

Tensor random_float(DataType t, std::vector<int64_t> dims, uint32_t seed, float lo, float hi) {
  return float_tensor(t, dims, random_values(count(dims), seed, lo, hi));
}

// Integers in [lo, hi] (excluding 0 when `nonzero`) of any integer type.
Tensor random_int(DataType t, std::vector<int64_t> dims, uint32_t seed, int64_t lo, int64_t hi,
                  bool nonzero = false) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> u(lo, hi);
  Tensor out(t, Shape(dims));
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    int64_t v = u(gen);
    if (nonzero && v == 0) v = 1;
    switch (t) {
      case DataType::kInt32:
        out.mutable_data<int32_t>()[i] = int32_t(v);
        break;
      case DataType::kInt64:
        out.mutable_data<int64_t>()[i] = v;
        break;
      case DataType::kInt8:
        out.mutable_data<int8_t>()[i] = int8_t(v);
        break;
      case DataType::kInt16:
        out.mutable_data<int16_t>()[i] = int16_t(v);
        break;
      case DataType::kUInt8:
        out.mutable_data<uint8_t>()[i] = uint8_t(v);
        break;
      case DataType::kUInt16:
        out.mutable_data<uint16_t>()[i] = uint16_t(v);
        break;
      case DataType::kUInt32:
        out.mutable_data<uint32_t>()[i] = uint32_t(v);
        break;
      case DataType::kUInt64:
        out.mutable_data<uint64_t>()[i] = uint64_t(v);
        break;
      case DataType::kBool:
        out.mutable_data<bool>()[i] = (v & 1) != 0;
        break;
      default:
        ADD_FAILURE() << "random_int: unsupported type " << name_of(t);
    }
  }
  return out;
}

Tensor i64s(std::vector<int64_t> v, std::vector<int64_t> dims) {
  return Tensor::from_vector<int64_t>(v, Shape(dims));
}
Tensor i32s(std::vector<int32_t> v, std::vector<int64_t> dims) {
  return Tensor::from_vector<int32_t>(v, Shape(dims));
}

Tolerance tolerance_of(DataType t) {
  if (t == DataType::kDouble) return {1e-12, 1e-14};
  return tolerance_for(t);
}

bool is_half(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }

// The CPU provider's outputs for `m`. Where the CPU's schema entry does not
// take a half type at the model's opset (most math ops take bfloat16 from
// opset 22 on, IsInf float16 from 20, Celu float alone), the same node runs
// on float32 copies of the half inputs and each output is rounded to the
// type the CUDA node made (`like`).
std::vector<Tensor> cpu_outputs(const OneNode& m, const std::vector<Value>& like) {
  bool half = false;
  for (const auto& vi : m.model.graph.inputs) half |= is_half(vi.type.elem_type);
  for (const auto& [name, t] : m.model.graph.initializers) half |= is_half(t.dtype());
  std::vector<Tensor> out;
  try {
    for (const Value& v : Session::create_from_model(m.model, {}, {{kCpu, {}}})->run(m.feeds))
      out.push_back(v.tensor());
    return out;
  } catch (const Error& e) {
    if (!half || std::string(e.what()).find("does not allow") == std::string::npos) throw;
  }
  OneNode f = m;
  for (auto& vi : f.model.graph.inputs)
    if (is_half(vi.type.elem_type)) vi.type.elem_type = DataType::kFloat;
  for (auto& [name, t] : f.model.graph.initializers)
    if (is_half(t.dtype())) t = as_float(t);
  for (auto& [name, v] : f.feeds)
    if (is_half(v.tensor().dtype())) v = Value(as_float(v.tensor()));
  const auto got = Session::create_from_model(f.model, {}, {{kCpu, {}}})->run(f.feeds);
  for (size_t i = 0; i < got.size(); ++i) {
    const Tensor& w = got[i].tensor();
    const DataType t = i < like.size() ? like[i].tensor().dtype() : w.dtype();
    if (w.dtype() != DataType::kFloat || !is_half(t)) {
      out.push_back(w);
      continue;
    }
    std::vector<float> values(size_t(w.num_elements()));
    for (size_t k = 0; k < values.size(); ++k) values[k] = w.data<float>()[k];
    out.push_back(make_tensor(t, w.shape().dims(), values));
  }
  return out;
}

// Runs `m` with [CUDA, CPU] (its node must run on CUDA) and with [CPU]
// alone on the same feeds (cpu_outputs); every output must have the same
// type and shape, integers and bools the same values, floats within their
// type's tolerance.
void expect_matches_cpu(const OneNode& m, const std::string& what, double tol_scale = 1.0) {
  auto cuda = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
  std::string reasons;
  ASSERT_EQ(assigned_provider(*cuda, &reasons), kCuda) << what << ": " << reasons;
  auto got = cuda->run(m.feeds);
  const std::vector<Tensor> want = cpu_outputs(m, got);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const Tensor& g = got[i].tensor();
    const Tensor& w = want[i];
    ASSERT_EQ(g.dtype(), w.dtype()) << what;
    ASSERT_EQ(g.shape(), w.shape()) << what;
    if (is_float_type(g.dtype())) {
      Tolerance tol = tolerance_of(g.dtype());
      tol.rtol *= tol_scale;
      tol.atol *= tol_scale;
      expect_close(g, w, tol, what);
      continue;
    }
    size_t bad = 0;
    for (int64_t k = 0; k < g.num_elements(); ++k)
      if (g.element_as_double(k) != w.element_as_double(k) && bad++ < 5)
        ADD_FAILURE() << what << ": element " << k << ": got " << g.element_as_double(k)
                      << ", want " << w.element_as_double(k);
    EXPECT_EQ(bad, 0u) << what << ": elements that differ";
  }
}

OneNode unary(const std::string& op, int64_t opset, const Tensor& x,
              std::vector<ir::Attribute> attrs = {}) {
  OneNode m(op, opset, std::move(attrs));
  m.input("x", x).output("y");
  return m;
}

OneNode binary(const std::string& op, int64_t opset, const Tensor& a, const Tensor& b,
               std::vector<ir::Attribute> attrs = {}) {
  OneNode m(op, opset, std::move(attrs));
  m.input("a", a).input("b", b).output("y");
  return m;
}

// Values where rounding and sign rules show: signed zeros, halves (ties of
// Round), infinities, NaN.
std::vector<float> edge_values() {
  const float inf = std::numeric_limits<float>::infinity();
  return {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 3.49f, -3.51f, inf, -inf, NAN};
}

struct UnaryCase {
  const char* op;
  int64_t opset;
  float lo, hi;  // the domain sampled
  bool edges;    // also the edge values (ops whose rules define them exactly)
};

}  // namespace

TEST(CudaMathOps, UnaryMathMatchesCpuInEveryFloatType) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<UnaryCase> cases = {
      {"Abs", 13, -4, 4, true},           {"Neg", 13, -4, 4, true},
      {"Sign", 13, -4, 4, true},          {"Exp", 13, -8, 8, false},
      {"Log", 13, 0.01f, 50, false},      {"Sqrt", 13, 0, 50, true},
      {"Reciprocal", 13, 0.1f, 4, true},  {"Floor", 13, -4, 4, true},
      {"Ceil", 13, -4, 4, true},          {"Round", 11, -4, 4, true},
      {"Sin", 7, -6, 6, false},           {"Cos", 7, -6, 6, false},
      {"Tan", 7, -1.2f, 1.2f, false},     {"Asin", 7, -0.99f, 0.99f, false},
      {"Acos", 7, -0.99f, 0.99f, false},  {"Atan", 7, -8, 8, false},
      {"Sinh", 9, -4, 4, false},          {"Cosh", 9, -4, 4, false},
      {"Asinh", 9, -8, 8, false},         {"Acosh", 9, 1, 8, false},
      {"Atanh", 9, -0.95f, 0.95f, false}, {"Softplus", 1, -10, 10, false},
      {"Softsign", 1, -8, 8, false},      {"Mish", 18, -8, 8, false},
      {"HardSwish", 14, -5, 5, false},    {"HardSigmoid", 6, -5, 5, false},
      {"Elu", 6, -4, 4, false},           {"Selu", 6, -4, 4, false},
      {"Celu", 12, -4, 4, false},         {"ThresholdedRelu", 10, -3, 3, false},
      {"Shrink", 9, -2, 2, false}};
  uint32_t seed = 1;
  for (const auto& c : cases)
    for (DataType t : kFloatTypes) {
      std::vector<float> v = random_values(61, seed++, c.lo, c.hi);
      if (c.edges)
        for (float e : edge_values())
          if (!(std::string(c.op) == "Reciprocal" && e == 0.0f)) v.push_back(e);
      const int64_t n = int64_t(v.size());
      expect_matches_cpu(unary(c.op, c.opset, float_tensor(t, {n}, v)),
                         std::string(c.op) + " " + name_of(t));
    }
  // Large inputs take many blocks of the grid-stride loop.
  expect_matches_cpu(unary("Exp", 13, random_float(DataType::kFloat16, {3, 70001}, 5, -3, 3)),
                     "Exp float16 [3, 70001]");
  // An empty input and a scalar.
  expect_matches_cpu(unary("Sqrt", 13, random_float(DataType::kFloat, {0, 3}, 6, 0, 1)),
                     "Sqrt of an empty tensor");
  expect_matches_cpu(unary("Cos", 7, float_tensor(DataType::kFloat, {}, {0.25f})),
                     "Cos of a scalar");
}

TEST(CudaMathOps, ParametricActivationsTakeTheirAttributes) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  struct Case {
    const char* op;
    int64_t opset;
    std::vector<ir::Attribute> attrs;
  };
  const std::vector<Case> cases = {
      {"HardSigmoid", 6, {attr_float("alpha", 0.3f), attr_float("beta", 0.4f)}},
      {"Elu", 6, {attr_float("alpha", 0.7f)}},
      {"Selu", 6, {attr_float("alpha", 1.5f), attr_float("gamma", 2.0f)}},
      {"Celu", 12, {attr_float("alpha", 2.0f)}},
      {"ThresholdedRelu", 10, {attr_float("alpha", 0.5f)}},
      {"Shrink", 9, {attr_float("lambd", 1.0f), attr_float("bias", 0.3f)}},
      {"Swish", 24, {attr_float("alpha", 0.8f)}},
      {"Swish", 24, {}}};
  for (const auto& c : cases)
    for (DataType t : kFloatTypes)
      expect_matches_cpu(unary(c.op, c.opset, random_float(t, {4, 33}, 9, -4, 4), c.attrs),
                         std::string(c.op) + " with attributes, " + name_of(t));
}

TEST(CudaMathOps, AbsNegSignOnIntegersWrapLikeTheCpu) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const int64_t lo64 = std::numeric_limits<int64_t>::min();
  const int32_t lo32 = std::numeric_limits<int32_t>::min();
  for (const char* op : {"Abs", "Neg", "Sign"}) {
    const int64_t opset = 13;
    expect_matches_cpu(unary(op, opset, i64s({0, 1, -1, 7, -9, lo64, lo64 + 1, 1LL << 40}, {8})),
                       std::string(op) + " int64 with the most negative value");
    expect_matches_cpu(unary(op, opset, i32s({0, 1, -1, 7, -9, lo32, lo32 + 1, 1 << 30}, {2, 4})),
                       std::string(op) + " int32 with the most negative value");
    for (DataType t : {DataType::kInt8, DataType::kInt16})
      expect_matches_cpu(unary(op, opset, random_int(t, {50}, 3, -128, 127)),
                         std::string(op) + " " + name_of(t));
  }
}

TEST(CudaMathOps, IsNaNIsInfAndNot) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  std::vector<float> v = edge_values();
  v.push_back(std::numeric_limits<float>::max());
  const int64_t n = int64_t(v.size());
  for (DataType t : kFloatTypes) {
    expect_matches_cpu(unary("IsNaN", 13, float_tensor(t, {n}, v)), "IsNaN " + name_of(t));
    for (int neg : {0, 1})
      for (int pos : {0, 1})
        expect_matches_cpu(
            unary("IsInf", 10, float_tensor(t, {n}, v),
                  {attr_int("detect_negative", neg), attr_int("detect_positive", pos)}),
            "IsInf " + name_of(t) + " negative=" + std::to_string(neg) +
                " positive=" + std::to_string(pos));
  }
  expect_matches_cpu(unary("Not", 1, random_int(DataType::kBool, {3, 17}, 4, 0, 1)), "Not");
}

TEST(CudaMathOps, ArithmeticBroadcastsOnFloatsAndIntegers) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // Equal shapes, a trailing vector, both sides broadcast, a scalar, and a
  // higher-rank side that is all ones.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {4}},          {{2, 1, 4}, {3, 1}},
      {{}, {2, 3}},           {{5, 1, 1, 6}, {1, 7, 1}}, {{1, 1, 1}, {3}}};
  uint32_t seed = 100;
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    for (const auto& [sa, sb] : shapes) {
      const std::string where =
          std::string(op) + " " + Shape(sa).to_string() + " " + Shape(sb).to_string() + " ";
      for (DataType t : kFloatTypes) {
        expect_matches_cpu(binary(op, 14, random_float(t, sa, seed, -4, 4),
                                  random_float(t, sb, seed + 1, 0.5f, 3)),
                           where + name_of(t));
        seed += 2;
      }
      // Negative dividends and divisors: integer Div truncates toward zero.
      for (DataType t : {DataType::kInt32, DataType::kInt64, DataType::kInt8, DataType::kUInt8}) {
        const bool u = t == DataType::kUInt8;
        expect_matches_cpu(binary(op, 14, random_int(t, sa, seed, u ? 0 : -100, 100),
                                  random_int(t, sb, seed + 1, u ? 1 : -9, 9, true)),
                           where + name_of(t));
        seed += 2;
      }
    }
  // Overflow wraps; the most negative value divided by -1 wraps too.
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    expect_matches_cpu(
        binary(op, 14, i64s({hi, lo, lo, hi, -7, 7}, {6}), i64s({1, -1, -1, 2, 2, -2}, {6})),
        std::string(op) + " int64 at the limits");
  // Float division by zero is infinity or NaN, not an error.
  expect_matches_cpu(binary("Div", 14, float_tensor(DataType::kDouble, {3}, {1, -1, 0}),
                            float_tensor(DataType::kDouble, {3}, {0, 0, 0})),
                     "Div double by zero");
}

TEST(CudaMathOps, IntegerDivisionByZeroFailsTheNode) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (const char* op : {"Div", "Mod"}) {
    OneNode m = binary(op, 13, i64s({4, 5, 6}, {3}), i64s({1, 0, 2}, {3}));
    auto cuda = Session::create_from_model(m.model, {}, {{kCuda, {{"error_on_failure", "1"}}}});
    ASSERT_EQ(assigned_provider(*cuda), kCuda) << op;
    std::string error;
    try {
      cuda->run(m.feeds);
    } catch (const Error& e) {
      error = e.what();
    }
    expect_has(error, "integer division by zero");
    // The session stays usable: a good divisor runs.
    OneNode ok = binary(op, 13, i64s({4, 5, 6}, {3}), i64s({1, 3, 2}, {3}));
    expect_matches_cpu(ok, std::string(op) + " after a failed run");
  }
}

TEST(CudaMathOps, ModFollowsTheDivisorOrTheDividendSign) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (int fmod : {0, 1}) {
    const std::string how = " fmod=" + std::to_string(fmod);
    for (DataType t : {DataType::kInt32, DataType::kInt64, DataType::kInt16})
      expect_matches_cpu(binary("Mod", 13, random_int(t, {3, 20}, 7, -50, 50),
                                random_int(t, {20}, 8, -7, 7, true), {attr_int("fmod", fmod)}),
                         "Mod " + name_of(t) + how);
    expect_matches_cpu(binary("Mod", 13, i64s({std::numeric_limits<int64_t>::min(), -7, 7}, {3}),
                              i64s({-1, 3, -3}, {3}), {attr_int("fmod", fmod)}),
                       "Mod int64 by -1 and mixed signs" + how);
    for (DataType t : kFloatTypes)
      expect_matches_cpu(binary("Mod", 13, random_float(t, {4, 9}, 9, -10, 10),
                                random_float(t, {4, 1}, 10, 0.5f, 3), {attr_int("fmod", fmod)}),
                         "Mod " + name_of(t) + how);
  }
}

TEST(CudaMathOps, PowTakesFloatAndIntegerExponents) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kFloatTypes) {
    expect_matches_cpu(
        binary("Pow", 15, random_float(t, {3, 8}, 11, 0.1f, 3), random_float(t, {8}, 12, -2, 2)),
        "Pow " + name_of(t) + " ^ " + name_of(t));
    expect_matches_cpu(binary("Pow", 15, random_float(t, {3, 8}, 13, -3, 3),
                              i64s({0, 1, 2, 3, -1, -2, 4, 5}, {8})),
                       "Pow " + name_of(t) + " ^ int64 exponent");
    expect_matches_cpu(binary("Pow", 15, random_float(t, {2, 5}, 14, -3, 3), i32s({2}, {})),
                       "Pow " + name_of(t) + " ^ int32 scalar");
  }
  // Integer bases: by squaring (wrapping, negative exponents give 1, -1 or
  // 0), or through double with a float exponent.
  for (DataType t : {DataType::kInt32, DataType::kInt64}) {
    expect_matches_cpu(
        binary("Pow", 15, random_int(t, {4, 6}, 33, -5, 5), i64s({0, 1, 2, 3, -1, 63}, {6})),
        "Pow " + name_of(t) + " ^ int64");
    expect_matches_cpu(binary("Pow", 15, random_int(t, {4, 6}, 34, 0, 9),
                              float_tensor(DataType::kFloat, {6}, {0.5f, 2, 1.5f, -1, 3, 0})),
                       "Pow " + name_of(t) + " ^ float");
  }
  // Square roots and reciprocals at signed zeros and infinities.
  const float inf = std::numeric_limits<float>::infinity();
  for (float e : {0.5f, -1.0f, 2.0f, 3.0f})
    expect_matches_cpu(
        binary("Pow", 15, float_tensor(DataType::kFloat, {5}, {0, -0.0f, inf, -inf, 4}),
               float_tensor(DataType::kFloat, {}, {e})),
        "Pow float edges ^ " + std::to_string(e));
}

TEST(CudaMathOps, PReluBroadcastsTheSlope) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : kFloatTypes) {
    expect_matches_cpu(binary("PRelu", 16, random_float(t, {2, 3, 4, 5}, 15, -3, 3),
                              random_float(t, {3, 1, 1}, 16, 0, 1)),
                       "PRelu per channel " + name_of(t));
    expect_matches_cpu(binary("PRelu", 16, random_float(t, {2, 3, 4, 5}, 17, -3, 3),
                              random_float(t, {5}, 18, 0, 1)),
                       "PRelu trailing slope " + name_of(t));
    expect_matches_cpu(
        binary("PRelu", 9, random_float(t, {4, 6}, 19, -3, 3), random_float(t, {1}, 20, 0, 1)),
        "PRelu one slope " + name_of(t));
  }
}

TEST(CudaMathOps, BitShiftDropsBitsShiftedOut) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (const char* dir : {"LEFT", "RIGHT"})
    for (DataType t : {DataType::kUInt8, DataType::kUInt32, DataType::kUInt64}) {
      const int64_t bits = int64_t(data_type_bits(t));
      expect_matches_cpu(
          binary("BitShift", 11, random_int(t, {4, 10}, 21, 0, 255),
                 random_int(t, {10}, 22, 0, bits + 2), {attr_string("direction", dir)}),
          std::string("BitShift ") + dir + " " + name_of(t));
    }
}

TEST(CudaMathOps, ComparisonsGiveBools) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<float> a = {0.0f, -0.0f, 1.0f, NAN, 2.0f, -1.0f, INFINITY, 3.0f};
  const std::vector<float> b = {-0.0f, 0.0f, NAN, NAN, 1.0f, -1.0f, INFINITY, 4.0f};
  for (const auto& [op, opset] :
       std::vector<std::pair<const char*, int64_t>>{{"Equal", 13},
                                                    {"Less", 13},
                                                    {"Greater", 13},
                                                    {"LessOrEqual", 16},
                                                    {"GreaterOrEqual", 16}}) {
    for (DataType t : kFloatTypes) {
      expect_matches_cpu(binary(op, opset, float_tensor(t, {8}, a), float_tensor(t, {8}, b)),
                         std::string(op) + " edges " + name_of(t));
      // Few distinct values, so equal pairs occur.
      std::vector<float> x = random_values(24, 23, -2, 2), y = random_values(4, 24, -2, 2);
      for (float& v : x) v = std::round(v);
      for (float& v : y) v = std::round(v);
      expect_matches_cpu(binary(op, opset, float_tensor(t, {6, 4}, x), float_tensor(t, {4}, y)),
                         std::string(op) + " broadcast " + name_of(t));
    }
    for (DataType t : {DataType::kInt32, DataType::kInt64, DataType::kUInt8})
      expect_matches_cpu(
          binary(op, opset, random_int(t, {3, 1, 5}, 25, 0, 4), random_int(t, {4, 1}, 26, 0, 4)),
          std::string(op) + " " + name_of(t));
  }
  expect_matches_cpu(binary("Equal", 13, random_int(DataType::kBool, {2, 8}, 27, 0, 1),
                            random_int(DataType::kBool, {8}, 28, 0, 1)),
                     "Equal bool");
}

TEST(CudaMathOps, LogicalOpsBroadcastBools) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (const char* op : {"And", "Or", "Xor"}) {
    expect_matches_cpu(binary(op, 7, random_int(DataType::kBool, {3, 1, 7}, 29, 0, 1),
                              random_int(DataType::kBool, {4, 7}, 30, 0, 1)),
                       std::string(op) + " broadcast");
    expect_matches_cpu(binary(op, 7, random_int(DataType::kBool, {}, 31, 0, 1),
                              random_int(DataType::kBool, {9}, 32, 0, 1)),
                       std::string(op) + " with a scalar");
  }
}

TEST(CudaMathOps, VariadicOpsFoldEveryInput) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::vector<int64_t>> shapes = {{2, 3, 4}, {4}, {2, 1, 1}, {3, 1}, {}};
  uint32_t seed = 200;
  for (const char* op : {"Sum", "Mean", "Max", "Min"})
    for (size_t count : {size_t(1), size_t(2), size_t(3), size_t(5)}) {
      std::vector<DataType> types = kFloatTypes;
      if (std::string(op) == "Max" || std::string(op) == "Min")
        types.insert(types.end(), {DataType::kInt32, DataType::kInt64, DataType::kUInt8});
      for (DataType t : types) {
        OneNode m(op, 13);
        for (size_t i = 0; i < count; ++i)
          m.input(str_cat("x", i), is_float_type(t) ? random_float(t, shapes[i], seed++, -5, 5)
                                                    : random_int(t, shapes[i], seed++, 0, 100));
        m.output("y");
        expect_matches_cpu(m, std::string(op) + " of " + std::to_string(count) + " " + name_of(t));
      }
    }
  // A NaN in any input wins Max and Min.
  for (const char* op : {"Max", "Min"}) {
    OneNode m(op, 13);
    m.input("a", float_tensor(DataType::kFloat, {4}, {NAN, 1, 2, -0.0f}))
        .input("b", float_tensor(DataType::kFloat, {4}, {1, NAN, 3, 0.0f}))
        .input("c", float_tensor(DataType::kFloat, {4}, {2, 0, NAN, 0.0f}))
        .output("y");
    expect_matches_cpu(m, std::string(op) + " with NaN");
  }
}

TEST(CudaMathOps, BitwiseOpsOnEveryIntegerType) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  for (DataType t : {DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64,
                     DataType::kUInt8, DataType::kUInt32, DataType::kUInt64}) {
    for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
      expect_matches_cpu(binary(op, 18, random_int(t, {3, 1, 6}, 35, -1000, 1000),
                                random_int(t, {4, 6}, 36, -1000, 1000)),
                         std::string(op) + " " + name_of(t));
    expect_matches_cpu(unary("BitwiseNot", 18, random_int(t, {5, 7}, 37, -1000, 1000)),
                       "BitwiseNot " + name_of(t));
  }
}

TEST(CudaMathOps, CastLikeTakesTheSecondInputsType) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<float> v = {0.0f, -0.0f, 1.5f, -2.5f, 70000.0f, 3e9f, NAN, INFINITY, -7.9f};
  const int64_t n = int64_t(v.size());
  for (DataType from : {DataType::kFloat, DataType::kDouble})
    for (DataType to : {DataType::kFloat16, DataType::kBFloat16, DataType::kInt32, DataType::kInt64,
                        DataType::kUInt8, DataType::kBool, DataType::kDouble})
      expect_matches_cpu(binary("CastLike", 19, float_tensor(from, {n}, v), Tensor(to, Shape{1})),
                         "CastLike " + name_of(from) + " like " + name_of(to));
}

TEST(CudaMathOps, QuantizeAndDequantizeMatchTheCpu) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  // x values on and near the rounding ties (x / scale = k + 0.5), beyond the
  // output's range, NaN and infinities.
  std::vector<float> v = random_values(21, 38, -300, 300);
  for (float e :
       {0.0f, -0.0f, 0.25f, 0.75f, -0.25f, 1.25f, 63.75f, 1e6f, -1e6f, NAN, INFINITY, -INFINITY})
    v.push_back(e);
  const int64_t n = int64_t(v.size());  // 33 = 3 * 11
  for (DataType xt : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16})
    for (DataType yt : {DataType::kUInt8, DataType::kInt8, DataType::kInt16, DataType::kUInt16}) {
      const std::string what = name_of(xt) + " to " + name_of(yt);
      OneNode per_tensor("QuantizeLinear", 21);
      per_tensor.input("x", float_tensor(xt, {n}, v))
          .input("s", float_tensor(xt, {}, {0.5f}))
          .input("z", random_int(yt, {}, 39, 0, 100))
          .output("y");
      expect_matches_cpu(per_tensor, "QuantizeLinear per tensor " + what);
      OneNode per_axis("QuantizeLinear", 21, {attr_int("axis", 0)});
      per_axis.input("x", float_tensor(xt, {3, 11}, v))
          .input("s", float_tensor(xt, {3}, {0.5f, 0.25f, 3.0f}))
          .input("z", random_int(yt, {3}, 40, 0, 100))
          .output("y");
      expect_matches_cpu(per_axis, "QuantizeLinear axis 0 " + what);
    }
  OneNode no_zero("QuantizeLinear", 13);
  no_zero.input("x", float_tensor(DataType::kFloat, {n}, v))
      .input("s", float_tensor(DataType::kFloat, {}, {2.0f}))
      .output("y");
  expect_matches_cpu(no_zero, "QuantizeLinear without a zero point (uint8)");
  for (DataType xt :
       {DataType::kUInt8, DataType::kInt8, DataType::kInt16, DataType::kUInt16, DataType::kInt32})
    for (DataType st : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}) {
      const std::string what = name_of(xt) + " to " + name_of(st);
      OneNode per_tensor("DequantizeLinear", 21);
      per_tensor.input("x", random_int(xt, {2, 3, 4}, 41, -200, 200))
          .input("s", float_tensor(st, {}, {0.37f}))
          .input("z", random_int(xt, {}, 42, -50, 50))
          .output("y");
      expect_matches_cpu(per_tensor, "DequantizeLinear per tensor " + what);
      OneNode per_axis("DequantizeLinear", 21);  // axis 1 by default
      per_axis.input("x", random_int(xt, {2, 3, 4}, 43, -200, 200))
          .input("s", float_tensor(st, {3}, {0.1f, 2.0f, 0.03f}))
          .input("z", random_int(xt, {3}, 44, -50, 50))
          .output("y");
      expect_matches_cpu(per_axis, "DequantizeLinear axis 1 " + what);
    }
}

TEST(CudaMathOps, ClipWithBoundsGivenAtRunTime) {
  if (auto why = no_device(); !why.empty()) GTEST_SKIP() << why;
  std::vector<float> v = random_values(40, 45, -5, 5);
  for (float e : {NAN, INFINITY, -INFINITY, -0.0f}) v.push_back(e);
  const int64_t n = int64_t(v.size());
  for (DataType t : kFloatTypes)
    for (int which = 0; which < 3; ++which) {  // both bounds, only min, only max
      OneNode m("Clip", 13);
      m.input("x", float_tensor(t, {4, n / 4}, v));
      if (which == 2)
        m.omitted();
      else
        m.input("lo", float_tensor(t, {}, {-1.5f}));
      if (which != 1) m.input("hi", float_tensor(t, {}, {2.25f}));
      m.output("y");
      expect_matches_cpu(m, "Clip " + name_of(t) + " bounds " + std::to_string(which));
    }
  for (DataType t : {DataType::kInt32, DataType::kInt64, DataType::kInt8, DataType::kUInt8}) {
    const bool u = t == DataType::kUInt8;
    OneNode m("Clip", 13);
    m.input("x", random_int(t, {3, 9}, 46, u ? 0 : -100, 100))
        .input("lo", random_int(t, {}, 47, u ? 10 : -20, u ? 10 : -20))
        .input("hi", random_int(t, {}, 48, 30, 30))
        .output("y");
    expect_matches_cpu(m, "Clip " + name_of(t));
  }
}
