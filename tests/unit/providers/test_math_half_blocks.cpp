// float16 and bfloat16 element-wise ops run the float loops on blocks widened
// and rounded back: each result is the float kernel's result on the widened
// inputs, rounded to the half type, bit for bit (NaN as NaN), on lengths that
// end in a partial block and a partial vector, with infinities, NaN, -0 and
// half subnormals among the inputs.
#include <cmath>
#include <cstring>
#include <limits>

#include "unit/providers/nn_test_helpers.hpp"

namespace tessera::test::nn {
namespace {

uint16_t to_half(DataType t, float v) {
  return t == DataType::kFloat16 ? Float16::from_float(v) : BFloat16::from_float(v);
}
float from_half(DataType t, uint16_t h) {
  return t == DataType::kFloat16 ? Float16::to_float(h) : float(BFloat16::from_bits(h));
}

// n values of the half type (as a tensor of shape s) and the same values as
// floats.
std::pair<Tensor, Tensor> inputs(DataType t, int64_t n, uint32_t seed, const Shape& s) {
  std::vector<float> v = random_floats(size_t(n), seed, -4.f, 4.f);
  const float specials[] = {std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            -0.f,
                            3e-6f,
                            -1e-7f,
                            0.f};
  for (size_t i = 0; i < v.size() && i < 7 * 97; i += 97) v[i] = specials[(i / 97) % 7];
  Tensor h(t, s);
  auto* bits = static_cast<uint16_t*>(h.mutable_raw_data());
  std::vector<float> w(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    bits[i] = to_half(t, v[i]);
    w[i] = from_half(t, bits[i]);
  }
  return {std::move(h), f32(w, s)};
}

void expect_rounded(const Value& got, const Value& want, DataType t) {
  ASSERT_EQ(got.tensor().dtype(), t);
  ASSERT_EQ(got.tensor().shape(), want.tensor().shape());
  const auto* g = static_cast<const uint16_t*>(got.tensor().raw_data());
  const float* w = want.tensor().data<float>();
  for (int64_t i = 0; i < want.tensor().num_elements(); ++i) {
    if (std::isnan(w[i])) {
      ASSERT_TRUE(std::isnan(from_half(t, g[i]))) << "at " << i;
      continue;
    }
    ASSERT_EQ(g[i], to_half(t, w[i])) << "at " << i << " (float result " << w[i] << ")";
  }
}

const int64_t kLengths[] = {1, 7, 1023, 1025, 3001};

TEST(MathHalfBlocks, UnaryOpsRoundTheFloatResult) {
  const std::vector<std::pair<std::string, std::vector<ir::Attribute>>> ops = {
      {"Relu", {}},    {"Abs", {}},  {"Neg", {}},  {"Sqrt", {}},
      {"Sigmoid", {}}, {"Exp", {}},  {"Tanh", {}}, {"LeakyRelu", {attr_float("alpha", 0.1f)}},
      {"Erf", {}},     {"Gelu", {}}, {"Elu", {}}};
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16})
    for (int64_t n : kLengths)
      for (const auto& [op, attrs] : ops) {
        SCOPED_TRACE(op + " n " + std::to_string(n) + " " + std::string(data_type_name(t)));
        auto [h, f] = inputs(t, n, uint32_t(n), Shape{n});
        expect_rounded(run_node(op, {h}, attrs, 22)[0], run_node(op, {f}, attrs, 22)[0], t);
      }
}

TEST(MathHalfBlocks, BinaryOpsRoundTheFloatResult) {
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16})
    for (int64_t n : kLengths)
      for (const std::string op : {"Add", "Sub", "Mul", "Div"}) {
        SCOPED_TRACE(op + " n " + std::to_string(n) + " " + std::string(data_type_name(t)));
        auto [ha, fa] = inputs(t, n, uint32_t(n), Shape{1, n});
        auto [hb, fb] = inputs(t, n, uint32_t(n + 1), Shape{1, n});
        auto [hs, fs] = inputs(t, 1, 5, Shape{});
        expect_rounded(run_node(op, {ha, hb}, {}, 14)[0], run_node(op, {fa, fb}, {}, 14)[0], t);
        expect_rounded(run_node(op, {ha, hs}, {}, 14)[0], run_node(op, {fa, fs}, {}, 14)[0], t);
        expect_rounded(run_node(op, {hs, hb}, {}, 14)[0], run_node(op, {fs, fb}, {}, 14)[0], t);
      }
}

// Softmax and LogSoftmax rows (last axis: the float row loops; another axis:
// the column form) of half tensors: widened and rounded back in vectors.
TEST(MathHalfBlocks, SoftmaxRoundsTheFloatResult) {
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16})
    for (const std::string op : {"Softmax", "LogSoftmax"})
      for (auto [shape, axis] : {std::pair{Shape{3, 129}, -1}, std::pair{Shape{2, 1000}, -1},
                                 std::pair{Shape{5, 37}, 0}}) {
        SCOPED_TRACE(op + " " + shape.to_string() + " " + std::string(data_type_name(t)));
        auto [h, f] = inputs(t, shape.num_elements(), 9, shape);
        // Finite inputs only: a row with an infinity or NaN is all NaN.
        std::vector<float> v = random_floats(size_t(shape.num_elements()), 9, -4.f, 4.f);
        auto* bits = static_cast<uint16_t*>(h.mutable_raw_data());
        std::vector<float> w(v.size());
        for (size_t i = 0; i < v.size(); ++i) {
          bits[i] = to_half(t, v[i]);
          w[i] = from_half(t, bits[i]);
        }
        const std::vector<ir::Attribute> a = {attr_int("axis", axis)};
        expect_rounded(run_node(op, {h}, a, 13)[0], run_node(op, {f32(w, shape)}, a, 13)[0], t);
      }
}

}  // namespace
}  // namespace tessera::test::nn
