#include <gtest/gtest.h>

#include <cmath>

#include "core/float16.hpp"
#include "core/float8.hpp"

using namespace tessera;

TEST(Float16, RoundTripsEveryHalf) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = Float16::to_float(uint16_t(b));
    if (std::isnan(f)) continue;
    EXPECT_EQ(Float16::from_float(f), uint16_t(b)) << b;
  }
}

TEST(Float16, RoundsToNearestEven) {
  EXPECT_EQ(Float16::from_float(1.0f + 1.0f / 2048), 0x3c00);      // tie -> even (1.0)
  EXPECT_EQ(Float16::from_float(1.0f + 3.0f / 2048), 0x3c02);      // tie -> even (up)
  EXPECT_EQ(Float16::from_float(65520.0f), 0x7c00);                // rounds to inf
  EXPECT_EQ(Float16::from_float(65519.0f), 0x7bff);
  EXPECT_EQ(Float16::from_float(std::ldexp(1.0f, -24)), 0x0001);   // smallest subnormal
  EXPECT_EQ(Float16::from_float(std::ldexp(1.0f, -26)), 0x0000);
}

TEST(BFloat16, RoundTrip) {
  EXPECT_EQ(float(BFloat16(1.5f)), 1.5f);
  EXPECT_TRUE(std::isnan(float(BFloat16(NAN))));
}

TEST(Float8, E4M3FNDecodeEncode) {
  EXPECT_EQ(float8_to_float(DataType::kFloat8E4M3FN, 0x7e), 448.0f);
  EXPECT_TRUE(std::isnan(float8_to_float(DataType::kFloat8E4M3FN, 0x7f)));
  EXPECT_EQ(float_to_float8(DataType::kFloat8E4M3FN, 1000.0f, true), 0x7e);
  EXPECT_EQ(float_to_float8(DataType::kFloat8E4M3FN, 1.0f), 0x38);
  EXPECT_EQ(float8_to_float(DataType::kFloat8E5M2, 0x7c), INFINITY);
  EXPECT_EQ(float8_to_float(DataType::kFloat8E4M3FNUZ, 0x7f), 240.0f);
}

TEST(PackedInt, Int4SignExtends) {
  uint8_t b[1] = {0};
  set_packed_int(DataType::kInt4, b, 0, -3);
  set_packed_int(DataType::kInt4, b, 1, 7);
  EXPECT_EQ(get_packed_int(DataType::kInt4, b, 0), -3);
  EXPECT_EQ(get_packed_int(DataType::kInt4, b, 1), 7);
  set_packed_int(DataType::kInt4, b, 1, 100);  // clamps
  EXPECT_EQ(get_packed_int(DataType::kInt4, b, 1), 7);
}
