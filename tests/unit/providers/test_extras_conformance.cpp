// The one-node ONNX conformance cases of the extras family, run through the
// kernels directly (no session). Each test checks how many cases it found, so
// a renamed suite cannot pass silently; without the suite the tests skip.
#include "unit/providers/family_conformance_util.hpp"

namespace tessera::test {

TEST(ExtrasConformance, CumProd) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_cumprod"), 9);
}
TEST(ExtrasConformance, BitCast) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_bitcast"), 10);
}
TEST(ExtrasConformance, SwiGLU) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_swiglu"), 3);
}
TEST(ExtrasConformance, DeformConv) {
  if (!conformance_suite_present()) GTEST_SKIP() << "no conformance suite here";
  EXPECT_EQ(run_conformance_prefix("test_deform") + run_conformance_prefix("test_basic_deform"), 4);
}

}  // namespace tessera::test
