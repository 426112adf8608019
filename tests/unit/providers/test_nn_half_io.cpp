// float16 and bfloat16 tensors met by the float kernels of nn/ (with
// session.cpu_half_as_float=0, or a half node the transform leaves) are
// widened and rounded back in vector conversions: the result is the float
// kernel's output rounded to the half type, bit for bit, on sizes that end
// in a partial vector.
#include <cstring>

#include "unit/providers/nn_test_helpers.hpp"

namespace tessera::test::nn {
namespace {

// x rounded to the half type `t`, as a tensor of that type, and the same
// (exactly representable) values as float.
std::pair<Tensor, Tensor> half_and_float(const std::vector<float>& v, const Shape& s, DataType t) {
  std::vector<uint16_t> bits(v.size());
  std::vector<float> widened(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    bits[i] = t == DataType::kFloat16 ? Float16::from_float(v[i]) : BFloat16::from_float(v[i]);
    widened[i] =
        t == DataType::kFloat16 ? Float16::to_float(bits[i]) : float(BFloat16::from_bits(bits[i]));
  }
  Tensor h(t, s);
  std::memcpy(h.mutable_raw_data(), bits.data(), bits.size() * 2);
  return {std::move(h), f32(widened, s)};
}

void expect_rounded_float(const std::string& op, const std::vector<ir::Attribute>& attrs,
                          const Shape& s, DataType t) {
  SCOPED_TRACE(op + " " + s.to_string() + " " + std::string(data_type_name(t)));
  auto [h, f] = half_and_float(random_floats(size_t(s.num_elements()), 11, -3.f, 3.f), s, t);
  const Value got = run_node(op, {h}, attrs, 22)[0];
  const Value want = run_node(op, {f}, attrs, 22)[0];
  ASSERT_EQ(got.tensor().dtype(), t);
  ASSERT_EQ(got.tensor().shape(), want.tensor().shape());
  const auto* g = static_cast<const uint16_t*>(got.tensor().raw_data());
  const float* w = want.tensor().data<float>();
  for (int64_t i = 0; i < want.tensor().num_elements(); ++i) {
    const uint16_t r =
        t == DataType::kFloat16 ? Float16::from_float(w[i]) : BFloat16::from_float(w[i]);
    ASSERT_EQ(g[i], r) << "at " << i << " (float result " << w[i] << ")";
  }
}

TEST(NnHalfIo, PoolsAndNormsRoundTheFloatResult) {
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16})
    for (Shape s : {Shape{1, 3, 7, 9}, Shape{2, 5, 13, 11}}) {
      expect_rounded_float(
          "MaxPool", {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})}, s, t);
      expect_rounded_float("AveragePool",
                           {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})}, s, t);
      expect_rounded_float("GlobalAveragePool", {}, s, t);
      expect_rounded_float("LpNormalization", {attr_int("axis", -1)}, s, t);
    }
}

}  // namespace
}  // namespace tessera::test::nn
