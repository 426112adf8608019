#include <cmath>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

TEST(MathSoftmax, LastAxisIsStable) {
  auto r = run1("Softmax", {tv<float>({1000, 1001, 1002, 0, 0, 0}, Shape{2, 3})}, {}, 13);
  expect_near_all(vec<float>(r),
                  {0.09003057f, 0.24472847f, 0.66524096f, 1 / 3.f, 1 / 3.f, 1 / 3.f});
  r = run1("LogSoftmax", {tv<float>({1000, 1001, 1002})}, {}, 13);
  expect_near_all(vec<float>(r), {-2.4076059f, -1.4076059f, -0.4076059f});
}

TEST(MathSoftmax, InnerAxisAndNegativeAxis) {
  // [2,2,2] along axis 1 (== -2): pairs (x[i,0,k], x[i,1,k]).
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  auto a = run1("Softmax", {tv<float>(x, Shape{2, 2, 2})}, {attr_int("axis", 1)}, 13);
  auto b = run1("Softmax", {tv<float>(x, Shape{2, 2, 2})}, {attr_int("axis", -2)}, 13);
  EXPECT_EQ(vec<float>(a), vec<float>(b));
  float lo = 1 / (1 + std::exp(2.0f)), hi = 1 - lo;
  expect_near_all(vec<float>(a), {lo, lo, hi, hi, lo, lo, hi, hi});
}

TEST(MathSoftmax, LegacyCoercesTo2D) {
  // Opset 11, axis 1 on [1,2,2]: softmax over the 4 trailing elements.
  auto r = run1("Softmax", {tv<float>({0, 0, 0, 0}, Shape{1, 2, 2})}, {}, 11);
  expect_near_all(vec<float>(r), {0.25f, 0.25f, 0.25f, 0.25f});
  r = run1("Hardmax", {tv<float>({1, 3, 3, 2}, Shape{1, 2, 2})}, {}, 11);
  expect_near_all(vec<float>(r), {0, 1, 0, 0});
  r = run1("Hardmax", {tv<float>({1, 3, 3, 2}, Shape{2, 2})}, {attr_int("axis", 0)}, 13);
  expect_near_all(vec<float>(r), {0, 1, 1, 0});
  EXPECT_THROW(run1("Softmax", {tv<float>({1, 2})}, {attr_int("axis", 2)}, 13), Error);
}

TEST(MathSoftmax, HalfAndEmpty) {
  auto r = run1("Softmax", {tv<Float16>({Float16(0.0f), Float16(0.0f)})}, {}, 13);
  EXPECT_EQ(float(vec<Float16>(r)[0]), 0.5f);
  r = run1("Softmax", {tv<float>({}, Shape{0, 3})}, {}, 13);
  EXPECT_EQ(r.shape(), Shape({0, 3}));
}

TEST(MathDet, BatchedDeterminants) {
  auto r = run1("Det", {tv<float>({1, 2, 3, 4, 2, 0, 0, 2}, Shape{2, 2, 2})}, {}, 11);
  EXPECT_EQ(r.shape(), Shape({2}));
  expect_near_all(vec<float>(r), {-2, 4});
  r = run1("Det", {tv<double>({0, 1, 1, 0}, Shape{2, 2})}, {}, 22);
  EXPECT_EQ(vec<double>(r)[0], -1);
  EXPECT_THROW(run1("Det", {tv<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3})}, {}, 22), Error);
}

TEST(MathRegistry, EveryOpsetVersionHasAKernel) {
  const auto& reg = cpu::cpu_kernel_registry();
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    for (int64_t v = 1; v <= 24; ++v)
      EXPECT_TRUE(reg.lookup("", op, v, {DataType::kFloat, DataType::kFloat}).entry)
          << op << " opset " << v;
  EXPECT_TRUE(reg.lookup("", "Cast", 1, {DataType::kFloat}).entry);
  EXPECT_TRUE(reg.lookup("", "Cast", 25, {DataType::kInt2}).entry);
  EXPECT_FALSE(reg.lookup("", "Cast", 24, {DataType::kInt2}).entry);
  EXPECT_FALSE(reg.lookup("", "Round", 10, {DataType::kFloat}).entry);
  EXPECT_TRUE(reg.lookup("", "ReduceMax", 20, {DataType::kBool}).entry);
  EXPECT_FALSE(reg.lookup("", "ReduceMax", 18, {DataType::kBool}).entry);
  EXPECT_TRUE(reg.lookup("", "Swish", 24, {DataType::kFloat}).entry);
}

}  // namespace tessera::test
