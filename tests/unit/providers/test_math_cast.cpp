#include <cstdint>
#include <cstring>
#include <limits>

#include "unit/providers/test_math_util.hpp"

namespace tessera::test {

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

Tensor cast(Value in, DataType to, std::vector<ir::Attribute> extra = {}, int64_t opset = 25) {
  extra.push_back(attr_int("to", int64_t(to)));
  return run1("Cast", {std::move(in)}, std::move(extra), opset);
}
std::vector<uint8_t> bytes(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.raw_data());
  return std::vector<uint8_t>(p, p + t.byte_size());
}
}  // namespace

TEST(MathCast, FloatToIntegers) {
  auto r = cast(tv<float>({1.9f, -1.9f, kNaN, 3e9f}), DataType::kInt32);
  EXPECT_EQ(vec<int32_t>(r)[0], 1);
  EXPECT_EQ(vec<int32_t>(r)[1], -1);
  EXPECT_EQ(vec<int32_t>(r)[2], 0);  // NaN: defined as 0 here (no UB)
  r = cast(tv<float>({-1.0f, 256.0f}), DataType::kUInt8);
  EXPECT_EQ(vec<uint8_t>(r), (std::vector<uint8_t>{255, 0}));  // wraps like numpy
  r = cast(tv<double>({1e30}), DataType::kInt64);
  EXPECT_EQ(vec<int64_t>(r)[0], std::numeric_limits<int64_t>::max());
}

// A Cast to the type the input has keeps every bit (NaN payloads, -0,
// infinities, packed 4-bit pairs): float, int4 and float8.
TEST(MathCast, ToTheSameTypeKeepsTheBytes) {
  uint32_t payload = 0x7fc12345u;
  float nan_payload;
  std::memcpy(&nan_payload, &payload, sizeof(float));
  auto f = tv<float>({1.5f, -0.0f, kInf, nan_payload, -3e-39f});
  auto r = cast(f, DataType::kFloat);
  EXPECT_EQ(bytes(r), bytes(f.tensor()));
  Tensor i4(DataType::kInt4, Shape{5});
  const uint8_t packed[3] = {0x7f, 0x81, 0x0a};
  std::memcpy(i4.mutable_raw_data(), packed, 3);
  r = cast(Value(i4), DataType::kInt4);
  EXPECT_EQ(bytes(r), bytes(i4));
  Tensor f8(DataType::kFloat8E4M3FN, Shape{3});
  const uint8_t e4[3] = {0x7f, 0x80, 0x3c};
  std::memcpy(f8.mutable_raw_data(), e4, 3);
  r = cast(Value(f8), DataType::kFloat8E4M3FN);
  EXPECT_EQ(bytes(r), bytes(f8));
}

TEST(MathCast, IntegerWrapAndBool) {
  auto r = cast(tv<int16_t>({200, -1}), DataType::kInt8);
  EXPECT_EQ(vec<int8_t>(r), (std::vector<int8_t>{-56, -1}));
  r = cast(tv<int64_t>({-1}), DataType::kUInt64);
  EXPECT_EQ(vec<uint64_t>(r)[0], std::numeric_limits<uint64_t>::max());
  r = cast(tv<float>({0.0f, -0.0f, 0.1f, kNaN}), DataType::kBool);
  EXPECT_EQ(vec<bool>(r), (std::vector<bool>{false, false, true, true}));
  r = cast(tv<bool>({true, false}), DataType::kDouble);
  EXPECT_EQ(vec<double>(r), (std::vector<double>{1, 0}));
  r = cast(tv<int32_t>({36}), DataType::kBool);
  EXPECT_TRUE(vec<bool>(r)[0]);
}

TEST(MathCast, FloatWidths) {
  auto r = cast(tv<double>({1.0 / 3, 1e10}), DataType::kFloat16);
  EXPECT_NEAR(float(vec<Float16>(r)[0]), 0.33325195f, 1e-7);
  EXPECT_EQ(float(vec<Float16>(r)[1]), kInf);
  r = cast(tv<Float16>({Float16(0.5f)}), DataType::kBFloat16);
  EXPECT_EQ(float(vec<BFloat16>(r)[0]), 0.5f);
  r = cast(tv<uint64_t>({std::numeric_limits<uint64_t>::max()}), DataType::kFloat);
  EXPECT_EQ(vec<float>(r)[0], 18446744073709551616.0f);
}

// Random bools (a branch per element mispredicts; the bool kernel reads
// bytes) to every numeric type, on lengths that leave odd vector tails.
TEST(MathCast, BoolToNumbersAtEveryLength) {
  for (size_t n : {size_t(1), size_t(7), size_t(33), size_t(1000), size_t(16387)}) {
    std::vector<bool> b(n);
    for (size_t i = 0; i < n; ++i) b[i] = ((i * 2654435761u) >> 7) & 1;
    const Value in = tv<bool>(b);
    const auto f = vec<float>(cast(in, DataType::kFloat));
    const auto i64 = vec<int64_t>(cast(in, DataType::kInt64));
    const auto u8 = vec<uint8_t>(cast(in, DataType::kUInt8));
    const auto h = vec<Float16>(cast(in, DataType::kFloat16));
    const auto back = vec<bool>(cast(in, DataType::kBool));
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(f[i], b[i] ? 1.f : 0.f) << "n " << n << " at " << i;
      ASSERT_EQ(i64[i], b[i] ? 1 : 0) << "n " << n << " at " << i;
      ASSERT_EQ(u8[i], b[i] ? 1 : 0) << "n " << n << " at " << i;
      ASSERT_EQ(float(h[i]), b[i] ? 1.f : 0.f) << "n " << n << " at " << i;
      ASSERT_EQ(back[i], b[i]) << "n " << n << " at " << i;
    }
  }
}

// float <-> bfloat16 through the kernel: rounding to nearest even at the
// ties, subnormals kept, overflow to infinity, NaN stays NaN, odd lengths.
TEST(MathCast, FloatAndBFloat16BothWays) {
  std::vector<float> f;
  for (uint32_t bits : {0x3f808000u, 0x3f818000u, 0x3f808001u, 0x3f80ffffu, 0x00000001u,
                        0x00400000u, 0x807fffffu, 0x7f7fffffu, 0xff7f8000u, 0x7f800000u,
                        0xff800000u, 0x80000000u, 0x7fc00000u, 0x7f800001u, 0xffa00000u})
    f.push_back(bits_float(bits));
  for (int i = 0; i < 20; ++i) f.push_back(float(i) * 0.3f - 2.f);
  for (size_t n : {f.size(), f.size() - 4, size_t(3)}) {
    const std::vector<float> x(f.begin(), f.begin() + std::ptrdiff_t(n));
    const auto b = vec<BFloat16>(cast(tv<float>(x), DataType::kBFloat16));
    for (size_t i = 0; i < n; ++i) {
      if (std::isnan(x[i])) {
        EXPECT_TRUE(std::isnan(float(b[i]))) << "at " << i;
        continue;
      }
      ASSERT_EQ(b[i].bits, BFloat16::from_float(x[i])) << "float bits " << float_bits(x[i]);
    }
    const auto back = vec<float>(cast(tv<BFloat16>(b), DataType::kFloat));
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(float_bits(back[i]), uint32_t(b[i].bits) << 16) << "at " << i;
  }
  // The ties go to even: 1 + 2^-8 rounds down to 1, 1 + 3 * 2^-8 up to 1 + 2^-6.
  const auto t = vec<BFloat16>(
      cast(tv<float>({bits_float(0x3f808000u), bits_float(0x3f818000u)}), DataType::kBFloat16));
  EXPECT_EQ(t[0].bits, 0x3f80);
  EXPECT_EQ(t[1].bits, 0x3f82);
}

TEST(MathCast, Strings) {
  auto r = cast(tv<std::string>({"3.5", "1e-5", "INF", "-inf", "NaN", " 2 "}), DataType::kFloat);
  auto v = vec<float>(r);
  EXPECT_EQ(v[0], 3.5f);
  EXPECT_FLOAT_EQ(v[1], 1e-5f);
  EXPECT_EQ(v[2], kInf);
  EXPECT_EQ(v[3], -kInf);
  EXPECT_TRUE(std::isnan(v[4]));
  EXPECT_EQ(v[5], 2.0f);
  r = cast(tv<std::string>({"9007199254740993", "-4"}), DataType::kInt64);
  EXPECT_EQ(vec<int64_t>(r), (std::vector<int64_t>{9007199254740993LL, -4}));
  r = cast(tv<float>({0.5f, -kInf, 314.15926f}), DataType::kString);
  EXPECT_EQ(vec<std::string>(r), (std::vector<std::string>{"0.5", "-INF", "314.15927"}));
  r = cast(tv<int32_t>({-12}), DataType::kString);
  EXPECT_EQ(vec<std::string>(r)[0], "-12");
  EXPECT_THROW(cast(tv<std::string>({"Hello"}), DataType::kFloat), Error);
}

TEST(MathCast, Float8SaturateAndNot) {
  auto r = cast(tv<float>({1000.0f, -kInf, 0.5f}), DataType::kFloat8E4M3FN);
  EXPECT_EQ(bytes(r), (std::vector<uint8_t>{0x7e, 0xfe, 0x30}));  // 448, -448, 0.5
  r = cast(tv<float>({1000.0f, kInf}), DataType::kFloat8E4M3FN, {attr_int("saturate", 0)});
  EXPECT_EQ(bytes(r)[0] & 0x7f, 0x7f);  // NaN
  r = cast(tv<float>({kInf}), DataType::kFloat8E5M2, {attr_int("saturate", 0)});
  EXPECT_EQ(bytes(r)[0], 0x7c);  // inf
  // Back to float.
  Tensor f8(DataType::kFloat8E4M3FN, Shape{2});
  auto* p = static_cast<uint8_t*>(f8.mutable_raw_data());
  p[0] = 0x7e;
  p[1] = 0x38;
  r = cast(Value(f8), DataType::kFloat);
  EXPECT_EQ(vec<float>(r), (std::vector<float>{448.0f, 1.0f}));
}

TEST(MathCast, PackedIntegersWrap) {
  // Matches the ONNX reference: -9 -> 7 and 8 -> -8 for int4.
  auto r = cast(tv<float>({-9, -8, 7, 8, 1}), DataType::kInt4);
  EXPECT_EQ(bytes(r), (std::vector<uint8_t>{0x87, 0x87, 0x01}));
  Tensor i4(DataType::kInt4, Shape{3});
  std::memcpy(i4.mutable_raw_data(), "\x87\x0f", 2);
  r = cast(Value(i4), DataType::kInt8);
  EXPECT_EQ(vec<int8_t>(r), (std::vector<int8_t>{7, -8, -1}));
  r = cast(tv<int32_t>({-3, -2, -1, 0, 1, 2, 3}), DataType::kInt2);
  EXPECT_EQ(bytes(r), (std::vector<uint8_t>{0x39, 0x39}));
}

TEST(MathCast, E8M0RoundModes) {
  auto r = cast(tv<float>({3.0f, 5.0f, 0.0f}), DataType::kFloat8E8M0);
  EXPECT_EQ(bytes(r), (std::vector<uint8_t>{128 + 1, 127 + 3, 0}));  // up: 4, 8
  r = cast(tv<float>({3.0f, 5.0f}), DataType::kFloat8E8M0, {attr_string("round_mode", "down")});
  EXPECT_EQ(bytes(r), (std::vector<uint8_t>{128, 129}));
  r = cast(tv<float>({3.0f, 5.0f, 0.0f}), DataType::kFloat8E8M0,
           {attr_string("round_mode", "nearest"), attr_int("saturate", 0)});
  EXPECT_EQ(bytes(r), (std::vector<uint8_t>{129, 129, 0xff}));
}

TEST(MathCast, OpsetOneStringTypeAndCastLike) {
  ir::Attribute to = attr_string("to", "INT32");
  auto r = run1("Cast", {tv<float>({2.5f})}, {to}, 1);
  EXPECT_EQ(r.dtype(), DataType::kInt32);
  EXPECT_EQ(vec<int32_t>(r)[0], 2);
  r = run1("CastLike", {tv<float>({2.5f, -1}), tv<double>({0}, Shape{})}, {}, 21);
  EXPECT_EQ(r.dtype(), DataType::kDouble);
  EXPECT_EQ(vec<double>(r), (std::vector<double>{2.5, -1}));
  EXPECT_THROW(run1("Cast", {tv<float>({1})}, {attr_int("to", 999)}), Error);
}

}  // namespace tessera::test
